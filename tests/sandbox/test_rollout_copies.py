"""The rollout copies of ``dp-arena match --rollouts``: fresh sandboxed copies of the bots,
opened after every table has played, that can learn nothing of what the real copies
heard, whose faults are faults of no match, and that are told nothing of the key.

The hostile bot (``hostile_bots/rollout_copies``) mixes alike at the real tables in every
class; its classes differ in what a rollout copy does. A talker's real copies write
every deal's real actions into a channel that outlives them (a file in /tmp or $HOME, a
file in /dev/shm, System V shared memory, named Unix sockets); its rollout copies read
it and play badly after the action the dealer drew, which would push its draws' luck
down and its adjusted score up. In-process, where nothing stands between the copies,
every channel works and the score rises: that is what makes the sandboxed runs mean
something. Sandboxed, the talker scores exactly what ``Quiet`` (no channel) scores.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from dp_arena.engine import deck_for
from dp_arena.match import MatchConfig, MatchResult, play_match
from dp_arena.ratings.action_luck import board_action_nets
from dp_arena.sandbox import open_seat

from .conftest import LIMITS, assert_nothing_left, copy_bot
from .test_hostile import NAMESPACE_MODES_FAST

CHANNELS = ["TmpFile", "HomeFile", "DevShm", "SysVShm", "NamedSocket"]
NAME = "dp-arena-rollout-talk"
DEALS = 30


def _clear_channels(home: Path) -> None:
    for path in (f"/tmp/{NAME}.json", f"/dev/shm/{NAME}.json", str(home / f".{NAME}.json")):
        Path(path).unlink(missing_ok=True)
    shutil.rmtree(f"/tmp/{NAME}-sockets", ignore_errors=True)
    subprocess.run(["ipcrm", "-M", str(0x5253)], capture_output=True, check=False)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A $HOME of the test's own, and every channel empty before and after."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    _clear_channels(folder)
    yield folder
    _clear_channels(folder)


def _spec(folder: Path, name: str) -> str:
    return f"{folder / 'bot.py'}:{name}"


def _match(
    spec: str,
    *,
    trusted: bool = False,
    opponent: str = "aggressive",
    deals: int = DEALS,
    seed: int = 9,
    log_dir: Path | None = None,
    opened: list[object] | None = None,
) -> MatchResult:
    """The bot against ``opponent``, heads-up, two rollouts an action: in-process when
    ``trusted``, else sandboxed with the tests' generous limits."""

    def factory(agent: str, name: str):  # type: ignore[no-untyped-def]
        seat = open_seat(agent, name=name, trusted=trusted, limits=LIMITS, log_dir=log_dir)
        if opened is not None:
            opened.append(seat)
        return seat

    config = MatchConfig((spec, opponent), deals=deals, seed=seed, rollouts=2)
    return play_match(config, seat_factory=factory, clairvoyance=False)


def _numbers(result: MatchResult) -> list[object]:
    """Every score of a match, without the agents' names."""
    return [
        (score.summary, score.adjusted, score.net, score.fault_counts) for score in result.scores
    ]


def _gain(result: MatchResult) -> float:
    """How much the first agent's adjusted score is above its raw score, in mbb a deal."""
    first = result.scores[0]
    assert first.adjusted is not None
    return first.adjusted.mean - first.summary.mean


@pytest.mark.parametrize("channel", CHANNELS)
def test_in_process_every_channel_carries_the_draw_so_the_sandboxed_tests_mean_something(
    channel: str, home: Path, tmp_path: Path
) -> None:
    folder = copy_bot("rollout_copies", tmp_path)
    quiet = _match(_spec(folder, "Quiet"), trusted=True)
    _clear_channels(home)
    talker = _match(_spec(folder, channel), trusted=True)
    # The real play is the same; only the rollouts of the talker's draws differ.
    assert talker.scores[0].summary == quiet.scores[0].summary
    assert _gain(talker) > _gain(quiet) + 300  # mbb a deal: 9 big blinds over 30 deals


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES_FAST, indirect=True)
def test_sandboxed_rollout_copies_hear_nothing_of_the_real_ones(
    sandbox_mode: str, home: Path, tmp_path: Path
) -> None:
    """Every channel at once, one after the other: each talker scores exactly what the
    quiet bot scores, and each rollout copy says in its log that it heard nothing."""
    folder = copy_bot("rollout_copies", tmp_path)
    quiet = _numbers(_match(_spec(folder, "Quiet")))
    for channel in CHANNELS:
        logs = tmp_path / "logs" / channel
        opened: list[object] = []
        result = _match(_spec(folder, channel), log_dir=logs, opened=opened)
        assert result.faults == ()
        assert _numbers(result) == quiet, channel
        heard = re.findall(r"talker: heard (\d+) deals", _logs(logs))
        assert heard and set(heard) == {"0"}, (channel, heard)
        assert_nothing_left(opened)  # type: ignore[arg-type]


def _logs(folder: Path) -> str:
    return "\n".join(path.read_text(errors="replace") for path in sorted(folder.rglob("*.log")))


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES_FAST, indirect=True)
def test_a_rollout_copy_that_crashes_or_sends_garbage_plays_passively_and_costs_no_fault(
    sandbox_mode: str, tmp_path: Path
) -> None:
    """A copy that ends its process at its first rollout decision, or answers every one
    with garbage: the match completes with no fault against the bot, its raw score is
    the mixing bot's, and its values are exactly those of a copy that checks or folds at
    every rollout decision (how a seat without an answer plays)."""
    folder = copy_bot("rollout_copies", tmp_path)
    mixer = _match(_spec(folder, "Mixer"), deals=12)
    passive = _match(_spec(folder, "Passive"), deals=12)
    assert passive.scores[0].adjusted != mixer.scores[0].adjusted  # the oracle differs
    for name in ("Crash", "Garbage"):
        result = _played_without_a_fault(folder, name, mixer)
        assert _numbers(result) == _numbers(passive), name


