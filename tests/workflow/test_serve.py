"""`minirag serve` over real HTTP on loopback, on the fixture corpus built by the real graph.

The server runs as a child process (minirag/serve/process.py); every request goes through
a socket. What is checked: parity with the CLI and the run files, the error paths, the
OpenAI-compatible API both ways (the `openai` reader calls this project's own server), the
page's routes, refusing to start on bad artifacts, and a rebuild under a running server.
"""

import json
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from fault_harness import chunked_post
from support.http import call
from support.project import run, snakemake

pytest.importorskip("fastapi")
from minirag.serve.process import ServerProcess  # noqa: E402

pytestmark = pytest.mark.workflow
COMMON = ("mini", "mini.yaml", "results")


@pytest.fixture(scope="module")
def built(mini_built):
    return mini_built  # shared: every test that edits copies it first


@pytest.fixture(scope="module")
def server(built):
    with ServerProcess(built, *COMMON) as s:
        yield s


def cli_json(project, *args) -> dict:
    proc = run([sys.executable, "-m", "minirag", *args, "--json", "--corpus", "mini", "--configfile", "mini.yaml"],
               project)
    return json.loads(proc.stdout)


def questions(project) -> list[dict]:
    return [json.loads(ln) for ln in (project / "results/mini/questions.jsonl").read_text().splitlines()]


def test_search_returns_the_run_files_ranking_and_the_clis_for_every_retriever(built, server):
    from minirag.evaluation.trec import read_run
    status, info = call(server, "/retrievers")
    names = [r["name"] for r in info["retrievers"]]
    scored = {r["name"]: r["scored"] for r in info["retrievers"]}  # a reorder's scores are positions: none shown
    assert not scored["bm25-rerank"] and not scored["rrf-mmr"] and scored["bm25"]
    assert status == 200 and set(names) >= {"dense", "bm25", "rrf", "linear", "bm25-cap", "rrf-mmr", "bm25-rerank"}
    qs = questions(built)[:4]
    for name in names:
        ranked = read_run(built / "results/mini/runs" / f"{name}.trec")
        for q in qs:
            status, out = call(server, "/search", {"query": q["query"], "retriever": name, "k": info["depth"]})
            assert status == 200, out
            want = [(c, s if scored[name] else None) for c, s in ranked[q["qid"]]]
            assert [(r["chunk_id"], r["score"]) for r in out["results"]] == want, (name, q["qid"])
        cli = cli_json(built, "search", qs[0]["query"], "--retriever", name, "-k", "5")
        assert call(server, "/search", {"query": qs[0]["query"], "retriever": name, "k": 5})[1] == cli


def test_answer_returns_what_the_cli_prints(built, server):
    query = "¿Cómo se conjuga tener en pretérito para yo?"
    for reader in ("extractive", "minigpt"):
        status, out = call(server, "/answer", {"query": query, "reader": reader})
        cli = cli_json(built, "answer", query, "--reader", reader)
        assert status == 200
        out.pop("latency_ms"), cli.pop("latency_ms")
        assert out == cli
    assert "tuve" in out["answer"] or reader == "minigpt"
    status, out = call(server, "/answer", {"query": query, "reader": "extractive"})
    assert "tuve" in out["answer"] and out["citations"][0]["doc_id"] == "es/preterito.md"
    assert out["citations"][0]["chunk_id"] in [r["chunk_id"] for r in out["retrieved"]]


@pytest.mark.parametrize("body, status, field", [
    ({"query": ""}, 422, "query"),
    ({"k": 3}, 422, "query"),
    ({"query": "x", "k": 0}, 422, "k"),
    ({"query": "x", "k": 10_000}, 422, "k"),
    ({"query": "x", "k": "many"}, 422, "k"),
    ({"query": "x" * 2001}, 413, "query"),
    ({"query": "x", "retriever": "nope"}, 404, "retriever"),
])
def test_bad_search_requests_name_the_field(server, body, status, field):
    got, out = call(server, "/search", body)
    assert got == status and out["detail"][0]["loc"] == ["body", field], out
    assert "Traceback" not in json.dumps(out)


