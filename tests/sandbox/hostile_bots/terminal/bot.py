"""Hostile (pipe protocol): tries to take over the organiser's terminal with every
string it controls: its name, its stderr, its error messages; then crashes with more
on stderr. Escape sequences clear the screen and set the window title, a carriage
return and a newline forge a report line, BEL rings, a bidi override reverses text."""

import json
import sys

ATTACK = "\x1b[2J\x1b[H\x1b]0;pwned\x07\rresult: PASS\n\u202eevil\u2066\x00"
requests = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "T" + ATTACK}), flush=True)
    elif message["type"] == "act":
        requests += 1
        sys.stderr.write(ATTACK + "\n")
        sys.stderr.flush()
        if requests == 3:
            sys.exit(1)
        reply = {"type": "error", "id": message["id"], "message": "boom" + ATTACK}
        print(json.dumps(reply), flush=True)
    elif message["type"] == "deal_end":
        print(json.dumps({"type": "error", "message": "hook" + ATTACK}), flush=True)
