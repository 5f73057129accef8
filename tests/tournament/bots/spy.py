"""A test bot that calls like a calling station and writes down what the table told it
about the event (one JSON line per deal) to the file named by ``DP_ARENA_SPY_LOG``."""

from __future__ import annotations

import json
import os


class Spy:
    def begin_deal(self, start):  # type: ignore[no-untyped-def]
        context = start.context
        path = os.environ.get("DP_ARENA_SPY_LOG")
        if path:
            with open(path, "a", encoding="utf-8") as log:
                log.write(
                    json.dumps(
                        {
                            "session": context.session,
                            "section": context.section,
                            "eliminating": context.eliminating,
                            "table_session_nets": context.table_session_nets,
                            "seat_position_rank": context.seat_position_rank,
                            "session_chips": context.session_chips,
                            "session_net": context.session_net,
                            "deal": context.deal_number,
                        }
                    )
                    + "\n"
                )

    def act(self, observation):  # type: ignore[no-untyped-def]
        return "call" if observation.to_call else "check"


class Broken:
    """Cannot even be built: its seat must be played as an absent player."""

    def __init__(self) -> None:
        raise RuntimeError("broken on purpose")

    def act(self, observation):  # type: ignore[no-untyped-def]
        return "check"
