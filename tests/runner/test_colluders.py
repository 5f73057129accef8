"""A team of sandboxed bots sharing one colluding bot's code takes home exactly what the
same bots with no channel take, in a short tournament played serially (the Ray executor's
run is in ``test_ray.py``, beside its cluster); in-process, where nothing stands between
them, the team wins."""

from __future__ import annotations

from pathlib import Path

import pytest

from dp_arena.runner import ExecutorOptions

from .colluders import outcome, team_event

SERIAL = ExecutorOptions("serial")


@pytest.fixture(scope="module")
def control(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("control")
    return outcome(team_event(folder / "event", "NoChannel"), folder / "run", SERIAL)


@pytest.mark.parametrize("channel", ["OwnPages", "RuntimePages"])
def test_a_sandboxed_team_gains_nothing_over_the_same_bots_without_a_channel(
    channel: str, control: dict[str, object], tmp_path: Path
) -> None:
    assert outcome(team_event(tmp_path / "event", channel), tmp_path / "run", SERIAL) == control


def test_in_process_the_team_wins(control: dict[str, object], tmp_path: Path) -> None:
    config = team_event(tmp_path / "event", "OwnPages")
    config.write_text(
        config.read_text().replace('agent = "', 'trusted = true\nagent = "'), encoding="utf-8"
    )
    team = outcome(config, tmp_path / "run", SERIAL)

    def chips(result: dict[str, object]) -> int:
        totals = result["totals"]
        assert isinstance(totals, dict)
        return sum(net for player, (net, _) in totals.items() if player.startswith("colluder"))

    assert chips(team) > chips(control) + 1000
