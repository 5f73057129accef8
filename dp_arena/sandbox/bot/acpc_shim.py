"""The ACPC shim: an ACPC agent's program, run unchanged inside its sandbox.

Run as the bot's command, ``python -I -m dp_arena.sandbox.bot.acpc_shim -- AGENT ARGS...``
(:func:`dp_arena.sandbox.launch_for` writes it for an ``acpc:`` spec or a bot folder whose
``bot.toml`` says ``protocol = "acpc"``). It speaks the pipe protocol of
``docs/protocol.md`` to the dealer on its stdin and stdout, and the ACPC dealer protocol
(:mod:`dp_arena.sandbox.bot.acpc`) to the agent, which it starts itself, over TCP on the
sandbox's own loopback: nothing else can reach it, and the agent can reach nothing else.

The table's game is known at the agent's first decision (its observation names the
blinds, the cap and the betting), so the agent starts then: the shim writes the game
definition into the sandbox's ``/tmp``, listens on ``127.0.0.1`` on a port the kernel
picks, and runs the agent's command with ``{game}``, ``{host}`` and ``{port}`` filled in,
in the bot's folder, its stdout and stderr going to the bot's log. Its start, connection
and ``VERSION`` line count against that decision's time (and the time bank). A table of
another game (the conformance check deals several) gets an agent of its own, the last
eight kept running. From then on the agent is sent every state of every deal: the start,
each action, the decision it is asked and the end with the cards shown.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import time
from collections import OrderedDict
from typing import IO, Any

from dp_arena.names import ACPC_PREFIX
from dp_arena.sandbox.bot.acpc import (
    BOARD_AT,
    ROUNDS,
    VERSION,
    Game,
    Hand,
    Unplayable,
    game_of,
    parse_reply,
)

__all__ = ["main"]

HOST = "127.0.0.1"
MAX_LINE = 1 << 16  # an ACPC line is a few hundred bytes
MAX_AGENTS = 8
QUICKACK = getattr(socket, "TCP_QUICKACK", 12)  # Linux's
# How long an agent has to leave once its connection is closed, and again after SIGTERM:
# both within the dealer's grace for the shim itself.
LEAVE_GRACE = 0.2


class AgentGone(Exception):
    """The agent closed its connection or could not be started (the bot crashes)."""


class Agent:
    """One running ACPC agent of one game, and its connection."""

    def __init__(self, command: list[str], game: Game, timeout: float) -> None:
        self.game = game
        self.hand: Hand | None = None
        self.sent = 0  # match states of the current hand sent so far
        # States sent at which the agent was the one to act though the hand has gone past
        # them (its action was taken for it: a fault's check-or-fold, or the conformance
        # check's random play): it answers them all the same, and those answers are read
        # and set aside before the answer asked for.
        self.owed: list[str] = []
        # The last state sent, at which the agent may be the one to act: owed if the hand
        # goes past it before its answer was asked for.
        self.last: str | None = None
        folder = tempfile.mkdtemp(prefix="acpc-")
        self.game_file = os.path.join(folder, "game.def")
        with open(self.game_file, "w", encoding="ascii") as file:
            file.write(game.definition())
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.bind((HOST, 0))
        except OSError as error:
            raise AgentGone(f"no loopback to serve the agent on here ({error})") from None
        listener.listen(1)
        port = listener.getsockname()[1]
        fill = {"game": self.game_file, "host": HOST, "port": str(port)}
        argv = [_fill(word, fill) for word in command]
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=sys.stderr.fileno(),
                stderr=sys.stderr.fileno(),
            )
        except OSError as error:
            raise AgentGone(f"cannot start {argv[0]}: {error}") from None
        try:
            self._wait_for_connection(listener, timeout, argv[0], port)
            self.connection, _ = listener.accept()
            # Small lines both ways: no waiting for the agent's acknowledgement of the last.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except (OSError, AgentGone) as error:
            if self.process.poll() is None:
                self.process.kill()
            raise error if isinstance(error, AgentGone) else AgentGone(str(error)) from None
        finally:
            listener.close()
        self.buffer = b""
        version = self.read_line(timeout)
        if not VERSION.match(version):
            self.close()
            raise AgentGone(f"{argv[0]} said {version[:60]!r} where ACPC agents say VERSION:2.0.0")

    def _wait_for_connection(
        self, listener: socket.socket, timeout: float, program: str, port: int
    ) -> None:
        """Wait until the agent connects; :class:`AgentGone` when it exits first or
        does not connect in time."""
        deadline = time.monotonic() + timeout
        while not select.select([listener], [], [], 0.05)[0]:
            status = self.process.poll()
            if status is not None:
                raise AgentGone(
                    f"{program} exited with status {status} before it connected to"
                    f" {HOST}:{port} (its log says why)"
                )
            if time.monotonic() > deadline:
                raise AgentGone(f"{program} did not connect to {HOST}:{port} within {timeout:g} s")

    def send(self, states: list[str]) -> None:
        """Match states, in one write (each line ends with CR LF)."""
        if not states:
            return
        try:
            self.connection.sendall("".join(f"{state}\r\n" for state in states).encode("ascii"))
        except OSError:
            raise AgentGone("the agent closed its connection") from None

    def answer(self) -> str:
        """The agent's next answer that is not to a state the hand has gone past."""
        line = self.read_line()
        while found := [
            index for index, past in enumerate(self.owed) if line.startswith(past + ":")
        ]:
            del self.owed[: found[0] + 1]
            line = self.read_line()
        self.last = None  # answered
        return line

    def read_line(self, timeout: float | None = None) -> str:
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_LINE:
                raise AgentGone(f"the agent sent a line of over {MAX_LINE} bytes")
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.connection], [], [], wait)
            if not ready:
                raise AgentGone("the agent said nothing in time")
            try:
                chunk = self.connection.recv(4096)
                # Acknowledge at once: an agent that writes two answers in a row (one to a
                # state the hand has gone past) would otherwise wait for the second.
                self.connection.setsockopt(socket.IPPROTO_TCP, QUICKACK, 1)
            except OSError:
                chunk = b""
            if not chunk:
                raise AgentGone(
                    f"the agent closed its connection (exit status {self.process.poll()})"
                )
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.rstrip(b"\r").decode("ascii", "replace")

    def close(self) -> None:
        """Close the connection as the ACPC dealer does, so the agent reads the last match
        state and leaves on its own; one that stays is ended."""
        try:
            self.connection.close()
        finally:
            try:
                self.process.wait(LEAVE_GRACE)
            except subprocess.TimeoutExpired:
                self.process.terminate()
                try:
                    self.process.wait(LEAVE_GRACE)
                except subprocess.TimeoutExpired:
                    self.process.kill()


