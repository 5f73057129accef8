"""Hostile (pipe protocol): answers with a 10 MiB message."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "BigMouth"}), flush=True)
    elif message["type"] == "act":
        padding = "x" * (10 * 1024 * 1024)
        sys.stdout.write(
            json.dumps({"id": message["id"], "action": "call", "padding": padding}) + "\n"
        )
        sys.stdout.flush()
