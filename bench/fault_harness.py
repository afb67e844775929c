"""What every case of the fault matrix (faults.py) shares: the built fixture project, running
commands in it, deciding whether a case held, and undoing a case's damage.

A case holds when minirag does what a careful user expects: damaged or forged input is
refused (non-zero exit, an error line naming the file, line or key, no traceback) and never
used; a deleted artifact is rebuilt; a hostile value changes nothing outside results/; a
killed build resumes to the clean build's bytes. Every command runs with a time limit, so a
hang is a case that did not hold, never a stuck matrix.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "minikb"
SERVERS = REPO / "tests" / "servers"
PY = sys.executable
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
R = "results/mini"
TIMEOUT = 300  # seconds any one command may take before the case counts as a hang

CONFIG = """\
build: [mini]
corpora:
  mini:
    domain: grammar
    source: {format: markdown, path: fixture/docs, questions: fixture/questions.jsonl, langs: [en, es]}
    tokenizer: {vocab_size: 400}
    chunk: {strategy: tokens, target_tokens: 40, overlap: 8}
    retrievers:
      dense: {type: dense, embedder: hashing}
      bm25: {type: bm25, index: plain}
      rrf: {type: rrf, of: [dense, bm25], k: 60}
      rrf-mmr: {type: mmr, base: rrf, lambda: 0.7, sweep: {lambda: [0.5]}}
      bm25-x: {type: bm25, index: plain, expand: {translations: 0.5, forms: 0.5}}
      bm25-rerank: {type: rerank, of: bm25-x, synthetic: 50, expand: {translations: 0.5, forms: 0.5}}
    readers:
      extractive: {type: extractive}
      minigpt: {type: minigpt, d: 16, n_heads: 2, block_size: 160, steps: 40, batch_size: 8, tasks: 200, eval_tasks: 3}
    assertions: fixture/assertions.yaml
"""

CURATE = {"format": "markdown", "fields": {"title": "title", "lang": "lang", "tags": "tags"}, "default_lang": "",
          "langs": ["en", "es"], "outside_links": "refuse"}
QUESTIONS = {"format": "markdown", "split": "test", "questions_format": "minirag",
             "question_langs": ["en", "es", "cross"], "strict_qrels": False}


@dataclass
class Case:
    name: str
    group: str
    check: Callable[[Path], tuple[bool, str]]  # (held, what happened)
    fast: bool = True


# ------------------------------------------------------------------ running commands


class Hung(subprocess.CompletedProcess):
    """A command that ran past its time limit: it did not hold, whatever it would have printed."""


def run(cmd: list, cwd: Path, env: dict | None = None, timeout: float = TIMEOUT, mem_mb: int | None = None,
        input: bytes | None = None, text: bool = True) -> subprocess.CompletedProcess:
    """The command's result; past `timeout` seconds a Hung result (exit -9, the stage killed)."""
    def limit():
        if mem_mb:
            resource.setrlimit(resource.RLIMIT_AS, (mem_mb << 20, mem_mb << 20))
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=text, errors="replace" if text else None,
                              timeout=timeout, preexec_fn=limit, input=input,
                              env={**os.environ, "PYTHONPATH": str(cwd), **(env or {})})
    except subprocess.TimeoutExpired as exc:
        return Hung(cmd, -9, "", f"hung: still running after {timeout:g} s (killed)\n{exc.stderr or ''}")


def snakemake(project: Path, *args: str, config: str = "mini.yaml", **kw) -> subprocess.CompletedProcess:
    return run([SNAKEMAKE, "-c1", *args, "--configfile", config], project, **kw)


def minirag(project: Path, *args: str, config: str = "mini.yaml", **kw) -> subprocess.CompletedProcess:
    """`python -m minirag ARGS --corpus mini --configfile mini.yaml` (--corpus only when ARGS name none)."""
    corpus = [] if "--corpus" in args else ["--corpus", "mini"]
    return run([PY, "-m", "minirag", *args, *corpus, "--configfile", config], project, **kw)


def stage(project: Path, name: str, *args: str, **kw) -> subprocess.CompletedProcess:
    return run([PY, "-m", f"minirag.stages.{name}", *args], project, **kw)


