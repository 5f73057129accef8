"""Ratings across events: updates against OpenSkill's documented example and the Weng-Lin
Plackett-Luce formulas worked out here, games from comparisons, and reproducibility."""

from __future__ import annotations

import json
import math
import random
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from dp_arena.ratings.runs import Comparison, EventRecord, load_run
from dp_arena.ratings.skill import (
    BotRating,
    RatingSettings,
    event_games,
    order_events,
    rate_event,
    rate_events,
)


def test_default_model_reproduces_openskills_documented_example() -> None:
    # openskill 6 README ("Limited Example"): two teams of two fresh players, the first
    # wins: a = 26.964294621803063, 8.177962604389991 and x = 23.035705378196937, same
    # sigma. With OpenSkill's default tau (25/300) our settings build the same model.
    model = RatingSettings(tau=25 / 300).model()
    r = model.rating
    [[a, b], [x, y]] = model.rate([[r(), r()], [r(), r()]])
    assert (a.mu, a.sigma) == pytest.approx((26.964294621803063, 8.177962604389991), rel=1e-12)
    assert (x.mu, x.sigma) == pytest.approx((23.035705378196937, 8.177962604389991), rel=1e-12)
    assert (b.mu, y.mu) == (a.mu, x.mu)


def weng_lin_plackett_luce(
    ratings: list[tuple[float, float]],
    places: list[int],
    *,
    beta: float = 25 / 6,
    tau: float = 0.0,
    kappa: float = 0.0001,
) -> list[tuple[float, float]]:
    """One Plackett-Luce update of one-player teams, written from Weng & Lin (2011),
    "A Bayesian approximation method for online ranking", Algorithm 4, with gamma =
    sigma_i / c (the paper's suggestion) and ties weighted by 1/A_q."""
    sigma_squared = [sigma**2 + tau**2 for _, sigma in ratings]
    mus = [mu for mu, _ in ratings]
    c = math.sqrt(sum(s + beta**2 for s in sigma_squared))
    strength = [math.exp(mu / c) for mu in mus]
    players = range(len(ratings))
    # C_q: the strengths of everyone placed no better than q; A_q: how many share q's place.
    total_below = [sum(strength[s] for s in players if places[s] >= places[q]) for q in players]
    tied = [sum(places[s] == places[q] for s in players) for q in players]
    updated = []
    for i in players:
        omega = delta = 0.0
        for q in players:
            if places[q] > places[i]:
                continue
            share = strength[i] / total_below[q]
            omega += ((1.0 if q == i else 0.0) - share) / tied[q]
            delta += share * (1 - share) / tied[q]
        gamma = math.sqrt(sigma_squared[i]) / c
        mu = mus[i] + sigma_squared[i] / c * omega
        factor = 1 - gamma * sigma_squared[i] / c**2 * delta
        updated.append((mu, math.sqrt(sigma_squared[i] * max(factor, kappa))))
    return updated


def test_the_formulas_give_the_textbook_first_game() -> None:
    # Two fresh players: c^2 = 2 (sigma^2 + beta^2) = 173.61, the winner gains
    # sigma^2 / c x 1/2 = 2.6352 and both sigmas shrink by sqrt(1 - 0.06325).
    (winner, loser) = weng_lin_plackett_luce([(25, 25 / 3), (25, 25 / 3)], [1, 2])
    assert winner == pytest.approx((27.6352, 8.0655), abs=1e-4)
    assert loser == pytest.approx((22.3648, 8.0655), abs=1e-4)


def _event(
    label: str, comparisons: list[tuple[list[str], list[int]]], bots: dict[str, str]
) -> EventRecord:
    return EventRecord(
        label=label,
        name=label,
        format="test",
        seed=0,
        digest=label,
        finished=None,
        entrants=tuple(sorted(bots.items())),
        blocks=(),
        comparisons=tuple(
            Comparison(1, 1, seat, tuple(players), tuple(places))
            for seat, (players, places) in enumerate(comparisons)
        ),
        faults=(),
        prizes=(),
        has_adjusted=False,
    )


