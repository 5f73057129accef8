"""Hostile (pipe protocol): answers every request with the id of an earlier one."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "Stale"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"id": message["id"] - 1, "action": "call"}), flush=True)