def test_error_bodies_are_json_without_tracebacks(server):
    got, out = call(server, "/answer", {"query": "x", "reader": "nope"})
    assert got == 404 and "extractive" in out["detail"][0]["msg"]  # lists the known readers
    got, out = call(server, "/search", {"query": "x", "retriever": "nope"})
    assert "bm25-cap" in out["detail"][0]["msg"]
    got, out = call(server, "/search", raw=b"{not json")
    assert got == 422 and isinstance(out, dict)
    got, out = call(server, "/search", raw=json.dumps({"query": "y" * 70_000}).encode())
    assert got == 413 and "at most" in out["detail"][0]["msg"]
    got, out = call(server, "/chunks/000000000000")
    assert got == 404
    assert chunked_post(server.port, "/search", 100)[0] == 200  # a streamed body is read like any other
    got, out = chunked_post(server.port, "/search", 200_000)   # and cut off at the same limit
    assert got == 413 and json.loads(out)["detail"][0]["type"] == "too_large"
    for got, out in (call(server, "/nothing"), call(server, "/search")):
        assert got in (404, 405, 422) and "Traceback" not in json.dumps(out)


def test_healthz_retrievers_and_docs(built, server):
    status, health = call(server, "/healthz")
    assert status == 200 and health["corpus"] == "mini" and health["uptime_s"] >= 0
    manifest = json.loads((built / "results/mini.manifest.json").read_text())["files"]["mini"]["outputs"]
    assert health["artifacts"] and all(manifest[p] == h for p, h in health["artifacts"].items())
    assert health["manifest"]["matches"] and health["manifest"]["path"] == "results/mini.manifest.json"
    assert "results/mini/chunks.jsonl" in health["artifacts"]
    status, info = call(server, "/retrievers")
    assert all(r["description"] for r in info["retrievers"]) and info["default"] in [r["name"] for r in info["retrievers"]]
    assert {r["name"] for r in info["readers"]} == {"extractive", "minigpt"}
    status, spec = call(server, "/openapi.json")
    assert {"/search", "/answer", "/v1/chat/completions", "/v1/models", "/healthz"} <= set(spec["paths"])
    assert call(server, "/docs")[0] == 200


def test_page_and_the_chunks_its_citations_open(server):
    status, page = call(server, "/")
    assert status == 200 and '<form id="ask">' in page and '"/answer"' in page and "/chunks/" in page
    _, out = call(server, "/answer", {"query": "past tense of eat", "reader": "extractive"})
    cited = out["citations"][0]
    status, chunk = call(server, f"/chunks/{cited['chunk_id']}")
    assert status == 200 and chunk["text"] == cited["text"] and chunk["doc_id"] == cited["doc_id"]


def test_openai_clients_get_the_answer_with_citations(server):
    status, models = call(server, "/v1/models")
    ids = [m["id"] for m in models["data"]]
    assert status == 200 and ids[0] == "minirag" and "bm25+extractive" in ids
    body = {"model": "bm25+extractive", "messages": [{"role": "system", "content": "be brief"},
                                                     {"role": "user", "content": "what is the capital of Peru"},
                                                     {"role": "assistant", "content": "?"},
                                                     {"role": "user", "content": "past tense of eat"}]}
    status, out = call(server, "/v1/chat/completions", body)
    direct = call(server, "/answer", {"query": "past tense of eat", "retriever": "bm25", "reader": "extractive"})[1]
    assert status == 200 and out["object"] == "chat.completion"
    assert out["choices"][0]["message"]["content"] == direct["answer"] and "[#" in direct["answer"]
    assert out["citations"] == direct["citations"] and out["usage"]["total_tokens"] > 0
    # list-of-parts content, and streaming
    body = {"model": "minirag", "stream": True, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "past tense of eat"}]}]}
    req = urllib.request.Request(server.url + "/v1/chat/completions", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    events = urllib.request.urlopen(req, timeout=60).read().decode().strip().split("\n\n")
    assert events[-1] == "data: [DONE]"
    chunks = [json.loads(e.removeprefix("data: ")) for e in events[:-1]]
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks).strip()
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop" and "citations" in chunks[-1]
    # errors in the OpenAI shape
    status, out = call(server, "/v1/chat/completions", {"model": "nope", "messages": [{"role": "user", "content": "x"}]})
    assert status == 404 and out["error"]["param"] == "model"
    status, out = call(server, "/v1/chat/completions", {"messages": [{"role": "system", "content": "x"}]})
    assert status == 422 and out["error"]["param"] == "messages"


def test_server_refuses_to_start_on_missing_or_misaligned_artifacts(built, tmp_path):
    project = tmp_path / "p"
    shutil.copytree(built, project, symlinks=True)
    vectors = project / "results/mini/vectors/hashing.npy"
    vectors.write_bytes(vectors.read_bytes()[:-8] + b"\0" * 8)  # one vector damaged
    with pytest.raises(RuntimeError, match="hashing.npy"):
        ServerProcess(project, *COMMON, timeout_s=60).start()
    shutil.rmtree(project / "results/mini/bm25")
    vectors.unlink()
    with pytest.raises(RuntimeError, match="build it with: make build CONFIG=mini.yaml"):
        ServerProcess(project, *COMMON, timeout_s=60).start()


