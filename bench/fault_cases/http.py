"""The HTTP service misused: values of the wrong type, broken encodings, oversized and malformed
bodies, unknown routes, streams and clients that go away, many clients at once, and a rebuild
under the running server. A case holds with a 4xx naming the field (the /v1 routes in the
OpenAI error shape), never a 500, and a server that still answers afterwards."""

from __future__ import annotations

import atexit
import http.client
import json
import socket
import subprocess
import sys
import threading
import time
import unicodedata
from pathlib import Path

from fault_harness import Case, chunked_post, snakemake

from fault_cases import http_files

SERVERS: dict[Path, object] = {}
Q = "past tense of eat"
CHAT = "/v1/chat/completions"


def server(project: Path):
    """One server per project for the whole matrix, stopped when the process exits."""
    if project not in SERVERS:
        from minirag.serve.process import ServerProcess
        SERVERS[project] = ServerProcess(project, "mini", "mini.yaml", "results").start()
        atexit.register(SERVERS[project].stop)
    return SERVERS[project]


def request(project: Path, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
            timeout: float = 60) -> tuple[int, object]:
    s = server(project)
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=timeout)
    try:
        conn.request(method, path, body, {"Content-Type": "application/json", **(headers or {})})
        resp = conn.getresponse()
        data = resp.read()
    finally:
        conn.close()
    try:
        return resp.status, json.loads(data)
    except ValueError:
        return resp.status, data[:200]


def healthy(project: Path) -> bool:
    return request(project, "GET", "/healthz")[0] == 200


def refused_with(status: int, body: object, field: str | None, codes=(422,)) -> tuple[bool, str]:
    """A 4xx in `codes` naming `field` (None: naming none), in the shape of its route."""
    if not isinstance(body, dict):
        return False, f"{status}: {body!r}"[:160]
    if "error" in body:
        named, message = body["error"].get("param"), body["error"].get("message", "")
    else:
        detail = (body.get("detail") or [{}])[0]
        loc = detail.get("loc") or []
        named, message = (loc[-1] if len(loc) > 1 else None), detail.get("msg", "")
    ok = status in codes and (field is None or named == field or str(named).startswith(field))
    return ok, f"{status} {named}: {message}"[:160]


def post(route: str, body: dict | bytes, field: str | None, codes=(422,), headers: dict | None = None):
    def check(project: Path) -> tuple[bool, str]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        status, answer = request(project, "POST", route, data, headers)
        held, said = refused_with(status, answer, field, codes)
        return held and healthy(project), said
    return check


def get(path: str, codes=(404,)):
    def check(project: Path) -> tuple[bool, str]:
        status, answer = request(project, "GET", path)
        return status in codes and healthy(project), f"{status} {str(answer)[:120]}"
    return check


def nfd_query(project: Path) -> tuple[bool, str]:
    q = "¿Cuál es el pretérito de comer?"
    out = [request(project, "POST", "/search", json.dumps({"query": unicodedata.normalize(f, q)}).encode())[1]
           for f in ("NFC", "NFD")]
    ok = out[0]["results"] == out[1]["results"] and out[1]["query"] == unicodedata.normalize("NFC", q)
    return ok, "the NFD query ranks as the NFC one" if ok else "NFD and NFC differ"


def stream(project: Path) -> tuple[bool, str]:
    s = server(project)
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=60)
    conn.request("POST", CHAT, json.dumps({"messages": [{"role": "user", "content": Q}], "stream": True}),
                 {"Content-Type": "application/json"})
    resp = conn.getresponse()
    text = resp.read().decode()
    conn.close()
    ok = resp.status == 200 and text.rstrip().endswith("data: [DONE]")
    return ok, f"{resp.status}, {text.count('data:')} events"


def raw_socket(payload: bytes, wait: float = 0.0):
    """Bytes sent by hand, then the client goes away: the server must still answer others."""
    def check(project: Path) -> tuple[bool, str]:
        s = server(project)
        with socket.create_connection(("127.0.0.1", s.port), timeout=10) as sock:
            sock.sendall(payload)
            time.sleep(wait)
        ok = healthy(project)
        return ok, "still answering" if ok else "the server stopped answering"
    return check


