"""No bot can know the cards: a sandboxed bot that searches for the seed of the decks
(every number it is told, and the small seeds people choose) finds nothing in a match
or an event dealt from a secret key, while the same bot wins every deal it can
predict when the decks come from a public seed: the attack is real, and the key stops
it."""

from __future__ import annotations

from pathlib import Path

from dp_arena.match import MatchConfig, play_match
from dp_arena.runner import ExecutorOptions, start_run
from dp_arena.tournament.loading import load_config

from .conftest import copy_bot


def _logs(folder: Path) -> str:
    return "\n".join(path.read_text(errors="replace") for path in sorted(folder.rglob("*.log")))


def test_a_public_seed_lets_a_bot_predict_every_deal(tmp_path: Path) -> None:
    bot = copy_bot("predictor", tmp_path)
    config = MatchConfig((f"{bot / 'bot.py'}:Bot", "calling-station"), deals=20, seed=987)
    result = play_match(config, log_dir=tmp_path / "logs")
    logs = _logs(tmp_path / "logs")
    # From the third deal on, at each table, the bot knows every card.
    assert logs.count("PREDICTED") == 2 * (20 - 2), logs[-2000:]
    predictor = result.scores[0]
    assert predictor.summary.mean > 5000  # mbb/deal: it knows who wins every pot


def test_a_match_without_a_seed_gives_the_bot_nothing_to_find(tmp_path: Path) -> None:
    bot = copy_bot("predictor", tmp_path)
    config = MatchConfig((f"{bot / 'bot.py'}:Bot", "calling-station"), deals=20)
    assert not config.event_key.public
    play_match(config, log_dir=tmp_path / "logs")
    logs = _logs(tmp_path / "logs")
    assert "PREDICTED" not in logs, logs[-2000:]
    # No seed it tries explains the first deals' cards.
    assert "no seed: 0 candidates" in logs, logs[-2000:]


def test_an_event_without_a_seed_gives_the_bot_nothing_to_find(tmp_path: Path) -> None:
    folder = tmp_path / "event"
    copy_bot("predictor", folder)
    config = folder / "event.toml"
    config.write_text(
        '[event]\nname = "secret"\nformat = "short"\n\n'
        '[[entrants]]\nname = "predictor"\nagent = "predictor/bot.py:Bot"\n\n'
        '[field]\ncount = 7\nfrom = ["calling-station", "random"]\n'
    )
    run_dir = tmp_path / "run"
    start_run(load_config(config), run_dir, ExecutorOptions("serial"), quiet=True)
    logs = _logs(run_dir / "logs")
    assert "no seed: 0 candidates" in logs and "PREDICTED" not in logs
