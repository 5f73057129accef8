"""What a careless bot in another language does (pipe protocol): it prints debug lines on
stdout. ``once``: one line, before its first answer; ``every`` (the default): that, and
one after each deal's end; ``none``: nothing, a clean twin to compare with. It answers
every request itself (it calls, or checks when there is nothing to call)."""

import json
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "every"
requests = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "Chatty"}), flush=True)
    elif message["type"] == "act":
        requests += 1
        if requests == 1 and mode != "none":
            print("debug: thinking about request 1", flush=True)
        action = "call" if message["observation"]["to_call"] else "check"
        print(json.dumps({"type": "action", "id": message["id"], "action": action}), flush=True)
    elif message["type"] == "deal_end" and mode == "every":
        print(f"debug: deal over, net {message['result']['net']}", flush=True)
