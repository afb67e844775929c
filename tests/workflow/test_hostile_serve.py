"""Hostile requests to `minirag serve` and hostile queries at every boundary (CLI, HTTP, the seed
API): a 4xx naming the field, never a 500, never a value taken for another type, and a query
normalised to NFC as the documents are."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import unicodedata

import pytest
from support.project import run

pytest.importorskip("fastapi")
from support.http import call  # noqa: E402

from minirag.serve.process import ServerProcess  # noqa: E402

pytestmark = pytest.mark.workflow
COMMON = ("mini", "mini.yaml", "results")
NFC = unicodedata.normalize("NFC", "¿Cuál es el pretérito de comer?")
NFD = unicodedata.normalize("NFD", NFC)


@pytest.fixture(scope="module")
def built(mini_built):
    return mini_built  # shared, read only


@pytest.fixture(scope="module")
def server(built):
    with ServerProcess(built, *COMMON) as s:
        yield s


def raw_post(server, path: str, body: bytes) -> tuple[int, dict]:
    return call(server, path, raw=body)


def assert_refused(status: int, body: dict, field: str | None, *words: str, code: int = 422) -> str:
    assert status == code, (status, body)
    if "error" in body:  # the /v1 shape
        assert body["error"]["param"] == field, body
        message = body["error"]["message"]
    else:
        detail = body["detail"][0]
        assert (detail["loc"][1:] or [None])[-1] == field, body
        message = detail["msg"]
    for word in words:
        assert word in message, body
    return message


# ------------------------------------------------------------------ the query at every boundary


def test_an_nfd_query_is_the_nfc_query_over_http_and_the_cli(server, built):
    status_nfc, nfc = call(server, "/search", {"query": NFC, "k": 10})
    status_nfd, nfd = call(server, "/search", {"query": NFD, "k": 10})
    assert status_nfc == status_nfd == 200
    assert nfd["query"] == NFC and nfd["results"] == nfc["results"]
    proc = run([sys.executable, "-m", "minirag", "search", NFD, "--json", "--corpus", "mini", "--configfile",
                "mini.yaml"], built)
    assert json.loads(proc.stdout)["query"] == NFC


def test_an_nfd_query_is_the_nfc_query_through_the_seed_api():
    import minirag
    from minirag.index.biencoder import BiEncoderConfig, BiEncoderEmbedder, MiniBiEncoder

    class WordTokenizer:  # one id per word, as a BPE would give the NFC word and the NFD one different tokens
        def __init__(self, texts):
            self.ids = {w: i + 1 for i, w in enumerate(sorted({w for t in texts for w in t.split()}))}

        def encode_batch(self, texts):
            return [[self.ids.get(w, 0) for w in t.split()] for t in texts]

    docs = [{"doc_id": f"d{i}.md", "title": "T", "text": text} for i, text in enumerate(
        ["el pretérito de comer es comí", "el café se sirve caliente", "cuál es la respuesta"])]
    chunks = [c for d in docs for c in minirag.chunk_document(d, "none")]
    config = BiEncoderConfig(d=8, hidden=16, token_dim=12, max_tokens=32, normalize=False)
    embedder = BiEncoderEmbedder(MiniBiEncoder(64, config), WordTokenizer([c.text for c in chunks]))
    store = minirag.FlatVectorStore(embedder)
    store.add(chunks)
    dense = minirag.DenseRetriever(store)
    q = unicodedata.normalize("NFC", "pretérito café cuál")
    assert dense.search(unicodedata.normalize("NFD", q), k=3) == dense.search(q, k=3)
    ranked, prompt, _ = minirag.rag_answer(unicodedata.normalize("NFD", q), dense, minirag.ExtractiveReader(),
                                           chunks, k=2)
    assert prompt.query == q and ranked == dense.search(q, k=2)


# ------------------------------------------------------------------ HTTP: encodings and types


@pytest.mark.parametrize("route", ["/search", "/answer"])
def test_a_lone_surrogate_in_the_query_is_a_422_not_a_500(server, route):
    status, body = raw_post(server, route, b'{"query": "go \\ud800 past"}')
    assert_refused(status, body, "query", "surrogate")


@pytest.mark.parametrize("field", ["retriever", "reader"])
def test_a_lone_surrogate_in_any_string_is_a_422_not_a_500(server, field):
    status, body = raw_post(server, "/answer", b'{"query": "past of eat", "%s": "x\\udfff"}' % field.encode())
    assert status == 422, body


@pytest.mark.parametrize("text", [5, None, ["a"], {"a": 1}])
def test_content_parts_with_a_text_that_is_not_a_string_are_a_422(server, text):
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": text}]}]}
    status, answer = call(server, "/v1/chat/completions", body)
    assert_refused(status, answer, "messages.0.content", "string")


@pytest.mark.parametrize("route, body, field", [
    ("/search", {"query": "past of eat", "k": True}, "k"),
    ("/search", {"query": "past of eat", "k": "3"}, "k"),
    ("/search", {"query": "past of eat", "k": 3.0}, "k"),
    ("/search", {"query": 5}, "query"),
    ("/search", {"query": ["past of eat"]}, "query"),
    ("/search", {"query": "past of eat", "retriever": 1}, "retriever"),
    ("/answer", {"query": "past of eat", "k": False}, "k"),
    ("/answer", {"query": "past of eat", "k": "2"}, "k"),
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": "past of eat"}], "stream": "yes"},
     "stream"),
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": "past of eat"}], "stream": 1}, "stream"),
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": "past of eat"}], "max_tokens": "9"},
     "max_tokens"),
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": "past of eat"}], "temperature": "0"},
     "temperature"),
    ("/v1/chat/completions", {"model": 5, "messages": [{"role": "user", "content": "past of eat"}]}, "model"),
])
def test_types_are_strict_a_bool_is_not_an_int_and_a_string_not_a_number(server, route, body, field):
    status, answer = call(server, route, body)
    assert_refused(status, answer, field)


@pytest.mark.parametrize("max_tokens", [-1, 0])
def test_max_tokens_below_one_is_refused_naming_the_field(server, max_tokens):
    status, answer = call(server, "/v1/chat/completions", {"messages": [{"role": "user", "content": "past of eat"}],
                                                           "max_tokens": max_tokens})
    assert_refused(status, answer, "max_tokens")


@pytest.mark.parametrize("raw, at", [(b'{"model": "minirag", "messages": [', 34), (b'{"query": }', 10),
                                     (b"\xff\xfe", 0)])
def test_malformed_json_names_the_position_in_the_message_and_no_param(server, raw, at):
    status, body = raw_post(server, "/v1/chat/completions", raw)
    message = assert_refused(status, body, None, "JSON")
    assert f"character {at}" in message or raw == b"\xff\xfe", body
    status, body = raw_post(server, "/search", raw)
    assert status == 422 and body["detail"][0]["loc"] == ["body"], body


# ------------------------------------------------------------------ the port


@pytest.mark.parametrize("port", ["99999", "0", "-1", "65536", "http"])
def test_a_port_outside_1_to_65535_is_refused_in_one_line(built, port):
    proc = subprocess.run([sys.executable, "-m", "minirag", "serve", "--port", port, "--corpus", "mini",
                           "--configfile", "mini.yaml"], cwd=built, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(built)})
    assert proc.returncode == 2 and "--port" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_a_used_port_is_refused_before_the_corpus_is_loaded(built):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run([sys.executable, "-m", "minirag", "serve", "--port", str(port), "--corpus", "mini",
                               "--configfile", "mini.yaml"], cwd=built, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(built)})
    err = proc.stderr
    assert proc.returncode != 0 and str(port) in err and "in use" in err and "Traceback" not in err, err
    assert "chunks" not in err, err  # refused before loading (the loaded corpus's line names its chunks)
