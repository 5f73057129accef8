"""Careless (pipe protocol): answers every request with a bare word, not a JSON object."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "Plain"}), flush=True)
    elif message["type"] == "act":
        print("call", flush=True)
