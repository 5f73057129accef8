"""Ratings across events: an OpenSkill (Weng-Lin Plackett-Luce) rating per bot, updated
from every seat-position comparison of every event, with a history per bot.

Each seat position of each section (or round-robin mini-match) of each session is one
game: its entrants held the same cards in the same seat, and the rules ranked them
(total chips, then the tie-breakers; places a random draw decided count as ties). A
bot is rated under its :func:`~dp_arena.ratings.runs.bot_identity` (``name@version``
for registry bots): when one bot has several entrants in one game, it takes part once,
at their mean place. Games are rated in a fixed order (events in the order given to
:func:`rate_events`, then session, section, seat), so rating the same stored results
again gives the same ratings, and rating events one at a time
(:func:`rate_event` on the state of the previous ones) gives the same ratings as
rating them all at once.

``tau`` is the drift added to every rating's uncertainty before each game; bots do not
change between games, so it is 0 by default. The conservative **ordinal**
``mu - 3 sigma`` orders the table: a bot ranks high only once it is both good and well
measured.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from dp_arena.ratings.runs import EventRecord

__all__ = [
    "BotRating",
    "HistoryPoint",
    "RatingSettings",
    "Ratings",
    "event_games",
    "order_events",
    "rate_event",
    "rate_events",
]


@dataclass(frozen=True, slots=True)
class RatingSettings:
    """The Plackett-Luce model's parameters: a new bot's ``mu`` and ``sigma``, the
    performance spread ``beta`` and the drift ``tau`` per game (OpenSkill's defaults
    but ``tau``, which is 0 for bots that do not change)."""

    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    tau: float = 0.0

    def __post_init__(self) -> None:
        finite = all(math.isfinite(value) for value in (self.sigma, self.beta, self.tau))
        if not finite or not self.sigma > 0 or not self.beta > 0 or not self.tau >= 0:
            raise ValueError(
                "rating settings: sigma and beta must be positive and tau not negative, all finite"
            )

    def model(self) -> Any:
        from openskill.models import PlackettLuce

        return PlackettLuce(mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau)


@dataclass(frozen=True, slots=True)
class BotRating:
    """A bot's rating: ``mu`` and ``sigma`` of its skill, after ``games`` games in
    ``events`` events."""

    bot: str
    mu: float
    sigma: float
    games: int = 0
    events: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative estimate ``mu - 3 sigma``."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """A bot's rating after event number ``index`` (from 1), labelled ``event``."""

    index: int
    event: str
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class Ratings:
    """Every bot's rating, best ordinal first, the events rated in order, and each bot's
    history (a point after every event it played)."""

    settings: RatingSettings
    events: tuple[str, ...]
    bots: tuple[BotRating, ...]
    history: tuple[tuple[str, tuple[HistoryPoint, ...]], ...]

    def rating(self, bot: str) -> BotRating:
        for rating in self.bots:
            if rating.bot == bot:
                return rating
        raise KeyError(bot)

    def history_of(self, bot: str) -> tuple[HistoryPoint, ...]:
        return dict(self.history).get(bot, ())


def order_events(events: Iterable[EventRecord]) -> list[EventRecord]:
    """Events in the order they are rated: by the time each run finished (as recorded in
    its ``timing.json``; runs without one come first), then by the content of their
    results, so the order never depends on how the run directories were listed."""
    return sorted(events, key=lambda event: (event.finished or "", event.digest))


def event_games(
    event: EventRecord, identity: Callable[[str], str] | None = None
) -> list[list[tuple[str, int]]]:
    """The games of an event: per seat-position comparison, ``(bot, place)`` pairs with
    places 1, 2, ... (equal places tie). A bot with several entrants in the comparison
    takes part once, at their mean place; a comparison of fewer than two bots is not
    a game."""
    bots = event.bots(identity)
    games = []
    for comparison in event.comparisons:
        places: dict[str, list[int]] = {}
        for player, place in zip(comparison.players, comparison.places, strict=True):
            places.setdefault(bots[player], []).append(place)
        if len(places) < 2:
            continue
        means = {bot: sum(values) / len(values) for bot, values in places.items()}
        ordered = sorted(means, key=lambda bot: (means[bot], bot))
        levels = sorted(set(means.values()))
        games.append([(bot, 1 + levels.index(means[bot])) for bot in ordered])
    return games


def rate_event(
    state: Mapping[str, BotRating],
    event: EventRecord,
    settings: RatingSettings,
    identity: Callable[[str], str] | None = None,
) -> dict[str, BotRating]:
    """The ratings after ``event``, from the ratings ``state`` before it (bots not in
    it yet start at the settings' ``mu`` and ``sigma``)."""
    model = settings.model()
    ratings = dict(state)
    played: set[str] = set()
    for game in event_games(event, identity):
        teams = []
        for bot, _ in game:
            current = ratings.get(bot) or BotRating(bot, settings.mu, settings.sigma)
            ratings[bot] = current
            teams.append([model.rating(mu=current.mu, sigma=current.sigma)])
        updated = model.rate(teams, ranks=[place for _, place in game])
        for (bot, _), [new] in zip(game, updated, strict=True):
            current = ratings[bot]
            ratings[bot] = replace(
                current, mu=float(new.mu), sigma=float(new.sigma), games=current.games + 1
            )
            played.add(bot)
    for bot in played:
        ratings[bot] = replace(ratings[bot], events=ratings[bot].events + 1)
    return ratings


def rate_events(
    events: Sequence[EventRecord],
    settings: RatingSettings | None = None,
    identity: Callable[[str], str] | None = None,
) -> Ratings:
    """Rate ``events`` in the order given (see :func:`order_events` for the usual one)."""
    settings = settings or RatingSettings()
    state: dict[str, BotRating] = {}
    history: dict[str, list[HistoryPoint]] = {}
    for index, event in enumerate(events, start=1):
        before = dict(state)
        state = rate_event(state, event, settings, identity)
        for bot, rating in state.items():
            if before.get(bot) != rating:
                history.setdefault(bot, []).append(
                    HistoryPoint(index, event.label, rating.mu, rating.sigma)
                )
    bots = sorted(state.values(), key=lambda rating: (-rating.ordinal, rating.bot))
    return Ratings(
        settings=settings,
        events=tuple(event.label for event in events),
        bots=tuple(bots),
        history=tuple((bot, tuple(points)) for bot, points in sorted(history.items())),
    )
