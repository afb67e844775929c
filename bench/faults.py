"""The fault matrix: damage, delete, misuse and attack a built fixture project, and check each case holds.

    python bench/faults.py                 # every case; a table of cases tried and held
    python bench/faults.py --fast --json   # the subset the test suite runs, as JSON

A case holds when minirag does what a careful user expects: a damaged or stale artifact is
refused (non-zero exit, one line on stderr naming the file, no traceback) and never used; a
deleted artifact is rebuilt (the dry run plans its producer); bad input is a clear error
naming the file, line or key; a hostile value changes nothing outside results/. The project
is a private copy of the workflow, the library and tests/fixtures/minikb, built once; each
case applies its fault, checks, and restores what it changed.

What it leaves out: timings (none are measured), and faults of the machine itself beyond a
write that fails (simulated with a file-size limit) and a killed Snakemake.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "minikb"
PY = sys.executable
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
R = "results/mini"

CONFIG = """\
build: [mini]
corpora:
  mini:
    source: {format: markdown, path: fixture/docs, questions: fixture/questions.jsonl, langs: [en, es]}
    tokenizer: {vocab_size: 400}
    chunk: {strategy: tokens, target_tokens: 40, overlap: 8}
    retrievers:
      dense: {type: dense, embedder: hashing}
      bm25: {type: bm25, index: plain}
      rrf: {type: rrf, of: [dense, bm25], k: 60}
      rrf-mmr: {type: mmr, base: rrf, lambda: 0.7, sweep: {lambda: [0.5]}}
    assertions: fixture/assertions.yaml
"""


@dataclass
class Case:
    name: str
    group: str
    check: Callable[[Path], tuple[bool, str]]  # (held, what happened)
    fast: bool = True


def run(cmd: list[str], cwd: Path, env: dict | None = None, shell: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace", shell=shell,
                          env={**os.environ, "PYTHONPATH": str(cwd), **(env or {})})


def snakemake(project: Path, *args: str, config: str = "mini.yaml") -> subprocess.CompletedProcess:
    return run([SNAKEMAKE, "-c1", *args, "--configfile", config], project)


def refused(proc: subprocess.CompletedProcess, *needles: str, log: Path | None = None) -> tuple[bool, str]:
    """Held when the command failed saying "error" and naming every needle, without a traceback
    (a Snakemake job's own message is in its log)."""
    err = proc.stderr + proc.stdout + (log.read_text() if log and log.exists() else "")
    lines = [ln for ln in err.splitlines() if "error" in ln.lower()]
    ok = proc.returncode != 0 and "Traceback" not in err and bool(lines) and all(n in err for n in needles)
    said = next((ln for ln in lines if any(n in ln for n in needles)), lines[0] if lines else "")
    return ok, (said[:160] or f"exit {proc.returncode}, no error line")


def planned(proc: subprocess.CompletedProcess, rule: str) -> tuple[bool, str]:
    ok = proc.returncode == 0 and f"rule {rule}:" in proc.stdout
    return ok, f"dry run {'plans' if ok else 'does not plan'} {rule}"


class Edit:
    """Change a file for one case and put it back afterwards."""

    def __init__(self, path: Path):
        self.path = path
        self.original = path.read_bytes() if path.exists() else None

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        if self.original is None:
            self.path.unlink(missing_ok=True)
        else:
            self.path.write_bytes(self.original)


# ------------------------------------------------------------------ the stages, run directly

def stage(project: Path, name: str, *args: str) -> subprocess.CompletedProcess:
    return run([PY, "-m", f"minirag.stages.{name}", *args], project)


def evaluate_stage(project: Path) -> subprocess.CompletedProcess:
    runs = sorted(str(p.relative_to(project)) for p in (project / R / "runs").glob("*.trec"))
    answers = sorted(str(p.relative_to(project)) for p in (project / R / "answers").glob("*/*.jsonl"))
    return stage(project, "evaluate", "--corpus", "mini", "--questions", f"{R}/questions.jsonl",
                 "--docs", f"{R}/docs.jsonl", "--chunks", f"{R}/chunks.jsonl", "--runs", *runs,
                 "--answers", *answers, "--out-dir", str(project / "scratch"))


def search(project: Path, *args: str, retriever: str = "rrf") -> subprocess.CompletedProcess:
    return run([PY, "-m", "minirag", "search", *args, "--corpus", "mini", "--configfile", "mini.yaml",
                "--retriever", retriever], project)


def damaged(rel: str, damage: Callable[[bytes], bytes], command: Callable[[Path], subprocess.CompletedProcess],
            *needles: str, log: str | None = None) -> Callable[[Path], tuple[bool, str]]:
    def check(project: Path) -> tuple[bool, str]:
        with Edit(project / rel) as path:
            path.write_bytes(damage(path.read_bytes()))
            return refused(command(project), *(needles or (rel,)), log=project / log if log else None)
    return check


def cut_mid_line(data: bytes) -> bytes:
    """Keep the run's lines but cut the last one inside its score: it still has six fields."""
    text = data.decode()
    last = text.rstrip("\n").rsplit("\n", 1)
    return (last[0] + "\n" + last[1].rsplit(" ", 2)[0] + " 1.2 x").encode()


def flip(data: bytes) -> bytes:
    i = len(data) // 2
    return data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1:]


