#!/usr/bin/env python3
"""An external dp-arena bot in plain Python (standard library only), speaking the pipe
protocol of docs/protocol.md on stdin/stdout: run it as ``dp-arena match "python3
examples/bots/python/bot.py" random``.

How it plays: raises preflop with a pair or two high cards, calls small bets with
anything else, and after the flop bets half the pot when it has paired the board;
otherwise checks, or folds to a bet. Logs go to stderr, never stdout.
"""

import json
import sys

RANKS = "23456789TJQKA"
PROTOCOL_VERSION = 1


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def cards(text):
    return [text[index : index + 2] for index in range(0, len(text), 2)]


def decide(observation):
    hole = cards(observation["hole_cards"])
    board = cards(observation["board"])
    legal = observation["legal_actions"]
    to_call = observation["to_call"]
    ranks = sorted((RANKS.index(card[0]) for card in hole), reverse=True)
    if observation["street"] == "preflop":
        strong = ranks[0] == ranks[1] or ranks[1] >= RANKS.index("T")
        if strong and "raise" in legal:
            return {"action": "raise", "amount": observation["min_raise_to"]}
        if to_call <= observation["big_blind"] and "call" in legal:
            return {"action": "call"}
    else:
        paired = any(card[0] == hole_card[0] for card in board for hole_card in hole)
        if paired and "raise" in legal:
            target = observation["current_bet"] + observation["pot"] // 2
            amount = min(max(target, observation["min_raise_to"]), observation["max_raise_to"])
            return {"action": "raise", "amount": amount}
        if paired and "call" in legal:
            return {"action": "call"}
    return {"action": "check"} if "check" in legal else {"action": "fold"}


def main():
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "PipePairBot"})
        elif kind == "act":
            send({"type": "action", "id": message["id"], **decide(message["observation"])})
        elif kind == "deal_end":
            result = message["result"]
            print(f"deal {result['context']['deal_number']}: net {result['net']}", file=sys.stderr)
        elif kind == "goodbye":
            break


if __name__ == "__main__":
    main()
