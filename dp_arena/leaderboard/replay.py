"""The duplicate hand viewer: hands as data a page can step through, street by street, and
the self-contained page that shows them (``dp-arena replay --html``, published events'
hand pages, the server's match pages).

:func:`hand_view` replays a finished hand through the engine again and keeps a frame
after the blinds and after every action: the street, who acted and how, the pot, every
seat's bet on the street, the chips each has left this deal, who has folded and the
board cards shown so far. :func:`deal_views` puts the hands of one deal at its mirrored
tables together. The page (``replay_assets/replay.js``) shows a deal at all its tables
side by side, seat by seat in the same rows (the same cards), and steps them together:
it opens at the deal's end, with every table's action log and result in view, steps
back and forth with the buttons or the arrow keys (Home: the blinds, End: the result),
goes from deal to deal, or jumps to the biggest pots. Every name is text the page puts
in with ``textContent``, never markup, and the hands' JSON is embedded so that no ``<``
of a name can close its script element.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dp_arena.engine import Action, ActionKind, HandState
from dp_arena.engine.cards import format_cards
from dp_arena.engine.rules import TableRules
from dp_arena.ratings.equity import recorded_hand, replay
from dp_arena.results import DealRecord
from dp_arena.text import printable

__all__ = [
    "ASSETS",
    "deal_view",
    "deal_views",
    "hand_view",
    "record_view",
    "render_replay_page",
    "viewer_parts",
]

ASSETS = Path(__file__).resolve().parent / "replay_assets"


def _action(kind: ActionKind, raise_to: int | None) -> Action:
    if kind is ActionKind.RAISE:
        assert raise_to is not None
        return Action.raise_to(raise_to)
    return {
        ActionKind.FOLD: Action.fold(),
        ActionKind.CHECK: Action.check(),
        ActionKind.CALL: Action.call(),
    }[kind]


def _frame(state: HandState, text: str, seat: int | None) -> dict[str, Any]:
    return {
        "street": state.street.name.lower(),
        "seat": seat,
        "text": text,
        "pot": state.pot_total,
        "bets": list(state.street_bets),
        "stacks": list(state.available),
        "folded": list(state.folded),
        "board": format_cards(state.visible_board),
    }


def hand_view(state: HandState, players: Sequence[str], *, title: str) -> dict[str, Any]:
    """The frames of a finished hand (``players`` name its seats, in seat order)."""
    if not state.is_complete or state.payoffs is None:
        raise ValueError("hand_view: the hand is not over")
    again = HandState(
        state.rules,
        button=state.button,
        stacks=state.starting_stacks,
        hole_cards=state.hole_cards,
        board=state.board,
        absent=[seat for seat, absent in enumerate(state.absent) if absent],
    )
    names = [printable(name, 80) for name in players]
    frames = [_frame(again, "blinds posted", None)]
    for record in state.history:
        again.apply(_action(record.kind, record.raise_to))
        amount = f" {record.raise_to}" if record.kind is ActionKind.RAISE else ""
        if record.kind is ActionKind.CALL:
            amount = f" {record.chips}"
        verb = record.kind.value + ("s" if record.kind is not ActionKind.RAISE else "s to")
        all_in = " (all in)" if record.all_in else ""
        frames.append(_frame(again, f"{names[record.seat]} {verb}{amount}{all_in}", record.seat))
    nets = list(state.payoffs)
    winners = [names[seat] for seat, net in enumerate(nets) if net > 0]
    summary = ", ".join(f"{name} wins {nets[names.index(name)]}" for name in winners) or "no winner"
    final = _frame(again, summary, None)
    final["board"] = format_cards(state.visible_board)
    frames.append(final)
    return {
        "title": printable(title, 120),
        "players": names,
        "button": state.button,
        "blinds": [state.rules.small_blind, state.rules.big_blind],
        "hole": [
            None if hole is None or state.absent[seat] else format_cards(hole)
            for seat, hole in enumerate(state.hole_cards)
        ],
        "nets": nets,
        "pot": again.pot_total,
        "frames": frames,
    }


def record_view(record: DealRecord, rules: TableRules, *, title: str) -> dict[str, Any]:
    """The frames of one deal of a table-session's results."""
    return hand_view(replay(rules, **recorded_hand(record)), record.players, title=title)


