"""Artifact cases the artifacts group adds (kept apart for size): artifacts deleted *with* their receipts
(what a failed job leaves), which only a check against the config's jobs notices; forged candidates
files (a content check like every other kind's); a receipt holding a key twice; an earlier config's
leftovers, which verify names as leftovers, never as damage to the current build, and clean removes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from fault_harness import CONFIG, Case, Edit, R, minirag, refused, snakemake, stage

CANDIDATES = f"{R}/candidates/bm25-rerank.jsonl"


def deleted_with_receipt(*rels: str, receipt: str):
    """`rels` (files or folders) and their receipt deleted: `verify` exits 1 naming each missing file."""
    def check(project: Path) -> tuple[bool, str]:
        aside = project.parent / "aside"
        shutil.rmtree(aside, ignore_errors=True)
        moved = [(project / R / rel, aside / rel) for rel in (*rels, f"receipts/{receipt}")]
        for src, dst in moved:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(src), dst)
        try:
            proc = minirag(project, "verify")
        finally:
            for src, dst in moved:
                shutil.move(str(dst), src)
        out = proc.stdout.splitlines()
        named = all(any(rel.rstrip("/") in ln and "missing" in ln for ln in out) for rel in (*rels, receipt))
        said = next((ln for ln in out if "missing" in ln), proc.stderr.strip()[-160:])
        return proc.returncode == 1 and named, said[:160]
    return check


def prompt_loader(project: Path):
    settings = json.loads((project / R / "receipts/prompt.bm25-rerank.json").read_text())["settings"]
    return stage(project, "prompt", "--settings", json.dumps(settings), "--questions", f"{R}/questions.jsonl",
                 "--docs", f"{R}/docs.jsonl", "--chunks", f"{R}/chunks.jsonl", "--run", f"{R}/runs/bm25-rerank.trec",
                 "--candidates", CANDIDATES, "--out", "scratch/p.jsonl")


def first_answer(change):
    """The first record that has an answer, changed by `change(record)`; the file's other lines as they were."""
    def damage(path: Path, data: bytes) -> bytes:
        lines = data.decode().splitlines()
        i = next(i for i, ln in enumerate(lines) if json.loads(ln)["answers"])
        rec = json.loads(lines[i])
        change(rec)
        lines[i] = json.dumps(rec, ensure_ascii=False, allow_nan=True)
        return ("\n".join(lines) + "\n").encode()
    return damage


def setter(*path, value):
    def change(rec):
        target = rec
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def duplicate_key_receipt(project: Path) -> tuple[bool, str]:
    """A receipt with an output listed twice (the second forged): verify and the loader name the key and line."""
    path = project / R / "receipts/retrieve.bm25.json"
    with Edit(path):
        text = path.read_text()
        path.write_text(text.replace('"outputs": {', '"outputs": {\n    "runs/bm25.trec": {"sha256": "0"},', 1))
        verify = minirag(project, "verify")
        loader = minirag(project, "assert")
    said = next((ln for ln in verify.stdout.splitlines() if "duplicate key" in ln), verify.stdout.strip()[:160])
    held = verify.returncode == 1 and "retrieve.bm25.json:" in said and "runs/bm25.trec" in said
    return held and refused(loader, "duplicate key", "retrieve.bm25.json")[0], said[:160]


