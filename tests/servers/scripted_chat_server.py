"""A real HTTP server process that speaks the chat-completions API badly on purpose, for the
`openai` reader's failure tests: `fail-first N` answers HTTP 500 to the first N requests and
then a completion; `slow S` waits S seconds before answering. It prints its port, then serves.

    python tests/servers/scripted_chat_server.py fail-first 1
"""

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE, ARG = sys.argv[1], float(sys.argv[2])
seen = {"requests": 0}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):  # the number of chat requests seen so far, for the test to check retries
        self.reply(200, {"requests": seen["requests"]})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        seen["requests"] += 1
        if MODE == "fail-first" and seen["requests"] <= ARG:
            return self.reply(500, {"error": {"message": "scripted failure"}})
        if MODE == "slow":
            time.sleep(ARG)
        self.reply(200, {"id": "x", "object": "chat.completion", "model": body["model"] + "-scripted",
                         "choices": [{"index": 0, "message": {"role": "assistant", "content": "ate [#1]"},
                                      "finish_reason": "stop"}]})

    def reply(self, status, obj):
        data = json.dumps(obj).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout): nothing to answer


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
