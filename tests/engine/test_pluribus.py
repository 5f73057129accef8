"""The 10,000 Pluribus hands (real play, six-handed no-limit, blinds 50/100, stacks 10,000)
replay through our PHH reader to the finishing stacks recorded in each file.

The default suite replays a fixed sample (every fifth hand and the eight half-chip
ones, ~2 s); all 10,000 (~8 s with the extraction, more on a busy machine) are marked slow.

Eight hands record a two-way split pot as half chips (``10112.5``). With whole chips the
odd chip goes to the first winner left of the button (docs/rules.md): in PHH order, the first
of the two players with a half chip gets it (``10113``) and the other does not (``10112``).
"""

from __future__ import annotations

import tarfile
from decimal import Decimal
from pathlib import Path

import pytest

from dp_arena.engine.phh import replay_file

ARCHIVE = Path(__file__).resolve().parents[1] / "data" / "pluribus-phh.tar.gz"
HANDS = 10_000
SAMPLE_EVERY = 5  # the default suite replays every fifth hand and every half-chip one
HALF_CHIP_HANDS = ("102/0", "32/23", "41b/204", "60/88", "75b/76", "88/128", "91/43", "91/53")

pytestmark = pytest.mark.skipif(not ARCHIVE.exists(), reason=f"{ARCHIVE} is not on this machine")


def extract(directory: Path, *, sample: bool) -> list[Path]:
    """Extract the hands (all, or the sample) into ``directory``; their paths, sorted."""
    with tarfile.open(ARCHIVE) as archive:
        # Extract in the archive's own order: seeking backwards in a gzip stream decompresses
        # it again from the start.
        members = [
            member
            for member in archive.getmembers()
            if member.isfile() and member.name.endswith(".phh")
        ]
        assert len(members) == HANDS
        if sample:
            names = sorted(member.name for member in members)
            chosen = {
                name
                for index, name in enumerate(names)
                if index % SAMPLE_EVERY == 0
                or name.removeprefix("pluribus/").removesuffix(".phh") in HALF_CHIP_HANDS
            }
            members = [member for member in members if member.name in chosen]
        archive.extractall(directory, members=members, filter="data")
    return sorted(directory / member.name for member in members)


@pytest.fixture(scope="module")
def sample_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return extract(tmp_path_factory.mktemp("pluribus"), sample=True)


def expected_stacks(recorded: tuple[Decimal, ...]) -> list[int]:
    """The recorded stacks in whole chips: of two half-chip stacks (a split pot), the
    first in PHH order - the first left of the button - gets the odd chip."""
    halves = [index for index, value in enumerate(recorded) if value != value.to_integral_value()]
    assert len(halves) in (0, 2), recorded
    expected = [int(value) for value in recorded]  # truncates 10112.5 to 10112
    if halves:
        expected[halves[0]] += 1
    return expected


def check(files: list[Path]) -> int:
    """Replay ``files``; returns how many recorded a half chip."""
    halves = 0
    for path in files:
        (result,) = replay_file(path)
        recorded = result.recorded_finishing_stacks
        assert recorded is not None, path
        expected = expected_stacks(recorded)
        halves += expected != [int(value) for value in recorded]
        assert list(result.finishing_stacks) == expected, path
    return halves


def test_a_sample_of_pluribus_hands_replays_to_the_recorded_stacks(
    sample_files: list[Path],
) -> None:
    assert check(sample_files) == len(HALF_CHIP_HANDS)


def test_a_known_split_gives_the_odd_chip_left_of_the_button(sample_files: list[Path]) -> None:
    # Hand 102/0: p5 raises to 225, p1 (small blind) and p2 (big blind) call; checks to the
    # river, where p5 bets 337, p1 calls and p2 folds. The pot of 3 x 225 + 2 x 337 = 1349
    # is split between p1 and p5, who both hold A-Q-Q-9-8 (the file records 10112.5 each):
    # 674 each and the odd chip to p1, first left of the button. p1: 10000 - 562 + 675.
    (path,) = [p for p in sample_files if p.parts[-2:] == ("102", "0.phh")]
    (result,) = replay_file(path)
    assert result.finishing_stacks == (10113, 9775, 10000, 10000, 10112, 10000)


@pytest.mark.slow
def test_every_pluribus_hand_replays_to_the_recorded_stacks(tmp_path: Path) -> None:
    assert check(extract(tmp_path, sample=False)) == len(HALF_CHIP_HANDS)
