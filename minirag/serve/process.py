"""`minirag serve` as a child process on a free loopback port: for tests, benchmarks and scripts;
and `bind`, how the server takes its port before it loads anything.

    with ServerProcess(cwd=repo, corpus="kb") as server:
        urllib.request.urlopen(server.url + "/healthz")

It starts `python -m minirag serve`, waits until /healthz answers (or the process exits, whose
stderr then becomes the error), and stops it with SIGTERM, then SIGKILL, on the way out.

What it leaves out: the server itself (app.py) and any client beyond the health check.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def die_with_parent() -> None:
    """In the child: ask Linux to SIGTERM it when its parent dies, so a killed test or benchmark
    (whose cleanup never runs) leaves no server behind (PR_SET_PDEATHSIG; ignored elsewhere)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def bind(host: str, port: int) -> socket.socket:
    """A listening-ready socket bound to (host, port), as uvicorn binds one; a port in use or an
    address this machine does not have is a UsageError naming it."""
    from ..query.built_corpus import UsageError
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        reason = "is in use (another server?)" if exc.errno == errno.EADDRINUSE else f"cannot be bound ({exc.strerror})"
        raise UsageError("--port", f"{host}:{port} {reason}; choose another --port or --host") from None
    return sock


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    def __init__(self, cwd: str | Path, corpus: str = "kb", configfile: str = "workflow/config.yaml",
                 results: str = "results", port: int | None = None, timeout_s: float = 120.0,
                 extra: tuple[str, ...] = ("--log-level", "warning")):
        self.cwd, self.port, self.timeout_s = Path(cwd), port or free_port(), timeout_s
        self.cmd = [sys.executable, "-m", "minirag", "serve", "--corpus", corpus, "--configfile", configfile,
                    "--results", results, "--port", str(self.port), *extra]
        self.proc: subprocess.Popen | None = None
        self._log = tempfile.TemporaryFile()  # the server's stderr, shown when it fails

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def health(self) -> dict:
        with urllib.request.urlopen(self.url + "/healthz", timeout=5) as r:
            return json.loads(r.read())

    def start(self) -> "ServerProcess":
        env = {**os.environ, "PYTHONPATH": str(self.cwd)}
        self.proc = subprocess.Popen(self.cmd, cwd=self.cwd, env=env, stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT,
                                     preexec_fn=die_with_parent if sys.platform == "linux" else None)
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{' '.join(self.cmd[1:])} exited with {self.proc.returncode}:\n{self.output()}")
            try:
                self.health()
                return self
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"{self.url}/healthz did not answer within {self.timeout_s:g} s:\n{self.output()}")

    def output(self) -> str:
        self._log.flush()
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")[-4000:]

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # uvicorn shuts down cleanly on SIGTERM
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()

    def __enter__(self) -> "ServerProcess":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
