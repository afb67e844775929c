"""The command line misused: empty, hostile or huge queries, bad numbers and names, missing
folders, a server's port; each a one-line error with exit 2 (usage) or 1, never a traceback."""

from __future__ import annotations

import json
import socket
import time
import unicodedata
from pathlib import Path

from fault_harness import PY, Case, minirag, refused, run


def cli(*args: str, exit_code: int = 2, needle: str = "error", config: str = "mini.yaml"):
    def check(project: Path) -> tuple[bool, str]:
        proc = minirag(project, *args, config=config, timeout=120)
        err = proc.stderr.strip()
        ok = proc.returncode == exit_code and needle in err and "Traceback" not in err
        return ok, (err.splitlines() or [f"exit {proc.returncode}"])[-1][:160]
    return check


def raw_argv(argument: bytes, needle: str = "query"):
    """An argument that is not UTF-8 (it arrives as lone surrogates): refused, not searched garbled."""
    def check(project: Path) -> tuple[bool, str]:
        proc = run([PY.encode(), b"-m", b"minirag", b"search", argument, b"--json", b"--corpus", b"mini",
                    b"--configfile", b"mini.yaml"], project, text=False)
        err = proc.stderr.decode("utf-8", "replace")
        try:
            proc.stdout.decode("utf-8")
            utf8 = True
        except UnicodeDecodeError:
            utf8 = False
        ok = proc.returncode == 2 and needle in err and "Traceback" not in err and utf8
        return ok, (err.strip().splitlines() or ["?"])[-1][:160]
    return check


def nfd_is_nfc(project: Path) -> tuple[bool, str]:
    q = "¿Cuál es el pretérito de comer?"
    out = [json.loads(minirag(project, "search", unicodedata.normalize(form, q), "--json", "-k", "10").stdout)
           for form in ("NFC", "NFD")]
    ok = out[0]["results"] == out[1]["results"] and out[1]["query"] == unicodedata.normalize("NFC", q)
    return ok, "the NFD query is the NFC query" if ok else "NFD and NFC rank differently"


def port_in_use(project: Path) -> tuple[bool, str]:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = minirag(project, "serve", "--port", str(port), timeout=120)
    held, said = refused(proc, str(port), "in use")
    return held and "chunks" not in proc.stderr, said


def flat_memory(reader: str, limit_mb: float = 100):
    """`answer` with a 1 KB and a 10 KB query, the cap raised: the peak RSS (measured) grows by less than
    `limit_mb` (it grew with the cube of the query's length: 10 KB took 4.8 GB)."""
    def check(project: Path) -> tuple[bool, str]:
        from fault_measure import measured
        rss = []
        for n in (256, 2560):
            proc, peak, _ = measured([PY, "-m", "minirag", "answer", "eat " * n, "--reader", reader, "--corpus", "mini",
                                      "--configfile", "mini.yaml", "--max-query-chars", "100000"], project,
                                     limit_mb=3072, timeout=120)
            if proc.returncode != 0:
                return False, (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1][:160]
            rss.append(peak)
        return rss[1] - rss[0] < limit_mb, f"peak RSS {rss[0]:.0f} MB at 1 KB, {rss[1]:.0f} MB at 10 KB"
    return check


def long_word(command: str, query: str, reader: str | None = None, bound_s: float = 20):
    """`command` with a 100,000-character query, the cap raised: done within `bound_s` seconds and 1 GB (a
    regex over the query was quadratic: a 16,000-letter word took 9 s, 131,000 letters over 300 s)."""
    def check(project: Path) -> tuple[bool, str]:
        from fault_measure import measured
        t0 = time.monotonic()
        proc, peak, _ = measured([PY, "-m", "minirag", command, query, *(["--reader", reader] if reader else []),
                                  "--corpus", "mini", "--configfile", "mini.yaml", "--max-query-chars", "200000"],
                                 project, limit_mb=1024, timeout=bound_s)
        took = time.monotonic() - t0
        ok = proc.returncode == 0 and "Traceback" not in proc.stderr
        return ok, (f"done in {took:.1f} s (bound {bound_s:g} s), peak RSS {peak:.0f} MB" if ok else
                    (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1][:160])
    return check


API = """\
import sys
from minirag.query.built_corpus import BuiltCorpus, UsageError
built = BuiltCorpus.open("mini.yaml", "mini")
try:
    getattr(built, sys.argv[1])("eat " * 750)
except UsageError as exc:
    sys.exit(f"error: {exc}")
"""


def candidates_with(terms: Path) -> list[str]:
    from fault_harness import R
    return [PY, "-m", "minirag.stages.candidates", "--settings", '{"depth": 20, "keep": 3}', "--questions",
            f"{R}/questions.jsonl", "--docs", f"{R}/docs.jsonl", "--chunks", f"{R}/chunks.jsonl", "--run",
            f"{R}/runs/rrf.trec", "--lexicon", f"{R}/lexicon.json", "--terms", str(terms), "--model",
            f"{R}/readers/extractive.npz", "--out", "scratch/c.jsonl"]


def terms_not_utf8(project: Path) -> tuple[bool, str]:
    """The grammar-terms file the selector reads holding a byte that is not UTF-8: named with its line."""
    terms = project / "scratch/terms.tsv"
    terms.write_bytes((project / "minirag/domains/grammar/data/grammar_terms.tsv").read_bytes() + b"tense:past\tp\xffst\tx\n")
    return refused(run(candidates_with(terms), project), "terms.tsv:", "UTF-8")


