"""``dp-arena replay``: replay PHH hand histories through the engine and report the stacks."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from dp_arena.engine.phh import load_histories, read_text, replay_hand
from dp_arena.errors import HandHistoryError

HISTORY_SUFFIXES = (".phh", ".phhs")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = (
        "Replay PHH hand histories (.phh: one hand; .phhs: many) through dp-arena's engine\n"
        "and print each hand's finishing stacks and nets, in PHH player order (p1 first).\n"
        "Honours the _betting and _cap user fields that dp-arena writes; refuses antes,\n"
        "straddles and variants other than NT. See docs/phh.md."
    )
    parser.epilog = (
        "With --json, one JSON object per line per hand:\n"
        '  {"file": "a.phh", "finishing_stacks": [1060, 940], "nets": [60, -60], "error": null}\n'
        'a .phhs file adds "hand" (the hand\'s table name); a failed hand gives\n'
        '"finishing_stacks": null and an "error" naming the file and the action at fault.\n'
        "Exit status: 0 when every hand replayed, 1 when any failed."
    )
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="PHH/PHHS files; a directory stands for every .phh and .phhs file under it",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per hand")
    parser.add_argument(
        "--check",
        action="store_true",
        help="also fail a hand whose recorded finishing_stacks disagree with the replay"
        " (a recorded half chip agrees within one chip)",
    )
    parser.add_argument(
        "--html",
        type=Path,
        metavar="OUT",
        help="also write OUT, a self-contained page replaying every hand street by street"
        " (step through, jump to the big pots), as the server's match pages do; the hands"
        " of one deal at mirrored tables (dp-arena's histories of one section, given"
        " together) are shown side by side",
    )


def run(args: argparse.Namespace) -> int:
    failed = False
    views: list[dict[str, Any]] | None = [] if args.html else None
    for report in _reports(args.files, check=args.check, views=views):
        failed = failed or report["error"] is not None
        _print(report, as_json=args.json, out=sys.stdout)
    if args.html is not None and views is not None:
        from dp_arena.leaderboard.replay import render_replay_page

        title = f"Hands of {', '.join(Path(name).name for name in args.files)}"
        deals = _deals(views)
        args.html.write_text(render_replay_page(deals, title=title), encoding="utf-8")
        print(
            f"wrote {args.html}: {len(views)} hand(s) of {len(deals)} deal(s) to replay",
            file=sys.stderr,
        )
    return 1 if failed else 0


_WHERE = ("_session", "_section", "_table", "_deal")


def _view(result: Any, hand: Any) -> dict[str, Any]:
    from dp_arena.leaderboard.replay import hand_view

    count = result.state.seat_count
    names = hand.fields.get("players")
    if not (isinstance(names, list) and len(names) == count):
        names = [f"p{index + 1}" for index in range(count)]
    view = hand_view(result.state, [str(name) for name in names], title=hand.where)
    values = [hand.fields.get(name) for name in _WHERE]
    if all(type(value) is int for value in values):
        view["where"] = values  # where dp-arena dealt it: session, section, table, deal
    return view


def _deals(views: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The hands grouped by deal: those dealt by dp-arena in one deal of one section (at
    its mirrored tables) together, tables in order; any other hand alone."""
    from dp_arena.leaderboard.replay import deal_views

    keys: list[tuple[int, ...]] = []
    places: list[tuple[int, ...]] = []
    titles: dict[Any, str] = {}
    for number, view in enumerate(views):
        where = view.pop("where", None)
        if where is None:  # alone, after dp-arena's, in the order given
            key: tuple[int, ...] = (1, number)
            titles[key] = view["title"]
            places.append(key)
        else:
            session, section, table, deal = where
            key = (0, session, section, deal)
            titles[key] = f"deal {deal + 1}, session {session}, section {section}"
            view["title"] = f"table {table}"
            places.append((*key, table))
        keys.append(key)
    order = sorted(range(len(views)), key=lambda index: (places[index], index))
    return deal_views([views[index] for index in order], [keys[index] for index in order], titles)


def _paths(arguments: list[str]) -> Iterator[Path]:
    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            found = sorted(
                p for p in path.rglob("*") if p.suffix in HISTORY_SUFFIXES and p.is_file()
            )
            yield from found or [path]  # an empty directory is reported as an error
        else:
            yield path


def _reports(
    arguments: list[str], *, check: bool, views: list[dict[str, Any]] | None = None
) -> Iterator[dict[str, Any]]:
    for path in _paths(arguments):
        file = str(path)
        try:
            if path.is_dir():
                raise HandHistoryError("no .phh or .phhs files in this directory", file=file)
            hands = load_histories(read_text(path), file=file)
        except HandHistoryError as error:
            yield {"file": file, "finishing_stacks": None, "nets": None, "error": str(error)}
            continue
        for hand in hands:
            report: dict[str, Any] = {"file": file}
            if hand.hand is not None:
                report["hand"] = hand.hand
            try:
                result = replay_hand(hand)
            except HandHistoryError as error:
                report |= {"finishing_stacks": None, "nets": None, "error": str(error)}
            else:
                error_text = None
                if check and result.matches_recorded() is False:
                    recorded = [_number(value) for value in result.recorded_finishing_stacks or ()]
                    error_text = (
                        f"{hand.where}: the replay gives finishing stacks"
                        f" {list(result.finishing_stacks)}, the file records {recorded}"
                    )
                if views is not None:
                    views.append(_view(result, hand))
                report |= {
                    "finishing_stacks": list(result.finishing_stacks),
                    "nets": list(result.nets),
                    "error": error_text,
                }
            yield report


def _number(value: Any) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def _print(report: dict[str, Any], *, as_json: bool, out: TextIO) -> None:
    if as_json:
        out.write(json.dumps(report) + "\n")
        return
    name = report["file"] + (f"[{report['hand']}]" if "hand" in report else "")
    if report["finishing_stacks"] is not None:
        stacks = " ".join(str(stack) for stack in report["finishing_stacks"])
        nets = " ".join(f"{net:+d}" for net in report["nets"])
        out.write(f"{name}: finishing stacks {stacks} (nets {nets})\n")
    if report["error"] is not None:
        out.write(f"error: {report['error']}\n")
