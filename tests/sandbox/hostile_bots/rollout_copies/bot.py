"""Hostile: a mixing bot whose copies try to game the rollouts that value its draws.

Every class mixes alike at the real tables (``Mixer``: check or bet the minimum, fold or
call, half and half) and differs only in what its copies do when the context names the
event ``"rollout"``:

A copy knows it is a rollout copy from the event its session's context names
(``"rollout"``).

- the talkers (``TmpFile``, ``HomeFile``, ``DevShm``, ``SysVShm``, ``NamedSocket``): each
  real copy writes every deal's real actions, keyed by its hole cards, into a channel
  that outlives it; a rollout copy reads the channel when its session begins, and in a
  rollout that has followed the real hand so far (a rollout after the action the dealer
  drew) it plays badly, to make the action drawn look worse than the others and its draw
  unlucky. ``Quiet`` is a talker whose channel is never there;
- ``Crash``, ``Hang``, ``Stall`` and ``Garbage``: a copy ends its process at its first
  rollout decision, sleeps past its budget once, or at every rollout decision, or writes
  garbage to its standard output and answers with garbage; ``Passive`` checks or folds
  at every rollout decision (what a crashed copy's seat plays);
- ``Liar``: plays its rollouts unlike its real play (it bets the maximum);
- ``Listener``: writes everything a rollout copy is told to its log (stderr).
"""

import ctypes
import json
import os
import socket
import sys
import time

from dp_arena.engine import Action, ActionKind, Mix

NAME = "dp-arena-rollout-talk"
SHM_KEY = 0x5253
SHM_SIZE = 1 << 20
IPC_CREAT = 0o1000
LETTERS = {"fold": "f", "check": "x", "call": "c", "raise": "r"}  # a socket name is short


def _actions(history):
    return [[record.seat, record.kind.value, record.raise_to] for record in history]


def _key(hole_cards):
    return ",".join(str(card) for card in sorted(hole_cards))


class Mixer:
    def __init__(self):
        self.event = ""
        self.hole = None

    def begin_session(self, context):
        self.event = context.event

    def begin_deal(self, start):
        self.hole = start.hole_cards

    def act(self, observation):
        if self.event == "rollout":
            answer = self.roll(observation)
            if answer is not None:
                return answer
        if observation.to_call == 0:
            if ActionKind.RAISE in observation.legal_actions:
                bet = Action.raise_to(observation.min_raise_to)
                return Mix([(Action.check(), 0.5), (bet, 0.5)])
            return Action.check()
        return Mix([(Action.fold(), 0.5), (Action.call(), 0.5)])

    def roll(self, observation):
        """A rollout copy's own answer, or None to answer as at the real tables."""


class Talker(Mixer):
    def __init__(self):
        super().__init__()
        self.heard = {}

    def begin_session(self, context):
        super().begin_session(context)
        if self.event == "rollout":
            try:
                self.heard = self.read()
            except Exception as error:  # noqa: BLE001  # no channel: nothing heard
                print(f"talker: nothing heard: {error!r}", file=sys.stderr)
                self.heard = {}
            print(f"talker: heard {len(self.heard)} deals", file=sys.stderr)

    def end_deal(self, end):
        if self.event == "rollout" or self.hole is None:
            return
        try:
            told = self.read()
        except Exception:  # noqa: BLE001
            told = {}
        told[_key(self.hole)] = _actions(end.history)
        try:
            self.write(told)
        except Exception as error:  # noqa: BLE001
            print(f"talker: cannot tell: {error!r}", file=sys.stderr)

    def roll(self, observation):
        real = self.heard.get(_key(observation.hole_cards))
        so_far = _actions(observation.history)
        if real is None or not so_far or real[: len(so_far)] != so_far:
            return None
        # After the action the dealer drew: fold a pair (or a card paired on the board),
        # call anything else down.
        ranks = [card >> 2 for card in observation.hole_cards]
        paired = ranks[0] == ranks[1] or any(card >> 2 in ranks for card in observation.board)
        if observation.to_call == 0:
            return Action.check()
        return Action.fold() if paired else Action.call()


class _FileTalker(Talker):
    def path(self):
        raise NotImplementedError

    def read(self):
        with open(self.path()) as file:
            return json.load(file)

    def write(self, told):
        with open(self.path(), "w") as file:
            json.dump(told, file)


