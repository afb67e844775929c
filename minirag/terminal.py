"""What a build prints on the terminal: one line per finished job, a failed job's own error.

Snakemake's own output lists every job's inputs, outputs and reason (~1,300 lines for the
KB, the report's input list alone ~400 paths) and says of a failed job only "check log
file(s)". The Snakefile calls `quiet_terminal(workflow)` first thing; while jobs run,
Snakemake's terminal handler is replaced by `QuietTerminal`:

     3/48 train_tokenizer                     2 s
    41/48 train_reader minigpt               98 s
    failed: questions (results/kb/logs/questions.log):
        error: kb/eval/questions.jsonl:5: k-05: gold: evidence not found verbatim ...

plus, on a terminal (not a pipe), one live line under them: the newest line of the running
job's log, which for a training is its step, loss and time left. A build that wrote a report ends by
saying where it is (`the report: results/report.md`), after Snakemake's line naming its log. A dry run, `--lint`,
`--list` and the like print as Snakemake prints them; so does everything with `--verbose`
or `MINIRAG_VERBOSE=1` set (`make report VERBOSE=1`). Snakemake's full log stays in
.snakemake/log/ either way.

What it leaves out: colour, and any job grouping or cluster detail (a job is its rule and name).
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from pathlib import Path

TAIL = 5  # lines of a failed job's log shown
DROPPED = ("Assuming unrestricted shared filesystem", "Config file ", "Building DAG", "Using shell",
           "Select jobs to execute", "Shutting down", "Elapsed time", "Execute ", "Removing output files",
           "Trying to restart", "Will exit after finishing", "RuleException", "Finished jobid", "Reasons:",
           "Waiting at most", "Conda environments")
# Snakemake's lock message is twelve lines ending in "--unlock"; what to run is one
LOCKED = ("error: the results are locked: a build is running in this folder, or one was killed (kill -9, a power "
          "loss) and left its lock; if none is running, run: make unlock, then build again (or snakemake --unlock, "
          "then snakemake --rerun-incomplete, with the same --configfile)")
QUIETED = {"workflow_started", "resources_info", "job_started", "shellcmd", "group_info", "rulegraph"}


def quiet_terminal(workflow) -> None:
    """Put `QuietTerminal` in place of Snakemake's terminal handler, unless asked for the full output."""
    from snakemake.logging import logger
    if not workflow.is_main_process or workflow.output_settings.verbose or os.environ.get("MINIRAG_VERBOSE"):
        return
    default = [h for h in logger.handlers if h.name == "DefaultStreamHandler"]
    if not default:  # a logger plugin writes the terminal: leave it alone
        return
    logger.removeHandler(default[0])
    logger.addHandler(QuietTerminal(workflow, default[0]))


def job_label(record) -> str:
    """'kb: train_reader minigpt': the corpus, the rule and its other wildcards."""
    wildcards = dict(getattr(record, "wildcards", None) or {})
    corpus = wildcards.pop("corpus", None)
    label = " ".join([record.rule_name, *map(str, wildcards.values())])
    return f"{corpus}: {label}" if corpus else label


def log_tail(paths, n: int = TAIL) -> list[str]:
    lines = []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        lines += [f"    {ln}" for ln in [ln for ln in text.splitlines() if ln.strip()][-n:]]
    return lines


def with_eta(line: str, elapsed: float) -> str:
    """`line`, plus ', ~N s left' from its first 'done/total' count when it says no time left itself."""
    count = re.search(r"\b(\d+)/(\d+)\b", line)
    if count is None or "left" in line or not 0 < int(count.group(1)) < int(count.group(2)):
        return line
    done, total = int(count.group(1)), int(count.group(2))
    return f"{line}, ~{elapsed * (total - done) / done:.0f} s left"


