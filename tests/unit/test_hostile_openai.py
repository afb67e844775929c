"""The `openai` reader against misbehaving model servers (tests/servers/scripted_chat_server.py,
real processes on loopback): whatever the server sends, the generate stage ends in one line
naming the URL, within its time and size limits, never a traceback or a runaway process."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SERVER = Path(__file__).resolve().parents[1] / "servers" / "scripted_chat_server.py"


@pytest.fixture
def scripted(request):
    """A scripted chat server process (mode, arg): its base URL."""
    mode, arg = request.param
    proc = subprocess.Popen([sys.executable, str(SERVER), mode, str(arg)], stdout=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline())
    yield f"http://127.0.0.1:{port}/v1"
    proc.kill()
    proc.wait()


def ask(url: str, mem_mb: int = 1536, timeout: float = 90, **settings) -> subprocess.CompletedProcess:
    """One answer from the openai reader, in a child process with `mem_mb` of address space."""
    spec = {"type": "openai", "base_url": url, "model": "m", "retries": 0, **settings}
    code = ("import json, sys\n"
            "from minirag.answer.prompt import build_prompt\n"
            "from minirag.answer.readers import make_reader\n"
            "from minirag.answer.openai_client import ModelServerError\n"
            "from minirag.text.chunks import Chunk\n"
            "chunk = Chunk('c1', '| eat | ate | eaten |', 'en/v.md', 0, {})\n"
            f"reader = make_reader(json.loads({json.dumps(json.dumps(spec))}))\n"
            "try:\n"
            "    print(reader.generate(build_prompt('past tense of eat', [chunk])).text)\n"
            "except ModelServerError as exc:\n"
            "    print(f'error: {exc}', file=sys.stderr)\n"
            "    sys.exit(1)\n")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (mem_mb << 20, mem_mb << 20))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                          preexec_fn=limit, env={**os.environ, "PYTHONPATH": str(REPO)})


def refused(proc: subprocess.CompletedProcess, url: str, *needles: str) -> str:
    err = proc.stderr.strip()
    assert proc.returncode == 1 and "Traceback" not in err and len(err.splitlines()) == 1, err[-3000:]
    for needle in (f"{url}/chat/completions", *needles):
        assert needle in err, err
    return err


@pytest.mark.parametrize("scripted", [("content", "5"), ("content", '[{"type": "text", "text": 5}]'),
                                      ("content", '[{"type": "text", "text": null}]'), ("content", '{"a": 1}'),
                                      ("content", '["a"]'), ("content", "true")], indirect=True)
def test_a_reply_whose_content_is_not_text_is_one_line(scripted):
    refused(ask(scripted), scripted, "content")


@pytest.mark.parametrize("scripted", [("drip", 1)], indirect=True)
def test_timeout_s_bounds_the_whole_request_of_a_server_that_drips(scripted):
    refused(ask(scripted, timeout_s=3), scripted, "timeout_s = 3")


@pytest.mark.parametrize("scripted", [("drip-headers", 1)], indirect=True)
def test_timeout_s_bounds_headers_that_drip(scripted):
    refused(ask(scripted, timeout_s=3), scripted, "timeout_s = 3")


@pytest.mark.parametrize("scripted", [("huge", 200), ("huge-chunked", 200)], indirect=True)
def test_a_reply_past_max_response_bytes_is_refused_in_bounded_memory(scripted):
    refused(ask(scripted, mem_mb=1200, timeout_s=60), scripted, "max_response_bytes")


@pytest.mark.parametrize("scripted", [("huge", 2)], indirect=True)
def test_max_response_bytes_is_a_setting(scripted):
    refused(ask(scripted, max_response_bytes=1_000_000), scripted, "max_response_bytes = 1000000")
    assert ask(scripted, max_response_bytes=3_000_000).returncode == 1  # 2 MB of spaces: read, then not JSON


@pytest.mark.parametrize("scripted, needle", [
    (("model", '"m\\ud800"'), "lone surrogate"), (("model", "repeat:1000000"), "at most 256"),
    (("model", "5"), "not a string"), (("model", '"m\\u001b[2J"'), "control character"),
    *[(("model", json.dumps(f"m{ch}x")), f"U+{ord(ch):04X}") for ch in "\n\r\t\u200b\u202e\u2028"],
], indirect=["scripted"])
def test_a_reply_whose_model_is_not_a_short_clean_name_is_refused_naming_url_and_field(scripted, needle):
    refused(ask(scripted), scripted, "model", needle)
