"""Hostile (pipe protocol): after its hello, floods stdout with garbage forever."""

import json
import sys

sys.stdin.readline()
print(json.dumps({"type": "hello", "protocol": 1, "name": "Flooder"}), flush=True)
line = b"garbage " * 64 + b"\n"
while True:
    sys.stdout.buffer.write(line * 64)