def disconnect_mid_stream(project: Path) -> tuple[bool, str]:
    s = server(project)
    body = json.dumps({"messages": [{"role": "user", "content": Q}], "stream": True}).encode()
    with socket.create_connection(("127.0.0.1", s.port), timeout=10) as sock:
        sock.sendall(b"POST " + CHAT.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + body)
        sock.recv(64)
    ok = healthy(project)
    return ok, "still answering" if ok else "the server stopped answering"


def slow_client_does_not_block(project: Path) -> tuple[bool, str]:
    """A client that sends half its headers and waits: other clients are answered meanwhile."""
    s = server(project)
    with socket.create_connection(("127.0.0.1", s.port), timeout=30) as sock:
        sock.sendall(b"POST /search HTTP/1.1\r\nHost: x\r\nContent-Le")
        t0 = time.monotonic()
        status, _ = request(project, "POST", "/search", json.dumps({"query": Q}).encode(), timeout=30)
        waited = time.monotonic() - t0
    return status == 200, f"answered another client ({waited:.1f} s) while one dripped its headers"


def concurrent(project: Path) -> tuple[bool, str]:
    server(project)  # started here, not in a client thread: it is asked to die with the thread that starts it
    body = json.dumps({"query": Q, "retriever": "rrf", "k": 10}).encode()
    answers: list = []

    def one():
        answers.append(request(project, "POST", "/search", body))
    threads = [threading.Thread(target=one) for _ in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ok = len(answers) == 24 and all(a == answers[0] and a[0] == 200 for a in answers)
    return ok, f"{sum(a[0] == 200 for a in answers)} of 24 concurrent requests answered alike"


NEWCOMERS = """
import http.client, json, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
out = []
for _ in range(n):
    t0 = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("POST", "/answer", json.dumps({"query": "past tense of eat"}), {"Content-Type": "application/json"})
    status = conn.getresponse().status
    conn.close()
    out.append([status, time.monotonic() - t0])
print(json.dumps(out))
"""


def fair_to_newcomers(loopers: int = 100, newcomers: int = 30, bound_s: float = 1.0):
    """`loopers` clients answer in a loop on kept-alive connections while another process sends `newcomers`
    single /answer requests, one after another: every newcomer is answered (200) and the slowest within
    `bound_s` (the p99 of a few dozen), all in bounded time (the loops stop when the newcomers are done)."""
    def check(project: Path) -> tuple[bool, str]:
        s = server(project)
        body, stop, served = json.dumps({"query": Q}).encode(), threading.Event(), []

        def loop():
            conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=120)
            n = 0
            while not stop.is_set():
                conn.request("POST", "/answer", body, {"Content-Type": "application/json"})
                conn.getresponse().read()
                n += 1
            conn.close()
            served.append(n)
        threads = [threading.Thread(target=loop, daemon=True) for _ in range(loopers)]
        for t in threads:
            t.start()
        time.sleep(2.0)  # every loop busy
        try:
            proc = subprocess.run([sys.executable, "-c", NEWCOMERS, str(s.port), str(newcomers)], capture_output=True,
                                  text=True, timeout=300)
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=120)
        if proc.returncode != 0:
            return False, proc.stderr.strip()[-160:]
        results = json.loads(proc.stdout)
        slowest = max(t for _, t in results)
        ok = all(st == 200 for st, _ in results) and slowest <= bound_s
        return ok, (f"{newcomers} newcomers beside {loopers} loops ({sum(served)} answers): slowest {slowest:.2f} s, "
                    f"median {sorted(t for _, t in results)[len(results) // 2]:.2f} s (bound {bound_s} s)")
    return check


