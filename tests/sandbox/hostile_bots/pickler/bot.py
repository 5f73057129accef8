"""Hostile (pipe protocol): answers with a pickle instead of JSON."""

import json
import pickle
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "Pickler"}), flush=True)
    elif message["type"] == "act":
        sys.stdout.buffer.write(pickle.dumps({"id": message["id"], "action": "call"}) + b"\n")
        sys.stdout.buffer.flush()
