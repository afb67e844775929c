"""Load on `minirag serve`: throughput, tail latency, errors and memory growth under concurrency.

Starts `python -m minirag serve` on a free loopback port as a subprocess, warms it up with
50 serial requests (not counted), then has 32 client threads, each with its own keep-alive
`http.client.HTTPConnection`, send 10,000 requests in all: a seeded, per-request-index mix of
POST /search ({"query", "k": 5}) and POST /answer ({"query"}), with the served default
retriever and reader. The queries cycle, in a seeded order, through the corpus's dev
questions (results/<corpus>/questions.jsonl, all of them if there is no "split" field).
A request is an error when it raises (connection reset, timeout, ...) or answers non-200.
Latency is perf_counter from sending the request to having read the whole body, on the
client, so it includes queueing in the server: the server runs one handler at a time on its
event loop, so with 32 clients a request mostly waits behind the others.

Reported per endpoint and in all: requests, errors, throughput (req/s over the load's wall
time), p50/p95/p99 latency in ms (numpy percentiles, successful requests only); the server's
RSS (VmRSS from /proc/<pid>/status) after the warm-up and after the load, its growth, and
the peak (VmHWM); the median latency of the warm-up's second half (serial, so service time
without queueing); the CPU the server and the clients used during the load, in % of one
core (the server computes on one thread: ~100 % means it is saturated); wall time; the
options used. A global deadline (--max-seconds) stops the clients from starting new
requests; the report then says how many were done.

Targets it is judged against (printed as met or not, never asserted: a benchmark, not a test):
    0 errors;  p99 of /search <= 50 ms on 2 cores;  RSS growth <= 10 %.

    .venv/bin/python bench/serve_load.py [--clients 32] [--requests 10000] [--answer-share 0.5]
        [--reader NAME] [--retriever NAME] [--workers 1] [--max-seconds 600] [--corpus kb] [--configfile workflow/config.yaml]
        [--results results] [--port PORT] [--seed 0] [--json]

Run from anywhere (the server runs with the repository root as its working directory); build
the artifacts first (snakemake -c2 results/report.md). Progress goes to stderr every ~1000
requests. Exits 1 when the server does not start, 0 otherwise. Loopback only, bounded, and
the server is always stopped at the end (SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from minirag.serve.process import ServerProcess  # noqa: E402

HOST = "127.0.0.1"
WARMUP = 50
PROGRESS_EVERY = 1000
REQUEST_TIMEOUT_S = 60.0  # a stuck request becomes an error instead of hanging a client forever
TARGET_P99_SEARCH_MS = 50.0
TARGET_RSS_GROWTH_PCT = 10.0


class ServerFailed(Exception):
    """The server exited or never answered /healthz."""


# ---------------------------------------------------------------- the server process

def process_tree(pid: int) -> list[int]:
    """The server and its worker processes (`--workers N` forks them under the first)."""
    pids, i = [pid], 0
    while i < len(pids):
        try:
            for task in Path(f"/proc/{pids[i]}/task").iterdir():
                pids += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
        i += 1
    return pids


def proc_status_mb(pid: int, field: str) -> float | None:
    """`field` (VmRSS, VmHWM) of /proc/<pid>/status summed over the server's process tree, in MB."""
    total, found = 0.0, False
    for p in process_tree(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith(field + ":"):
                    total, found = total + int(line.split()[1]) / 1024, True  # the kernel reports kB
        except (OSError, ValueError, IndexError):
            continue
    return total if found else None


def proc_cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system, all threads) the server's process tree has used, from /proc/<pid>/stat."""
    total, found = 0.0, False
    for p in process_tree(pid):
        try:
            # Fields after the ")" that closes the command name; utime and stime are fields 14 and 15.
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total, found = total + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), True
        except (OSError, ValueError, IndexError):
            continue
    return total if found else None


def cpu_pct(before: float | None, after: float | None, wall_s: float) -> float | None:
    # In % of one core: ~100 means a single-threaded server is saturated and requests queue.
    return None if before is None or after is None or wall_s <= 0 else round((after - before) / wall_s * 100, 1)


# ---------------------------------------------------------------- requests

