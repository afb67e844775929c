"""The build's terminal handler alone, on records shaped as Snakemake's (the workflow tests run it for real)."""

import io
import logging
from types import SimpleNamespace

from minirag.terminal import QuietTerminal, with_eta


def record(msg: str, level: int = logging.INFO, **extra) -> logging.LogRecord:
    rec = logging.LogRecord("snakemake", level, __file__, 0, msg, None, None)
    rec.__dict__.update(extra)
    return rec


def terminal(dryrun: bool = False) -> tuple[QuietTerminal, io.StringIO]:
    out = io.StringIO()
    workflow = SimpleNamespace(executor_plugin=object(), dryrun=dryrun)
    return QuietTerminal(workflow, logging.StreamHandler(out)), out


def test_a_finished_job_is_one_line_and_a_failed_one_shows_its_log_tail(tmp_path):
    log = tmp_path / "questions.log"
    log.write_text("questions: reading\nerror: questions.jsonl:5: k-05: gold: evidence not found verbatim\n")
    term, out = terminal()
    term.handle(record("Job stats:\njob count\ntotal 2", event="run_info"))
    term.handle(record(" Rule: curate", event="job_info", jobid=1, rule_name="curate", log=[],
                       wildcards={"corpus": "kb"}, input=["x"] * 400))
    term.handle(record("Finished jobid: 1", event="job_finished", job_id=1))
    term.handle(record("", event="progress", done=1, total=2))
    term.handle(record(" Rule: questions", event="job_info", jobid=2, rule_name="questions", log=[str(log)],
                       wildcards={"corpus": "kb"}))
    term.handle(record("Error in rule questions", logging.ERROR, event="job_error", jobid=2, rule_name="questions",
                       log=[str(log)]))
    term.handle(record("RuleException:\nCalledProcessError in file Snakefile", logging.ERROR, event="error"))
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("2 jobs to run")
    assert lines[1].split() == ["1/2", "kb:", "curate", "0", "s"]
    assert lines[2] == f"failed: kb: questions ({log}):"
    assert lines[3:] == ["    questions: reading", "    error: questions.jsonl:5: k-05: gold: evidence not found verbatim"]


def test_a_dry_run_prints_as_snakemake_does():
    term, out = terminal(dryrun=True)
    term.handle(record("Job stats:\njob count\ntotal 2", event="run_info"))
    assert out.getvalue() == "Job stats:\njob count\ntotal 2\n"


def test_a_count_of_steps_gets_the_time_left():
    assert with_eta("epoch 2/8: mean step loss 1.0774 (60.3s)", 60) == "epoch 2/8: mean step loss 1.0774 (60.3s), ~180 s left"
    assert with_eta("step 50/800 loss 0.330 (102 s, ~1526 s left)", 9) == "step 50/800 loss 0.330 (102 s, ~1526 s left)"
    assert with_eta("curate: 61 documents", 3) == "curate: 61 documents"


def test_a_stale_lock_is_one_line_saying_what_to_run():
    from snakemake.exceptions import LockException
    term, out = terminal()
    term.handle(record(f"LockException:\n{LockException()}", logging.ERROR))
    assert out.getvalue().splitlines() == [out.getvalue().strip()]
    assert out.getvalue().startswith("error: the results are locked") and "make unlock" in out.getvalue()
