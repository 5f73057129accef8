"""Mixed answers (:mod:`dp_arena.engine.mixes`): what a mix accepts and refuses, its
canonical form, and the dealer's draw, recomputed here from the module docstring's
paragraph alone and checked for uniformity."""

from __future__ import annotations

import hashlib
import math
import pickle
import struct
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dp_arena.engine import Action, LegalActions, Mix
from dp_arena.engine.mixes import (
    MixDraws,
    draw,
    draw_index,
    draw_number,
    draw_numbers,
    mix_material,
    mix_prefix,
)

CALL, FOLD, CHECK = Action.call(), Action.fold(), Action.check()


def test_a_mix_is_canonical_whatever_order_it_was_listed_in() -> None:
    listed = [(Action.raise_to(300), 0.1), (CALL, 0.6), (FOLD, 0.2), (Action.raise_to(120), 0.1)]
    mix = Mix(listed)
    assert mix == Mix(reversed(listed)) == Mix(dict(listed))
    assert str(mix) == "fold 0.2, call 0.6, raise 120 0.1, raise 300 0.1"
    assert mix.actions == (FOLD, CALL, Action.raise_to(120), Action.raise_to(300))
    assert mix.weights == (200_000_000, 600_000_000, 100_000_000, 100_000_000)
    assert Mix.parse(str(mix)) == mix and hash(Mix.parse(str(mix))) == hash(mix)
    assert pickle.loads(pickle.dumps(mix)) == mix
    assert mix.probability(CALL) == Fraction(3, 5) and mix.probability(CHECK) == 0
    assert sum(mix.probabilities) == 1


def test_probabilities_are_kept_to_nine_decimals_and_zeros_are_dropped() -> None:
    mix = Mix([(CALL, 1 / 3), (FOLD, 1 / 3), (CHECK, 1 / 3)])
    assert mix.weights == (333_333_333,) * 3  # drawn exactly one in three each
    assert mix.probabilities == (Fraction(1, 3),) * 3
    tiny = Mix([(CALL, 1 - 1e-12), (FOLD, 1e-12)])
    assert tiny.pure == CALL and str(tiny) == "call 1"
    exact = Mix([(CALL, Fraction(1, 4)), (FOLD, Decimal("0.75"))])
    assert str(exact) == "fold 0.75, call 0.25"
    with pytest.raises(AttributeError):
        exact.weights = (1,)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("entries", "says"),
    [
        ([], "at least one action"),
        ([(CALL, 0.5), (FOLD, 0.4)], "add up to 0.9"),
        ([(CALL, 0.5), (FOLD, 0.5000011)], "add up to"),
        ([(CALL, 1.5), (FOLD, -0.5)], "not from 0 to 1"),
        ([(CALL, float("nan")), (FOLD, 1.0)], "not a finite number"),
        ([(CALL, float("inf"))], "not a finite number"),
        ([(CALL, True)], "not a number"),
        ([(CALL, "0.5"), (FOLD, 0.5)], "not a number"),
        ([("call", 1.0)], "not an action"),
        ([(CALL, 0.5), (CALL, 0.5)], "listed twice"),
        ([(Action.raise_to(120.0), 1.0)], "integer amount"),  # type: ignore[arg-type]
        ([(Action(CALL.kind, 20), 1.0)], "takes no amount"),
        ([(CALL,)], "not an (action, probability) pair"),
        ([(CALL, 1 / 65)] * 65, "at most 64"),
    ],
)
def test_a_malformed_mix_is_refused_with_the_reason(entries: list, says: str) -> None:
    with pytest.raises(ValueError, match=says.replace("(", r"\(").replace(")", r"\)")):
        Mix(entries)


def test_within_the_tolerance_a_mix_is_accepted_and_normalised() -> None:
    mix = Mix([(CALL, 0.5), (FOLD, 0.4999995)])
    assert sum(mix.probabilities) == 1
    # Weights 500,000,000 and 499,999,500 billionths: each drawn with weight / total.
    assert mix.probability(CALL) == Fraction(500_000_000, 999_999_500)


