"""How a stage module becomes a command: its function's signature is its command line.

    def chunk(settings: dict, docs: Path, out: Path, tokenizer: Path | None = None) -> list[Path]: ...
    if __name__ == "__main__":
        run_stage(chunk)

gives `python -m minirag.stages.chunk --settings JSON --docs PATH --out PATH [--tokenizer PATH]
[--receipt PATH]`: `settings` is parsed from JSON, `list[Path]` takes any number of paths, a
parameter with a default is optional. The function returns the files it wrote; with
`--receipt`, their content is checked (content.py), then their sha256 and those of every
path argument it read go into the job's receipt (integrity.py), written last.

A known failure (bad input, a damaged artifact, a full disk) is one line on stderr and
exit 1, never a traceback; `--debug` shows the traceback. A stage whose Snakemake dies
stops within a second (the watcher below) instead of running on as an orphan; its
atomic writes leave nothing half-written behind.

What it leaves out: what any stage does (its own module) and deciding what runs (Snakemake).
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Callable

from ..artifacts.content import check_outputs
from ..artifacts.integrity import write_receipt
from ..pipeline.stage import path_params

KNOWN_FAILURES = (ValueError, RuntimeError, OSError, KeyError)


class Written(list):
    """The files a stage wrote, and what it fitted on the way (a fusion's weights) for its receipt."""

    def __init__(self, paths, fitted: dict | None = None):
        super().__init__(paths)
        self.fitted = fitted


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def parser_for(fn: Callable) -> argparse.ArgumentParser:
    paths = path_params(fn)
    p = argparse.ArgumentParser(prog=f"python -m minirag.stages.{fn.__name__}",
                                description=(fn.__doc__ or "").strip().split("\n")[0])
    for name, param in inspect.signature(fn).parameters.items():
        flag = "--" + name.replace("_", "-")
        required = param.default is inspect.Parameter.empty
        default = None if required else param.default
        if name == "settings":
            p.add_argument(flag, type=json.loads, required=required, default=default,
                           help="the stage's config values as JSON (the rule's params)")
        elif paths.get(name) == "map":
            p.add_argument(flag, nargs="*", action=KeyedPaths, default={}, metavar="KEY PATH",
                           help="files by the keys their kind looks them up by")
        elif paths.get(name) == "list":
            p.add_argument(flag, nargs="*", type=Path, default=[] if required else list(param.default))
        else:
            p.add_argument(flag, type=Path if name in paths else str, required=required, default=default)
    p.add_argument("--receipt", type=Path, help="write the job's receipt here (what it read and wrote)")
    p.add_argument("--debug", action="store_true", help="show the traceback of a failure")
    return p


class KeyedPaths(argparse.Action):
    """`--files KEY PATH KEY PATH ...` -> {KEY: Path(PATH)}."""

    def __call__(self, parser, namespace, values, option_string=None):
        if len(values) % 2:
            parser.error(f"{option_string}: KEY PATH pairs, got {len(values)} values")
        setattr(namespace, self.dest, {k: Path(v) for k, v in zip(values[::2], values[1::2])})


def parent_of(pid: int) -> int | None:
    """The parent of a process, from /proc (Linux); None where that cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def stop_with_parents(every: float = 1.0) -> None:
    """Terminate this process soon after its parent or grandparent is gone (a daemon thread).

    Snakemake runs a stage through a shell: the parent is that shell, the grandparent the
    Snakemake process (the parent itself when the shell execs the command). When Snakemake
    is killed, the shell lives on, so watching the parent alone would not stop the stage.
    """
    parent = os.getppid()
    grandparent = parent_of(parent)

    def gone(pid: int | None) -> bool:
        if pid is None or pid <= 1:
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:  # alive, another user's
            return False
        return False

    def watch():
        while True:
            time.sleep(every)
            if os.getppid() != parent or gone(grandparent):
                os.kill(os.getpid(), signal.SIGTERM)
                return
    threading.Thread(target=watch, daemon=True).start()


def on_terminate(signum, frame):
    # an exception, not an abrupt exit: `finally` blocks remove temporary files
    raise SystemExit(128 + signum)


def given_paths(value, shape: str) -> list:
    if shape == "map":
        return list((value or {}).values())
    return list(value) if shape == "list" else [value]


def run_stage(fn: Callable, argv: list[str] | None = None) -> None:
    """Parse the command line into `fn`'s arguments, run it, write its receipt; exit 0, or 1 with one line."""
    args = vars(parser_for(fn).parse_args(argv))
    debug, receipt = args.pop("debug"), args.pop("receipt")
    signal.signal(signal.SIGTERM, on_terminate)
    signal.signal(signal.SIGINT, on_terminate)  # Ctrl-C: the same clean exit, no traceback in the log
    stop_with_parents()
    t0 = time.perf_counter()
    try:
        written = fn(**args)
        if receipt:
            check_outputs(written)  # what the receipt will vouch for must be sound, not only unchanged
            stage, _, name = receipt.stem.partition(".")
            inputs = [p for n, shape in path_params(fn).items() if not n.startswith("out")
                      for p in given_paths(args[n], shape) if p is not None]
            write_receipt(receipt, stage, name or None, args.get("settings"), inputs, list(written),
                          getattr(written, "fitted", None))
    except KNOWN_FAILURES as exc:
        if debug:
            raise
        log(f"error: {exc.args[0] if isinstance(exc, KeyError) and exc.args else exc}")
        sys.exit(1)
    log(f"{fn.__name__}: done in {time.perf_counter() - t0:.2f}s")