def candidates_cases(forged) -> list[tuple]:
    """Forged candidates files (their receipts rewritten): verify and the prompt stage's loader name the
    file, line and field."""
    f = lambda change, *needles: forged(CANDIDATES, first_answer(change), prompt_loader, *needles)  # noqa: E731
    return [
        ("forged candidates: p a string", f(setter("answers", 0, "p", value="0.9"), "answers[0].p")),
        ("forged candidates: answers null", f(setter("answers", value=None), "answers")),
        ("forged candidates: text an int", f(setter("answers", 0, "text", value=5), "answers[0].text")),
        ("forged candidates: an unknown chunk", f(setter("answers", 0, "chunk_id", value="ffffffffffff"),
                                                 "ffffffffffff")),
        ("forged candidates: an unknown question", f(setter("qid", value="zz-99"), "zz-99")),
        ("forged candidates: p_none NaN", f(setter("p_none", value=float("nan")), "p_none")),
        ("forged candidates: p above 1", f(setter("answers", 0, "p", value=7.5), "answers[0].p")),
        ("forged candidates: a feature a string", f(setter("answers", 0, "features", "top1", value="x"), "features")),
        ("forged candidates: a record a list", forged(CANDIDATES, lambda p, d: d + b"[1, 2]\n", prompt_loader,
                                                      "not a JSON object")),
        ("forged candidates: keys a number", f(setter("keys", value=3), "keys")),
    ]


def leftovers_of_another_config(project: Path) -> tuple[bool, str]:
    """Config B (the fixture's plus a retriever `bm25b`) builds its run, which then changes (a later chunking
    would leave it naming chunks that are gone); back on config A, verify exits 0 with one warning line
    naming them, and `minirag clean` removes B's run and receipt, nothing of A's."""
    other = project / "scratch/b.yaml"
    other.write_text(CONFIG.replace("      bm25: {type: bm25, index: plain}\n",
                                    "      bm25: {type: bm25, index: plain}\n      bm25b: {type: bm25, index: plain}\n"))
    run, receipt = project / R / "runs/bm25b.trec", project / R / "receipts/retrieve.bm25b.json"
    try:
        built = snakemake(project, f"{R}/runs/bm25b.trec", config="scratch/b.yaml")
        if built.returncode != 0 or not run.exists():
            return False, f"config B did not build its run: {built.stderr.strip()[-160:]}"
        run.write_text(run.read_text().replace("bm25b", "bm25b ", 1))  # no longer what its receipt says
        verify = minirag(project, "verify")
        warned = [ln for ln in verify.stderr.splitlines() if "warning" in ln and "minirag clean" in ln]
        before = {p for p in (project / R).rglob("*") if p.is_file()}
        clean = minirag(project, "clean")
        gone = before - {p for p in (project / R).rglob("*") if p.is_file()}
        again = minirag(project, "verify")
        held = (verify.returncode == 0 and not verify.stdout.strip() and len(warned) == 1 and clean.returncode == 0
                and gone == {run, receipt} and again.returncode == 0 and "warning" not in again.stderr)
        return held, (warned[0] if warned else verify.stdout.strip() or verify.stderr.strip())[:160]
    finally:
        run.unlink(missing_ok=True)
        receipt.unlink(missing_ok=True)
        other.unlink(missing_ok=True)


def cases(forged) -> list[Case]:
    g = "artifacts"
    rows = [
        ("deleted with its receipt: runs/bm25.trec", deleted_with_receipt("runs/bm25.trec",
                                                                          receipt="retrieve.bm25.json")),
        ("deleted with its receipt: the BM25 index folder", deleted_with_receipt("bm25/plain", receipt="bm25.plain.json")),
        ("deleted with its receipt: the Mini-GPT's weights", deleted_with_receipt(
            "readers/minigpt.npz", receipt="train_reader.minigpt.json")),
        ("deleted with its receipt: the hashing vectors", deleted_with_receipt(
            "vectors/hashing.npy", "vectors/hashing.json", receipt="embed.hashing.json")),
        ("deleted with its receipt: a candidates file", deleted_with_receipt(
            "candidates/rrf.jsonl", receipt="candidates.rrf.json")),
        ("deleted with its receipt: eval/metrics.json", deleted_with_receipt(
            "eval/metrics.json", receipt="evaluate.json")),
        ("a receipt listing an output twice", duplicate_key_receipt),
        ("an earlier config's run and receipt: leftovers, cleaned", leftovers_of_another_config),
    ] + candidates_cases(forged)
    return [Case(name, g, check) for name, check in rows]