def rebuild_under_server(project: Path) -> tuple[bool, str]:
    """The chunker changed and the graph rebuilt while the server answers: every answer is 200, the
    server reloads, and the change is put back (rebuilt again) afterwards."""
    errors, stop = [], threading.Event()

    def client():
        while not stop.is_set():
            status, out = request(project, "POST", "/search", json.dumps({"query": Q}).encode())
            if status != 200:
                errors.append(out)
            time.sleep(0.05)
    before = request(project, "GET", "/healthz")[1]["reloads"]
    config = project / "mini.yaml"
    text = config.read_text()
    t = threading.Thread(target=client)
    t.start()
    try:
        config.write_text(text.replace("target_tokens: 40", "target_tokens: 56"))
        built = snakemake(project, "results/mini.md", timeout=1800).returncode == 0
        deadline = time.monotonic() + 120
        while request(project, "GET", "/healthz")[1]["reloads"] <= before and time.monotonic() < deadline:
            time.sleep(0.2)
        reloaded = request(project, "GET", "/healthz")[1]["reloads"] > before
    finally:
        stop.set()
        t.join()
        config.write_text(text)
        snakemake(project, "results/mini.md", timeout=1800)
    return built and reloaded and not errors, f"rebuilt, reloaded: {reloaded}, {len(errors)} failed requests"


def utf16(project: Path) -> tuple[bool, str]:
    """JSON in UTF-16 (with its BOM) is read as what it says: the same answer as in UTF-8."""
    body = {"query": Q, "k": 3}
    a = request(project, "POST", "/search", json.dumps(body).encode("utf-8"))
    b = request(project, "POST", "/search", json.dumps(body).encode("utf-16"))
    return a == b and a[0] == 200, f"{b[0]}, {'the same answer' if a == b else 'a different answer'}"


def chat(**extra) -> dict:
    return {"messages": [{"role": "user", "content": Q}], **extra}


def typed_cases() -> list[tuple]:
    """Values of the wrong type, missing, empty, hostile or out of bounds."""
    return [
        ("k: true", post("/search", {"query": Q, "k": True}, "k")),
        ("k: '3'", post("/search", {"query": Q, "k": "3"}, "k")),
        ("k: 3.0", post("/search", {"query": Q, "k": 3.0}, "k")),
        ("k: 0", post("/search", {"query": Q, "k": 0}, "k")),
        ("k: -1", post("/search", {"query": Q, "k": -1}, "k")),
        ("k: 10^20", post("/search", {"query": Q, "k": 10**20}, "k")),
        ("k: null", post("/search", {"query": Q, "k": None}, "k")),
        ("query: 5", post("/search", {"query": 5}, "query")),
        ("query: null", post("/search", {"query": None}, "query")),
        ("query: [..]", post("/search", {"query": [Q]}, "query")),
        ("query: {..}", post("/search", {"query": {"q": Q}}, "query")),
        ("query missing", post("/search", {"k": 3}, "query")),
        ("query empty", post("/search", {"query": ""}, "query")),
        ("query blank", post("/answer", {"query": " \n "}, "query")),
        ("query of zero-width spaces (search)", post("/search", {"query": "\u200b\u200b"}, "query")),
        ("query of zero-width and bidi marks (answer)", post("/answer", {"query": "\u200b\ufeff\u202e "}, "query")),
        ("query with a NUL", post("/search", {"query": "past\x00 of eat"}, "query")),
        ("query with an ESC", post("/answer", {"query": "past\x1b[2J of eat"}, "query")),
        ("query with a lone surrogate", post("/search", b'{"query": "go \\ud800 past"}', "query")),
        ("retriever with a lone surrogate", post("/answer", b'{"query": "x", "retriever": "a\\udfff"}', "retriever")),
        ("retriever: 1", post("/search", {"query": Q, "retriever": 1}, "retriever")),
        ("reader: []", post("/answer", {"query": Q, "reader": []}, "reader")),
        ("unknown retriever", post("/search", {"query": Q, "retriever": "nope"}, "retriever", codes=(404,))),
        ("unknown reader", post("/answer", {"query": Q, "reader": "nope"}, "reader", codes=(404,))),
        ("answer k: false", post("/answer", {"query": Q, "k": False}, "k")),
        ("answer k: '2'", post("/answer", {"query": Q, "k": "2"}, "k")),
    ]


