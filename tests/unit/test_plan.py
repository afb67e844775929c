"""`make plan`: a dry run's job records as one line per rule with its reasons (minirag/plan.py)."""

import io
import json
import logging
import shlex

from minirag.plan import PlanTerminal, plan_lines, settings_changes


def job(rule, reason, output=(), shellcmd=""):
    return {"rule": rule, "reason": reason, "output": list(output), "shellcmd": shellcmd}


def command(settings, receipt):
    return shlex.join(["python", "-m", "minirag.stages.x", f"--settings={json.dumps(settings)}",
                       "--docs=results/kb/docs.jsonl", f"--receipt={receipt}"])


def test_a_changed_setting_is_named_with_its_old_and_new_value_read_from_the_receipt(tmp_path):
    receipt = tmp_path / "chunk.json"
    receipt.write_text(json.dumps({"stage": "chunk", "settings": {"overlap": 20, "target_tokens": 150}}))
    cmd = command({"overlap": 20, "target_tokens": 200}, receipt)
    assert settings_changes(cmd) == ["target_tokens 150 -> 200"]
    nested = command({"analyzer": {"stemmer": "english"}, "k1": 1.5}, receipt)
    receipt.write_text(json.dumps({"settings": {"analyzer": {"stemmer": "spanish"}, "k1": 1.5}}))
    assert settings_changes(nested) == ['analyzer.stemmer "spanish" -> "english"']
    assert settings_changes(command({"k1": 1.2}, tmp_path / "missing.json")) == []
    receipt.write_text(json.dumps({"settings": {"abstain": "I don't know — not in the rules I have."}}))
    said = command({"abstain": "No lo sé."}, receipt)  # as written, not as JSON escapes
    assert settings_changes(said) == ['abstain "I don\'t know — not in the rules I have." -> "No lo sé."']


def test_one_line_per_rule_with_its_job_count_and_why(tmp_path):
    receipt = tmp_path / "chunk.json"
    receipt.write_text(json.dumps({"settings": {"target_tokens": 150}}))
    jobs = [
        job("chunk", "Params have changed since last execution: {'argv'}", ["results/kb/chunks.jsonl"],
            command({"target_tokens": 200}, receipt)),
        job("bm25", "Input files updated by another job: results/kb/chunks.jsonl", ["results/kb/bm25/plain/index.npz"]),
        job("bm25", "Input files updated by another job: results/kb/chunks.jsonl", ["results/kb/bm25/x/index.npz"]),
        job("retrieve", "Updated input files: minirag/rank/fusion.py; Input files updated by another job: "
            "results/kb/bm25/plain/index.npz, results/kb/chunks.jsonl", ["results/kb/runs/bm25.trec"]),
        job("report", "Missing output files: results/report.md; Input files updated by another job: "
            "results/kb/runs/bm25.trec"),
    ]
    lines = plan_lines(jobs)
    assert lines[0] == "plan: 5 jobs would run"
    rows = {line.split()[0]: line for line in lines[2:-1]}
    assert list(rows) == ["chunk", "bm25", "retrieve", "report"]  # first planned first
    assert rows["chunk"].split()[1] == "1" and rows["chunk"].endswith("settings: target_tokens 150 -> 200")
    assert rows["bm25"].split()[1] == "2" and rows["bm25"].endswith("after chunk")
    assert rows["retrieve"].endswith("changed: minirag/rank/fusion.py; after bm25, chunk")
    assert rows["report"].endswith("not built yet")  # a missing output needs no other reason


def test_the_handler_prints_the_plan_when_snakemake_ends_its_dry_run_and_nothing_else():
    out = io.StringIO()
    handler = PlanTerminal(out)

    def record(msg, **extra):
        r = logging.LogRecord("snakemake", logging.INFO, "", 0, msg, None, None)
        r.__dict__.update(extra)
        handler.handle(r)

    record("Building DAG of jobs...")
    record(" Rule: curate, Jobid: 1", event="job_info", rule_name="curate", reason="Missing output files: d",
           output=["results/kb/docs.jsonl"], shellcmd="")
    record("Job stats:\njob count\ncurate 1", event="run_info")
    assert out.getvalue() == ""
    record("This was a dry-run (flag -n). The order of jobs does not reflect the order of execution.")
    printed = out.getvalue().splitlines()
    assert printed[0] == "plan: 1 job would run" and printed[2].split() == ["curate", "1", "not", "built", "yet"]
    handler.handle(logging.LogRecord("snakemake", logging.INFO, "", 0,
                                     "Nothing to be done (all requested files are present and up to date).", None, None))
    assert out.getvalue().splitlines()[-1] == "plan: nothing to do, every output is up to date"