@pytest.mark.parametrize("tau", [0.0, 0.5])
def test_rating_updates_follow_the_plackett_luce_formulas(tau: float) -> None:
    rng = random.Random(3)
    bots = ["a", "b", "c", "d"]
    settings = RatingSettings(tau=tau)
    expected = dict.fromkeys(bots, (settings.mu, settings.sigma))
    comparisons = []
    for _ in range(12):
        players = rng.sample(bots, rng.choice((2, 3, 4)))
        places = sorted(rng.choice((1, 2, 3)) for _ in players)
        places = [1 + sorted(set(places)).index(place) for place in places]
        comparisons.append((players, places))
        new = weng_lin_plackett_luce([expected[p] for p in players], places, tau=tau)
        expected.update(zip(players, new, strict=True))
    rated = rate_event({}, _event("e", comparisons, {bot: bot for bot in bots}), settings)
    for bot in bots:
        assert (rated[bot].mu, rated[bot].sigma) == pytest.approx(expected[bot], rel=1e-12)
    assert sum(rating.games for rating in rated.values()) == sum(len(p) for p, _ in comparisons)


def test_several_entrants_of_one_bot_play_once_at_their_mean_place() -> None:
    event = _event(
        "e",
        [(["t1", "r", "t2", "c"], [1, 2, 3, 4])],
        {"t1": "tag", "t2": "tag", "r": "random", "c": "caller"},
    )
    # tag's places 1 and 3 average 2: it ties with random (2); the caller is last.
    assert event_games(event) == [[("random", 1), ("tag", 1), ("caller", 2)]]
    alone = _event("e", [(["t1", "t2"], [1, 2])], {"t1": "tag", "t2": "tag"})
    assert event_games(alone) == []  # a bot against itself is not a game


def test_rerating_the_stored_results_gives_the_same_ratings(small_run: Path) -> None:
    first = rate_events([load_run(small_run, adjust=None)])
    second = rate_events([load_run(small_run, adjust=None)])
    assert first == second
    # Rating event by event, keeping only the state between them, gives the same ratings
    # as rating all the events at once.
    event = load_run(small_run, adjust=None)
    copies = [replace(event, label=f"copy-{index}", digest=f"{index}") for index in range(3)]
    together = rate_events(copies)
    state: dict[str, BotRating] = {}
    for copy in copies:
        # The state between events goes through JSON, as a store of ratings would keep it.
        stored = json.dumps(
            [asdict(rating) for rating in rate_event(state, copy, RatingSettings()).values()]
        )
        state = {item["bot"]: BotRating(**item) for item in json.loads(stored)}
    assert {bot: (r.mu, r.sigma, r.games, r.events) for bot, r in state.items()} == {
        r.bot: (r.mu, r.sigma, r.games, r.events) for r in together.bots
    }
    assert [point.index for point in together.history_of("tag")] == [1, 2, 3]
    assert together.rating("tag").events == 3


def test_rating_order_does_not_depend_on_how_runs_are_listed() -> None:
    events = [
        replace(_event(name, [], {}), finished=finished, digest=digest)
        for name, finished, digest in [
            ("b", "2026-01-02T00:00:00", "1"),
            ("a", None, "2"),
            ("c", "2026-01-01T00:00:00", "3"),
        ]
    ]
    expected = ["a", "c", "b"]  # no finishing time first, then by time
    for permutation in (events, events[::-1], [events[1], events[2], events[0]]):
        assert [event.label for event in order_events(permutation)] == expected


def test_fixed_bots_with_zero_drift_only_become_more_certain() -> None:
    event = _event("e", [(["a", "b"], [1, 2])] * 30, {"a": "a", "b": "b"})
    ratings = rate_events([event])
    after_one_game = weng_lin_plackett_luce([(25, 25 / 3), (25, 25 / 3)], [1, 2])[0][1]
    assert ratings.rating("a").sigma < after_one_game < 25 / 3
    drifting = rate_events([event], RatingSettings(tau=1.0))
    assert drifting.rating("a").sigma > ratings.rating("a").sigma
    assert ratings.bots[0].bot == "a" and ratings.rating("a").ordinal > ratings.rating("b").ordinal