def terms_huge(project: Path) -> tuple[bool, str]:
    """A grammar-terms file of 100,000 lines (2 MB; the shipped one: 36): refused naming the file within
    10 s and 512 MB (each candidates job took 25 s and one answer 613 MB, its phrases compiled into one regex)."""
    from fault_measure import measured
    terms = project / "scratch/terms-huge.tsv"
    terms.write_text("".join(f"tense:past\tword{i}, other{i}\tpalabra{i}\n" for i in range(100_000)))
    proc, peak, _ = measured(candidates_with(terms), project, limit_mb=512, timeout=10)
    held, said = refused(proc, "terms-huge.tsv", "at most")
    return held, f"{said[:120]} (peak RSS {peak:.0f} MB)"


def cases() -> list[Case]:
    g = "cli"
    big = "eat " * 30_000  # 120 KB: about the most one argument may hold (Linux: 128 KB)
    return [Case(name, g, check) for name, check in [
        ("search ''", cli("search", "")),
        ("answer '  '", cli("answer", "  ")),
        ("search of zero-width spaces", cli("search", "\u200b\u200b")),
        ("answer of zero-width and bidi marks", cli("answer", "\u200b\u2060\ufeff\u202e")),
        ("search -k 0", cli("search", "x", "-k", "0")),
        ("search -k -3", cli("search", "x", "-k", "-3")),
        ("search -k abc", cli("search", "x", "-k", "abc")),
        ("search -k 1e9", cli("search", "x", "-k", "1e9")),
        ("answer -k 0", cli("answer", "x", "-k", "0")),
        ("search -k beyond the run depth", cli("search", "x", "-k", "1000")),
        ("unknown retriever", cli("search", "x", "--retriever", "nope", needle="nope")),
        ("retriever ''", cli("search", "x", "--retriever", "", needle="retriever")),
        ("retriever ../../etc", cli("search", "x", "--retriever", "../../etc", needle="../../etc")),
        ("unknown reader", cli("answer", "x", "--reader", "nope", needle="nope")),
        ("unknown corpus", cli("search", "x", "--corpus", "nope", needle="nope", exit_code=1)),
        ("corpus ../..", cli("search", "x", "--corpus", "../..", needle="../..", exit_code=1)),
        ("results folder missing", cli("search", "x", "--results", "nowhere", needle="nowhere")),
        ("configfile a folder", cli("search", "x", config="fixture", needle="fixture", exit_code=1)),
        ("configfile missing", cli("search", "x", config="nope.yaml", needle="nope.yaml", exit_code=1)),
        ("query with a SOH (U+0001)", cli("search", "past\x01 of eat", needle="control character")),
        ("query with an ESC", cli("search", "past\x1b[2J of eat", needle="control character")),
        ("query with a C1 control", cli("search", "past\x9b of eat", needle="control character")),
        ("query of 120 KB: over the CLI's length cap", cli("search", big, "-k", "3", needle="--max-query-chars")),
        ("query of 120 KB under a raised cap (answered)", cli("search", big, "-k", "3", "--max-query-chars",
                                                             "200000", exit_code=0, needle="")),
        ("answer a 10 KB query: over the CLI's length cap", cli("answer", "eat " * 2560, needle="--max-query-chars")),
        ("answer 1 KB then 10 KB, cap raised: memory flat (extractive)", flat_memory("extractive")),
        ("answer 1 KB then 10 KB, cap raised: memory flat (minigpt)", flat_memory("minigpt")),
        ("answer a 100,000-letter word, cap raised: within 20 s (extractive)", long_word("answer", "a" * 100_000,
                                                                                       "extractive")),
        ("answer a 100,000-letter word, cap raised: within 20 s (minigpt)", long_word("answer", "a" * 100_000,
                                                                                    "minigpt")),
        ("search a 100,000-letter word, cap raised: within 20 s", long_word("search", "a" * 100_000)),
        ("answer 100,000 underscores, cap raised: within 20 s", long_word("answer", "_" * 100_000)),
        ("Python API: BuiltCorpus.answer of 3,000 characters (over the cap)",
         lambda p: refused(run([PY, "-c", API, "answer"], p), "at most 2000")),
        ("Python API: BuiltCorpus.search of 3,000 characters (over the cap)",
         lambda p: refused(run([PY, "-c", API, "search"], p), "at most 2000")),
        ("a terms file that is not UTF-8", terms_not_utf8),
        ("a terms file of 100,000 lines: refused within 10 s and 512 MB", terms_huge),
        ("non-UTF-8 argument, --json", raw_argv(b"caf\xe9 past")),
        ("NFD query ranks as NFC", nfd_is_nfc),
        ("assert with no arguments (the default corpus is not built here)",
         lambda p: refused(run([PY, "-m", "minirag", "assert"], p), "results/kb/")),
        ("verify an unbuilt corpus", cli("verify", "--results", "scratch", needle="not been built")),
        ("serve --port 99999", cli("serve", "--port", "99999", needle="--port")),
        ("serve --port 0", cli("serve", "--port", "0", needle="--port")),
        ("serve --port http", cli("serve", "--port", "http", needle="--port")),
        ("serve on a port in use, before loading", port_in_use),
        ("serve --max-query-chars 0", cli("serve", "--max-query-chars", "0", needle="max-query-chars")),
        ("serve --host not an address", cli("serve", "--host", "no.such.host.invalid", "--port", "8123",
                                            needle="--port")),
    ]]
