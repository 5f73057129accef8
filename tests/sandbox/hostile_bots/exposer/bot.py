"""Hostile: a command bot run by a "program" in a private host folder (the test makes
one), which the sandbox used to mount whole. It prints every file it can find in that
folder to its log, then plays by checking or folding."""

import json
import pathlib
import sys

private = pathlib.Path(sys.executable).parent.parent
for path in sorted(private.rglob("*")):
    if path.is_file() and not path.is_symlink():
        sys.stderr.write(f"{path}: {path.read_text(errors='replace')[:80]}\n")
sys.stderr.flush()

for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "exposer"}), flush=True)
    elif kind == "act":
        action = "check" if message["observation"]["to_call"] == 0 else "fold"
        print(json.dumps({"type": "action", "id": message["id"], "action": action}), flush=True)
    elif kind == "goodbye":
        break