def curate(project: Path, source: str = "fixture/docs", settings: dict | None = None, **kw):
    return stage(project, "curate", "--settings", json.dumps({**CURATE, **(settings or {})}), "--source", source,
                 "--glob", "**/*.md", "--out", "scratch/docs.jsonl", **kw)


def questions_stage(project: Path, source: str, settings: dict | None = None, **kw):
    return stage(project, "questions", "--settings", json.dumps({**QUESTIONS, **(settings or {})}), "--source",
                 source, "--docs", f"{R}/docs.jsonl", "--out", "scratch/questions.jsonl", **kw)


def evaluate_stage(project: Path) -> subprocess.CompletedProcess:
    runs = sorted(str(p.relative_to(project)) for p in (project / R / "runs").glob("*.trec"))
    answers = sorted(str(p.relative_to(project)) for p in (project / R / "answers").glob("*/*.jsonl"))
    return stage(project, "evaluate", "--settings", '{"domain": "grammar"}', "--corpus", "mini",
                 "--questions", f"{R}/questions.jsonl",
                 "--docs", f"{R}/docs.jsonl", "--chunks", f"{R}/chunks.jsonl", "--runs", *runs,
                 "--answers", *answers, "--out-dir", str(project / "scratch"))


def search(project: Path, *args: str, retriever: str = "rrf") -> subprocess.CompletedProcess:
    return minirag(project, "search", *args, "--retriever", retriever)


# ------------------------------------------------------------------ deciding


def refused(proc: subprocess.CompletedProcess, *needles: str, log: Path | None = None) -> tuple[bool, str]:
    """Held when the command failed saying "error" (or, Snakemake, "...Exception in rule") and naming
    every needle, without a traceback (a Snakemake job's own message is in its log)."""
    err = (proc.stderr or "") + (proc.stdout or "") + (log.read_text() if log and log.exists() else "")
    lines = [ln for ln in err.splitlines() if "error" in ln.lower() or "Exception in rule" in ln]
    ok = (proc.returncode != 0 and not isinstance(proc, Hung) and "Traceback" not in err and bool(lines)
          and all(n in err for n in needles))
    said = next((ln for ln in lines if any(n in ln for n in needles)), lines[0] if lines else "")
    if isinstance(proc, Hung):
        said = proc.stderr.splitlines()[0]
    return ok, (said[:160] or f"exit {proc.returncode}, no error line")


def accepted(proc: subprocess.CompletedProcess, what: str = "accepted") -> tuple[bool, str]:
    ok = proc.returncode == 0 and "Traceback" not in (proc.stderr or "")
    return ok, what if ok else ((proc.stderr or proc.stdout or "").strip().splitlines() or ["?"])[-1][:160]


def planned(proc: subprocess.CompletedProcess, rule: str) -> tuple[bool, str]:
    ok = proc.returncode == 0 and f"rule {rule}:" in proc.stdout
    return ok, f"dry run {'plans' if ok else 'does not plan'} {rule}"


def nothing_ran(project: Path) -> list[Path]:
    """The PWNED files a shell-injection case would have created (none when it held)."""
    return [p for p in project.rglob("PWNED*")] + [p for p in Path("/tmp").glob("PWNED*")]


# ------------------------------------------------------------------ undoing


class Edit:
    """Change a file for one case and put it back afterwards."""

    def __init__(self, path: Path):
        self.path = path
        self.original = path.read_bytes() if path.is_file() and not path.is_symlink() else None

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        if self.path.is_symlink() or (self.path.exists() and not self.path.is_file()):
            self.path.unlink() if not self.path.is_dir() or self.path.is_symlink() else shutil.rmtree(self.path)
        if self.original is None:
            self.path.unlink(missing_ok=True)
        else:
            self.path.write_bytes(self.original)


