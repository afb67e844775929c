"""The README's commands, run as a new user would, in the README's order: `make report`'s build
of the KB, then each shipped config's command, which must plan its own report's jobs."""

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from support.project import REPO, copy_sources

SHARED = REPO.parent / "shared"
MARK = "<!-- the commands of this block are run by tests/workflow/test_readme.py"

pytestmark = pytest.mark.workflow


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = text.split(MARK, 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    return [line.split("#")[0].strip() for line in block.strip().splitlines() if line.strip()]


def make_report_command() -> list[str]:
    """What `make report` runs after installing: the Makefile's snakemake line, its $(BUILD) spelt out."""
    lines = (REPO / "Makefile").read_text().splitlines()
    build = next(ln.split("=", 1)[1] for ln in lines if ln.startswith("BUILD ="))
    line = next(ln for ln in lines if ln.startswith("\t$(BUILD) -c") and "results/report.md" in ln)
    line = line.replace("$(BUILD)", build).replace("$(SNAKEMAKE)", "snakemake").replace("$(CORES)", "2")
    return line.split()


def readme_project(tmp_path: Path):
    """A fresh copy of what the README's commands read, ../shared beside it, and its snakemake."""
    project = tmp_path / "minirag"
    project.mkdir()
    copy_sources(project, ("Snakefile", "workflow", "minirag", "kb"), fixture=False)
    (tmp_path / "shared").symlink_to(SHARED)
    exe = str(Path(sys.executable).with_name("snakemake"))
    env = {**os.environ, "PYTHONPATH": str(project)}

    def snakemake(args):
        proc = subprocess.run([exe, *args], cwd=project, env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        return proc.stdout + proc.stderr
    return project, env, snakemake


def plans_own_report(snakemake) -> None:
    """Each config command of the README plans its own report, not the KB's."""
    commands = readme_commands()
    assert [c.split()[2] for c in commands] == ["results/scifact.md", "results/dify.md", "results/arcd.md",
                                                "results/ablations.md"]
    for command in commands:
        args = command.split()[1:]
        out = snakemake(["-n", *args])
        assert "Nothing to be done" not in out, command
        target = args[1]
        assert re.search(rf"rule report:.*?output: {re.escape(target)}", out, re.S), command


@pytest.mark.skipif(not (SHARED / "datasets").is_dir(), reason="needs ../shared/datasets beside the repository")
def test_make_report_and_each_readme_config_plan_their_own_report(tmp_path):
    _, _, snakemake = readme_project(tmp_path)
    build = make_report_command()
    assert build == ["snakemake", "--rerun-incomplete", "-c2", "results/report.md"]
    assert re.search(r"rule report:.*?output: results/report.md", snakemake(["-n", *build[1:]]), re.S)
    plans_own_report(snakemake)


@pytest.mark.slow  # the KB built whole, as `make report` builds it (minutes): pytest -m slow
@pytest.mark.skipif(not (SHARED / "datasets").is_dir(), reason="needs ../shared/datasets beside the repository")
def test_each_shipped_config_builds_its_own_report_after_make_report(tmp_path):
    project, env, snakemake = readme_project(tmp_path)
    build = make_report_command()
    snakemake(build[1:])
    # issue 13's two questions: the served retriever puts the chunk holding the row first
    for query, row in (("What's the past participle of begin?", "| begin | began | begun |"),
                       ("¿Cuál es el participio de 'break' en inglés?", "| break | broke | broken |")):
        proc = subprocess.run([sys.executable, "-m", "minirag", "search", query, "-k", "1", "--json"], cwd=project,
                              env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert row in json.loads(proc.stdout)["results"][0]["text"], query
    # issue 14: the trained Mini-GPT reader answers with the cell and cites the irregular-verb page
    proc = subprocess.run([sys.executable, "-m", "minirag", "answer", "What is the past participle of write?",
                           "--reader", "minigpt", "--json"], cwd=project, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    said = json.loads(proc.stdout)
    assert said["answer"].startswith("written [#") and not said["abstained"], said
    assert said["citations"] and all(c["doc_id"] == "en/irregular-verbs.md" for c in said["citations"]), said
    check_the_server_on_the_kb(project)
    plans_own_report(snakemake)
    # and the KB's report is untouched by the other configs: still up to date
    assert "Nothing to be done" in snakemake(["-n", "-c1", "results/report.md"])


def check_the_server_on_the_kb(project: Path) -> None:
    """Issue 15 on the KB build: the README's curl example through `minirag serve`, an OpenAI-style
    call, and /search giving every retriever's run-file ranking (ids and scores) for dev questions."""
    pytest.importorskip("fastapi")
    from minirag.evaluation.trec import read_run
    from minirag.serve.process import ServerProcess
    curl = re.search(r"curl -s localhost:8000/answer .*?-d '(\{.*?\})'", (REPO / "README.md").read_text(), re.S)
    with ServerProcess(project) as server:
        def post(path, body):
            req = urllib.request.Request(server.url + path, json.dumps(body).encode(), {"Content-Type": "application/json"})
            return json.loads(urllib.request.urlopen(req, timeout=60).read())
        said = post("/answer", json.loads(curl.group(1)))
        assert said["answer"].startswith("written [#") and said["citations"][0]["doc_id"] == "en/irregular-verbs.md"
        reply = post("/v1/chat/completions", {"model": "minirag", "messages": [
            {"role": "user", "content": "What's the past participle of begin?"}]})
        assert "begun" in reply["choices"][0]["message"]["content"] and reply["citations"]
        questions = [json.loads(ln) for ln in (project / "results/kb/questions.jsonl").read_text().splitlines()]
        dev = [q for q in questions if q.get("split") == "dev"][:3]
        for info in json.loads(urllib.request.urlopen(server.url + "/retrievers").read())["retrievers"]:
            retriever = info["name"]
            ranked = read_run(project / "results/kb/runs" / f"{retriever}.trec")
            for q in dev:
                out = post("/search", {"query": q["query"], "retriever": retriever, "k": 100})
                got = [(r["chunk_id"], r["score"]) for r in out["results"]]
                assert got == [(c, s if info["scored"] else None) for c, s in ranked[q["qid"]]], (retriever, q["qid"])
