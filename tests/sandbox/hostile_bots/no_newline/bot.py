"""Careless (pipe protocol): writes each answer without the newline that ends it."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "NoNewline"}), flush=True)
    elif message["type"] == "act":
        sys.stdout.write(json.dumps({"id": message["id"], "action": "fold"}))
        sys.stdout.flush()
