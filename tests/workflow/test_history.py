"""The build history: an append-only log whose damaged lines are refused and never rewritten,
content-addressed snapshots, and, as a user works with the real snakemake on the fixture corpus,
a no-op build that adds nothing, a chunk-size change that `minirag diff` names with the
questions it flipped, and the report's paired comparisons."""

import json
import subprocess
import sys

import pytest
from support.project import MINI_CORPUS, copy_project, run, snakemake

from minirag.history import blobs, log
from minirag.history.record import git_state

LIGHT = MINI_CORPUS + """\
    bm25: {plain: {}}  # the seed's analyzer, named: the flips below were found with it
    retrievers:
      dense: {type: dense, embedder: hashing}
      bm25: {type: bm25, index: plain}
      rrf: {type: rrf, of: [dense, bm25], k: 60}
    readers:
      extractive: {type: extractive}
"""


def record(n: int, report: str = "r") -> dict:
    return {"key": f"k{n}", "time": f"t{n}", "report": report, "corpora": {}}


def test_records_are_appended_sealed_and_a_repeat_of_the_last_key_is_skipped(tmp_path):
    assert log.read(tmp_path) == []
    assert log.append(tmp_path, record(1)) and log.append(tmp_path, record(2))
    assert not log.append(tmp_path, {**record(2), "time": "later"})  # same key as the report's last record
    assert log.append(tmp_path, record(2, report="other"))  # another report's history is its own
    assert log.append(tmp_path, record(1))  # the same key as an older record is a change back: recorded
    got = log.read(tmp_path)
    assert [r["key"] for r in got] == ["k1", "k2", "k2", "k1"] and all(len(r["sha256"]) == 64 for r in got)


@pytest.mark.parametrize("damage", ["flip", "edit"])
def test_a_damaged_line_is_refused_naming_its_line_and_never_rewritten(tmp_path, damage):
    for n in (1, 2, 3):
        log.append(tmp_path, record(n))
    path = log.path_of(tmp_path)
    lines = path.read_bytes().split(b"\n")
    if damage == "flip":
        lines[1] = lines[1].replace(b'"t2"', b'"t3"')
    elif damage == "edit":
        lines[1] = lines[1].replace(b'"key":"k2"', b'"key":"k9"')
    data = b"\n".join(lines)
    path.write_bytes(data)
    with pytest.raises(blobs.HistoryError, match=r"history.jsonl:2: damaged history record"):
        log.read(tmp_path)
    with pytest.raises(blobs.HistoryError, match=r"history.jsonl:2: damaged"):
        log.append(tmp_path, record(4))
    assert path.read_bytes() == data  # refused, not repaired


def test_a_last_line_cut_short_is_skipped_with_a_warning_and_cut_off_by_the_next_append(tmp_path, capsys):
    for n in (1, 2, 3):
        log.append(tmp_path, record(n))
    path = log.path_of(tmp_path)
    whole = path.read_bytes()
    path.write_bytes(whole[:-5])  # what a full disk or a kill mid-append leaves
    assert [r["key"] for r in log.read(tmp_path)] == ["k1", "k2"]
    assert "history.jsonl:3: damaged last history record (the line is cut short)" in capsys.readouterr().err
    assert log.append(tmp_path, record(4))
    assert [r["key"] for r in log.read(tmp_path)] == ["k1", "k2", "k4"]
    assert path.read_bytes().startswith(whole[: whole.rfind(b"\n", 0, len(whole) - 1) + 1])


def test_snapshot_files_are_named_by_their_content_and_checked_when_read(tmp_path):
    rel = blobs.put(tmp_path, {"b": [1, 2], "a": "é"})
    assert rel == blobs.put(tmp_path, {"a": "é", "b": [1, 2]})  # canonical: key order does not matter
    assert blobs.get(tmp_path, rel) == {"a": "é", "b": [1, 2]}
    (tmp_path / rel).write_text('{"a":"x","b":[1,2]}\n', encoding="utf-8")
    with pytest.raises(blobs.HistoryError, match="damaged"):
        blobs.get(tmp_path, rel)


