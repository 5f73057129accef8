"""``dp-arena verify``: a finished run checks out against its revealed key, and every kind
of tampering (the key, the commitment, a card, a net, a standing, a hand history, a
missing table-session) is caught by the check it belongs to."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dp_arena.agents.spec import AGENTS_DIR
from dp_arena.cli import main
from dp_arena.keys import EventKey
from dp_arena.runner import ExecutorOptions, start_run
from dp_arena.runner.verify import verify_run
from dp_arena.tournament.digest import DIGEST_FIELD, file_sha256, results_digest
from dp_arena.tournament.loading import load_config
from tests import run_files

SERIAL = ExecutorOptions("serial")


def _config(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "event.toml"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished short tournament dealt from a secret key: built-ins, and a file bot
    (the tight-aggressive bot's file, trusted), which the clairvoyance test looks at."""
    folder = tmp_path_factory.mktemp("verify")
    config = _config(
        folder,
        '[event]\nname = "checked"\nformat = "short"\n\n'
        f'[[entrants]]\nname = "filed"\nagent = "{AGENTS_DIR / "tag.py"}:TightAggressiveBot"\n'
        "trusted = true\n\n"
        '[field]\ncount = 9\nfrom = ["random", "calling-station", "tag"]\n',
    )
    run_dir = folder / "run"
    start_run(load_config(config), run_dir, SERIAL, quiet=True)
    return run_dir


