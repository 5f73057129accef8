"""Bot uids: two dealer processes on one machine never hand out the same uid, however
their pids fall, a forked dealer claims uids of its own, and a block comes free when the
process holding it ends."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dp_arena.sandbox.confinement.uids import BLOCK_SIZE, BLOCKS, UID_BASE

_DEALER = """
import sys
from dp_arena.sandbox.confinement.uids import next_uid
print(next_uid(), next_uid(), flush=True)
sys.stdin.readline()  # holds its block until told to end
"""


def _dealer(locks: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _DEALER],
        env={**os.environ, "DP_ARENA_UID_LOCKS": str(locks)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _uids(dealer: subprocess.Popen[str]) -> list[int]:
    assert dealer.stdout is not None
    line = dealer.stdout.readline()
    assert line, dealer.communicate()[1]
    return [int(word) for word in line.split()]


def _block(uid: int) -> int:
    return (uid - UID_BASE) // BLOCK_SIZE


def _hold(locks: Path, blocks: range) -> list[int]:
    """Lock files of ``blocks`` held by this test, as a live dealer holds its own."""
    locks.mkdir(exist_ok=True)
    held = []
    for block in blocks:
        descriptor = os.open(locks / f"block-{block}", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.append(descriptor)
    return held


def test_dealers_alive_at_once_hand_out_uids_of_different_blocks(tmp_path: Path) -> None:
    dealers = [_dealer(tmp_path) for _ in range(3)]
    try:
        uids = [_uids(dealer) for dealer in dealers]
    finally:
        for dealer in dealers:
            dealer.communicate("\n")
    blocks = [{_block(uid) for uid in pair} for pair in uids]
    assert all(len(block) == 1 for block in blocks)  # one dealer, one block
    assert len(set().union(*blocks)) == 3
    assert all(uid[0] != uid[1] for uid in uids)


def test_a_dealer_takes_the_one_block_no_live_process_holds(tmp_path: Path) -> None:
    # Whatever its pid, with every other block held a dealer can only take the free one:
    # so it never takes a held one (the pid alone once chose it, and pids repeat modulo).
    held = _hold(tmp_path, range(BLOCKS - 1))
    try:
        dealer = _dealer(tmp_path)
        uids = _uids(dealer)
        dealer.communicate("\n")
        assert {_block(uid) for uid in uids} == {BLOCKS - 1}
        # The block came free when that dealer ended: the next one takes it again.
        again = _dealer(tmp_path)
        assert {_block(uid) for uid in _uids(again)} == {BLOCKS - 1}
        again.communicate("\n")
    finally:
        for descriptor in held:
            os.close(descriptor)


def test_with_every_block_held_a_dealer_says_so(tmp_path: Path) -> None:
    held = _hold(tmp_path, range(BLOCKS))
    try:
        dealer = _dealer(tmp_path)
        _, error = dealer.communicate("\n")
    finally:
        for descriptor in held:
            os.close(descriptor)
    assert dealer.returncode != 0
    assert f"{tmp_path}: every one of the {BLOCKS} blocks of bot uids is held" in error


_FORKING_DEALER = """
import os
from dp_arena.sandbox.confinement.uids import next_uid
parent = next_uid()
read, write = os.pipe()
child = os.fork()
if child == 0:
    os.write(write, str(next_uid()).encode())
    os._exit(0)
os.waitpid(child, 0)
print(parent, int(os.read(read, 32)), next_uid())
"""


def test_a_forked_dealer_claims_a_block_of_its_own(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _FORKING_DEALER],
        env={**os.environ, "DP_ARENA_UID_LOCKS": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    parent, child, parent_again = (int(word) for word in done.stdout.split())
    assert _block(parent) == _block(parent_again) != _block(child)


@pytest.mark.parametrize("count", [BLOCK_SIZE + 5])
def test_uids_of_one_dealer_stay_in_its_block(tmp_path: Path, count: int) -> None:
    script = (
        "from dp_arena.sandbox.confinement.uids import next_uid\n"
        f"print(*[next_uid() for _ in range({count})])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "DP_ARENA_UID_LOCKS": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    )
    uids = [int(word) for word in done.stdout.split()]
    assert len({_block(uid) for uid in uids}) == 1
    assert len(set(uids[:BLOCK_SIZE])) == BLOCK_SIZE  # distinct until the block wraps
