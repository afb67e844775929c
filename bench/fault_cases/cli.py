"""The command line misused: empty, hostile or huge queries, bad numbers and names, missing
folders, a server's port; each a one-line error with exit 2 (usage) or 1, never a traceback."""

from __future__ import annotations

import json
import socket
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


def cases() -> list[Case]:
    g = "cli"
    big = "eat " * 30_000  # 120 KB: about the most one argument may hold (Linux: 128 KB)
    return [Case(name, g, check) for name, check in [
        ("search ''", cli("search", "")),
        ("answer '  '", cli("answer", "  ")),
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