def call(conn: http.client.HTTPConnection, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if data is not None else {}
    conn.request(method, path, body=data, headers=headers)
    resp = conn.getresponse()
    # Read the whole body even on an error status: otherwise the keep-alive connection is unusable.
    return resp.status, resp.read()


def load_queries(results: str, corpus: str) -> list[str]:
    path = ROOT / results / corpus / "questions.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if any("split" in r for r in rows):
        rows = [r for r in rows if r.get("split") == "dev"]  # the test questions stay unseen
    queries = [r["query"] for r in rows]
    if not queries:
        raise SystemExit(f"no questions in {path}")
    return queries


def make_plan(queries: list[str], n: int, answer_share: float, seed: int, reader: str | None,
              retriever: str | None = None) -> list[tuple[str, dict]]:
    """(path, body) of request i, fixed by the seed: the same run sends the same requests."""
    rng = random.Random(seed)
    order = queries[:]
    rng.shuffle(order)
    plan = []
    for i in range(n):
        query = order[i % len(order)]
        named = {"retriever": retriever} if retriever else {}
        if rng.random() < answer_share:
            plan.append(("/answer", {"query": query} | named | ({"reader": reader} if reader else {})))
        else:
            plan.append(("/search", {"query": query, "k": 5} | named))
    return plan


class Load:
    """The shared state of the clients: the next request index, the deadline, the results."""

    def __init__(self, plan: list[tuple[str, dict]], deadline: float):
        self.plan, self.deadline = plan, deadline
        self.lock = threading.Lock()
        self.next_index = 0
        self.done = 0
        self.errors = 0
        self.started = time.perf_counter()
        self.samples: list[tuple[str, float, bool]] = []  # (path, seconds, ok)
        self.error_kinds: dict[str, int] = {}

    def take(self) -> int | None:
        """The next request index, or None once all are taken or the deadline has passed."""
        with self.lock:
            if self.next_index >= len(self.plan) or time.perf_counter() >= self.deadline:
                return None
            self.next_index += 1
            return self.next_index - 1

    def record(self, samples: list[tuple[str, float, bool]], errors: dict[str, int]) -> None:
        with self.lock:
            self.samples.extend(samples)
            for kind, n in errors.items():
                self.error_kinds[kind] = self.error_kinds.get(kind, 0) + n

    def tick(self, ok: bool) -> None:
        with self.lock:
            self.done += 1
            self.errors += not ok
            if self.done % PROGRESS_EVERY == 0:
                elapsed = time.perf_counter() - self.started
                print(f"serve_load: {self.done}/{len(self.plan)} requests, {self.errors} errors, {elapsed:.1f} s, "
                      f"{self.done / elapsed:.0f} req/s", file=sys.stderr, flush=True)


def client(load: Load, port: int) -> None:
    """One client: its own keep-alive connection, a fresh one after any error."""
    conn = http.client.HTTPConnection(HOST, port, timeout=REQUEST_TIMEOUT_S)
    samples, errors = [], {}
    try:
        while (i := load.take()) is not None:
            path, body = load.plan[i]
            t0 = time.perf_counter()
            try:
                status, _ = call(conn, "POST", path, body)
                ok, kind = status == 200, f"HTTP {status}"
            except (OSError, http.client.HTTPException) as exc:
                ok, kind = False, type(exc).__name__
                conn.close()  # the next request opens a new connection (http.client reconnects on demand)
            samples.append((path, time.perf_counter() - t0, ok))
            if not ok:
                errors[kind] = errors.get(kind, 0) + 1
            load.tick(ok)
    finally:
        conn.close()
        load.record(samples, errors)


def warm_up(port: int, plan: list[tuple[str, dict]]) -> dict[str, float]:
    """Serial and uncounted: first calls pay for lazy loads and caches, which is not steady state.

    Returns the median latency per endpoint of its second half, one request at a time: the
    service time without queueing, which the loaded latencies are to be read against.
    A failure here (say, an unknown --reader: 404) would make every counted request an error,
    so it stops the run with the server's answer instead."""
    conn = http.client.HTTPConnection(HOST, port, timeout=REQUEST_TIMEOUT_S)
    times: dict[str, list[float]] = {}
    try:
        for n, (path, body) in enumerate(plan[:WARMUP]):
            t0 = time.perf_counter()
            status, text = call(conn, "POST", path, body)
            if n >= WARMUP // 2:
                times.setdefault(path, []).append((time.perf_counter() - t0) * 1000)
            if status != 200:
                raise ServerFailed(f"warm-up {path} answered HTTP {status}: {text[:500].decode(errors='replace')}")
    except (OSError, http.client.HTTPException) as exc:
        raise ServerFailed(f"warm-up failed: {type(exc).__name__}: {exc}") from None
    finally:
        conn.close()
    return {path: round(float(np.median(ms)), 2) for path, ms in sorted(times.items(), reverse=True)}


def run_load(port: int, plan: list[tuple[str, dict]], clients: int, max_seconds: float) -> tuple[Load, float]:
    load = Load(plan, time.perf_counter() + max_seconds)
    threads = [threading.Thread(target=client, args=(load, port), name=f"client-{n}", daemon=True)
               for n in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return load, time.perf_counter() - t0


# ---------------------------------------------------------------- the report

def summarize(samples: list[tuple[str, float, bool]], wall_s: float) -> list[dict]:
    rows = []
    for name in ("/search", "/answer", "all"):
        mine = [s for s in samples if name == "all" or s[0] == name]
        ok_ms = np.array([s[1] * 1000 for s in mine if s[2]])
        p50, p95, p99 = np.percentile(ok_ms, [50, 95, 99]).tolist() if ok_ms.size else (None, None, None)
        rows.append({"endpoint": name, "requests": len(mine), "errors": sum(not s[2] for s in mine),
                     "req_per_s": round(len(mine) / wall_s, 1) if wall_s > 0 else None,
                     "p50_ms": rnd(p50), "p95_ms": rnd(p95), "p99_ms": rnd(p99)})
    return rows


def rnd(x: float | None, digits: int = 2) -> float | None:
    return None if x is None else round(x, digits)


def targets(rows: list[dict], rss: dict) -> dict:
    by = {r["endpoint"]: r for r in rows}
    p99 = by["/search"]["p99_ms"]
    growth = rss["growth_pct"]
    return {"zero_errors": {"target": 0, "value": by["all"]["errors"], "met": by["all"]["errors"] == 0},
            "p99_search_ms": {"target": TARGET_P99_SEARCH_MS, "value": p99,
                              "met": p99 is not None and p99 <= TARGET_P99_SEARCH_MS},
            "rss_growth_pct": {"target": TARGET_RSS_GROWTH_PCT, "value": growth,
                               "met": growth is not None and growth <= TARGET_RSS_GROWTH_PCT}}


def print_table(report: dict) -> None:
    o = report["options"]
    print(f"minirag serve load: corpus {o['corpus']}, {o['clients']} clients, {report['done']} of {o['requests']} "
          f"requests done" + (f" (stopped at the {o['max_seconds']:.0f} s deadline)" if report["deadline_hit"] else "")
          + f", answer share {o['answer_share']}")
    print(f"{'endpoint':<10}{'requests':>10}{'errors':>8}{'req/s':>9}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}")
    print("-" * 67)
    fmt = lambda x: "-" if x is None else f"{x:.2f}"  # noqa: E731
    for r in report["endpoints"]:
        print(f"{r['endpoint']:<10}{r['requests']:>10}{r['errors']:>8}{r['req_per_s']:>9.1f}"
              f"{fmt(r['p50_ms']):>10}{fmt(r['p95_ms']):>10}{fmt(r['p99_ms']):>10}")
    if report["error_kinds"]:
        print("errors by kind: " + ", ".join(f"{k} x{n}" for k, n in sorted(report["error_kinds"].items())))
    print("unloaded (serial warm-up, one request at a time) p50: "
          + ", ".join(f"{p} {ms:.2f} ms" for p, ms in report["unloaded_p50_ms"].items()))
    cpu = report["cpu_pct_of_one_core"]
    print(f"CPU during the load, % of one core: server {fmt(cpu['server'])}, "
          f"this client process {fmt(cpu['client'])}")
    rss = report["server_rss_mb"]
    print(f"server RSS: {fmt(rss['before'])} MB after warm-up, {fmt(rss['after'])} MB after load, "
          f"growth {fmt(rss['growth_pct'])} %, peak (VmHWM) {fmt(rss['peak'])} MB")
    print(f"wall time: load {report['load_wall_s']:.1f} s, total {report['total_wall_s']:.1f} s "
          f"(server start {report['server_start_s']:.1f} s)")
    print("options: " + ", ".join(f"{k}={v}" for k, v in o.items()))
    print("targets:")
    t = report["targets"]
    print(f"  0 errors                      {t['zero_errors']['value']:>10}  {met(t['zero_errors'])}")
    print(f"  p99 /search <= {TARGET_P99_SEARCH_MS:.0f} ms           {fmt(t['p99_search_ms']['value']):>10}  "
          f"{met(t['p99_search_ms'])}")
    print(f"  RSS growth <= {TARGET_RSS_GROWTH_PCT:.0f} %            {fmt(t['rss_growth_pct']['value']):>10}  "
          f"{met(t['rss_growth_pct'])}")


def met(t: dict) -> str:
    return "met" if t["met"] else "NOT met"


# ---------------------------------------------------------------- main

def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="kb")
    ap.add_argument("--configfile", default="workflow/config.yaml", help="relative to the repository root")
    ap.add_argument("--results", default="results", help="relative to the repository root")
    ap.add_argument("--port", type=int, default=None, help="default: a free port")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--requests", type=int, default=10000)
    ap.add_argument("--answer-share", type=float, default=0.5, help="share of requests that go to /answer")
    ap.add_argument("--reader", default=None, help="a reader for /answer (default: the server's)")
    ap.add_argument("--retriever", default=None, help="a retriever for both routes (default: the server's)")
    ap.add_argument("--workers", type=int, default=1, help="the server's worker processes (minirag serve --workers)")
    ap.add_argument("--max-seconds", type=float, default=600.0, help="no new request starts after this")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.clients < 1 or a.requests < 1 or not 0 <= a.answer_share <= 1 or a.max_seconds <= 0:
        ap.error("--clients and --requests must be >= 1, --answer-share in [0, 1], --max-seconds > 0")
    return a


def served_defaults(port: int) -> dict:
    """The retriever and reader the server uses when a request names none (for the report only)."""
    try:
        status, body = call(http.client.HTTPConnection(HOST, port, timeout=10), "GET", "/retrievers")
    except (OSError, http.client.HTTPException):
        return {}
    if status != 200:
        return {}
    info = json.loads(body)
    readers = [r for r in info.get("readers", []) if r.get("default")] or info.get("readers", [])[:1]
    return {"retriever": info.get("default"), "reader": readers[0]["name"] if readers else None}


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    t_start = time.perf_counter()
    plan = make_plan(load_queries(a.results, a.corpus), a.requests, a.answer_share, a.seed, a.reader, a.retriever)
    server = ServerProcess(ROOT, a.corpus, a.configfile, a.results, a.port,
                           extra=("--log-level", "warning", "--workers", str(a.workers)))
    try:
        try:
            server.start()
            port = server.port
            m = {"server_start_s": round(time.perf_counter() - t_start, 2), "defaults": served_defaults(port)}
            print(f"serve_load: server pid {server.pid} on {HOST}:{port} ready in {m['server_start_s']:.1f} s; "
                  "warming up", file=sys.stderr, flush=True)
            m["unloaded_p50_ms"] = warm_up(port, plan)
        except (RuntimeError, ServerFailed) as exc:
            print(f"serve_load: {exc}\n{server.output() if server.proc else ''}", file=sys.stderr)
            return 1
        m |= measure_load(server, port, plan, a)
        output = server.output()
    finally:
        server.stop()  # whatever happened above, including Ctrl-C
    report = build_report(a, port, m, t_start)
    if a.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    if report["errors"] or not m["server_alive"]:
        print(f"serve_load: {report['errors']} errors (server alive at end: {m['server_alive']}); "
              f"the server's log ends with:\n{output}", file=sys.stderr)
    return 0


def measure_load(server: ServerProcess, port: int, plan: list[tuple[str, dict]], a: argparse.Namespace) -> dict:
    """The load itself, with the server's RSS and both sides' CPU read just before and just after."""
    pid = server.pid
    rss_before = proc_status_mb(pid, "VmRSS")
    cpu0 = {"server": proc_cpu_s(pid), "client": time.process_time()}
    load, wall_s = run_load(port, plan, a.clients, a.max_seconds)
    cpu = {"server": cpu_pct(cpu0["server"], proc_cpu_s(pid), wall_s),
           "client": cpu_pct(cpu0["client"], time.process_time(), wall_s)}
    rss_after, rss_peak = proc_status_mb(pid, "VmRSS"), proc_status_mb(pid, "VmHWM")
    growth = (rss_after / rss_before - 1) * 100 if rss_before and rss_after else None
    return {"load": load, "load_wall_s": wall_s, "cpu_pct_of_one_core": cpu, "server_alive": server.alive(),
            "server_rss_mb": {"before": rnd(rss_before, 1), "after": rnd(rss_after, 1), "growth_pct": rnd(growth),
                              "peak": rnd(rss_peak, 1)}}


def build_report(a: argparse.Namespace, port: int, m: dict, t_start: float) -> dict:
    load: Load = m["load"]
    rows = summarize(load.samples, m["load_wall_s"])
    options = {k: v for k, v in vars(a).items() if k != "json"}
    options |= {"port": port, "retriever": a.retriever or m["defaults"].get("retriever"),
                "reader": a.reader or m["defaults"].get("reader"), "warmup": WARMUP}
    return {"options": options, "done": len(load.samples), "deadline_hit": len(load.samples) < a.requests,
            "errors": rows[-1]["errors"], "endpoints": rows, "error_kinds": load.error_kinds,
            "unloaded_p50_ms": m["unloaded_p50_ms"], "cpu_pct_of_one_core": m["cpu_pct_of_one_core"],
            "server_rss_mb": m["server_rss_mb"], "server_alive_at_end": m["server_alive"],
            "load_wall_s": round(m["load_wall_s"], 2), "server_start_s": m["server_start_s"],
            "total_wall_s": round(time.perf_counter() - t_start, 2), "targets": targets(rows, m["server_rss_mb"])}


if __name__ == "__main__":
    sys.exit(main())
