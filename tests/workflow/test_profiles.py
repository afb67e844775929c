"""The Snakemake profiles in workflow/profiles: `local` plans what a plain run plans, `budget` the same
jobs with a memory reservation each (300 MB + twice what the job reads, at most the budget), `slurm` names the
SLURM executor and sizes every rule of the workflow (threads, mem_mb, runtime), and Snakemake
applies those sizes job by job. No cluster is needed: bench/slurm_cluster.py is the proof on a
real one (bench/README.md)."""

import re

import pytest
import yaml
from support.project import REPO, snakemake

PROFILES = REPO / "workflow" / "profiles"


def profile(name: str) -> dict:
    data = yaml.safe_load((PROFILES / name / "config.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{name} profile is not a mapping"
    return data


def workflow_rules() -> set[str]:
    """Every rule of the workflow: one per stage spec, and those written out in workflow/rules/*.smk
    (the Snakefile's own `all` only collects targets)."""
    from minirag.pipeline.stages import BY_RULE
    return set(BY_RULE) | {name for path in (REPO / "workflow" / "rules").glob("*.smk")
                           for name in re.findall(r"^rule (\w+):", path.read_text(encoding="utf-8"), flags=re.M)}


def planned_jobs(output: str) -> dict[str, dict]:
    """A dry run's jobs by their first output: rule, threads and resources as Snakemake prints them."""
    jobs = {}
    for block in re.split(r"\n(?=(?:local)?rule \w+:\n)", output):
        head = re.match(r"(?:local)?rule (\w+):\n", block)
        if not head:
            continue
        fields = dict(re.findall(r"^    (\w+): (.*)$", block, flags=re.M))
        resources = dict(kv.split("=", 1) for kv in fields.get("resources", "").split(", ") if "=" in kv)
        key = fields.get("output", fields.get("input", ""))
        jobs[key] = {"rule": head.group(1), "threads": int(fields.get("threads", 1)), "resources": resources}
    return jobs


def test_both_profiles_parse_and_name_their_executor():
    assert profile("local")["executor"] == "local"
    budget = profile("budget")
    assert budget["executor"] == "local" and budget["resources"]["mem_mb"] <= 8 * 1024
    assert "input.size_mb" in budget["default-resources"]["mem_mb"]
    slurm = profile("slurm")
    assert slurm["executor"] == "slurm"
    assert isinstance(slurm["jobs"], int) and slurm["jobs"] >= 1
    assert {"mem_mb", "runtime"} <= set(slurm["default-resources"])


def test_the_committed_slurm_profile_is_the_one_the_stage_specs_generate():
    from minirag.pipeline.slurm_profile import render
    committed = (PROFILES / "slurm" / "config.yaml").read_text(encoding="utf-8")
    assert committed == render(), "regenerate it: python -m minirag.pipeline.slurm_profile > workflow/profiles/slurm/config.yaml"


def test_a_stage_sized_in_its_spec_is_sized_in_the_generated_profile(monkeypatch):
    from dataclasses import replace

    from minirag.pipeline import slurm_profile
    from minirag.pipeline.stage import Size
    specs = [replace(s, size=Size(4096, 90)) if s.rule == "retrieve" else s for s in slurm_profile.STAGES]
    monkeypatch.setattr(slurm_profile, "STAGES", specs)
    generated = yaml.safe_load(slurm_profile.render())
    assert generated["set-resources"]["retrieve"] == {"mem_mb": 4096, "runtime": 90}
    assert generated["set-threads"]["retrieve"] == 1 and generated["set-resources"]["bm25"] == {"mem_mb": 1024, "runtime": 10}


def test_slurm_profile_sizes_every_rule_of_the_workflow():
    rules = workflow_rules()
    assert {"curate", "chunk", "embed", "bm25", "retrieve", "generate", "evaluate", "report"} <= rules
    slurm = profile("slurm")
    threads, resources = slurm["set-threads"], slurm["set-resources"]
    assert sorted(rules - set(threads)) == [], "rules without set-threads in the slurm profile"
    assert sorted(rules - set(resources)) == [], "rules without set-resources in the slurm profile"
    for rule in rules:
        req = resources[rule]
        assert set(req) >= {"mem_mb", "runtime"}, rule
        assert isinstance(req["mem_mb"], int) and 512 <= req["mem_mb"] <= 64 * 1024, (rule, req)
        assert isinstance(req["runtime"], int) and 1 <= req["runtime"] <= 7 * 24 * 60, (rule, req)  # minutes


def test_slurm_profile_gives_each_rule_one_thread():
    # Snakemake exports OPENBLAS_NUM_THREADS={threads} to a job, and the bi-encoder's weights are
    # byte-identical only for one BLAS thread (minirag/stages/__init__.py): a cluster build must
    # produce what a local one does.
    threads = profile("slurm")["set-threads"]
    assert threads and set(threads.values()) == {1}, threads


def test_slurm_profile_asks_more_for_the_heavy_rules():
    # from the real builds' benchmarks: the embedder and the trainers are the rules that take minutes
    req = profile("slurm")["set-resources"]
    light = req["curate"]
    for heavy in ("embed", "train_biencoder", "train_reader"):
        assert req[heavy]["mem_mb"] > light["mem_mb"] and req[heavy]["runtime"] > light["runtime"], heavy


@pytest.mark.workflow
def test_local_profile_plans_the_same_jobs_as_a_plain_run(project):
    plain = planned_jobs(snakemake(project, "-n").stdout)
    local = planned_jobs(snakemake(project, "-n", "--profile", "workflow/profiles/local").stdout)
    assert len(plain) > 40 and {j["rule"] for j in plain.values()} >= {"curate", "embed", "generate", "report"}
    assert {k: j["rule"] for k, j in local.items()} == {k: j["rule"] for k, j in plain.items()}


@pytest.mark.workflow
def test_budget_profile_reserves_memory_by_what_a_job_reads(project):
    # the same jobs as a plain run, each reserving 300 MB + twice its inputs (the inputs that
    # exist before the build: the sources; the others count when their job is ready), never
    # more than the budget, so Snakemake keeps the jobs it runs at once within it
    budget = profile("budget")
    limit = budget["resources"]["mem_mb"]
    plain = planned_jobs(snakemake(project, "-n").stdout)
    jobs = planned_jobs(snakemake(project, "-n", "--profile", "workflow/profiles/budget").stdout)
    assert {k: j["rule"] for k, j in jobs.items()} == {k: j["rule"] for k, j in plain.items()}
    known = {}
    for key, job in jobs.items():
        mem = job["resources"].get("mem_mb")
        if job["rule"] == "all" or mem == "<TBD>":  # its inputs are other jobs' outputs: sized when it is ready
            continue
        assert 300 <= int(mem) <= limit, (key, job)
        known[job["rule"]] = int(mem)
    assert "curate" in known  # it reads the corpus's own files, which exist before the build


@pytest.mark.workflow
def test_snakemake_applies_the_slurm_profile_to_each_job(project):
    # the slurm profile's sizes with the local executor (the plugin is an optional extra): each
    # planned job carries its rule's threads, mem_mb and runtime
    out = snakemake(project, "-n", "--profile", "workflow/profiles/slurm", "--executor", "local").stdout
    jobs = planned_jobs(out)
    slurm = profile("slurm")
    assert len(jobs) > 40
    for key, job in jobs.items():
        if job["rule"] == "all":
            continue
        want = slurm["set-resources"][job["rule"]]
        assert job["threads"] == slurm["set-threads"][job["rule"]], key
        assert int(job["resources"]["mem_mb"]) == want["mem_mb"], (key, job)
        assert int(job["resources"]["runtime"]) == want["runtime"], (key, job)
