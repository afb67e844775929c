"""What a dry run prints under `make plan`: the jobs a build would run, by rule, and why.

Snakemake's own dry run lists every job with its inputs, outputs and reason (~600 lines
after a chunk-size change on the KB, each job naming some 30 source files). With
MINIRAG_PLAN=1 set, the Snakefile's terminal handler (minirag/terminal.py) hands a dry
run's records to `PlanTerminal`, which prints one line per rule instead:

    plan: 23 jobs would run
      rule              jobs  why
      chunk                1  settings: target_tokens 150 -> 200
      train_biencoder      1  after chunk
      bm25                 3  after chunk
      retrieve             8  after bm25, embed, train_reranker
      report               1  after evaluate, summary_figure

A reason is one of: not built yet; settings (the keys of the stage's settings that differ
from the ones its receipt recorded, old -> new); changed (an input no job makes: a source
file, a word list, a document); after (the rules of this plan whose outputs it reads); its
input list; forced. What it leaves out: the jobs' files (`snakemake -n` prints them) and
the order Snakemake would run them in.
"""

from __future__ import annotations

import json
import logging
import re
import shlex
from collections import defaultdict
from pathlib import Path

from .settings import flatten

SHOWN = 3  # changed files or settings named on a rule's line before "and N more"


def settings_of(shellcmd: str) -> tuple[dict | None, Path | None]:
    """(the --settings a job's command line passes, the receipt it names) — None for what it lacks."""
    settings, receipt = None, None
    try:
        words = shlex.split(shellcmd or "")
    except ValueError:
        return None, None
    for word in words:
        if word.startswith("--settings="):
            try:
                settings = json.loads(word.split("=", 1)[1])
            except ValueError:
                settings = None
        elif word.startswith("--receipt="):
            receipt = Path(word.split("=", 1)[1])
    return settings, receipt


def settings_changes(shellcmd: str) -> list[str]:
    """['target_tokens 150 -> 200']: the job's settings against those its receipt recorded."""
    new, receipt = settings_of(shellcmd)
    if new is None or receipt is None:
        return []
    try:
        old = json.loads(receipt.read_text(encoding="utf-8")).get("settings")
    except (OSError, ValueError, AttributeError):
        return []
    before, after = flatten(old if isinstance(old, dict) else {}), flatten(new)
    return [f"{key} {json.dumps(before.get(key), ensure_ascii=False)} -> {json.dumps(after.get(key), ensure_ascii=False)}"
            for key in sorted(set(before) | set(after)) if before.get(key) != after.get(key)]


def bare(path: str) -> str:
    """A file as Snakemake prints it without its annotation: 'cache/x.npz (update)' -> 'cache/x.npz'."""
    return re.sub(r" \([^()]*\)$", "", path.strip())


def files_in(reason: str, part: str) -> list[str]:
    """The files Snakemake's reason lists after `part:` (up to the next '; ')."""
    at = reason.find(part + ":")
    if at < 0:
        return []
    text = reason[at + len(part) + 1:].split("; ")[0]
    return [bare(f) for f in text.split(", ") if f.strip()]


class PlanTerminal(logging.Handler):
    """Collects a dry run's job records and prints the plan when Snakemake says it is done."""

    def __init__(self, stream):
        super().__init__()
        self.stream = stream
        self.jobs: list[dict] = []  # in the order Snakemake lists them

    def emit(self, record: logging.LogRecord) -> None:
        event = str(getattr(record, "event", "") or "")
        message = record.getMessage().strip()
        if event == "job_info":
            if record.rule_name == "all":  # the target rule: it runs nothing
                return
            benchmark = getattr(record, "benchmark", None)
            written = [*(getattr(record, "output", None) or []), *(getattr(record, "log", None) or []),
                       *([benchmark] if benchmark else [])]  # the report reads jobs' benchmark files too
            self.jobs.append({"rule": record.rule_name, "reason": str(getattr(record, "reason", "") or ""),
                              "output": [bare(str(p)) for p in written],
                              "shellcmd": str(getattr(record, "shellcmd", "") or "")})
        elif message.startswith("This was a dry-run"):
            self.say_plan()
        elif message.startswith("Nothing to be done"):
            self.stream.write("plan: nothing to do, every output is up to date\n")
        elif record.levelno >= logging.ERROR and message:
            self.stream.write(message + "\n")
        self.stream.flush()

    def say_plan(self) -> None:
        for line in plan_lines(self.jobs):
            self.stream.write(line + "\n")


def producers(jobs: list[dict]) -> dict[str, str]:
    """{output path: the rule of the planned job that writes it}."""
    return {str(path): job["rule"] for job in jobs for path in job["output"]}


def rule_reasons(jobs: list[dict], made_by: dict[str, str]) -> str:
    """Why a rule's jobs would run, in a few words each (the module docstring lists them), over all
    its jobs at once. A job not built yet needs no other reason."""
    flags, settings, changed, upstream = [], [], [], set()
    for job in jobs:
        reason = job["reason"]
        for part, said in (("Forced execution", "forced"), ("Missing output files", "not built yet"),
                           ("Incomplete output files", "not built yet"),
                           ("Set of input files has changed", "its input list changed"),
                           ("Code has changed", "its rule changed"),
                           ("Software environment", "its environment changed")):
            if part in reason and said not in flags:
                flags.append(said)
        if "Missing output files" in reason or "Incomplete output files" in reason:
            continue
        if "Params have changed" in reason:
            settings += [c for c in settings_changes(job["shellcmd"]) or ["its command line"] if c not in settings]
        for part in ("Updated input files", "Input files updated by another job"):
            for f in files_in(reason, part):
                if f in made_by:
                    upstream.add(made_by[f])
                elif f not in changed:
                    changed.append(f)
    said = flags + (["settings: " + short(settings)] if settings else []) + (["changed: " + short(changed)] if changed else [])
    upstream.discard(jobs[0]["rule"])
    if upstream and "not built yet" not in flags:
        said.append("after " + short(sorted(upstream)))
    return "; ".join(said) or (jobs[0]["reason"][:60] or "?")


def short(items: list[str]) -> str:
    more = len(items) - SHOWN
    return ", ".join(items[:SHOWN]) + (f" and {more} more" if more > 0 else "")


def plan_lines(jobs: list[dict]) -> list[str]:
    """The plan: a header, then one line per rule (first planned first) with its job count and reasons."""
    made_by = producers(jobs)
    by_rule: dict[str, list[dict]] = defaultdict(list)
    for job in jobs:
        by_rule[job["rule"]].append(job)
    width = max([len(r) for r in by_rule] + [4])
    lines = [f"plan: {len(jobs)} job{'' if len(jobs) == 1 else 's'} would run", f"  {'rule':<{width}}  jobs  why"]
    for rule, its_jobs in by_rule.items():
        lines.append(f"  {rule:<{width}}  {len(its_jobs):>4}  {rule_reasons(its_jobs, made_by)}")
    lines.append("every job with its files and reasons: make plan VERBOSE=1, or snakemake -n")
    return lines