def test_git_state_names_the_commit_and_whether_the_tree_is_dirty(tmp_path):
    assert git_state(tmp_path) is None  # not a work tree
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tmp_path)]
    subprocess.run(git[:-2] + ["init", "-q", str(tmp_path)], check=True)
    (tmp_path / "a.txt").write_text("a")
    subprocess.run(git + ["add", "a.txt"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "a"], check=True)
    head = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    assert git_state(tmp_path) == {"commit": head, "dirty": False}
    (tmp_path / "a.txt").write_text("b")
    assert git_state(tmp_path) == {"commit": head, "dirty": True}


# ------------------------------------------------------------------ as a user works


def minirag(project, *args, check=True):
    return run([sys.executable, "-m", "minirag", *args], project, check=check)


@pytest.mark.workflow
def test_history_survives_a_no_op_build_and_diff_names_a_chunk_size_change(tmp_path):
    project = copy_project(tmp_path)
    (project / "light.yaml").write_text(LIGHT, encoding="utf-8")
    snakemake(project, "results/light.md", configfile="light.yaml")
    history = project / "results" / "history.jsonl"
    before = history.read_bytes(), sorted((project / "results" / "history").iterdir())
    assert len(log.read(project / "results")) == 1
    # a no-op build, and the report rerun with nothing changed: no line, no file added
    noop = snakemake(project, "results/light.md", configfile="light.yaml")
    assert "Nothing to be done" in noop.stdout + noop.stderr
    snakemake(project, "results/light.md", "--forcerun", "report", configfile="light.yaml")
    assert (history.read_bytes(), sorted((project / "results" / "history").iterdir())) == before

    report = (project / "results" / "light.md").read_text(encoding="utf-8")
    assert "| `rrf` | RRF k=60 of dense + bm25 |" in report and " pp [" in report and "after Holm's correction" in report

    (project / "light.yaml").write_text(LIGHT.replace("target_tokens: 40", "target_tokens: 150"), encoding="utf-8")
    snakemake(project, "results/light.md", configfile="light.yaml")
    listed = minirag(project, "history").stdout
    assert listed.splitlines()[2].split()[0] == "2" and "chunk" in listed.splitlines()[2]

    out = minirag(project, "diff").stdout
    assert "chunk.target_tokens  40" in out and "150" in out  # the setting, with both values
    assert "Flipped questions: chunk hit@5" in out and "f-01" in out and "What is the past simple of eat?" in out
    d = json.loads(minirag(project, "diff", "1", "2", "--json").stdout)
    assert {"key": "chunk.target_tokens", "a": 40, "b": 150} in d["settings"]
    assert [s["job"] for s in d["stages"]] == ["chunk"]  # only chunk's own settings changed
    flip = next(f for f in d["flips"] if f["run"] == "bm25")
    assert flip == {**flip, "qid": "f-01", "change": "gained", "gold": "ate"} and flip["a"] and flip["b"]
    assert {r["metric"] for r in d["metrics"]} == {"hit@5", "mrr", "ndcg@10"} and "p" in d["metrics"][0]["delta"]
    assert minirag(project, "diff", "--md").stdout.startswith("# minirag diff: `mini`")
    runs = json.loads(minirag(project, "diff", "bm25", "rrf", "--json").stdout)
    assert runs["a"]["run"] == "bm25" and runs["b"]["run"] == "rrf" and runs["metrics"][0]["run"] == "bm25 -> rrf"

    # a damaged line: every reader refuses it naming the line, and the next report build fails on it
    lines = history.read_bytes().split(b"\n")
    history.write_bytes(b"\n".join([lines[0].replace(b"light", b"lihgt")] + lines[1:]))
    failed = minirag(project, "history", check=False)
    assert failed.returncode == 1 and "history.jsonl:1: damaged history record" in failed.stderr
    assert "Traceback" not in failed.stderr
    (project / "light.yaml").write_text(LIGHT.replace("target_tokens: 40", "target_tokens: 60"), encoding="utf-8")
    rebuilt = snakemake(project, "results/light.md", configfile="light.yaml", check=False)
    assert rebuilt.returncode != 0
    assert "history.jsonl:1: damaged" in (project / "results" / "logs" / "light.log").read_text(encoding="utf-8")