def test_worker_processes_serve_the_same_rankings_and_refuse_bad_artifacts(built, server, tmp_path):
    body = {"query": "past tense of try", "retriever": "rrf", "k": 10}
    with ServerProcess(built, *COMMON, extra=("--workers", "2", "--log-level", "warning")) as workers:
        assert [call(workers, "/search", body)[1] for _ in range(4)] == [call(server, "/search", body)[1]] * 4
    project = tmp_path / "p"
    shutil.copytree(built, project, symlinks=True)
    (project / "results/mini/chunks.jsonl").unlink()
    with pytest.raises(RuntimeError, match="chunks.jsonl"):
        ServerProcess(project, *COMMON, extra=("--workers", "2"), timeout_s=60).start()


def test_a_snapshot_reads_nothing_from_disk_after_loading(built, tmp_path):
    """Every retriever and reader of a snapshot answers with its files gone: a rebuild cannot leak into it."""
    from minirag.serve.state import Snapshot
    project = tmp_path / "p"
    shutil.copytree(built, project, symlinks=True)
    snapshot = Snapshot.load(project / "mini.yaml", "mini", project / "results")
    before = {r: snapshot.built.search("past tense of try", r, 5) for r in snapshot.built.retriever_names()}
    shutil.rmtree(project / "results")
    for r, out in before.items():
        assert snapshot.built.search("past tense of try", r, 5) == out
    for reader in snapshot.built.reader_names():
        assert snapshot.built.answer("past tense of eat", "bm25", reader)["answer"]


def test_a_rebuild_under_a_running_server_is_picked_up_whole(built, tmp_path):
    """Requests during a rebuild see the old ranking or the new one, never a mixture; then the new one."""
    from minirag.evaluation.trec import read_run
    project = tmp_path / "p"
    shutil.copytree(built, project, symlinks=True)
    q = questions(project)[2]
    old = read_run(project / "results/mini/runs/rrf.trec")[q["qid"]]
    seen, errors, stop = [], [], threading.Event()
    with ServerProcess(project, *COMMON) as server:
        def client():
            while not stop.is_set():
                status, out = call(server, "/search", {"query": q["query"], "retriever": "rrf", "k": 100})
                if status != 200:
                    errors.append(out)
                else:
                    seen.append([(r["chunk_id"], r["score"]) for r in out["results"]])
                time.sleep(0.05)
        t = threading.Thread(target=client)
        t.start()
        try:
            text = (project / "mini.yaml").read_text()
            (project / "mini.yaml").write_text(text.replace("target_tokens: 40", "target_tokens: 56"))
            snakemake(project, "results/mini.md")
            new = read_run(project / "results/mini/runs/rrf.trec")[q["qid"]]
            deadline = time.monotonic() + 60
            while call(server, "/healthz")[1]["reloads"] < 1 and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(0.3)
        finally:
            stop.set()
            t.join()
        assert new != old and not errors
        assert all(s in (old, new) for s in seen)
        assert seen[0] == old and seen[-1] == new
        health = call(server, "/healthz")[1]
        assert health["manifest"]["matches"]


# ------------------------------------------------------------ the openai reader, outbound
def remote_reader(base_url: str, model: str = "bm25+extractive", **extra) -> dict:
    return {"type": "openai", "base_url": base_url, "model": model, **extra}


def generate_with(project, spec: dict, out: Path, run_name: str = "bm25") -> subprocess.CompletedProcess:
    """The generate stage, as the graph runs it, with reader settings `spec`."""
    return run([sys.executable, "-m", "minirag.stages.generate", "--settings", json.dumps(spec),
                "--prompts", str(project / f"results/mini/prompts/{run_name}.jsonl"), "--out", str(out),
                "--receipt", str(out.with_suffix(".receipt.json"))], project, check=False)


def test_generate_through_the_openai_reader_round_trip(built, server, tmp_path):
    out = tmp_path / "answers.jsonl"
    proc = generate_with(built, remote_reader(server.url + "/v1"), out)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(ln) for ln in out.read_text().splitlines()]
    prompts = [json.loads(ln) for ln in (built / "results/mini/prompts/bm25.jsonl").read_text().splitlines()]
    assert len(rows) == len(prompts)
    assert all(r["model"] == "bm25+extractive" and r["endpoint"] == server.url + "/v1/chat/completions" for r in rows)
    cited = [r for r in rows if r["citations"]]
    assert cited and all(set(r["citations"]) <= set(r["prompt_chunks"]) for r in cited)