@pytest.fixture()
def copy(finished: Path, tmp_path: Path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(finished, target)
    return target


def _failed(run_dir: Path, **options: Any) -> set[str]:
    return {check.name for check in verify_run(run_dir, **options).checks if not check.passed}


def _edit_json(path: Path, change: Callable[[Any], None]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def _edit_first_unit(
    run_dir: Path, change: Callable[[Any], None], which: Callable[[Any], bool] = bool
) -> None:
    """``change`` the first stored table-session (the first ``which`` accepts)."""
    with sqlite3.connect(run_dir / "store.sqlite") as connection:
        for found, blob in connection.execute(
            "SELECT unit_id, result FROM units ORDER BY session, section, table_index"
        ).fetchall():
            data = json.loads(zlib.decompress(blob))
            unit = found
            if which(data):
                break
        change(data)
        connection.execute(
            "UPDATE units SET result = ? WHERE unit_id = ?",
            (zlib.compress(json.dumps(data).encode()), unit),
        )


def test_a_finished_run_verifies(finished: Path, capsys: pytest.CaptureFixture[str]) -> None:
    verification = verify_run(finished)
    assert verification.passed
    assert [check.name for check in verification.checks] == [
        "commitment",
        "digest",
        "plan",
        "decks",
        "hands",
        "draws",
        "results",
        "clairvoyance",
        "histories",
    ]
    assert "flagged: none" in verification.checks[7].detail
    # The random bots answered with mixes: each action drawn is the key's draw.
    assert "drawn from bots' mixed strategies are the ones" in verification.checks[5].detail
    key = EventKey.read(finished / "key")
    assert verification.key == key
    assert main(["verify", str(finished), "--commitment", key.commitment]) == 0
    out = capsys.readouterr().out
    assert "every check passed" in out and key.hex in out and "predictable" not in out
    assert main(["verify", str(finished), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["passed"] is True and document["key"] == key.hex


def test_a_wrong_published_commitment_fails(finished: Path) -> None:
    assert _failed(finished, commitment="0" * 64) == {"commitment"}


def test_another_key_in_the_results_fails_the_commitment(copy: Path) -> None:
    other = EventKey.secret()

    def swap(data: Any) -> None:
        data["event"]["key"] = other.hex

    _edit_json(copy / "results.json", swap)
    assert "commitment" in _failed(copy)

    def swap_both(data: Any) -> None:  # a forger who also rewrites the result's commitment
        data["event"]["commitment"] = other.commitment

    _edit_json(copy / "results.json", swap_both)
    failed = verify_run(copy).checks[0]
    assert not failed.passed and any("commitment says" in text for text in failed.problems)


def test_a_changed_hole_card_fails_the_decks(copy: Path) -> None:
    def change(data: Any) -> None:
        hole = data["deals"][0]["hole_cards"]
        hole[0], hole[1] = hole[1], hole[0]  # two seats' cards swapped

    _edit_first_unit(copy, change)
    assert "decks" in _failed(copy)


def test_a_changed_net_fails_the_hands(copy: Path) -> None:
    def change(data: Any) -> None:
        nets = data["deals"][0]["nets"]
        nets[0], nets[1] = nets[0] + 5, nets[1] - 5  # still zero-sum

    _edit_first_unit(copy, change)
    assert {"hands", "results"} <= _failed(copy)


def test_an_action_the_key_does_not_draw_from_its_mix_fails_the_draws(copy: Path) -> None:
    """The random bot answers with mixes: a forger who leaves every action as played but
    rewrites a mix (the action drawn nearly impossible in it) is caught by the draws."""
    forged = []

    def change(data: Any) -> None:
        for deal in data["deals"]:
            for entry in deal.get("mixes", ()):
                decision, text = entry
                drawn = deal["actions"][decision].partition(":")[2]
                others = [
                    part.rsplit(" ", 1)[0]
                    for part in text.split(", ")
                    if part.rsplit(" ", 1)[0] != drawn
                ]
                entry[1] = f"{drawn} 0.000000001, {others[0]} 0.999999999"
                forged.append(entry[1])
                return

    _edit_first_unit(copy, change, lambda data: any(deal.get("mixes") for deal in data["deals"]))
    assert forged
    verification = verify_run(copy)
    (draws,) = [check for check in verification.checks if check.name == "draws"]
    assert not draws.passed and "the key draws" in draws.problems[0]


def test_a_changed_standing_fails_the_results(copy: Path) -> None:
    def change(data: Any) -> None:
        first, second = data["standings"][0], data["standings"][-1]
        first["player"], second["player"] = second["player"], first["player"]

    _edit_json(copy / "results.json", change)
    assert _failed(copy) == {"digest", "results"}


def test_a_changed_clairvoyance_test_fails_and_names_the_bot(copy: Path) -> None:
    """A published test made to look clean (or dirty) is not what the table-sessions and
    the key give: the clairvoyance check names the entrant."""
    changed: list[str] = []

    def change(data: Any) -> None:
        (entrant,) = [entrant for entrant in data["entrants"] if entrant["clairvoyance"]]
        entrant["clairvoyance"]["flagged"] = True
        changed.append(entrant["player"])

    _edit_json(copy / "results.json", change)
    assert _failed(copy) == {"digest", "results", "clairvoyance"}
    (check,) = [check for check in verify_run(copy).checks if check.name == "clairvoyance"]
    assert any(problem.startswith(f"{changed[0]}:") for problem in check.problems)


def test_a_run_written_before_the_clairvoyance_test_still_verifies(copy: Path) -> None:
    def strip(data: Any) -> None:
        del data["clairvoyance"]
        for entrant in data["entrants"]:
            del entrant["clairvoyance"]
        # As that run would have revealed it: its digest of what it wrote.
        data["event"].pop(DIGEST_FIELD)
        data["event"][DIGEST_FIELD] = results_digest(data, lambda name: file_sha256(copy / name))

    _edit_json(copy / "results.json", strip)
    verification = verify_run(copy)
    assert verification.passed
    (check,) = [check for check in verification.checks if check.name == "clairvoyance"]
    assert "before the clairvoyance test" in check.detail


def test_a_changed_session_part_fails_the_results(copy: Path) -> None:
    """A table's nets changed in a session's part (its digest in the summary changed to
    match, as a careful forger would): what the stored table-sessions give differs."""

    def change(data: Any) -> None:
        # The first deal that moved chips (a split pot nets nothing: negating it would not
        # change it; the event's decks come from a fresh key each time).
        tables = data["sessions"][0]["sections"][0]["table_results"]
        nets = next(nets for table in tables for nets in table["deal_nets"] if any(nets))
        nets[:] = [-net for net in nets]

    run_files.edit_results(copy, change)
    verification = verify_run(copy)
    assert _failed(copy) == {"digest", "results"}
    [check] = [check for check in verification.checks if check.name == "results"]
    assert any("sessions/session-1.jsonl differs" in problem for problem in check.problems)


def test_a_changed_hand_history_fails(copy: Path) -> None:
    history = min((copy / "histories").glob("*.phhs"))
    text = history.read_text()
    position = text.index('"d dh p1 ') + len('"d dh p1 ')
    card = text[position : position + 2]
    other = "2c" if card != "2c" else "3c"
    history.write_text(text[:position] + other + text[position + 2 :])
    assert {"digest", "results", "histories"} <= _failed(copy)


def test_a_missing_table_session_fails(copy: Path) -> None:
    with sqlite3.connect(copy / "store.sqlite") as connection:
        connection.execute("DELETE FROM units WHERE rowid = (SELECT MAX(rowid) FROM units)")
    verification = verify_run(copy)
    assert not verification.passed
    assert any(
        "not in the store" in text for check in verification.checks for text in check.problems
    )


def test_an_unfinished_run_cannot_be_verified(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", str(tmp_path)]) == 2
    assert "only a finished run can be verified" in capsys.readouterr().err


def test_a_public_seed_run_verifies_and_says_it_was_predictable(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        '[event]\nname = "seeded"\nformat = "regular"\nseed = 3\n\n'
        '[field]\ncount = 8\nfrom = ["random", "tag"]\n',
    )
    start_run(load_config(config), tmp_path / "run", SERIAL, quiet=True)
    verification = verify_run(tmp_path / "run")
    assert verification.passed
    assert "predictable" in verification.report()


def test_a_classic_freezeout_verifies_its_decks_from_its_histories(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        '[event]\nname = "classic"\nformat = "classic"\n\n'
        '[field]\ncount = 6\nfrom = ["tag", "calling-station", "aggressive"]\n',
    )
    run_dir = tmp_path / "run"
    outcome = start_run(load_config(config), run_dir, SERIAL, quiet=True)
    # Its tables are coupled hand by hand: the run reports the hands its format dealt.
    hands = sum(
        len(re.findall(r"^\[\d+\]$", text, re.MULTILINE)) for text in _texts(run_dir / "histories")
    )
    assert outcome.event.result.hands_played == hands > 0
    assert outcome.report().startswith(f"{hands:,} table-hands played in this process")
    verification = verify_run(run_dir)
    assert verification.passed
    assert [check.name for check in verification.checks] == [
        "commitment",
        "digest",
        "plan",
        "histories",
    ]
    history = min((run_dir / "histories").glob("*.phhs"))
    text = history.read_text()
    position = text.index('"d db ') + len('"d db ')
    first = text[position : position + 2]
    history.write_text(text[:position] + ("2c" if first != "2c" else "3c") + text[position + 2 :])
    assert _failed(run_dir) == {"digest", "histories"}


def _texts(folder: Path) -> list[str]:
    return [path.read_text() for path in sorted(folder.glob("*.phhs"))]


def _documented_digest(run_dir: Path) -> str:
    """The results digest as docs/results.md defines it, computed with nothing but the
    standard library from the files on disk."""
    data = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    del data["event"]["results_digest"]
    names = sorted({entry["part"] for entry in data["sessions"]} | set(data["histories"]))
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    body = b"dp-arena results digest v1\n" + text.encode() + b"\n"
    for name in names:
        body += f"{hashlib.sha256((run_dir / name).read_bytes()).hexdigest()}  {name}\n".encode()
    return hashlib.sha256(body).hexdigest()


def test_the_results_digest_is_the_documented_one(finished: Path) -> None:
    recorded = json.loads((finished / "results.json").read_text())["event"]["results_digest"]
    assert recorded == _documented_digest(finished)
    verification = verify_run(finished, results_digest=recorded.upper())
    assert verification.passed and verification.digest == recorded


@pytest.mark.parametrize("changed", ["results.json", "histories", "sessions"])
def test_the_published_digest_catches_one_changed_byte(copy: Path, changed: str) -> None:
    published = _documented_digest(copy)
    path = copy / changed if changed == "results.json" else min((copy / changed).iterdir())
    data = bytearray(path.read_bytes())
    # A digit (a chip count, a card's rank, a count): the file stays well-formed; in
    # results.json, one past the revealed key and digest.
    start = data.find(b'"totals"') if changed == "results.json" else len(data) // 2
    position = next(index for index in range(start, len(data)) if data[index] in b"2345")
    data[position] += 1
    path.write_bytes(bytes(data))
    # A forger who also writes the new digest into results.json is caught by the published one.
    _edit_json(copy / "results.json", lambda _: None)
    results = json.loads((copy / "results.json").read_text())
    results["event"]["results_digest"] = _documented_digest(copy)
    (copy / "results.json").write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    verification = verify_run(copy, results_digest=published)
    [digest] = [check for check in verification.checks if check.name == "digest"]
    assert not digest.passed
    assert any(f"--results-digest says {published!r}" in text for text in digest.problems)


def test_the_run_prints_the_results_digest_it_reveals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(
        tmp_path,
        '[event]\nname = "printed"\nformat = "short"\n\n'
        '[field]\ncount = 8\nfrom = ["random", "tag"]\n',
    )
    run_dir = tmp_path / "run"
    assert (
        main(["run", str(config), "--run-dir", str(run_dir), "--executor", "serial", "--quiet"])
        == 0
    )
    printed = re.search(r"^results digest ([0-9a-f]{64})$", capsys.readouterr().out, re.MULTILINE)
    assert printed is not None
    assert printed.group(1) == _documented_digest(run_dir)
