"""The bot manifest's protocol (an ACPC agent's command and its placeholders), the
"did you mean" of an entry file that is not there, and a registry made before ACPC agents
could enter, brought up to date when it is opened."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from dp_arena.errors import SubmissionError
from dp_arena.registry import Registry, bot_folder, read_manifest


def _manifest(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text('name = "bot"\nversion = "1"\n' + text)
    return folder


def test_an_acpc_agent_is_a_command_with_its_placeholders(tmp_path: Path) -> None:
    folder = _manifest(tmp_path, 'protocol = "acpc"\ncommand = "./player {game} {host} {port}"\n')
    spec, manifest = bot_folder(folder)
    assert manifest.protocol == "acpc"
    assert spec == "acpc:./player {game} {host} {port}"
    pipe = _manifest(tmp_path / "pipe", 'command = "node bot.js"\n')
    assert bot_folder(pipe) == ("cmd:node bot.js", read_manifest(pipe))


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ('protocol = "acpc"\nentry = "bot.py:Bot"\n', "needs a command"),
        ('protocol = "acpc"\ncommand = "./player {game} {host}"\n', "has no {port}"),
        ('protocol = "acpc"\ncommand = "./p {port} {seat}"\n', "unknown placeholder(s) {seat}"),
        ('protocol = "acpc"\ncommand = "./p {port} {"\n', "an unmatched brace"),
        ('protocol = "pokerbots"\ncommand = "./p"\n', "protocol must be one of 'pipe', 'acpc'"),
    ],
)
def test_a_broken_acpc_manifest_is_refused_with_what_to_write(
    tmp_path: Path, text: str, refusal: str
) -> None:
    (tmp_path / "bot.py").write_text("")
    with pytest.raises(SubmissionError) as caught:
        read_manifest(_manifest(tmp_path, text))
    assert caught.value.reason == "bad_manifest" and refusal in str(caught.value)


def test_an_entry_file_that_is_not_there_is_named_with_the_closest(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    with pytest.raises(SubmissionError) as caught:
        read_manifest(_manifest(tmp_path, 'entry = "bott.py:Bot"\n'))
    assert "entry file 'bott.py' is not in the bot's folder; did you mean 'bot.py'?" in str(
        caught.value
    )


def test_a_registry_made_before_acpc_agents_gets_their_column(tmp_path: Path) -> None:
    root = tmp_path / "registry"
    root.mkdir()
    with sqlite3.connect(root / "registry.sqlite") as connection:
        connection.execute(
            "CREATE TABLE bots (name TEXT NOT NULL, version INTEGER NOT NULL, sha256 TEXT NOT"
            " NULL, label TEXT NOT NULL, owner TEXT NOT NULL, entry TEXT, command TEXT,"
            " submitted TEXT NOT NULL, PRIMARY KEY (name, version), UNIQUE (name, sha256))"
        )
        connection.execute(
            "INSERT INTO bots VALUES ('old', 1, 'abc', '1', '', NULL, 'node bot.js', 'then')"
        )
    connection.close()
    registry = Registry(root)
    old = registry.resolve("old")
    assert old.protocol == "pipe" and old.seat_spec == "cmd:node bot.js"
    folder = _manifest(tmp_path / "agent", 'protocol = "acpc"\ncommand = "./p {port}"\n')
    stored, new = registry.add(folder, read_manifest(folder))
    assert new and registry.resolve("bot").seat_spec == "acpc:./p {port}"
    assert stored.protocol == "acpc"
