"""HTTP cases about the files the server reads while it answers (the http group's, kept apart for size):
a manifest that is a FIFO or a device, and a raised query cap with a long query, whose memory is measured.
A case holds when every other client is answered meanwhile and the server's memory stays bounded."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

from fault_harness import Edit


def manifest_special(make, server, request):
    """results/mini.manifest.json replaced by `make(path)` while the server runs: /healthz answers (the
    manifest refused, named), and /retrievers is answered while /healthz is in flight."""
    def check(project: Path) -> tuple[bool, str]:
        server(project)  # started before the damage
        path = project / "results" / "mini.manifest.json"
        health: list = []
        with Edit(path):
            path.unlink()
            make(path)
            t = threading.Thread(target=lambda: health.append(request(project, "GET", "/healthz", timeout=30)))
            t.start()
            time.sleep(0.5)
            t0 = time.monotonic()
            other = request(project, "GET", "/retrievers", timeout=10)
            waited = time.monotonic() - t0
            t.join(40)
        status, body = health[0] if health else (0, {})
        manifest = body.get("manifest", {}) if isinstance(body, dict) else {}
        ok = (other[0] == 200 and status == 200 and manifest.get("matches") is False
              and "not a regular file" in manifest.get("error", ""))
        return ok, f"/retrievers {other[0]} after {waited:.1f} s; /healthz {status}: {manifest.get('error', '')[:80]}"
    return check


def long_query_memory(server, request, chars: int = 10_000, limit_mb: float = 150):
    """A server started with a raised --max-query-chars: a 10 KB /answer grows the server's peak RSS by
    less than `limit_mb` (its VmHWM, measured before and after)."""
    def check(project: Path) -> tuple[bool, str]:
        from minirag.serve.process import ServerProcess
        s = ServerProcess(project, "mini", "mini.yaml", "results",
                          extra=("--log-level", "warning", "--max-query-chars", str(chars * 2))).start()
        try:
            before = hwm_mb(s.pid)
            import http.client
            conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=120)
            conn.request("POST", "/answer", json.dumps({"query": "eat " * (chars // 4)}).encode(),
                         {"Content-Type": "application/json"})
            status = conn.getresponse().status
            conn.close()
            grew = hwm_mb(s.pid) - before
        finally:
            s.stop()
        return status == 200 and grew < limit_mb, f"HTTP {status}; peak RSS grew {grew:.0f} MB (limit {limit_mb:g})"
    return check


def hwm_mb(pid: int) -> float:
    """The process's peak resident memory (VmHWM) in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("inf")


def cases(server, request) -> list[tuple]:
    return [
        ("the manifest a FIFO: /healthz off the event loop", manifest_special(os.mkfifo, server, request)),
        ("the manifest a symlink to /dev/zero", manifest_special(lambda p: os.symlink("/dev/zero", p), server,
                                                                 request)),
        ("a 10 KB /answer under a raised cap: memory bounded", long_query_memory(server, request)),
    ]