def swap_two_term_ids(data: bytes) -> bytes:
    vocab = json.loads(data)
    a, b = list(vocab)[:2]
    vocab[a], vocab[b] = vocab[b], vocab[a]
    return json.dumps(vocab).encode()


def edit_chunk_text(data: bytes) -> bytes:
    lines = data.decode().splitlines()
    rec = json.loads(lines[1])
    rec["text"] += " (edited)"
    lines[1] = json.dumps(rec, ensure_ascii=False)
    return ("\n".join(lines) + "\n").encode()


def drop_key(key: str) -> Callable[[bytes], bytes]:
    def damage(data: bytes) -> bytes:
        obj = json.loads(data)
        obj.pop(key)
        return json.dumps(obj).encode()
    return damage


def forge(project: Path, rel: str, data: bytes) -> None:
    """Write `data` over the artifact `rel` and rewrite its hash wherever one is recorded: the
    outputs and inputs of every receipt, and a vectors sidecar's npy_sha256. What is left for
    minirag to notice is the content alone."""
    import hashlib
    path = project / rel
    path.write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    root = project / R
    key = path.relative_to(root).as_posix()
    for receipt in (root / "receipts").glob("*.json"):
        rec = json.loads(receipt.read_text())
        if key in rec["outputs"]:
            rec["outputs"][key].update(sha256=sha, bytes=len(data))
            if "lines" in rec["outputs"][key]:
                rec["outputs"][key]["lines"] = data.count(b"\n")
        rec["inputs"] = {p: sha if p == rel else h for p, h in rec["inputs"].items()}
        receipt.write_text(json.dumps(rec, ensure_ascii=False, indent=2) + "\n")
    if path.suffix == ".npy":
        sidecar = path.with_suffix(".json")
        meta = json.loads(sidecar.read_text())
        meta["npy_sha256"] = sha
        forge(project, str(sidecar.relative_to(project)), (json.dumps(meta, ensure_ascii=False, indent=2) + "\n").encode())


class Forged(Edit):
    """`forge` for one case; the file and every receipt put back afterwards."""

    def __init__(self, project: Path, rel: str):
        super().__init__(project / rel)
        self.project = project
        self.saved = {p: p.read_bytes() for p in (project / R / "receipts").glob("*.json")}
        if self.path.suffix == ".npy":
            self.saved[self.path.with_suffix(".json")] = self.path.with_suffix(".json").read_bytes()

    def __exit__(self, *exc):
        super().__exit__(*exc)
        for p, data in self.saved.items():
            p.write_bytes(data)


