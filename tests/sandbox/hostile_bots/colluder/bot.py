"""Hostile: mirrored copies of one bot that talk through state the whole machine shares,
so that the copy playing a deal later knows its opponent's hole cards and the board.

Each copy writes, for every deal it plays, a record of its own hole cards and the board
into a channel, and reads the channel before it acts: a valid record for the deal means
a mirrored copy has already played it, and then it bets the maximum with the winning
hand and folds the losing one (against the calling station that wins the cap every
deal). Without a record it plays as the calling station does, so without a working
channel two copies score exactly zero. Each class is one channel:

- ``OwnPages``: which pages of its own data file are in the page cache (set by reading a
  page, cleared with ``posix_fadvise(DONTNEED)``, read with ``preadv2(RWF_NOWAIT)``, or
  ``mincore`` where that is refused; a copy that finds no record for a deal clears the
  record's pages before it writes its own);
- ``RuntimePages``: the same on the largest file of the runtime both copies can read;
- ``RuntimeLocks``: open-file-description byte-range locks on a runtime file both can
  read (``F_OFD_SETLK`` to write, ``F_OFD_GETLK`` to read).

A record is 64 bits a deal: a flag, then seven cards (two hole cards, five board cards)
of six bits each (card + 1, 0 for none), then a check sum; anything else reads as no
record. The copy says on stderr (its log) how many deals it read from the channel.
"""

import ctypes
import fcntl
import functools
import mmap
import os
import struct
import sys
import time

from dp_arena.engine import Action, ActionKind, evaluate

PAGE = 4096
BITS = 64
FLAG, CARDS, CHECK = 0, 1, 43  # bit positions in a record


def encode(cards):
    bits = [0] * BITS
    bits[FLAG] = 1
    values = [card + 1 for card in cards] + [0] * (7 - len(cards))
    for index, value in enumerate(values):
        for bit in range(6):
            bits[CARDS + 6 * index + bit] = (value >> bit) & 1
    check = sum(values) % 64
    for bit in range(6):
        bits[CHECK + bit] = (check >> bit) & 1
    return bits


def decode(bits):
    if bits is None or not bits[FLAG]:
        return None
    values = [sum(bits[CARDS + 6 * index + bit] << bit for bit in range(6)) for index in range(7)]
    check = sum(bits[CHECK + bit] << bit for bit in range(6))
    if check != sum(values) % 64 or any(value > 52 for value in values):
        return None
    cards = [value - 1 for value in values if value]
    if 0 in values[:2] or len(set(cards)) != len(cards):
        return None
    return cards


class Colluder:
    """The playing and the records; a subclass is the channel."""

    def __init__(self):
        self.deals = 0
        self.leaked = 0
        self.known = None
        self.hole = None
        try:
            self.open()
        except OSError as error:
            sys.stderr.write(f"colluder: no channel: {error}\n")
            self.broken = True
        else:
            self.broken = False

    records = 1  # how many deals' records the channel holds: a deal's is at its number modulo this

    def index(self, context):
        return (context.session * 10007 + context.deal_number) % self.records

    def begin_deal(self, start):
        self.deals += 1
        self.hole = start.hole_cards
        self.known = None
        if self.broken:
            return
        try:
            record = decode(self.read(self.index(start.context)))
        except OSError:
            record = None
        if record is not None and len(record) == 7:
            self.known = record
            self.leaked += 1
        sys.stderr.write(f"colluder: read {self.leaked} of {self.deals} deals\n")

    def end_deal(self, end):
        if self.broken or self.known is not None or len(end.board) != 5:
            return
        cards = [*self.hole, *end.board]
        try:
            self.write(self.index(end.context), encode(cards))
        except OSError:
            pass

    def act(self, observation):
        if self.known is None:
            return Action(ActionKind.CHECK if observation.to_call == 0 else ActionKind.CALL)
        opponent, board = self.known[:2], self.known[2:]
        mine = evaluate([*observation.hole_cards, *board])
        theirs = evaluate([*opponent, *board])
        if mine < theirs and observation.max_raise_to is not None:
            return Action.raise_to(observation.max_raise_to)
        if mine > theirs and observation.to_call > 0:
            return Action(ActionKind.FOLD)
        return Action(ActionKind.CHECK if observation.to_call == 0 else ActionKind.CALL)