class TmpFile(_FileTalker):
    def path(self):
        return f"/tmp/{NAME}.json"


class HomeFile(_FileTalker):
    def path(self):
        return os.path.join(os.environ.get("HOME") or os.path.expanduser("~"), f".{NAME}.json")


class DevShm(_FileTalker):
    def path(self):
        return f"/dev/shm/{NAME}.json"


class SysVShm(Talker):
    """A System V shared memory segment: it outlives every process that attached it."""

    def _segment(self):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.shmat.restype = ctypes.c_void_p
        identifier = libc.shmget(SHM_KEY, SHM_SIZE, IPC_CREAT | 0o666)
        if identifier < 0:
            raise OSError(ctypes.get_errno(), "shmget")
        address = libc.shmat(identifier, None, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "shmat")
        return address

    def read(self):
        address = self._segment()
        size = int.from_bytes(ctypes.string_at(address, 8), "little")
        if not 0 < size <= SHM_SIZE - 8:
            return {}
        return json.loads(ctypes.string_at(address + 8, size))

    def write(self, told):
        data = json.dumps(told).encode()[: SHM_SIZE - 8]
        address = self._segment()
        ctypes.memmove(address + 8, data, len(data))
        ctypes.memmove(address, len(data).to_bytes(8, "little"), 8)


class NamedSocket(Talker):
    """Unix sockets bound in a folder of /tmp, each one's name a deal's record: a bound
    socket's file stays after its process ends."""

    folder = f"/tmp/{NAME}-sockets"

    def read(self):
        kinds = {letter: kind for kind, letter in LETTERS.items()}
        heard = {}
        for name in os.listdir(self.folder):
            key, _, actions = name.partition("=")
            heard[key] = [
                [int(part[0]), kinds[part[1]], int(part[2:]) if part[2:] else None]
                for part in actions.split("+")
            ]
        return heard

    def end_deal(self, end):
        if self.event == "rollout" or self.hole is None:
            return
        parts = "+".join(
            f"{seat}{LETTERS[kind]}{'' if amount is None else amount}"
            for seat, kind, amount in _actions(end.history)
        )
        name = f"{_key(self.hole)}={parts}"
        try:
            os.makedirs(self.folder, exist_ok=True)
            here = os.getcwd()
            os.chdir(self.folder)  # a relative name: a socket's path is short
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as bound:
                    bound.bind(name)
            finally:
                os.chdir(here)
        except OSError as error:
            print(f"talker: cannot tell: {error!r}", file=sys.stderr)


class Quiet(Talker):
    """A talker whose channel is never there: what every talker is when it hears nothing."""

    def read(self):
        raise OSError("no channel")

    def write(self, told):
        raise OSError("no channel")


class Crash(Mixer):
    def roll(self, observation):
        sys.stderr.write("crash: ending the rollout copy\n")
        sys.stderr.flush()
        os._exit(3)


class Hang(Mixer):
    slept = False

    def roll(self, observation):
        if not self.slept:
            self.slept = True
            time.sleep(4)  # past the tests' action time and time bank, one second each


class Stall(Mixer):
    def roll(self, observation):
        time.sleep(4)  # at every rollout decision


class Garbage(Mixer):
    def roll(self, observation):
        os.write(1, b"\x00\xff{not json at all\n")
        return {"kind": "teleport", "amount": "lots"}


class Passive(Mixer):
    def roll(self, observation):
        return Action.check() if observation.to_call == 0 else Action.fold()


class Liar(Mixer):
    def roll(self, observation):
        if ActionKind.RAISE in observation.legal_actions:
            return Action.raise_to(observation.max_raise_to)
        return Action.call() if ActionKind.CALL in observation.legal_actions else Action.check()


class Listener(Mixer):
    def begin_session(self, context):
        super().begin_session(context)
        self.told("session", context)

    def begin_deal(self, start):
        super().begin_deal(start)
        self.told("deal", start)

    def end_deal(self, end):
        self.told("end", end)

    def act(self, observation):
        self.told("act", observation)
        return super().act(observation)

    def told(self, what, record):
        if self.event == "rollout":
            print(f"TOLD {what} {json.dumps(record.to_json())}", file=sys.stderr)
