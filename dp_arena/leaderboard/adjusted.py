"""The adjusted score reported beside the raw duplicate score: a correction for the luck
that duplicate dealing leaves in (the same cards still fall on different pots at the
mirrored tables once their players play differently).

An :class:`AdjustedScore` is one way of computing it: its name and a sentence for the
page, the adjusted nets it computes from each deal record, and what it needs of a run.
The leaderboard takes one as an option
(:class:`~dp_arena.leaderboard.model.LeaderboardOptions`) and renders whatever the data
says about it; the raw score is always there beside it. Three are offered
(:data:`ADJUSTMENTS`): the luck of the board and of the actions the dealer drew from
bots' mixed strategies (``board+action``, the default), the board-luck correction alone,
and the all-in equity adjustment, its special case for hands that went all in. Each
names the **terms** it takes out (``board``, ``action``, ``all-in``): a run in which no
bot answered with a mixed strategy has no action terms, and there ``board+action`` and
``board-luck`` are the same numbers.

The action terms value each action of a mix by a fixed blend of the chips in and the
cards, unless the run's deal records hold values of their own: those that ``dp-arena
rollouts`` played after the event (``rollouts.sqlite``). :meth:`AdjustedScore.described`
then names the rollouts in the label and the sentence, and says so when only some of the
events have them: the events are ranked together all the same, as each term averages
zero whichever value it uses; only the noise taken out differs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from dp_arena.ratings.action_luck import board_action_nets
from dp_arena.ratings.board_luck import corrected_nets
from dp_arena.ratings.duplicate import ScoreMatrix, score_matrix
from dp_arena.ratings.equity import all_in_nets
from dp_arena.ratings.runs import DealBlock, EventRecord, NetAdjustment

__all__ = ["ADJUSTMENTS", "ALL_IN_EQUITY", "BOARD_ACTION", "BOARD_LUCK", "AdjustedScore"]


@dataclass(frozen=True, slots=True)
class AdjustedScore:
    """``key`` names it in ``leaderboard.json``; ``label`` heads its columns; ``about``
    says in a sentence or two what it does; ``nets`` computes a deal's adjusted nets from
    its record (the run's checkpoint store keeps them: ``load_run(adjust=nets)``);
    ``terms`` names the kinds of luck it takes out."""

    key: str
    label: str
    about: str
    nets: NetAdjustment
    terms: tuple[str, ...] = ()

    def missing(self, event: EventRecord) -> str | None:
        """Why ``event`` cannot be adjusted (``None`` when it can)."""
        if event.has_adjusted:
            return None
        return f"run {event.label} has no checkpoint store (store.sqlite) with its deal records"

    def described(self, events: Sequence[EventRecord]) -> AdjustedScore:
        """Itself, its label and sentence naming the rollouts whose values ``events``' deal
        records hold, when it has action terms and some do (else itself, unchanged)."""
        rolled = [event.rollouts for event in events if event.rollouts is not None]
        if "action" not in self.terms or not rolled:
            return self
        counts = ", ".join(str(count) for count in sorted(set(rolled)))
        some = len(rolled) < len(events)
        where = f" in {len(rolled)} of {len(events)} events" if some else ""
        about = (
            f" Each action's value comes from rollouts{where} ({counts} per action of every"
            " mix, played after the event by fresh copies of the table's bots with the"
            " deal's cards)"
            + (
                "; in the other events from a fixed blend of the chips in and the cards."
                if some
                else "."
            )
        )
        return replace(
            self, label=f"{self.label} (rollouts {counts}{where})", about=self.about + about
        )

    def scores(self, blocks: Iterable[DealBlock], competitor: Callable[[str], str]) -> ScoreMatrix:
        """The per-block adjusted scores (the blocks were read with :attr:`nets`)."""
        return score_matrix(blocks, competitor, adjusted=True)


BOARD_ACTION = AdjustedScore(
    key="board+action",
    label="Luck-adjusted",
    about=(
        "The luck-adjusted score takes out of each net the luck of every board card (the"
        " change the card made to the player's exact expected net at showdown, with the"
        " chips in when it came, over every possible rest of the board) and of every"
        " action the dealer drew from a bot's mixed strategy (the drawn action's value"
        " minus the mix's average value, for every player). Each term averages zero over"
        " what could have come or been drawn, whatever the bots do, so nothing is biased"
        " and nothing is fitted; the players' decisions are kept."
    ),
    nets=board_action_nets,
    terms=("board", "action"),
)

BOARD_LUCK = AdjustedScore(
    key="board-luck",
    label="Board-luck adjusted",
    about=(
        "The board-luck adjusted score takes the luck of every board card out of each net:"
        " the change the card made to the player's exact expected net at showdown, with"
        " the chips in when it came, over every possible rest of the board. Each card's"
        " luck averages zero over the cards that could have come, so nothing is biased and"
        " nothing is fitted; the players' decisions (and the dealer's draws from mixed"
        " strategies) are kept."
    ),
    nets=corrected_nets,
    terms=("board",),
)

ALL_IN_EQUITY = AdjustedScore(
    key="all-in",
    label="All-in adjusted",
    about=(
        "The all-in adjusted score replaces the nets of every deal whose betting ended"
        " before the river by their exact expectation over every remaining board."
    ),
    nets=all_in_nets,
    terms=("all-in",),
)

ADJUSTMENTS = {
    adjustment.key: adjustment for adjustment in (BOARD_ACTION, BOARD_LUCK, ALL_IN_EQUITY)
}