@pytest.mark.parametrize("sandbox_mode", ["bubblewrap"], indirect=True)
def test_a_rollout_copy_that_hangs_past_its_budget_costs_no_fault(
    sandbox_mode: str, tmp_path: Path
) -> None:
    """A copy that sleeps past its action time and its time bank at its first rollout
    decision: that decision is played passively, the others as the copy answers them,
    and the match records no fault."""
    folder = copy_bot("rollout_copies", tmp_path)
    _played_without_a_fault(folder, "Hang", _match(_spec(folder, "Mixer"), deals=12))


def _played_without_a_fault(folder: Path, name: str, mixer: MatchResult) -> MatchResult:
    """The bot ``name`` played as ``mixer`` was: no fault recorded, the mixer's raw
    scores, adjusted nets that sum to zero, and no process left."""
    opened: list[object] = []
    result = _match(_spec(folder, name), deals=12, opened=opened)
    assert result.faults == (), name
    assert result.scores[0].summary == mixer.scores[0].summary, name
    rules = result.config.rules()
    for table in result.tables:
        for record in table.deals:
            assert sum(board_action_nets(rules, record), Fraction(0)) == 0
    assert_nothing_left(opened)  # type: ignore[arg-type]
    return result


@pytest.mark.parametrize("sandbox_mode", ["bubblewrap"], indirect=True)
def test_a_rollout_copy_that_hangs_at_every_decision_is_benched_after_its_faults(
    sandbox_mode: str, tmp_path: Path
) -> None:
    """A copy that sleeps past its budget at every rollout decision is asked three times
    (the match's fault limit), then plays as an absent player without being asked: its
    values are those of a copy that checks or folds throughout, and no fault is recorded."""
    folder = copy_bot("rollout_copies", tmp_path)
    opened: list[object] = []
    result = _match(_spec(folder, "Stall"), deals=6, opened=opened)
    passive = _match(_spec(folder, "Passive"), deals=6)
    assert result.faults == ()
    assert _numbers(result) == _numbers(passive)
    rolled = [seat for seat in opened[4:] if getattr(seat, "command", None) is not None]
    assert [len(seat.decision_seconds) for seat in rolled] == [3, 3]  # type: ignore[attr-defined]
    assert_nothing_left(opened)  # type: ignore[arg-type]


@pytest.mark.parametrize("sandbox_mode", ["bubblewrap"], indirect=True)
def test_nothing_a_rollout_copy_is_told_carries_the_key(sandbox_mode: str, tmp_path: Path) -> None:
    """A copy that writes everything it is told in its rollouts to its log, at a match
    dealt from a secret key: no line holds the key, its commitment or its seed, and
    every context names the event "rollout" (with the rollout's number) and nothing else
    of it."""
    folder = copy_bot("rollout_copies", tmp_path)
    config = MatchConfig((_spec(folder, "Listener"), "random"), deals=6, rollouts=2)
    key = config.event_key
    assert not key.public
    play_match(config, log_dir=tmp_path / "logs", clairvoyance=False)
    logs = _logs(tmp_path / "logs" / "rollouts")
    told = [line for line in logs.splitlines() if line.startswith("TOLD ")]
    assert len(told) > 20, logs[-2000:]
    secrets = [key.hex, key.commitment, str(key.seed), f"{key.seed:x}"]
    for line in told:
        assert not any(secret in line for secret in secrets), line
    events = {event for line in told for event in re.findall(r'"event": "([^"]*)"', line)}
    assert events and all(re.fullmatch(r"rollout(:\d+)?", event) for event in events), events


@pytest.mark.parametrize("sandbox_mode", ["bubblewrap"], indirect=True)
def test_a_rollout_copy_searching_for_the_seed_finds_it_only_when_it_is_public(
    sandbox_mode: str, tmp_path: Path
) -> None:
    """The predictor (``hostile_bots/predictor``) as a rollout copy: from a public seed
    among those it tries it finds the decks, as it does at the real tables; from a secret
    key no seed it tries explains the deals (a rollout deals the same cards again and
    again, so a seed that explains one deal's hole cards by chance may look right until
    the next deal: whatever it names is not the key)."""
    bot = copy_bot("predictor", tmp_path)
    public = MatchConfig((f"{bot / 'bot.py'}:Bot", "random"), deals=8, seed=987, rollouts=2)
    play_match(public, log_dir=tmp_path / "public", clairvoyance=False)
    assert "with seed 987" in _logs(tmp_path / "public" / "rollouts")
    secret = MatchConfig((f"{bot / 'bot.py'}:Bot", "random"), deals=8, rollouts=2)
    play_match(secret, log_dir=tmp_path / "secret", clairvoyance=False)
    logs = _logs(tmp_path / "secret" / "rollouts")
    assert "no seed: 0 candidates" in logs, logs[-2000:]
    seed = secret.event_key.seed
    for deal, named in re.findall(r"PREDICTED deal (\d+) with seed (\d+)", logs):
        assert deck_for(int(named), 0, 0, int(deal)) != deck_for(seed, 0, 0, int(deal))
