"""Hostile: mirrored copies of one bot (or a team of bots sharing its code) that talk
through state the whole machine shares, so that a copy playing a deal later knows its
opponents' hole cards and the board.

Each copy writes, for every deal it plays to the end, a record of its seat's hole cards
and the board into a channel, and before it acts reads the records of the other seats
of the same deal (section, session, deal number): a copy that sat in that seat at a
mirrored table has played it already. Knowing the board and every opponent still in, it
bets the maximum with the winning hand and folds a beaten one (against the calling
station that wins the cap every deal); otherwise it plays as the calling station does,
so without a working channel it scores exactly what ``NoChannel`` scores. While the
conformance check looks at it, it keeps quiet (and so passes as repeatable). Each class
is one channel:

- ``OwnPages``: which pages of its own data file are in the page cache (set by reading a
  page, cleared with ``posix_fadvise(DONTNEED)``, read with ``preadv2(RWF_NOWAIT)``, or
  ``mincore`` where that is refused; a record's pages are cleared before it is written);
- ``RuntimePages``: the same on the largest file of the runtime both copies can read;
- ``RuntimeLocks``: open-file-description byte-range locks on a runtime file both can
  read (``F_OFD_SETLK`` to write, ``F_OFD_GETLK`` to read).

A record is 64 bits: a flag, seven cards (two hole cards, five board cards) of six bits
each (card + 1), then a check sum over the cards and the record's deal and seat, so a
record of another deal or seat (records share places modulo the channel's size) reads
as none, as does anything else. The copy says on stderr (its log) how many deals it
knew everything of.
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


def _key(context, seat):
    return ((context.section * 101 + context.session) * 1009 + context.deal_number) * 11 + seat


def encode(cards, key):
    bits = [0] * BITS
    bits[FLAG] = 1
    values = [card + 1 for card in cards]
    for index, value in enumerate(values):
        for bit in range(6):
            bits[CARDS + 6 * index + bit] = (value >> bit) & 1
    check = (sum(values) + key) % 64
    for bit in range(6):
        bits[CHECK + bit] = (check >> bit) & 1
    return bits


def decode(bits, key):
    if bits is None or not bits[FLAG]:
        return None
    values = [sum(bits[CARDS + 6 * index + bit] << bit for bit in range(6)) for index in range(7)]
    check = sum(bits[CHECK + bit] << bit for bit in range(6))
    if check != (sum(values) + key) % 64 or not all(1 <= value <= 52 for value in values):
        return None
    cards = [value - 1 for value in values]
    return cards if len(set(cards)) == 7 else None


class Colluder:
    """The playing and the records; a subclass is the channel."""

    records = 1  # how many records the channel holds: a record's place is its key modulo this

    def __init__(self):
        self.deals = 0
        self.knew = 0
        self.known = {}
        self.board = None
        self.start = self.hole = None
        try:
            self.open()
        except OSError as error:
            sys.stderr.write(f"colluder: no channel: {error}\n")
            self.broken = True
        else:
            self.broken = False

    def begin_deal(self, start):
        self.deals += 1
        self.start, self.hole = start, start.hole_cards
        self.known, self.board = {}, None
        if self.broken or start.context.event == "check-agent":  # looked at: keep quiet
            self.hole = None
            return
        for seat in range(start.seat_count):
            if seat == start.seat:
                continue
            key = _key(start.context, seat)
            try:
                bits = self.read(key % self.records)
                record = decode(bits, key)
                if record is not None:  # reading may have cleared it: for the next reader
                    self.write(key % self.records, bits)
            except OSError:
                record = None
            if record is not None and set(record[:2]).isdisjoint(start.hole_cards):
                self.known[seat] = record[:2]
                self.board = record[2:]

    def end_deal(self, end):
        if self.broken or len(end.board) != 5 or self.hole is None:
            return
        key = _key(end.context, end.seat)
        try:
            self.write(key % self.records, encode([*self.hole, *end.board], key))
        except OSError:
            pass

    def act(self, observation):
        live = [
            seat
            for seat in range(observation.seat_count)
            if seat != observation.seat
            and not observation.folded[seat]
            and not observation.absent[seat]
        ]
        if self.board is None or any(seat not in self.known for seat in live):
            return Action(ActionKind.CHECK if observation.to_call == 0 else ActionKind.CALL)
        if self.start is not None:  # the first decision of a deal it knows everything of
            self.knew += 1
            self.start = None
            sys.stderr.write(f"colluder: knew {self.knew} of {self.deals} deals\n")
        mine = evaluate([*observation.hole_cards, *self.board])
        best = min(evaluate([*self.known[seat], *self.board]) for seat in live)
        if mine < best and observation.max_raise_to is not None:
            return Action.raise_to(observation.max_raise_to)
        if mine > best and observation.to_call > 0:
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

    def write(self, place, bits):
        os.posix_fadvise(self.fd, place * BITS * PAGE, BITS * PAGE, os.POSIX_FADV_DONTNEED)
        for bit, value in enumerate(bits):
            if value:
                os.pread(self.fd, 1, (place * BITS + bit) * PAGE)

    def read(self, place):
        # A probe that misses starts reading the page: the record is read once, then
        # dropped (a reader that finds one writes it back).
        bits = []
        for bit in range(BITS):
            try:
                os.preadv(self.fd, [bytearray(1)], (place * BITS + bit) * PAGE, os.RWF_NOWAIT)
                bits.append(1)
            except BlockingIOError:
                bits.append(0)
            except OSError:  # refused: mincore, which tells only the file's owner the truth
                return self.read_mincore(place)
        time.sleep(0.01)
        os.posix_fadvise(self.fd, place * BITS * PAGE, BITS * PAGE, os.POSIX_FADV_DONTNEED)
        return bits

    def read_mincore(self, place):
        if self.map is None:
            self.map = mmap.mmap(self.fd, 0, prot=mmap.PROT_READ)
        libc = ctypes.CDLL(None, use_errno=True)
        vector = (ctypes.c_ubyte * BITS)()
        address = ctypes.c_void_p(_map_address(self.map) + place * BITS * PAGE)
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

    def write(self, place, bits):
        for bit, value in enumerate(bits):
            if value:
                self._lock(fcntl.F_RDLCK, fcntl.F_OFD_SETLK, place * BITS + bit)

    def read(self, place):
        found = []
        for bit in range(BITS):
            kind = self._lock(fcntl.F_WRLCK, fcntl.F_OFD_GETLK, place * BITS + bit)
            found.append(int(kind != fcntl.F_UNLCK))
        return found


class NoChannel(Colluder):
    """The same bot with no channel at all: what every colluder must score when its
    channel carries nothing."""

    def open(self):
        pass

    def read(self, place):
        return None

    def write(self, place, bits):
        pass


_MEMORY = {}


class SharedMemory(Colluder):
    """A perfect channel: a dictionary of this module, which copies share only when they
    run in one process (trusted), never in the sandbox. What any channel the sandbox
    cannot close would give: the test of the cards a bot could not see must name it."""

    def open(self):
        self.records = 1 << 62

    def read(self, place):
        return _MEMORY.get(place)

    def write(self, place, bits):
        _MEMORY[place] = bits
