"""Hostile (pipe protocol): answers with a different malformed reply every time."""

import json
import sys

REPLIES = [
    b"call\n",
    b"[1, 2, 3]\n",
    b'{"id": ID, "action": "raise"}\n',
    b'{"id": ID, "action": "raise", "amount": "lots"}\n',
    b'{"id": ID, "action": "raise", "amount": 1.5}\n',
    b'{"id": ID, "action": "dance"}\n',
    b'{"id": ID, "action": "call", "amount": 20}\n',
    b"\xff\xfe not utf-8\n",
]
count = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "Malformed"}), flush=True)
    elif message["type"] == "act":
        reply = REPLIES[count % len(REPLIES)].replace(b"ID", str(message["id"]).encode())
        count += 1
        sys.stdout.buffer.write(reply)
        sys.stdout.buffer.flush()
