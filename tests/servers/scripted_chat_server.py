"""A real HTTP server process that speaks the chat-completions API badly on purpose, for the
`openai` reader's failure tests and the fault matrix. It prints its port, then serves.

    python tests/servers/scripted_chat_server.py MODE [ARG]

    fail-first N    HTTP 500 to the first N requests, then a completion
    slow S          waits S seconds before answering
    drip S          sends its headers, then the body one byte every S seconds
    drip-headers S  sends the status line and headers one byte every S seconds
    huge MB         a 200 reply of MB megabytes, its length declared
    huge-chunked MB the same, chunked, no length declared
    content JSON    a completion whose message content is JSON (e.g. 5, [{"type": "text", "text": 5}])
    body TEXT       a 200 whose body is TEXT as it is (not JSON, JSON without choices, NaN, ...)
    status N        HTTP N with a JSON error body
    redirect N      HTTP N (301, 302, 307, 308) to /v1/chat/completions of this same server
    close           reads the request, then closes the connection without a word
    garbage         answers bytes that are not HTTP
    deep N          a completion nested N lists deep inside its content

GET / answers {"requests": N}: how many chat requests it has seen (for retry counts).
"""

import json
import socketserver
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1]
ARG = sys.argv[2] if len(sys.argv) > 2 else ""
seen = {"requests": 0}


def completion(model: str, content) -> bytes:
    return json.dumps({"id": "x", "object": "chat.completion", "model": model + "-scripted",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                    "finish_reason": "stop"}]}).encode()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):  # the number of chat requests seen so far, for the test to check retries
        self.reply(200, json.dumps({"requests": seen["requests"]}).encode())

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        seen["requests"] += 1
        model = body.get("model", "m")
        try:
            self.answer(model)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout, its size limit): nothing to answer

    def answer(self, model: str):
        if MODE == "fail-first" and seen["requests"] <= float(ARG):
            return self.reply(500, b'{"error": {"message": "scripted failure"}}')
        if MODE == "slow":
            time.sleep(float(ARG))
        if MODE == "drip":
            data = completion(model, "ate [#1]")
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            for i in range(len(data)):
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
                time.sleep(float(ARG))
            return
        if MODE == "drip-headers":
            for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 10_000:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(float(ARG))
            return
        if MODE in ("huge", "huge-chunked"):
            return self.huge(int(float(ARG) * (1 << 20)), chunked=MODE == "huge-chunked")
        if MODE == "content":
            return self.reply(200, completion(model, json.loads(ARG)))
        if MODE == "body":
            return self.reply(200, ARG.encode())
        if MODE == "status":
            return self.reply(int(ARG), b'{"error": {"message": "scripted status"}}')
        if MODE == "redirect":
            self.send_response(int(ARG))
            self.send_header("Location", "/v1/chat/completions")
            self.send_header("Content-Length", "0")
            return self.end_headers()
        if MODE == "close":
            self.close_connection = True
            return
        if MODE == "garbage":
            self.wfile.write(b"\x00\xffnot http at all\r\n\r\n")
            return
        if MODE == "model":  # the reply's model: "repeat:N" is N x's, else the JSON value ARG
            value = "x" * int(ARG[7:]) if ARG.startswith("repeat:") else json.loads(ARG)
            return self.reply(200, json.dumps({"model": value, "choices": [{"message": {"content": "ate [#1]"}}]})
                              .encode())
        if MODE == "deep":
            n = int(ARG)
            return self.reply(200, b'{"choices": [{"message": {"content": ' + b"[" * n + b"]" * n + b"}}]}")
        self.reply(200, completion(model, "ate [#1]"))

    def huge(self, size: int, chunked: bool):
        self.send_response(200)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(size))
        self.end_headers()
        block = b" " * (1 << 20)
        for start in range(0, size, len(block)):
            part = block[: min(len(block), size - start)]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part) if chunked else part)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")

    def reply(self, status: int, data: bytes):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class Server(ThreadingHTTPServer):
    daemon_threads = True


socketserver.TCPServer.allow_reuse_address = True
server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