def body_cases() -> list[tuple]:
    """Sizes, encodings and shapes of the body; the chat API's own fields; routes."""
    big = b'{"query": "' + b"a" * 70_000 + b'"}'
    return [
        ("query over the length limit", post("/search", {"query": "a" * 3000}, "query", codes=(413,))),
        ("body over 64 KB", post("/search", big, None, codes=(413,))),
        ("body over 64 KB, chunked", chunked_big),
        ("malformed JSON", post("/search", b'{"query": }', None)),
        ("malformed JSON on /v1", post(CHAT, b'{"model": "minirag", "messages": [', None)),
        ("JSON nested 60,000 deep", post("/search", b"[" * 60_000, None, codes=(400, 413, 422))),
        ("a number of 5,000 digits", post("/search", b'{"query": "x", "k": ' + b"9" * 5000 + b"}", None,
                                          codes=(400, 422))),
        ("body not UTF-8", post("/search", b'{"query": "caf\xe9"}', None, codes=(400, 422))),
        ("body UTF-16 (decoded: the same answer)", utf16),
        ("empty body", post("/search", b"", None)),
        ("a JSON list, not an object", post("/search", b"[1, 2]", None)),
        ("Content-Type text/plain", post("/search", json.dumps({"query": Q}).encode(), None,
                                         headers={"Content-Type": "text/plain"})),
        ("stream: 'yes'", post(CHAT, chat(stream="yes"), "stream")),
        ("stream: 1", post(CHAT, chat(stream=1), "stream")),
        ("max_tokens: '9'", post(CHAT, chat(max_tokens="9"), "max_tokens")),
        ("max_tokens: -1", post(CHAT, chat(max_tokens=-1), "max_tokens")),
        ("max_tokens: 0", post(CHAT, chat(max_tokens=0), "max_tokens")),
        ("temperature: '0'", post(CHAT, chat(temperature="0"), "temperature")),
        ("model: 5", post(CHAT, chat(model=5), "model")),
        ("model with a lone surrogate", post(CHAT, b'{"model": "m\\ud800", "messages": [{"role": "user", '
                                                   b'"content": "x"}]}', "model")),
        ("unknown model", post(CHAT, chat(model="nope+nope"), "model", codes=(404,))),
        ("messages: []", post(CHAT, {"messages": []}, "messages")),
        ("messages: 'hi'", post(CHAT, {"messages": "hi"}, "messages")),
        ("no user message", post(CHAT, {"messages": [{"role": "system", "content": "x"}]}, "messages")),
        ("role: 5", post(CHAT, {"messages": [{"role": 5, "content": Q}]}, "messages.0.role")),
        ("content: 5", post(CHAT, {"messages": [{"role": "user", "content": 5}]}, "messages.0.content")),
        ("content part text: 5", post(CHAT, {"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]},
                                      "messages.0.content")),
        ("content part text: null", post(CHAT, {"messages": [{"role": "user", "content": [{"type": "text",
                                                                                          "text": None}]}]},
                                         "messages.0.content")),
        ("content part not an object", post(CHAT, {"messages": [{"role": "user", "content": ["x"]}]},
                                            "messages.0.content")),
        ("GET on a POST route", get("/search", codes=(405,))),
        ("unknown route", get("/nope")),
        ("chunk id not UTF-8 (percent-encoded)", get("/chunks/%ff%fe")),
        ("chunk id of 10,000 characters", get("/chunks/" + "a" * 10_000, codes=(404, 414, 431))),
        ("chunk id ../../etc/passwd", get("/chunks/..%2F..%2Fetc%2Fpasswd")),
    ]


def cases() -> list[Case]:
    g = "http"
    c = [Case(name, g, check) for name, check in typed_cases() + body_cases() + [
        ("NFD query ranks as NFC", nfd_query),
        ("streamed answer ends with [DONE]", stream),
        ("client gone mid-stream", disconnect_mid_stream),
        ("client gone mid-body", raw_socket(b"POST /search HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"q")),
        ("not HTTP at all", raw_socket(b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + b"\x00" * 64)),
        ("a client dripping its headers", slow_client_does_not_block),
        ("24 clients at once", concurrent),
    ] + http_files.cases(server, request)]
    c.append(Case("a rebuild under the running server", g, rebuild_under_server, fast=False))
    c.append(Case("100 clients looping /answer: a newcomer is answered within 1 s", g, fair_to_newcomers(),
                  fast=False))
    return c


def chunked_big(project: Path) -> tuple[bool, str]:
    status, _ = chunked_post(server(project).port, "/search", 70_000)
    return status == 413 and healthy(project), f"{status}"

