"""How a stage module becomes a command: its function's signature is its command line.

    def chunk(settings: dict, docs: Path, out: Path, tokenizer: Path | None = None) -> None: ...
    if __name__ == "__main__":
        run_stage(chunk)

gives `python -m minirag.stages.chunk --settings JSON --docs PATH --out PATH [--tokenizer PATH]`:
`settings` is parsed from JSON, `list[Path]` takes any number of paths, a parameter with a
default is optional. A known failure (bad input, misaligned artifacts) is one line on
stderr and exit 1, never a traceback; `--debug` shows the traceback.

What it leaves out: what any stage does (its own module) and deciding what runs (Snakemake).
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import time
import typing
from pathlib import Path
from typing import Callable

KNOWN_FAILURES = (ValueError, RuntimeError, FileNotFoundError, KeyError)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def parser_for(fn: Callable) -> argparse.ArgumentParser:
    hints = typing.get_type_hints(fn)
    p = argparse.ArgumentParser(prog=f"python -m minirag.stages.{fn.__name__}",
                                description=(fn.__doc__ or "").strip().split("\n")[0])
    for name, param in inspect.signature(fn).parameters.items():
        flag = "--" + name.replace("_", "-")
        hint = hints.get(name, str)
        required = param.default is inspect.Parameter.empty
        if name == "settings":
            p.add_argument(flag, type=json.loads, required=required, default=param.default,
                           help="the stage's config values as JSON (the rule's params)")
        elif typing.get_origin(hint) is list:
            p.add_argument(flag, nargs="*", type=Path, default=[] if param.default is inspect.Parameter.empty
                           else param.default)
        else:
            kind = Path if Path in (hint, *typing.get_args(hint)) else str
            p.add_argument(flag, type=kind, required=required, default=None if required else param.default)
    p.add_argument("--debug", action="store_true", help="show the traceback of a failure")
    return p


def run_stage(fn: Callable, argv: list[str] | None = None) -> None:
    """Parse the command line into `fn`'s arguments, run it, exit 0, or 1 with one line on stderr."""
    args = vars(parser_for(fn).parse_args(argv))
    debug = args.pop("debug")
    t0 = time.perf_counter()
    try:
        fn(**args)
    except KNOWN_FAILURES as exc:
        if debug:
            raise
        log(f"error: {exc.args[0] if isinstance(exc, KeyError) and exc.args else exc}")
        sys.exit(1)
    log(f"{fn.__name__}: done in {time.perf_counter() - t0:.2f}s")