def deleted(rel: str, rule: str) -> Callable[[Path], tuple[bool, str]]:
    def check(project: Path) -> tuple[bool, str]:
        with Edit(project / rel) as path:
            path.unlink()
            return planned(snakemake(project, "-n", "results/mini.md"), rule)
    return check


# ------------------------------------------------------------------ input files and configs

def document(front: str, body: str = "# T\n\nText.\n") -> Callable[[Path], tuple[bool, str]]:
    def check(project: Path) -> tuple[bool, str]:
        path = project / "fixture/docs/en/zz-bad.md"
        with Edit(path):
            path.write_bytes(f"---\n{front}\n---\n{body}".encode())
            proc = stage(project, "curate", "--settings", json.dumps(
                {"format": "markdown", "fields": {"title": "title", "lang": "lang", "tags": "tags"},
                 "default_lang": "", "langs": ["en", "es"]}), "--source", "fixture/docs", "--glob", "**/*.md",
                "--out", "scratch/docs.jsonl")
            ok, said = refused(proc, "zz-bad.md")
            return ok and not (project / "scratch/docs.jsonl").exists(), said
    return check


def question(change: dict | bytes) -> Callable[[Path], tuple[bool, str]]:
    def check(project: Path) -> tuple[bool, str]:
        path = project / "fixture/questions.jsonl"
        with Edit(path) as p:
            if isinstance(change, bytes):
                p.write_bytes(p.read_bytes() + change)
            else:
                first = json.loads(p.read_text().splitlines()[0])
                first.update(change, qid="zz-1")
                p.write_text(p.read_text() + json.dumps(first, ensure_ascii=False) + "\n")
            proc = stage(project, "questions", "--settings", json.dumps(
                {"format": "markdown", "split": "test", "questions_format": "minirag",
                 "question_langs": ["en", "es", "cross"]}), "--source", "fixture/questions.jsonl",
                "--docs", f"{R}/docs.jsonl", "--out", "scratch/questions.jsonl")
            return refused(proc, "questions.jsonl:")
    return check


def config(extra: str, *needles: str) -> Callable[[Path], tuple[bool, str]]:
    def check(project: Path) -> tuple[bool, str]:
        (project / "bad.yaml").write_text(CONFIG.replace("    assertions:", extra + "\n    assertions:"))
        proc = snakemake(project, "-n", "results/bad.md", config="bad.yaml")
        return refused(proc, *needles)
    return check


def config_allowed(extra: str) -> Callable[[Path], tuple[bool, str]]:
    def check(project: Path) -> tuple[bool, str]:
        (project / "ok.yaml").write_text(CONFIG.replace("    assertions:", extra + "\n    assertions:"))
        proc = snakemake(project, "-n", "results/ok.md", config="ok.yaml")
        return proc.returncode == 0, "accepted" if proc.returncode == 0 else proc.stderr[-160:]
    return check


def cli(*args: str, exit_code: int = 2, needle: str = "error:") -> Callable[[Path], tuple[bool, str]]:
    def check(project: Path) -> tuple[bool, str]:
        proc = run([PY, "-m", "minirag", *args, "--corpus", "mini", "--configfile", "mini.yaml"], project)
        ok = proc.returncode == exit_code and needle in proc.stderr and "Traceback" not in proc.stderr
        return ok, (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1][:160]
    return check


def non_utf8_json(project: Path) -> tuple[bool, str]:
    proc = subprocess.run([PY, "-m", "minirag", "search", b"caf\xe9 past", "--json", "--corpus", "mini",
                           "--configfile", "mini.yaml"], cwd=project, capture_output=True,
                          env={**os.environ, "PYTHONPATH": str(project)})
    try:
        json.loads(proc.stdout.decode("utf-8"))
        return proc.returncode == 0, "valid UTF-8 JSON"
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return False, f"invalid output: {exc}"


# ------------------------------------------------------------------ security and processes