def forge(project: Path, rel: str, data: bytes) -> None:
    """Write `data` over the artifact `rel` and rewrite its hash wherever one is recorded: the
    outputs and inputs of every receipt, and a vectors sidecar's npy_sha256. What is left for
    minirag to notice is the content alone."""
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
    if path.suffix == ".npy" and path.parent.name == "vectors":
        sidecar = path.with_suffix(".json")
        meta = json.loads(sidecar.read_text())
        meta["npy_sha256"] = sha
        forge(project, str(sidecar.relative_to(project)), (json.dumps(meta, ensure_ascii=False, indent=2) + "\n").encode())


class Forged(Edit):
    """`forge` for one case; the file, a vectors sidecar and every receipt put back afterwards."""

    def __init__(self, project: Path, rel: str):
        super().__init__(project / rel)
        self.saved = {p: p.read_bytes() for p in (project / R / "receipts").glob("*.json")}
        if self.path.suffix == ".npy":
            self.saved[self.path.with_suffix(".json")] = self.path.with_suffix(".json").read_bytes()

    def __exit__(self, *exc):
        super().__exit__(*exc)
        for p, data in self.saved.items():
            p.write_bytes(data)


def chunked_post(port: int, path: str, query_chars: int) -> tuple[int, bytes]:
    """POST {"query": "a" * query_chars} to a local server with Transfer-Encoding: chunked (no
    Content-Length): (status, body)."""
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.putrequest("POST", path)
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Transfer-Encoding", "chunked")
    conn.endheaders()
    body = json.dumps({"query": "a" * query_chars}).encode()
    try:
        for i in range(0, len(body), 8192):
            part = body[i:i + 8192]
            conn.send(b"%x\r\n%s\r\n" % (len(part), part))
        conn.send(b"0\r\n\r\n")
    except OSError:
        pass  # the server may answer 413 and close before the whole body is sent
    try:
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


# ------------------------------------------------------------------ the project


def copy_sources(project: Path, names=("Snakefile", "workflow", "minirag"), fixture: bool = True) -> None:
    """The repository's `names` into `project` (and the fixture corpus as fixture/): the one way
    the matrix and the test suite copy the project."""
    for name in names:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, project / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, project / name)
    if fixture:
        shutil.copytree(FIXTURE, project / "fixture")


def build_project(root: Path) -> Path:
    """A private copy of the workflow, the library and the fixture corpus, built once."""
    project = root / "project"
    project.mkdir()
    copy_sources(project)
    (project / "mini.yaml").write_text(CONFIG)
    (project / "scratch").mkdir()
    os.umask(0o022)
    proc = snakemake(project, "results/mini.md", timeout=1800)
    if proc.returncode != 0:
        raise SystemExit(f"the fixture build failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    (project / "clean.json").write_text(json.dumps(artifact_hashes(project), indent=1))
    return project


VARIES = ("logs/", "benchmarks/", "missing/", "answers/", "eval/metrics.json")  # measured latencies, and what
# summarises them


def varies(rel: str) -> bool:
    return any(v in rel for v in VARIES)


def stable_bytes(path: Path, rel: str) -> bytes:
    """The file's bytes, but a receipt without the hashes of files that vary: the measured parts of an
    otherwise byte-identical build (docs/integrity.md lists them)."""
    if rel.startswith("receipts/"):
        rec = json.loads(path.read_text())
        for key in ("inputs", "outputs"):
            rec[key] = {k: v for k, v in rec.get(key, {}).items() if not varies(k)}
        return json.dumps(rec, sort_keys=True).encode()
    return path.read_bytes()


def artifact_hashes(project: Path) -> dict[str, str]:
    """sha256 of every artifact of the corpus but those holding measured times (answers' latencies and
    what summarises them): what a resumed build must reproduce bit for bit."""
    root = project / R
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and not p.name.startswith(".") and not varies(rel):
            out[rel] = hashlib.sha256(stable_bytes(p, rel)).hexdigest()
    return out


def same_as_clean(project: Path) -> tuple[bool, str]:
    clean = json.loads((project / "clean.json").read_text())
    now = artifact_hashes(project)
    differ = sorted(k for k in clean.keys() | now.keys() if clean.get(k) != now.get(k))
    return not differ, "every artifact as the clean build's" if not differ else f"differs: {', '.join(differ[:4])}"
