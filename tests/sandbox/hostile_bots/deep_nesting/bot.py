"""Hostile (pipe protocol): answers every request with 200,000 nested lists (400 KB,
under the message limit), and sends the same between requests."""

import json
import sys

NESTED = "[" * 200_000 + "]" * 200_000 + "\n"
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "DeepNesting"}), flush=True)
    elif message["type"] in ("act", "deal_end"):
        sys.stdout.write(NESTED)
        sys.stdout.flush()