def hostile_assertions_path(project: Path) -> tuple[bool, str]:
    name = "scratch/a||touch PWNED||b.yaml"
    (project / "scratch").mkdir(exist_ok=True)
    shutil.copy(project / "fixture/assertions.yaml", project / name)
    (project / "hostile.yaml").write_text(CONFIG.replace("fixture/assertions.yaml", json.dumps(name)))
    proc = snakemake(project, "results/hostile.md", config="hostile.yaml")
    pwned = list(project.rglob("PWNED"))
    return proc.returncode == 0 and not pwned, "built; nothing ran" if not pwned else f"ran: {pwned}"


def umask_respected(project: Path) -> tuple[bool, str]:
    mode = (project / R / "chunks.jsonl").stat().st_mode & 0o777
    expected = 0o666 & ~0o022
    return mode == expected, f"mode {oct(mode)} (umask 022 gives {oct(expected)})"


def disk_full(project: Path) -> tuple[bool, str]:
    """A write that fails (file-size limit, SIGXFSZ ignored): one error line, the old file kept."""
    before = (project / R / "docs.jsonl").read_bytes()
    cmd = ("trap '' XFSZ; ulimit -f 1; exec " + PY + " -m minirag.stages.curate --settings "
           "'{\"format\": \"markdown\", \"fields\": {\"title\": \"title\", \"lang\": \"lang\", \"tags\": \"tags\"}, "
           "\"default_lang\": \"\", \"langs\": []}' --source fixture/docs --glob '**/*.md' --out " + R + "/docs.jsonl")
    proc = run(["bash", "-c", cmd], project)
    ok, said = refused(proc, "File too large")
    return ok and (project / R / "docs.jsonl").read_bytes() == before, said


def orphan_stops(project: Path) -> tuple[bool, str]:
    """Kill Snakemake while a job sleeps in its stage: the stage must exit, not run on."""
    probe = project / "minirag/stages/curate.py"
    with Edit(probe):
        probe.write_text(probe.read_text().replace(
            'def curate(settings: dict, source: Path, glob: str, out: Path) -> list[Path]:',
            'def curate(settings: dict, source: Path, glob: str, out: Path) -> list[Path]:\n'
            '    import time; open("scratch/pid", "w").write(str(__import__("os").getpid())); time.sleep(60)'))
        (project / "scratch").mkdir(exist_ok=True)
        sm = subprocess.Popen([SNAKEMAKE, "-c1", "--configfile", "mini.yaml", "--forcerun", "curate",
                               "results/mini.md"], cwd=project, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(project)})
        pid_file = project / "scratch/pid"
        for _ in range(100):
            if pid_file.exists() and pid_file.read_text():
                break
            time.sleep(0.2)
        stage_pid = int(pid_file.read_text())
        sm.send_signal(signal.SIGKILL)
        sm.wait()
        for _ in range(50):
            time.sleep(0.1)
            if not Path(f"/proc/{stage_pid}").exists() or "Z" in Path(f"/proc/{stage_pid}/stat").read_text().split()[2]:
                pid_file.unlink()
                shutil.rmtree(project / ".snakemake" / "locks", ignore_errors=True)
                snakemake(project, "--unlock")
                return True, "the stage exited within 5 s of Snakemake's death"
        os.kill(stage_pid, signal.SIGKILL)
        return False, "the stage ran on after Snakemake died"


# ------------------------------------------------------------------ the matrix