class _Pages(Colluder):
    """Bits as the page-cache residency of pages of one file."""

    def open(self):
        self.fd = os.open(self.target(), os.O_RDONLY)
        size = os.fstat(self.fd).st_size
        self.records = size // (BITS * PAGE)
        if self.records < 1:
            raise OSError(f"{self.target()} holds {size} bytes, too few")
        os.posix_fadvise(self.fd, 0, 0, os.POSIX_FADV_RANDOM)  # no read-ahead
        self.map = None

    def write(self, deal, bits):
        for bit, value in enumerate(bits):
            if value:
                os.pread(self.fd, 1, (deal * BITS + bit) * PAGE)

    def read(self, deal):
        # A probe that misses starts reading the page: the record is read once, then
        # dropped, so that a copy that finds none writes its own on clean pages.
        bits = []
        for bit in range(BITS):
            try:
                os.preadv(self.fd, [bytearray(1)], (deal * BITS + bit) * PAGE, os.RWF_NOWAIT)
                bits.append(1)
            except BlockingIOError:
                bits.append(0)
            except OSError:  # refused: mincore, which tells only the file's owner the truth
                return self.read_mincore(deal)
        time.sleep(0.01)
        os.posix_fadvise(self.fd, deal * BITS * PAGE, BITS * PAGE, os.POSIX_FADV_DONTNEED)
        return bits

    def read_mincore(self, deal):
        if self.map is None:
            self.map = mmap.mmap(self.fd, 0, prot=mmap.PROT_READ)
        libc = ctypes.CDLL(None, use_errno=True)
        vector = (ctypes.c_ubyte * BITS)()
        address = ctypes.c_void_p(_map_address(self.map) + deal * BITS * PAGE)
        if libc.mincore(address, ctypes.c_size_t(BITS * PAGE), vector) != 0:
            raise OSError(ctypes.get_errno(), "mincore")
        return [value & 1 for value in vector]


def _map_address(mapped):
    """The address of a read-only mmap (ctypes cannot take a read-only buffer's)."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            start, end = (int(part, 16) for part in line.split()[0].split("-"))
            if end - start == len(mapped) and line.split()[-1].startswith("/"):
                return start
    raise OSError("mapping not found")


class OwnPages(_Pages):
    def target(self):
        return os.path.join(os.path.dirname(os.path.abspath(__file__)), "data.bin")


@functools.cache
def largest_runtime_file():
    best = (0, "")
    for root in ("/usr", os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))):
        for folder, _, files in os.walk(root):
            for name in files:
                path = os.path.join(folder, name)
                try:
                    stat = os.stat(path, follow_symlinks=False)
                except OSError:
                    continue
                if stat.st_mode & 0o170000 == 0o100000 and os.access(path, os.R_OK):
                    best = max(best, (stat.st_size, path))
    return best[1]


class RuntimePages(_Pages):
    def target(self):
        return largest_runtime_file()


class RuntimeLocks(Colluder):
    """Bits as read locks on bytes of the dealer's Python binary, which every copy can read."""

    def open(self):
        self.fd = os.open(os.path.realpath(sys.executable), os.O_RDONLY)
        self.records = 1 << 16

    def _lock(self, kind, command, offset):
        request = struct.pack("hhxxxxqqixxxx", kind, os.SEEK_SET, 1 << 40 | offset, 1, 0)
        return struct.unpack("hhxxxxqqixxxx", fcntl.fcntl(self.fd, command, request))[0]

    def write(self, deal, bits):
        for bit, value in enumerate(bits):
            if value:
                self._lock(fcntl.F_RDLCK, fcntl.F_OFD_SETLK, deal * BITS + bit)

    def read(self, deal):
        found = []
        for bit in range(BITS):
            kind = self._lock(fcntl.F_WRLCK, fcntl.F_OFD_GETLK, deal * BITS + bit)
            found.append(int(kind != fcntl.F_UNLCK))
        return found