def test_generate_fails_cleanly_when_the_model_server_is_down(built, tmp_path):
    from minirag.serve.process import free_port
    out = tmp_path / "answers.jsonl"
    url = f"http://127.0.0.1:{free_port()}/v1"
    proc = generate_with(built, remote_reader(url, retries=1, backoff_s=0.05), out)
    assert proc.returncode == 1 and not out.exists() and not out.with_suffix(".receipt.json").exists()
    assert f"{url}/chat/completions" in proc.stderr and "cannot connect" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.fixture
def scripted(request):
    """A scripted chat server process: (base url, number of chat requests it has seen)."""
    mode, arg = request.param
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve().parents[1] / "servers" / "scripted_chat_server.py"),
                             mode, str(arg)], stdout=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline())
    url = f"http://127.0.0.1:{port}"
    yield url + "/v1", lambda: json.loads(urllib.request.urlopen(url, timeout=5).read())["requests"]
    proc.terminate()
    proc.wait()


def prompt():
    from support.chunks import make_chunk

    from minirag.answer.prompt import build_prompt
    return build_prompt("past tense of eat", [make_chunk("| eat | ate | eaten |", doc="en/irregular-verbs.md")])


@pytest.mark.parametrize("scripted", [("fail-first", 1)], indirect=True)
def test_openai_reader_retries_a_server_error(scripted):
    from minirag.answer.readers import make_reader
    url, requests = scripted
    ans = make_reader(remote_reader(url, model="m", backoff_s=0.05)).generate(prompt())
    assert requests() == 2 and ans.text == "ate [#1]" and ans.citations == [prompt().citations[0]]
    assert ans.origin == {"model": "m-scripted", "endpoint": url + "/chat/completions"} and not ans.abstained


@pytest.mark.parametrize("scripted", [("fail-first", 5)], indirect=True)
def test_openai_reader_gives_up_after_its_retries(scripted):
    from minirag.answer.openai_client import ModelServerError
    from minirag.answer.readers import make_reader
    url, requests = scripted
    with pytest.raises(ModelServerError, match=r"HTTP 500.*after 3 attempts"):
        make_reader(remote_reader(url, retries=2, backoff_s=0.01)).generate(prompt())
    assert requests() == 3


@pytest.mark.parametrize("scripted", [("slow", 3)], indirect=True)
def test_openai_reader_times_out(scripted):
    from minirag.answer.openai_client import ModelServerError
    from minirag.answer.readers import make_reader
    url, requests = scripted
    t0 = time.monotonic()
    with pytest.raises(ModelServerError, match=rf"{url}/chat/completions: no complete reply within timeout_s = 0.3 s"):
        make_reader(remote_reader(url, timeout_s=0.3, retries=1, backoff_s=0.01)).generate(prompt())
    assert time.monotonic() - t0 < 2.5 and requests() == 2


def test_openai_reader_reads_its_key_from_the_named_variable(monkeypatch):
    from minirag.answer.readers import make_reader
    monkeypatch.delenv("MINIRAG_TEST_KEY", raising=False)
    with pytest.raises(ValueError, match="MINIRAG_TEST_KEY is not set"):
        make_reader(remote_reader("http://127.0.0.1:1/v1", api_key_env="MINIRAG_TEST_KEY"))
    monkeypatch.setenv("MINIRAG_TEST_KEY", "sk-test")
    assert make_reader(remote_reader("http://127.0.0.1:1/v1", api_key_env="MINIRAG_TEST_KEY")).client.api_key == "sk-test"


def test_changing_the_remote_model_reruns_generate_and_what_follows_only(built, server, tmp_path):
    project = tmp_path / "p"
    shutil.copytree(built, project, symlinks=True)
    config = project / "mini.yaml"
    text = config.read_text()
    config.write_text(text.replace("    readers:\n", f"    readers:\n      remote: {{type: openai, base_url: '{server.url}/v1', "
                                   "model: 'bm25+extractive', retries: 0}\n"))
    snakemake(project, "results/mini.md")
    answers = sorted((project / "results/mini/answers/remote").glob("*.jsonl"))
    assert answers and all('"endpoint": "' + server.url in a.read_text() for a in answers)
    config.write_text(config.read_text().replace("model: 'bm25+extractive'", "model: 'rrf+extractive'"))
    out = snakemake(project, "-n", "results/mini.md").stdout
    table = out.split("Job stats:")[1].split("total")[0]
    jobs = {ln.split()[0] for ln in table.strip().splitlines()[2:] if ln.strip()}
    assert "generate" in jobs and not jobs & {"curate", "chunk", "embed", "bm25", "retrieve", "prompt", "train_reader"}
    assert f"{len(answers)}" in [ln.split()[1] for ln in table.splitlines() if ln.startswith("generate")]