def test_legality_is_the_tables_to_judge() -> None:
    legal = LegalActions(
        0, can_fold=True, can_check=False, call_amount=10, min_raise_to=40, max_raise_to=1000
    )
    assert Mix([(CALL, 0.5), (Action.raise_to(40), 0.5)]).refusal(legal) is None
    refused = Mix([(CALL, 0.5), (Action.raise_to(30), 0.5)]).refusal(legal)
    assert refused is not None and "raise 30 in the mix is not legal" in refused
    assert "check" in str(Mix([(CHECK, 0.5), (CALL, 0.5)]).refusal(legal))


@pytest.mark.parametrize("text", ["", "call", "call 0.5, fold", "raise x 0.5, call 0.5", "jump 1"])
def test_text_that_is_no_mix_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        Mix.parse(text)


def _documented_draw(mix: Mix, seed: int, place: tuple[int, int, int, int, int]) -> Action:
    """The draw as the module docstring words it, written again from the words."""
    section, session, table, deal, decision = place
    material = f"dp-arena/mix/v1:{seed}:{section}:{session}:{table}:{deal}:{decision}".encode()
    total = sum(mix.weights)
    stream = hashlib.shake_256(material).digest(8 * 64)
    for (word,) in struct.iter_unpack("<Q", stream):
        if word < 2**64 - 2**64 % total:
            u = word % total
            break
    running = 0
    for action, weight in zip(mix.actions, mix.weights, strict=True):
        running += weight
        if u < running:
            return action
    raise AssertionError("no action drawn")


@given(
    weights=st.lists(st.integers(1, 1000), min_size=2, max_size=6),
    seed=st.integers(0, 2**256 - 1),
    place=st.tuples(*[st.integers(0, 10_000)] * 5),
)
def test_the_draw_is_the_documented_one(
    weights: list[int], seed: int, place: tuple[int, int, int, int, int]
) -> None:
    total = sum(weights)
    mix = Mix([(Action.raise_to(100 + i), Fraction(w, total)) for i, w in enumerate(weights)])
    section, session, table, deal, decision = place
    drawn = draw(
        mix,
        event_seed=seed,
        section=section,
        session=session,
        table=table,
        deal=deal,
        decision=decision,
    )
    assert drawn == _documented_draw(mix, seed, place)
    assert drawn == MixDraws(seed, section, session, table).action(mix, deal, decision)


def test_draws_are_uniform_over_decisions() -> None:
    """Each action drawn about as often as its probability says, over 20,000 decisions (a
    chi-square test at the 0.1% level), and each decision independently of its place."""
    mix = Mix([(FOLD, 0.1), (CALL, 0.2), (Action.raise_to(60), 0.3), (Action.raise_to(200), 0.4)])
    counts = [0] * 4
    for decision in range(20_000):
        material = mix_material(99, 0, 1, decision % 7, decision // 7, decision % 11)
        counts[draw_index(mix.weights, material)] += 1
    expected = [20_000 * float(p) for p in mix.probabilities]
    chi_square = sum((c - e) ** 2 / e for c, e in zip(counts, expected, strict=True))
    assert chi_square < 16.27  # 3 degrees of freedom, 0.1%
    assert not math.isclose(counts[0], counts[1])


def test_a_draw_with_every_word_rejected_reads_on_in_the_stream() -> None:
    """A total of weights just above 2**63 rejects nearly half the words: the draw still
    ends, and agrees with the documented reading of the stream."""
    weights = (2**63 + 1, 1)  # not a mix's (weights are billionths), the stream's worst case
    found = {draw_index(weights, mix_material(1, 0, 0, 0, deal, 0)) for deal in range(200)}
    assert found == {0}


def test_many_draws_at_once_are_each_draw() -> None:
    """``draw_numbers`` reads only the first word of each stream unless it is rejected:
    the same numbers as ``draw_number``, with ordinary totals and with a total that
    rejects nearly half the first words."""
    materials = [
        mix_material(5, 0, session, 0, deal, deal % 9)
        for session in range(3)
        for deal in range(100)
    ]
    for total in (2, 3, 7, 1_000_000_000, 2**63 + 1):
        totals = [total] * len(materials)
        assert draw_numbers(totals, materials) == [draw_number(total, m) for m in materials]
    assert mix_material(5, 0, 2, 0, 7, 3) == f"{mix_prefix(5, 0, 2, 0)}7:3".encode()