def _fill(word: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        word = word.replace("{" + key + "}", value)
    return word


class Shim:
    """The dealer's side: the pipe protocol's messages, each turned into match states."""

    def __init__(self, command: list[str], output: IO[bytes]) -> None:
        self.command = command
        self.output = output
        self.agents: OrderedDict[Game, Agent] = OrderedDict()
        self.load_timeout = 15.0
        self.current: Agent | None = None  # the agent of the deal in progress

    def write(self, message: dict[str, Any]) -> None:
        self.output.write(json.dumps(message).encode() + b"\n")
        self.output.flush()

    def handle(self, message: dict[str, Any]) -> bool:
        """Answer one message from the dealer; ``False`` after its goodbye."""
        kind = message.get("type")
        if kind == "hello":
            self.load_timeout = float(message.get("limits", {}).get("load_timeout", 15.0))
            name = ACPC_PREFIX + os.path.basename(self.command[0])
            self.write(
                {"type": "hello", "protocol": 1, "name": name, "hooks": ["begin_deal", "end_deal"]}
            )
        elif kind == "deal_start":
            self.begin_deal(message["deal"])
        elif kind == "act":
            self.act(int(message["id"]), message["observation"])
        elif kind == "deal_end":
            self.end_deal(message["result"])
        elif kind == "goodbye":
            return False
        return True

    def begin_deal(self, deal: dict[str, Any]) -> None:
        """A deal starts: the table's agent, once it plays, is sent the hand's start."""
        self.current = None
        agent = next(reversed(self.agents.values()), None)
        if agent is not None and agent.game.players == int(deal["seat_count"]):
            number = int(deal["context"]["deal_number"])
            self.start_hand(
                agent, int(deal["seat"]), int(deal["button"]), deal["hole_cards"], number
            )
            self.catch_up([], "", 0)

    def start_hand(self, agent: Agent, seat: int, button: int, hole: str, number: int) -> None:
        agent.hand = Hand(agent.game, seat, button, hole, number)
        agent.sent = 0
        agent.last = None
        self.current = agent

    def catch_up(
        self,
        history: list[dict[str, Any]],
        board: str,
        current_round: int,
        shown: list[str | None] | None = None,
    ) -> str:
        """Send the current agent every state of its hand it has not been sent; the state
        after the whole ``history`` (sent now or before)."""
        agent = self.current
        assert agent is not None and agent.hand is not None
        me = agent.hand.seat
        since = min(agent.sent, len(history))
        states = agent.hand.states(
            history, board, since=since, current_round=current_round, shown=shown
        )
        passed = agent.sent - 1  # the last state sent, which the hand may have gone past
        if agent.last is not None and passed < len(history) and int(history[passed]["seat"]) == me:
            agent.owed.append(agent.last)
        fresh = states[agent.sent - since :]
        for count, state in enumerate(fresh, start=agent.sent):
            if count < len(history) and int(history[count]["seat"]) == me:
                agent.owed.append(state)
        agent.send(fresh)
        agent.last = states[-1] if agent.sent <= len(history) else agent.last
        agent.sent = max(agent.sent, len(history) + 1)
        return states[-1]

    def agent_for(self, game: Game) -> Agent:
        agent = self.agents.get(game)
        if agent is None:
            agent = Agent(self.command, game, self.load_timeout)
            self.agents[game] = agent
            while len(self.agents) > MAX_AGENTS:
                _, oldest = self.agents.popitem(last=False)
                oldest.close()
        self.agents.move_to_end(game)
        return agent

    def act(self, request: int, observation: dict[str, Any]) -> None:
        try:
            game = game_of(observation)
        except Unplayable as error:
            self.write({"type": "error", "id": request, "message": str(error)})
            return
        agent = self.agent_for(game)
        deal_number = int(observation["context"]["deal_number"])
        if self.current is not agent or agent.hand is None or agent.hand.number != deal_number:
            seat, button = int(observation["seat"]), int(observation["button"])
            self.start_hand(agent, seat, button, observation["hole_cards"], deal_number)
        history = observation["history"]
        state = self.catch_up(history, observation["board"], ROUNDS.index(observation["street"]))
        line = agent.answer()
        try:
            reply = parse_reply(line, state)
        except ValueError as error:
            self.write({"type": "error", "id": request, "message": str(error), "fault": "PROTOCOL"})
            return
        if reply.action == "fold":
            self.write({"type": "action", "id": request, "action": "fold"})
        elif reply.action == "call":
            facing = int(observation["to_call"]) > 0
            self.write({"type": "action", "id": request, "action": "call" if facing else "check"})
        else:
            assert reply.total is not None
            me = int(observation["seat"])
            before_street = int(observation["committed"][me]) - int(observation["street_bets"][me])
            amount = reply.total - before_street
            self.write({"type": "action", "id": request, "action": "raise", "amount": amount})

    def end_deal(self, result: dict[str, Any]) -> None:
        agent = self.current
        if agent is not None and agent.hand is not None:
            board = result["board"]
            final_round = BOARD_AT.index(len(board) // 2)
            self.catch_up(result["history"], board, final_round, shown=result["shown_cards"])
        self.current = None

    def close(self) -> None:
        for agent in self.agents.values():
            agent.close()


def main(argv: list[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["--"]:
        arguments = arguments[1:]
    if not arguments:
        print("usage: python -m dp_arena.sandbox.bot.acpc_shim -- AGENT ARGS...", file=sys.stderr)
        return 2
    shim = Shim(arguments, sys.stdout.buffer)
    try:
        for line in sys.stdin.buffer:
            if not shim.handle(json.loads(line)):
                break
    except AgentGone as error:
        print(f"dp-arena ACPC shim: {error}", file=sys.stderr)
        return 1
    finally:
        shim.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