def cases() -> list[Case]:
    c = []
    delete = {"docs.jsonl": "curate", "questions.jsonl": "questions", "tokenizer.json": "train_tokenizer",
              "chunks.jsonl": "chunk", "vectors/hashing.npy": "embed", "vectors/hashing.json": "embed",
              "bm25/plain/index.npz": "bm25", "bm25/plain/vocab.json": "bm25", "bm25/plain/items.json": "bm25",
              "runs/bm25.trec": "retrieve", "prompts/rrf.jsonl": "prompt", "answers/extractive/rrf.jsonl": "generate",
              "eval/metrics.json": "evaluate", "eval/diagnosis.csv": "diagnose", "eval/assertions.json": "assertions",
              "figures/sweep-rrf-mmr-lambda.png": "sweep_figure", "receipts/retrieve.bm25.json": "retrieve"}
    for rel, rule in delete.items():
        c.append(Case(f"deleted {rel}", "rebuilt", deleted(f"{R}/{rel}", rule)))
    run_rel = f"{R}/runs/bm25.trec"
    c += [
        Case("run cut mid-line (6 fields kept)", "refused", damaged(run_rel, cut_mid_line, evaluate_stage)),
        Case("run truncated at a line end", "refused",
             damaged(run_rel, lambda d: d[: d.rfind(b"\n", 0, len(d) // 2) + 1], evaluate_stage)),
        Case("run bit-flipped", "refused", damaged(run_rel, flip, evaluate_stage)),
        Case("chunk text edited", "refused", damaged(f"{R}/chunks.jsonl", edit_chunk_text, evaluate_stage)),
        Case("chunk text edited, live search", "refused",
             damaged(f"{R}/chunks.jsonl", edit_chunk_text, lambda p: search(p, "eat", retriever="bm25"))),
        Case("bm25 vocab: two term ids swapped", "refused",
             damaged(f"{R}/bm25/plain/vocab.json", swap_two_term_ids, lambda p: search(p, "eat", retriever="bm25"))),
        Case("bm25 index.npz truncated", "refused",
             damaged(f"{R}/bm25/plain/index.npz", lambda d: d[: len(d) // 2], lambda p: search(p, "eat"))),
        Case("bm25 index.npz bit-flipped", "refused",
             damaged(f"{R}/bm25/plain/index.npz", flip, lambda p: search(p, "eat"))),
        Case("bm25 index.npz replaced by garbage", "refused",
             damaged(f"{R}/bm25/plain/index.npz", lambda d: b"garbage" * 10, lambda p: search(p, "eat"))),
        Case("bm25 vocab.json not JSON", "refused",
             damaged(f"{R}/bm25/plain/vocab.json", lambda d: d[:-5], lambda p: search(p, "eat"))),
        Case("vectors sidecar not JSON", "refused",
             damaged(f"{R}/vectors/hashing.json", lambda d: d[:-5], lambda p: search(p, "eat", retriever="dense"))),
        Case("vectors sidecar missing npy_sha256", "refused",
             damaged(f"{R}/vectors/hashing.json", drop_key("npy_sha256"), lambda p: search(p, "eat", retriever="dense"))),
        Case("vectors .npy bit-flipped", "refused",
             damaged(f"{R}/vectors/hashing.npy", flip, lambda p: search(p, "eat", retriever="dense"))),
        Case("prompts edited", "refused", damaged(f"{R}/prompts/rrf.jsonl", flip, lambda p: stage(
            p, "generate", "--settings", '{"type": "extractive", "threshold": 0.5}', "--prompts",
            f"{R}/prompts/rrf.jsonl", "--out", "scratch/a.jsonl"))),
        Case("answers edited", "refused", damaged(f"{R}/answers/extractive/rrf.jsonl", flip, evaluate_stage)),
        Case("questions edited", "refused", damaged(f"{R}/questions.jsonl", flip, evaluate_stage)),
        Case("docs edited", "refused", damaged(f"{R}/docs.jsonl", flip, evaluate_stage)),
        Case("receipt not JSON", "refused", damaged(f"{R}/receipts/retrieve.bm25.json", lambda d: d[:-3],
                                                    evaluate_stage, "receipts/retrieve.bm25.json")),
        Case("metrics edited, report", "refused",
             damaged(f"{R}/eval/metrics.json", flip, lambda p: snakemake(p, "--forcerun", "report", "results/mini.md"),
                     "metrics.json", log="results/logs/mini.log")),
        Case("document: tags: 5", "bad input", document("title: T\nlang: en\ntags: 5")),
        Case("document: tags: [Verbs, 3]", "bad input", document("title: T\nlang: en\ntags: [verbs, 3]")),
        Case("document: lang: fr", "bad input", document("title: T\nlang: fr")),
        Case("document: NUL character", "bad input", document("title: T\nlang: en", "# T\n\nA\x00B.\n")),
        Case("document: title: 2024", "bad input", document("title: 2024\nlang: en")),
        Case("question: tags: 5", "bad input", question({"tags": 5})),
        Case("question: evidence: 5", "bad input", question({"gold": [{"doc_id": "en/past-simple.md", "evidence": 5}]})),
        Case("question: doc_id: [..]", "bad input", question({"gold": [{"doc_id": ["x"], "evidence": "x"}]})),
        Case("question: invalid UTF-8", "bad input", question(b'{"qid": "\xff"}\n')),
        Case("config: overlap >= target_tokens", "bad input",
             config("    chunk: {strategy: tokens, target_tokens: 20, overlap: 20}", "overlap")),
        Case("config: chars with overlap 0 is allowed", "bad input",
             config_allowed("    chunk: {strategy: chars, size: 300, overlap: 0}")),
        Case("config: an index named ..", "security",
             config("    bm25: {'..': {}}\n    embedders: {hashing: {type: hashing}}", "..")),
        Case("config: wrong type", "bad input", config("    depth: many", "depth")),
        Case("cli: search ''", "cli", cli("search", "")),
        Case("cli: answer '  '", "cli", cli("answer", "  ")),
        Case("cli: search -k 0", "cli", cli("search", "x", "-k", "0")),
        Case("cli: search -k -3", "cli", cli("search", "x", "-k", "-3")),
        Case("cli: answer -k 0", "cli", cli("answer", "x", "-k", "0")),
        Case("cli: search -k beyond the run depth", "cli", cli("search", "x", "-k", "1000")),
        Case("cli: unknown retriever", "cli", cli("search", "x", "--retriever", "nope")),
        Case("cli: non-UTF-8 argument, --json", "cli", non_utf8_json),
        Case("cli: assert with no arguments (the default corpus is not built here)", "cli",
             lambda p: refused(run([PY, "-m", "minirag", "assert"], p), "results/kb/")),
        Case("shell injection through a config path", "security", hostile_assertions_path),
        Case("artifacts respect the umask", "security", umask_respected),
        Case("a write that fails (disk full)", "processes", disk_full),
        Case("a stage stops when Snakemake is killed", "processes", orphan_stops, fast=False),
    ]
    return c


def build_project(root: Path) -> Path:
    project = root / "project"
    project.mkdir()
    for name in ("Snakefile", "workflow", "minirag"):
        src = REPO / name
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, project / name)
    shutil.copytree(FIXTURE, project / "fixture")
    (project / "mini.yaml").write_text(CONFIG)
    (project / "scratch").mkdir()
    os.umask(0o022)
    proc = snakemake(project, "results/mini.md")
    if proc.returncode != 0:
        raise SystemExit(f"the fixture build failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return project


def run_cases(selected: list[Case], project: Path) -> list[dict]:
    rows = []
    for case in selected:
        try:
            held, said = case.check(project)
        except Exception as exc:  # a case that crashes the harness did not hold
            held, said = False, f"{type(exc).__name__}: {exc}"
        rows.append({"case": case.name, "group": case.group, "held": bool(held), "observed": said})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fast", action="store_true", help="only the cases the test suite runs")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    selected = [c for c in cases() if c.fast or not a.fast]
    with tempfile.TemporaryDirectory() as tmp:
        rows = run_cases(selected, build_project(Path(tmp)))
    held = sum(r["held"] for r in rows)
    if a.json:
        print(json.dumps({"tried": len(rows), "held": held, "cases": rows}, indent=2))
    else:
        width = max(len(r["case"]) for r in rows)
        for r in rows:
            print(f"{'held  ' if r['held'] else 'FAILED'}  {r['group']:<10} {r['case']:<{width}}  {r['observed']}")
        print(f"\n{held} of {len(rows)} cases held ({100 * held / len(rows):.0f} %)")
    return 0 if held == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