def deal_view(
    title: str, tables: Sequence[dict[str, Any]], *, result: bool = True
) -> dict[str, Any]:
    """One deal at its mirrored tables (``tables``: each table's :func:`hand_view`, in
    table order), with (``result``) each player's net over its seats at all of them: the
    deal's duplicate result, when the same players sit at every table (a match; in an
    event's section each seat position is compared at the tables' rows instead)."""
    data: dict[str, Any] = {"title": printable(title, 120), "tables": list(tables)}
    same = len({frozenset(hand["players"]) for hand in tables}) == 1
    if result and len(tables) > 1 and same:
        chips: dict[str, int] = {}
        for hand in tables:
            for name, net in zip(hand["players"], hand["nets"], strict=True):
                chips[name] = chips.get(name, 0) + net
        data["result"] = [{"player": name, "chips": net} for name, net in chips.items()]
    return data


def deal_views(
    hands: Sequence[dict[str, Any]], keys: Sequence[Any], titles: dict[Any, str]
) -> list[dict[str, Any]]:
    """Hand views grouped by deal: ``keys[i]`` names the deal of ``hands[i]`` (hands of
    one key are its tables, in the order given), ``titles[key]`` its title; deals in the
    order their first hand comes."""
    grouped: dict[Any, list[dict[str, Any]]] = {}
    for hand, key in zip(hands, keys, strict=True):
        grouped.setdefault(key, []).append(hand)
    return [deal_view(titles[key], tables) for key, tables in grouped.items()]


def _asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


def _hash(source: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode()


def hands_json(hands: Sequence[dict[str, Any]]) -> str:
    """The hands as JSON safe inside a ``<script type="application/json">`` element."""
    text = json.dumps(list(hands), separators=(",", ":"), ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def viewer_parts() -> tuple[str, str]:
    """The viewer's style sheet and script, as the server serves them."""
    return _asset("replay.css"), _asset("replay.js")


VIEWER_BODY = """<div class="replay" id="replay">
<div class="replay-bar">
<button type="button" data-go="prev-hand" title="previous deal (Page Up)">&laquo; deal</button>
<button type="button" data-go="start" title="the blinds (Home)">&#x25C0;&#x25C0; start</button>
<button type="button" data-go="back" title="step back (left arrow)">&#x25C0; step</button>
<button type="button" data-go="step" title="step forward (right arrow)">step &#x25B6;</button>
<button type="button" data-go="end" title="every table's result (End)">end &#x25B6;&#x25B6;</button>
<button type="button" data-go="next-hand" title="next deal (Page Down)">deal &raquo;</button>
<label>deal <select data-role="hands"></select></label>
<label>big pots <select data-role="big"></select></label>
</div>
<p class="replay-title" data-role="title"></p>
<p class="replay-summary" data-role="summary"></p>
<p class="replay-step" data-role="step"></p>
<div class="replay-tables" data-role="tables"></div>
</div>
"""


# The page around the viewer when it stands alone (a published hand page, replay --html).
_PAGE_STYLE = (
    "body{font:15px/1.4 system-ui,sans-serif;color:#1a1a1a;background:#fafafa;"
    "max-width:90rem;margin:1.5rem auto;padding:0 1rem}h1{font-size:1.5rem;margin:0 0 1rem}"
)


def render_replay_page(hands: Sequence[dict[str, Any]], *, title: str) -> str:
    """A self-contained page (no network, no file beside it) replaying ``hands``: deals
    (:func:`deal_view`), or lone hands (:func:`hand_view`, each a deal of one table)."""
    style, script = viewer_parts()
    style = _PAGE_STYLE + style
    policy = (
        f"default-src 'none'; style-src '{_hash(style)}'; script-src '{_hash(script)}';"
        " base-uri 'none'; form-action 'none'"
    )
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(printable(title, 200))}</title>\n"
        f"<style>{style}</style>\n</head>\n<body>\n"
        f"<h1>{html.escape(printable(title, 200))}</h1>\n"
        f"{VIEWER_BODY}"
        f'<script type="application/json" id="hands">{hands_json(hands)}</script>\n'
        f"<script>{script}</script>\n</body>\n</html>\n"
    )
