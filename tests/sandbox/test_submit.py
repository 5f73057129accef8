"""Submissions: unsafe or broken bots are refused with a specific reason; accepted bots
are stored by content hash, resubmitting is a no-op, new content is a new version, and
a stored bot can be seated as ``registry:name@version``."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest

from dp_arena.commands.submit import submit
from dp_arena.errors import SubmissionError
from dp_arena.registry import Registry, SubmissionLimits, content_hash, intake, unpack

from .conftest import REPO, play, reference_seat

EXAMPLES = REPO / "examples" / "bots"
GOOD_BOT = (
    "class Bot:\n    def act(self, observation):\n"
    "        return 'call' if observation.to_call else 'check'\n"
)
MANIFEST = 'name = "caller"\nversion = "1.0"\nentry = "bot.py:Bot"\n'


def make_bot(folder: Path, *, code: str = GOOD_BOT, manifest: str = MANIFEST) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(code)
    (folder / "bot.toml").write_text(manifest)
    return folder


def zip_of(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, data in members.items():
            bundle.writestr(name, data)
    return path


def refused(path: Path, tmp_path: Path, **kwargs: object) -> str:
    with pytest.raises(SubmissionError) as caught:
        intake(path, workdir=tmp_path, **kwargs)  # type: ignore[arg-type]
    return caught.value.reason


def test_the_content_hash_is_sha256_over_the_documented_listing(tmp_path: Path) -> None:
    folder = make_bot(tmp_path / "bot")
    os.chmod(folder / "bot.py", 0o644)
    os.chmod(folder / "bot.toml", 0o644)
    listing = "".join(
        f"{name}\0-\0{hashlib.sha256((folder / name).read_bytes()).hexdigest()}\n"
        for name in ("bot.py", "bot.toml")
    )
    assert content_hash(folder) == hashlib.sha256(listing.encode()).hexdigest()


def test_absolute_and_dotdot_paths_are_refused(tmp_path: Path) -> None:
    assert (
        refused(
            zip_of(tmp_path / "a.zip", {"/etc/evil": b"x", "bot.toml": MANIFEST.encode()}), tmp_path
        )
        == "unsafe_path"
    )
    assert (
        refused(
            zip_of(tmp_path / "b.zip", {"../evil.py": b"x", "bot.toml": MANIFEST.encode()}),
            tmp_path,
        )
        == "unsafe_path"
    )
    archive = tmp_path / "c.tar.gz"
    with tarfile.open(archive, "w:gz") as bundle:
        info = tarfile.TarInfo("sub/../../evil.py")
        info.size = 1
        bundle.addfile(info, io.BytesIO(b"x"))
    assert refused(archive, tmp_path) == "unsafe_path"


def test_links_that_leave_the_folder_are_refused(tmp_path: Path) -> None:
    folder = make_bot(tmp_path / "linky")
    (folder / "passwd").symlink_to("/etc/passwd")
    assert refused(folder, tmp_path) == "unsafe_link"
    archive = tmp_path / "links.tar.gz"
    with tarfile.open(archive, "w:gz") as bundle:
        for kind, target in (
            (tarfile.SYMTYPE, "/etc/passwd"),
            (tarfile.LNKTYPE, "../../etc/shadow"),
        ):
            info = tarfile.TarInfo(f"link{kind!r}")
            info.type, info.linkname = kind, target
            bundle.addfile(info)
    assert refused(archive, tmp_path) == "unsafe_link"


def test_a_zip_bomb_is_refused_before_it_expands(tmp_path: Path) -> None:
    bomb = zip_of(
        tmp_path / "bomb.zip", {"bot.toml": MANIFEST.encode(), "zeros": b"\0" * (20 * 1024 * 1024)}
    )
    assert bomb.stat().st_size < 100_000
    assert refused(bomb, tmp_path) == "zip_bomb"


def test_declared_sizes_are_checked_against_the_bytes(tmp_path: Path) -> None:
    total = zip_of(tmp_path / "big.zip", {"bot.toml": MANIFEST.encode(), "data": os.urandom(3000)})
    assert refused(total, tmp_path, limits=SubmissionLimits(max_bytes=2000)) == "too_large"
    # A zip whose central directory understates a member's size.
    liar = tmp_path / "liar.zip"
    zip_of(liar, {"bot.toml": MANIFEST.encode(), "data": b"A" * 5000})
    raw = bytearray(liar.read_bytes())
    central = raw.rfind(b"PK\x01\x02")  # the last central-directory entry is "data"
    raw[central + 24 : central + 28] = (100).to_bytes(4, "little")  # uncompressed size: 100
    liar.write_bytes(bytes(raw))
    reason = refused(liar, tmp_path)
    assert reason in ("size_mismatch", "bad_archive")


def test_missing_or_invalid_manifests_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "nomanifest"
    folder.mkdir()
    (folder / "bot.py").write_text(GOOD_BOT)
    assert refused(folder, tmp_path) == "no_manifest"
    for index, manifest in enumerate(
        [
            "name = [broken",
            'name = "Caps Not Allowed"\nversion = "1"\nentry = "bot.py:Bot"\n',
            'name = "x"\nversion = "1"\n',
            'name = "x"\nversion = "1"\nentry = "bot.py:Bot"\ncommand = "node a.js"\n',
            'name = "x"\nversion = "1"\nentry = "missing.py:Bot"\n',
            'name = "x"\nversion = "1"\nentry = "../bot.py:Bot"\n',
        ]
    ):
        assert refused(make_bot(tmp_path / f"m{index}", manifest=manifest), tmp_path) in (
            "bad_manifest",
            "unsafe_path",
        )


def test_a_hostile_manifest_is_refused_with_a_reason_not_a_traceback(tmp_path: Path) -> None:
    """Nesting that makes the recursive TOML parser overflow, a manifest too big to be
    one, and a version label that would write control characters on a terminal."""
    base = 'name = "x"\nversion = "1"\nentry = "bot.py:Bot"\n'
    cases = {
        "deep": (base + "x = " + "[" * 30_000 + "]" * 30_000 + "\n", "nested too deeply"),
        "huge": (base + "# padding\n" * 10_000, "over 64 KiB"),
        "label": (base.replace('"1"', '"1\\u001b[2J\\u202e"'), "version must be printable"),
    }
    for name, (manifest, says) in cases.items():
        with pytest.raises(SubmissionError) as caught:
            intake(make_bot(tmp_path / name, manifest=manifest), workdir=tmp_path)
        assert caught.value.reason == "bad_manifest"
        assert says in str(caught.value) and str(caught.value).isprintable()


def test_a_bot_that_fails_the_check_is_refused(tmp_path: Path) -> None:
    broken = make_bot(
        tmp_path / "broken",
        code="class Bot:\n    def act(self, observation):\n        return 'raise 1'\n",
    )
    registry = Registry(tmp_path / "registry")
    with pytest.raises(SubmissionError) as caught:
        submit(broken, registry=registry, states=10)
    assert caught.value.reason == "failed_check" and "ILLEGAL" in str(caught.value)
    assert registry.list() == []


def test_accept_resubmit_new_version_and_seat_from_the_registry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = Registry(tmp_path / "registry")
    folder = make_bot(tmp_path / "caller")
    first = submit(folder, registry=registry, owner="ann", states=10)
    assert (first["ref"], first["new"]) == ("caller@1", True)
    archive = shutil.make_archive(str(tmp_path / "caller"), "gztar", folder)
    again = submit(Path(archive), registry=registry, states=10)  # same content as an archive
    assert (again["ref"], again["new"], again["sha256"]) == ("caller@1", False, first["sha256"])
    (folder / "notes.txt").write_text("new content")
    second = submit(folder, registry=registry, states=10)
    assert (second["ref"], second["new"]) == ("caller@2", True)
    assert [bot.ref for bot in registry.list()] == ["caller@1", "caller@2"]
    assert registry.resolve("caller").version == 2
    assert content_hash(registry.resolve("caller@1").folder) == first["sha256"]

    from dp_arena.sandbox import open_seat

    monkeypatch.setenv("DP_ARENA_REGISTRY", str(registry.root))
    seat = open_seat("registry:caller@1", name="caller")
    try:
        result = play([seat, reference_seat()], deals=4)
    finally:
        seat.close()
    assert result.faults == ()
    assert all(sum(deal.nets) == 0 for deal in result.deals)
    missing = open_seat("registry:nobody@3", name="nobody")
    fault = missing.begin_session(None)  # type: ignore[arg-type]
    assert fault is not None and fault.kind.value == "LOAD_ERROR" and "nobody@3" in fault.detail


def test_the_example_command_bots_are_accepted(tmp_path: Path) -> None:
    registry = Registry(tmp_path / "registry")
    for name in ("python", "node"):
        outcome = submit(EXAMPLES / name, registry=registry, states=20)
        assert outcome["new"] is True
    assert sorted(bot.name for bot in registry.list()) == ["node-pot-odds", "pipe-pair-bot"]


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts /proc/self/fd")
def test_the_registry_closes_its_connections(tmp_path: Path) -> None:
    registry = Registry(tmp_path / "registry")
    registry.list()
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(50):
        assert registry.list() == []
        assert registry.find("nobody", "0" * 64) is None
    assert len(os.listdir("/proc/self/fd")) == before


def test_unpack_flattens_a_single_top_folder(tmp_path: Path) -> None:
    archive = zip_of(
        tmp_path / "nested.zip",
        {"caller/bot.toml": MANIFEST.encode(), "caller/bot.py": GOOD_BOT.encode()},
    )
    destination = tmp_path / "out"
    destination.mkdir()
    unpack(archive, destination)
    assert sorted(path.name for path in destination.iterdir()) == ["bot.py", "bot.toml"]


def test_the_submit_command_reports_acceptance_and_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dp_arena.cli import main

    registry = tmp_path / "registry"
    folder = make_bot(tmp_path / "caller")
    assert (
        main(
            ["submit", str(folder), "--registry", str(registry), "--states", "8", "--owner", "ann"]
        )
        == 0
    )
    assert "accepted caller@1" in capsys.readouterr().out
    assert (
        main(["submit", str(folder), "--registry", str(registry), "--name", "other", "--json"]) == 0
    )
    assert json.loads(capsys.readouterr().out)["ref"] == "other@1"
    bomb = zip_of(
        tmp_path / "bomb.zip", {"bot.toml": MANIFEST.encode(), "zeros": b"\0" * (20 << 20)}
    )
    assert main(["submit", str(bomb), "--registry", str(registry), "--json"]) == 1
    refusal = json.loads(capsys.readouterr().out)
    assert refusal["accepted"] is False and refusal["reason"] == "zip_bomb"
