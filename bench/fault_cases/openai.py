"""The `openai` reader against local misbehaving servers (tests/servers/scripted_chat_server.py):
replies that are not chat completions, slow, dripping, huge, redirecting, erroring, silent or
not HTTP. A case holds when the reader ends in one line naming the URL (or answers, where the
server recovers), within its time and size limits and a bounded memory."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from fault_harness import PY, SERVERS, Case, refused, run

ASK = """\
import json, sys
from minirag.answer.openai_client import ModelServerError
from minirag.answer.prompt import build_prompt
from minirag.answer.readers import make_reader
from minirag.text.chunks import Chunk
reader = make_reader(json.loads(sys.argv[1]))
try:
    print(reader.generate(build_prompt("past tense of eat", [Chunk("c1", "| eat | ate | eaten |", "v.md", 0, {})])).text)
except ModelServerError as exc:
    print(f"error: {exc}", file=sys.stderr)
    sys.exit(1)
"""


def scripted(mode: str, arg: str = "", *needles: str, answers: str | None = None, **settings):
    """The reader against a server in `mode`: refused naming the URL and `needles`, or (answers)
    answering that text."""
    def check(project: Path) -> tuple[bool, str]:
        server = subprocess.Popen([PY, str(SERVERS / "scripted_chat_server.py"), mode, arg], stdout=subprocess.PIPE,
                                  text=True)
        try:
            url = f"http://127.0.0.1:{int(server.stdout.readline())}/v1"
            spec = {"type": "openai", "base_url": url, "model": "m", "retries": 0, "timeout_s": 5, **settings}
            proc = run([PY, "-c", ASK, json.dumps(spec)], project, mem_mb=1536, timeout=120)
        finally:
            server.kill()
            server.wait()
        if answers is not None:
            ok = proc.returncode == 0 and proc.stdout.strip() == answers
            return ok, proc.stdout.strip()[:80] or proc.stderr.strip()[-160:]
        return refused(proc, f"{url}/chat/completions", *needles)
    return check


def refused_port(project: Path) -> tuple[bool, str]:
    from minirag.serve.process import free_port
    url = f"http://127.0.0.1:{free_port()}/v1"
    spec = {"type": "openai", "base_url": url, "model": "m", "retries": 1, "backoff_s": 0.05}
    return refused(run([PY, "-c", ASK, json.dumps(spec)], project, timeout=60), url, "cannot connect")


def cases() -> list[Case]:
    g = "openai"
    parts = lambda text: json.dumps([{"type": "text", "text": text}])  # noqa: E731
    return [Case(name, g, check) for name, check in [
        ("content: 5", scripted("content", "5", "content")),
        ("content: true", scripted("content", "true", "content")),
        ("content: {..}", scripted("content", '{"a": 1}', "content")),
        ("content part text: 5", scripted("content", parts(5), "content part")),
        ("content part text: null", scripted("content", parts(None), "content part")),
        ("content part not an object", scripted("content", '["a"]', "content part")),
        ("content with an ESC", scripted("content", json.dumps("ate\u001b[2J"), "control character")),
        ("content with a lone surrogate", scripted("content", '"ate \\ud800"', "surrogate")),
        ("content: null (abstains)", scripted("content", "null", answers="")),
        ("content parts (answered)", scripted("content", parts("ate [#1]"), answers="ate [#1]")),
        ("not JSON", scripted("body", "<html>busy</html>", "not a chat completion")),
        ("empty body", scripted("body", "", "not a chat completion")),
        ("JSON without choices", scripted("body", '{"id": "x"}', "choices")),
        ("choices: []", scripted("body", '{"choices": []}', "choices")),
        ("choices: 'x'", scripted("body", '{"choices": "x"}', "choices")),
        ("message missing", scripted("body", '{"choices": [{}]}', "choices")),
        ("content NaN", scripted("body", '{"choices": [{"message": {"content": NaN}}]}', "content")),
        ("nested 100,000 deep", scripted("deep", "100000", "not a chat completion")),
        ("slow past timeout_s", scripted("slow", "8", "timeout_s = 2", timeout_s=2)),
        ("body dripping past timeout_s", scripted("drip", "1", "timeout_s = 3", timeout_s=3)),
        ("headers dripping past timeout_s", scripted("drip-headers", "1", "timeout_s = 3", timeout_s=3)),
        ("200 MB, declared", scripted("huge", "200", "max_response_bytes")),
        ("200 MB, chunked", scripted("huge-chunked", "200", "max_response_bytes")),
        ("2 MB with max_response_bytes 1 MB", scripted("huge", "2", "max_response_bytes = 1000000",
                                                        max_response_bytes=1_000_000)),
        ("redirect 301", scripted("redirect", "301", "redirect")),
        ("redirect 302", scripted("redirect", "302", "redirect")),
        ("redirect 307", scripted("redirect", "307", "redirect")),
        ("redirect 308", scripted("redirect", "308", "redirect")),
        ("HTTP 400", scripted("status", "400", "HTTP 400")),
        ("HTTP 401", scripted("status", "401", "HTTP 401")),
        ("HTTP 404", scripted("status", "404", "HTTP 404")),
        ("HTTP 429, retries exhausted", scripted("status", "429", "after 3 attempts", retries=2, backoff_s=0.01)),
        ("HTTP 503, retries exhausted", scripted("status", "503", "after 2 attempts", retries=1, backoff_s=0.01)),
        ("HTTP 500 once, then an answer", scripted("fail-first", "1", answers="ate [#1]", retries=1, backoff_s=0.01)),
        ("connection closed without a reply", scripted("close", "", "connection failed")),
        ("an answer that is not HTTP", scripted("garbage", "", "connection failed")),
        ("connection refused", refused_port),
        ("model with a lone surrogate", scripted("model", '"m\\ud800"', "model", "surrogate")),
        ("model of 1 MB", scripted("model", "repeat:1000000", "model", "at most 256")),
        ("model: 5", scripted("model", "5", "model")),
        ("model with an ESC", scripted("model", json.dumps("m\u001b[2J"), "model", "control character")),
        *[(f"model with U+{ord(ch):04X}", scripted("model", json.dumps(f"m{ch}x"), "model", f"U+{ord(ch):04X}"))
          for ch in "\n\r\t\u200b\u202e\u2028"],
        ("model: null (the configured one recorded)", scripted("model", "null", answers="ate [#1]")),
    ]]