class QuietTerminal(logging.Handler):
    """The terminal handler of a build (the module docstring shows its output)."""

    def __init__(self, workflow, fallback: logging.Handler):
        super().__init__()
        self.workflow, self.fallback, self.stream = workflow, fallback, fallback.stream
        self.jobs: dict[int, tuple[str, list[str], float]] = {}  # running: jobid -> (label, logs, start)
        self.finished: list[tuple[str, float]] = []
        self.reports: list[str] = []  # the markdown reports the build's report jobs write
        self.failed = False
        self.live = ""
        self.lock = threading.RLock()
        self.tty = self.stream.isatty() if hasattr(self.stream, "isatty") else False
        self.ticker: threading.Thread | None = None
        self.plan = None
        if os.environ.get("MINIRAG_PLAN"):  # `make plan`: a dry run as one line per rule (minirag/plan.py)
            from minirag.plan import PlanTerminal
            self.plan = PlanTerminal(self.stream)

    def quiet(self) -> bool:
        """Quiet while a real build runs; a dry run or a command that runs no job prints as Snakemake does."""
        return self.workflow.executor_plugin is not None and not self.workflow.dryrun

    def emit(self, record: logging.LogRecord) -> None:
        event = str(getattr(record, "event", "") or "")
        message = record.getMessage().strip()
        if not self.quiet():
            if self.plan is not None and self.workflow.dryrun:
                self.plan.emit(record)
                return
            if event != "workflow_started" and not message.startswith(DROPPED[:2]):
                self.fallback.handle(record)
            return
        with self.lock:
            if event == "job_info":
                self.jobs[record.jobid] = (job_label(record), list(record.log or []), time.monotonic())
                if getattr(record, "rule_name", "") == "report":
                    paths = [str(f).split(" (")[0] for f in getattr(record, "output", None) or []]  # "x.md (update)"
                    self.reports += [f for f in paths if f.endswith(".md")]
                self.start_ticker()
            elif event == "job_finished":
                label, _, start = self.jobs.pop(record.job_id, (str(record.job_id), [], time.monotonic()))
                self.finished.append((label, time.monotonic() - start))
                self.live = self.newest_log_line() if self.jobs else ""
            elif event == "progress":
                for label, took in self.finished:
                    self.say(f"{record.done:>4}/{record.total} {label:<44} {took:>5.0f} s")
                self.finished = []
            elif event == "job_error":
                self.failed = True
                label, _, _ = self.jobs.pop(record.jobid, (record.rule_name, [], 0.0))
                logs = list(record.log or [])
                self.live = ""
                self.say(f"failed: {label}" + (f" ({', '.join(logs)}):" if logs else ""))
                for line in log_tail(logs):
                    self.say(line)
            elif event == "run_info" and message.startswith("Job stats"):
                total = message.split()[-1]
                self.say(f"{total} jobs to run (the full output: make ... VERBOSE=1, or snakemake --verbose)")
            elif event in QUIETED or event == "run_info" or message.startswith(DROPPED):
                return
            elif "Directory cannot be locked" in message:
                self.say(LOCKED)
            elif message.startswith("Complete log") and self.reports and not self.failed:
                self.say(message)
                for path in dict.fromkeys(self.reports):
                    self.say(f"the report: {path}")
            elif record.levelno >= logging.INFO and message:
                self.say(message)

    def say(self, line: str) -> None:
        """A line above the live one (which is cleared, then redrawn while a job runs)."""
        with self.lock:
            clear = "\r\x1b[K" if self.tty else ""
            self.stream.write(f"{clear}{line}\n{self.live if self.tty and self.jobs else ''}")
            self.stream.flush()

    def start_ticker(self) -> None:
        if self.tty and self.ticker is None:
            self.ticker = threading.Thread(target=self.tick, daemon=True)
            self.ticker.start()

    def tick(self) -> None:
        while True:
            time.sleep(0.5)
            with self.lock:
                line = self.newest_log_line() if self.jobs else ""
                if line != self.live:
                    self.live = line
                    self.stream.write(f"\r\x1b[K{line}")
                    self.stream.flush()

    def newest_log_line(self) -> str:
        """The last line of the running job's log written most recently, as 'label: line', cut to the width;
        a line that counts steps ('step 300/800', 'epoch 3/8') and names no time left gets an estimate."""
        newest, when = "", -1.0
        for label, logs, start in self.jobs.values():
            for path in logs:
                try:
                    mtime = os.stat(path).st_mtime
                except OSError:
                    continue
                if mtime > when:
                    tail = log_tail([path], 1)
                    if tail:
                        newest, when = f"{label}: {with_eta(tail[0].strip(), time.monotonic() - start)}", mtime
        width = max(20, os.get_terminal_size(self.stream.fileno()).columns - 1) if self.tty else 100
        return newest[:width]
