"""Prove the slurm profile on a real SLURM: a single-node cluster on this machine, the fixture built
through it and locally, the two builds compared.

    python bench/slurm_cluster.py                    # as root; the fixture config (tests/support/project.py MINI_CONFIG)
    python bench/slurm_cluster.py --shards 3 --json  # with `shards: 3` on every corpus; JSON summary
    python bench/slurm_cluster.py --config my.yaml   # another config (paths relative to the project copy)

Runs as root on a Debian-like machine with no SLURM of its own. It installs `slurm-wlm` and
`munge` with apt-get when missing, then, in a temporary folder: starts munged on a socket of
its own with a fresh key, writes a slurm.conf for one node (this machine's name, CPUs and
memory as `slurmd -C` reports them, addressed on 127.0.0.1; process tracking and task
plugins that need no cgroups: proctrack/linuxproc, task/none, jobacct_gather/linux), starts
slurmctld and slurmd in the foreground as its children and waits for the node to be idle.

It copies the project twice (Snakefile, workflow/, minirag/ and the fixture corpus, as the
tests do), builds one copy with `snakemake -c2 --profile workflow/profiles/local` and the
other with `snakemake --profile workflow/profiles/slurm`, and checks:
  - every job the local build ran (but the target rule `all`) was submitted to SLURM, rule
    for rule, and `sacct --completion` lists each as COMPLETED with exit code 0:0 on this
    node, under the run's job name;
  - SLURM got what the profile asks for each rule: CPUs = set-threads, memory = mem_mb,
    time limit = runtime (read from the job completion records);
  - every run file (runs/*.trec) is byte-identical between the two builds; metrics.json is
    identical once its timing fields are removed (answers.*.latency_ms_p50/_p95 and
    readers.*.*.latency_ms_p50/_p95); every other file under results/<corpus>/ but logs and
    benchmarks is byte-identical, identical but for timing fields (TIMING_KEYS), or a
    receipt whose only differences are the hashes and sizes of such files.
It prints a table (or JSON), stops the daemons, removes /etc/slurm/slurm.conf and, when
every check holds and --keep is not given, its folder; only the packages it installed stay.
Exit status 0 when every check holds.

Accounting without slurmdbd: Slurm 22.05 has no file-based accounting storage (only
accounting_storage/none or /slurmdbd), and with `none` plain `sacct` refuses ("Slurm
accounting storage is disabled"). The job completion plugin jobcomp/filetxt writes one
record per finished job to a file that `sacct --completion` reads, which is what is checked
here; the executor plugin is told to poll job states with squeue (MinJobAge keeps finished
jobs visible to it) and to submit without an account. The executor's job-step plugin strips
SLURM_* variables (SLURM_CONF too) before its inner srun, so the configuration must be
where every SLURM command looks by default: /etc/slurm/slurm.conf is written for the run
and removed after it; the script refuses to run on a machine that already has one.

What it leaves out: several nodes, cgroup enforcement of the memory requests, slurmdbd
accounting (sacct without --completion, job steps, MaxRSS), and partitions or accounts.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
ETC_CONF = Path("/etc/slurm/slurm.conf")
TOOLS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sacct", "sinfo", "scontrol")
# Fields that measure time, not content: they differ between any two builds.
TIMING_KEYS = frozenset({"latency_ms", "latency_ms_p50", "latency_ms_p95", "seconds"})
# Toy-cluster settings for the executor plugin, given on the command line over the profile:
# squeue for job states (no accounting storage for sacct), no account (there are none), and
# a 1 s first status check because the fixture's jobs take seconds, not hours.
SLURM_ARGS = ("--slurm-status-command", "squeue", "--slurm-init-seconds-before-status-checks", "1",
              "--slurm-no-account")


def load(name: str, path: Path):
    """A module from a file of this repository that is not on the import path."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


test_project = load("minirag_test_project", REPO / "tests" / "support" / "project.py")  # copy_project, MINI_CONFIG
compare_builds = load("minirag_compare_builds", REPO / "bench" / "compare_builds.py")


def say(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def sh(cmd: list[str], **kw) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return proc.stdout


def ensure_packages() -> list[str]:
    """Install slurm-wlm and munge with apt-get when a tool is missing; the packages installed."""
    if all(shutil.which(t) for t in TOOLS):
        return []
    say("installing slurm-wlm and munge with apt-get")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    sh(["apt-get", "update", "-qq"], env=env)
    sh(["apt-get", "install", "-y", "-qq", "slurm-wlm", "munge"], env=env)
    missing = [t for t in TOOLS if not shutil.which(t)]
    if missing:
        raise SystemExit(f"still missing after apt-get install slurm-wlm munge: {', '.join(missing)}")
    return ["slurm-wlm", "munge"]


def node_facts() -> dict[str, str]:
    """This machine as slurmd sees it: NodeName, CPUs, RealMemory, ..."""
    line = sh(["slurmd", "-C"]).splitlines()[0]
    return dict(kv.split("=", 1) for kv in line.split())


def slurm_conf(d: Path, node: dict[str, str]) -> str:
    name = node["NodeName"]
    return f"""\
# A single-node cluster for bench/slurm_cluster.py; removed when it stops.
ClusterName=minirag
SlurmctldHost={name}(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket={d}/munge/munge.socket
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
# No cgroups in a container: track a job's processes through /proc, bind no tasks.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
# No slurmdbd: a job completion record per job, which `sacct --completion` reads.
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc={d}/jobcomp.txt
# squeue shows a finished job this long; the executor plugin polls squeue for job states.
MinJobAge=600
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
NodeName={name} NodeAddr=127.0.0.1 CPUs={node['CPUs']} Boards={node['Boards']} \
SocketsPerBoard={node['SocketsPerBoard']} CoresPerSocket={node['CoresPerSocket']} \
ThreadsPerCore={node['ThreadsPerCore']} RealMemory={node['RealMemory']} State=UNKNOWN
PartitionName=main Nodes={name} Default=YES MaxTime=INFINITE State=UP
"""


def wait_for(what: str, check, timeout: float = 60.0, procs: list | None = None) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for p in procs or []:
            if p.poll() is not None:
                raise SystemExit(f"{what}: {p.args[0]} exited ({p.returncode}); see its log in the cluster folder")
        if check():
            return
        time.sleep(0.5)
    raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")


def quiet_ok(cmd: list[str]) -> bool:
    return subprocess.run(cmd, capture_output=True).returncode == 0


class Cluster:
    """munged, slurmctld and slurmd as children of this process, state in a temporary folder."""

    def __init__(self, d: Path):
        self.d, self.procs, self.wrote_conf = d, [], False

    def start(self) -> dict[str, str]:
        if ETC_CONF.exists():
            raise SystemExit(f"{ETC_CONF} exists: this machine has a SLURM of its own; run this elsewhere")
        for tool in ("slurmctld", "slurmd"):
            if quiet_ok(["pgrep", "-x", tool]):
                raise SystemExit(f"a {tool} is already running on this machine; run this elsewhere")
        d, node = self.d, node_facts()
        munge = d / "munge"
        for sub in ("state", "spool"):
            (d / sub).mkdir()
        munge.mkdir()
        munge.chmod(0o755)  # munged wants its socket folder searchable by all, writable by it only
        # a fresh key for this cluster only (munged wants it private to its user)
        key = munge / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        shutil.chown(munge, "munge", "munge")
        shutil.chown(key, "munge", "munge")
        d.chmod(0o755)  # munged runs as the munge user and must reach its folder
        say(f"munged on {munge}/munge.socket")
        self.procs.append(subprocess.Popen(
            ["munged", "--foreground", f"--socket={munge}/munge.socket", f"--key-file={key}",
             f"--pid-file={munge}/munged.pid", f"--log-file={munge}/munged.log", f"--seed-file={munge}/munged.seed"],
            user="munge", group="munge", stdout=open(d / "munged.out", "wb"), stderr=subprocess.STDOUT))
        wait_for("munged", lambda: (munge / "munge.socket").exists(), procs=self.procs)
        ETC_CONF.parent.mkdir(parents=True, exist_ok=True)
        ETC_CONF.write_text(slurm_conf(d, node), encoding="utf-8")
        self.wrote_conf = True
        say(f"slurmctld and slurmd for node {node['NodeName']} ({node['CPUs']} CPUs, {node['RealMemory']} MB)")
        for daemon in ("slurmctld", "slurmd"):
            log = open(d / f"{daemon}.out", "wb")
            self.procs.append(subprocess.Popen([daemon, "-D"], stdout=log, stderr=subprocess.STDOUT))
            if daemon == "slurmctld":
                wait_for("slurmctld", lambda: quiet_ok(["scontrol", "ping"]), procs=self.procs)
        wait_for("the node to be idle", lambda: subprocess.run(
            ["sinfo", "-h", "-N", "-o", "%T"], capture_output=True, text=True).stdout.strip() == "idle",
            procs=self.procs)
        return node

    def stop(self) -> None:
        """slurmd, slurmctld, munged, in that order (each by its process id), then /etc/slurm/slurm.conf."""
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.procs = []
        if self.wrote_conf:
            ETC_CONF.unlink(missing_ok=True)
            self.wrote_conf = False


def build(project: Path, args: list[str]) -> tuple[float, str]:
    """Run snakemake in the project; (wall seconds, its output)."""
    env = {**os.environ, "PYTHONPATH": str(project), "MINIRAG_VERBOSE": "1"}  # Snakemake's own job lines
    t0 = time.monotonic()
    proc = subprocess.run([SNAKEMAKE, *args, "--configfile", "mini.yaml"], cwd=project, env=env,
                          capture_output=True, text=True)
    wall = time.monotonic() - t0
    log = proc.stdout + proc.stderr
    (project / "snakemake.out").write_text(log, encoding="utf-8")
    if proc.returncode != 0:
        shown = log if len(log) <= 4000 else f"{log[:1500]}\n[...]\n{log[-2500:]}"
        raise SystemExit(f"snakemake {' '.join(args)} failed ({proc.returncode}) in {project}:\n{shown}")
    return wall, log


def finished_rules(log: str) -> collections.Counter:
    return collections.Counter(r for r in re.findall(r"Finished jobid: \d+ \(Rule: (\w+)\)", log) if r != "all")


def submitted(log: str) -> dict[str, str]:
    """SLURM job id -> rule, from the executor plugin's lines (its log folder is per rule)."""
    pattern = r"has been submitted with SLURM jobid (\d+) \(log: \S*/slurm_logs/rule_(\w+)/"
    return {jobid: rule for jobid, rule in re.findall(pattern, log)}


def completion_records(path: Path) -> dict[str, dict[str, str]]:
    """jobcomp/filetxt's records (one line of KEY=VALUE per finished job) by job id."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        out[rec["JobId"]] = rec
    return out


def megabytes(tres_mem: str) -> int:
    """A TRES memory amount as Slurm prints it (512M, 1G, 1.75G) in MB."""
    scale = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}
    return round(float(tres_mem[:-1]) * scale[tres_mem[-1]])


def check_jobs(local_log: str, slurm_log: str, jobcomp: Path, profile: dict, node: str) -> dict:
    """Did every job run as a SLURM job, completed, with the profile's requests? Problems listed."""
    problems = []
    local, ran = finished_rules(local_log), finished_rules(slurm_log)
    jobs = submitted(slurm_log)
    if collections.Counter(jobs.values()) != local:
        problems.append(f"submitted rules {dict(collections.Counter(jobs.values()))} != local build's {dict(local)}")
    if ran != local:
        problems.append(f"finished rules {dict(ran)} != local build's {dict(local)}")
    run_id = re.search(r"SLURM run ID: (\S+)", slurm_log).group(1)
    out = sh(["sacct", "--completion", "--parsable2", "--noheader", "--starttime", "now-1days",
              "--jobs", ",".join(jobs), "--format", "JobID,JobName,State,ExitCode,NodeList,Elapsed"])
    rows = {r[0]: r for r in (line.split("|") for line in out.splitlines() if line)}
    elapsed = 0
    for jobid, rule in jobs.items():
        row = rows.get(jobid)
        if row is None:
            problems.append(f"job {jobid} ({rule}) not in sacct --completion")
            continue
        _, name, state, code, nodes, took = row
        days, _, hms = took.rpartition("-")
        h, m, s = (int(x) for x in hms.split(":"))
        elapsed += 86400 * int(days or 0) + 3600 * h + 60 * m + s
        if (name, state, code, nodes) != (run_id, "COMPLETED", "0:0", node):
            problems.append(f"job {jobid} ({rule}): sacct says {name} {state} {code} on {nodes}")
    records = completion_records(jobcomp)
    threads, requests = profile.get("set-threads", {}), profile.get("set-resources", {})
    for jobid, rule in jobs.items():
        rec = records.get(jobid, {})
        tres = dict(kv.split("=", 1) for kv in rec.get("Tres", "").split(",") if "=" in kv)
        want = (threads.get(rule), requests.get(rule, {}).get("mem_mb"), requests.get(rule, {}).get("runtime"))
        got = (int(rec.get("ProcCnt", 0)), megabytes(tres.get("mem", "0M")), int(rec.get("TimeLimit", 0)))
        if got != want:
            problems.append(f"job {jobid} ({rule}): SLURM got cpus/mem_mb/minutes {got}, the profile asks {want}")
    return {"run_id": run_id, "slurm_jobs": len(jobs), "rules": dict(sorted(collections.Counter(jobs.values()).items())),
            "sacct_rows": len(rows), "sum_job_seconds": elapsed, "problems": problems}


def without_timing(value):
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


def compare_results(local: Path, slurm: Path) -> dict:
    """Every file under each corpus folder (compare_builds.py's walk), judged as the docstring says."""
    out = {"run_files": 0, "run_files_identical": 0, "metrics": {}, "identical": 0, "identical_but_timing": [],
           "receipts_differing_only_by_timing_files": [], "problems": []}
    for corpus in sorted(d.name for d in local.iterdir() if d.is_dir() and d.name not in compare_builds.SKIP_DIRS):
        a, b = local / corpus, slurm / corpus
        report = compare_builds.compare(a, b)
        timing_only = set()
        for rel in report["identical_without_latency"] + list(report["different"]):
            if rel.endswith((".json", ".jsonl")):
                x, y = compare_builds.load_json_or_lines(a / rel), compare_builds.load_json_or_lines(b / rel)
                if without_timing(x) == without_timing(y):
                    timing_only.add(rel)
        for rel in sorted(set(report["different"]) - timing_only):
            if not (rel.startswith("receipts/") and receipt_differs_only_by(a / rel, b / rel, corpus, timing_only)):
                out["problems"].append(f"{corpus}/{rel} differs: {', '.join(report['different'][rel])}")
            else:
                out["receipts_differing_only_by_timing_files"].append(f"{corpus}/{rel}")
        for rel in report["only_old"] + report["only_new"]:
            out["problems"].append(f"{corpus}/{rel} is in one build only")
        runs = [r for r in compare_builds.files(a) if r.startswith("runs/")]
        out["run_files"] += len(runs)
        out["run_files_identical"] += sum(r in report["identical"] for r in runs)
        out["problems"] += [f"{corpus}/{r} differs" for r in runs if r not in report["identical"]]
        m = "eval/metrics.json"
        out["metrics"][corpus] = ("byte-identical" if m in report["identical"] else
                                  "identical without timing fields" if m in timing_only else "DIFFERENT")
        out["identical"] += len(report["identical"])
        out["identical_but_timing"] += [f"{corpus}/{r}" for r in sorted(timing_only)]
    return out


def receipt_differs_only_by(a: Path, b: Path, corpus: str, timing_only: set[str]) -> bool:
    """A receipt whose only differences are the hashes/sizes of files that differ only in timings."""
    x, y = json.loads(a.read_text(encoding="utf-8")), json.loads(b.read_text(encoding="utf-8"))
    prefix = f"results/{corpus}/"
    for section, name_of in (("inputs", lambda p: p.removeprefix(prefix)), ("outputs", lambda p: p)):
        sa, sb = x.pop(section, {}), y.pop(section, {})
        if set(sa) != set(sb):
            return False
        if any(sa[p] != sb[p] and name_of(p) not in timing_only for p in sa):
            return False
    return x == y


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", type=Path, help="config file to build (default: tests/support/project.py MINI_CONFIG)")
    ap.add_argument("--shards", type=int, help="add `shards: N` to every corpus of the config")
    ap.add_argument("--cores", type=int, default=2, help="cores of the local build (default 2)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (projects, logs, cluster state)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    # the daemons live in /usr/sbin, which a non-login root shell may not have on its PATH
    os.environ["PATH"] = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
    os.environ.pop("SLURM_CONF", None)  # every SLURM command, in jobs too, reads /etc/slurm/slurm.conf
    if os.geteuid() != 0:
        raise SystemExit("run as root: it installs packages and starts munged, slurmctld and slurmd")
    text = a.config.read_text(encoding="utf-8") if a.config else test_project.MINI_CONFIG
    if a.shards:
        config = yaml.safe_load(text)
        for corpus in config["corpora"].values():
            corpus["shards"] = a.shards
        text = yaml.safe_dump(config, sort_keys=False, allow_unicode=True)
    t_start = time.monotonic()
    installed = ensure_packages()
    d = Path(tempfile.mkdtemp(prefix="minirag-slurm-"))
    projects = {}
    for kind in ("local", "slurm"):
        (d / kind).mkdir()
        projects[kind] = test_project.copy_project(d / kind)
        (projects[kind] / "mini.yaml").write_text(text, encoding="utf-8")
    profile = yaml.safe_load((REPO / "workflow/profiles/slurm/config.yaml").read_text(encoding="utf-8"))
    cluster = Cluster(d)
    say(f"working in {d} (removed at the end unless --keep or a check fails)")
    try:
        node = cluster.start()
        t_ready = time.monotonic()
        version = sh(["sbatch", "--version"]).strip()
        say(f"local build: snakemake -c{a.cores} --profile workflow/profiles/local")
        local_s, local_log = build(projects["local"], [f"-c{a.cores}", "--profile", "workflow/profiles/local"])
        say(f"local build done in {local_s:.1f} s; SLURM build: snakemake --profile workflow/profiles/slurm "
            + " ".join(SLURM_ARGS))
        slurm_s, slurm_log = build(projects["slurm"], ["--profile", "workflow/profiles/slurm", *SLURM_ARGS])
        say(f"SLURM build done in {slurm_s:.1f} s; checking jobs and comparing results")
        jobs = check_jobs(local_log, slurm_log, d / "jobcomp.txt", profile, node["NodeName"])
    finally:
        cluster.stop()
    results = compare_results(projects["local"] / "results", projects["slurm"] / "results")
    summary = {
        "slurm": version, "node": {k: node[k] for k in ("NodeName", "CPUs", "RealMemory")},
        "installed": installed, "setup_seconds": round(t_ready - t_start, 1),
        "local": {"command": f"snakemake -c{a.cores} --profile workflow/profiles/local", "wall_seconds": round(local_s, 1),
                  "jobs": sum(finished_rules(local_log).values())},
        "slurm_build": {"command": "snakemake --profile workflow/profiles/slurm " + " ".join(SLURM_ARGS),
                        "wall_seconds": round(slurm_s, 1), **jobs},
        "results": results, "total_seconds": round(time.monotonic() - t_start, 1),
        "config": text if a.config or a.shards else "tests/support/project.py MINI_CONFIG", "folder": str(d),
    }
    ok = not jobs["problems"] and not results["problems"]
    summary["ok"] = ok
    if ok and not a.keep:
        shutil.rmtree(d, ignore_errors=True)
    if a.json:
        print(json.dumps(summary, indent=2))
        return 0 if ok else 1
    s, r = summary["slurm_build"], results
    print(f"{version}, one node: {node['NodeName']}, {node['CPUs']} CPUs, {node['RealMemory']} MB"
          f"{'; installed ' + ' '.join(installed) if installed else ''}; cluster up in {summary['setup_seconds']} s")
    print(f"{'build':<7} {'jobs':>5} {'wall s':>8}  command")
    print(f"{'local':<7} {summary['local']['jobs']:>5} {local_s:>8.1f}  {summary['local']['command']}")
    print(f"{'slurm':<7} {s['slurm_jobs']:>5} {slurm_s:>8.1f}  {s['command']}")
    print(f"SLURM jobs: {s['slurm_jobs']} submitted, {s['sacct_rows']} in sacct --completion, all COMPLETED 0:0 on "
          f"{node['NodeName']} with the profile's cpus/mem/time: {'yes' if not s['problems'] else 'NO'}; "
          f"sum of job times {s['sum_job_seconds']} s")
    print(f"results: run files byte-identical {r['run_files_identical']}/{r['run_files']}; metrics.json "
          + ", ".join(f"{c}: {v}" for c, v in r["metrics"].items())
          + f"; {r['identical']} files byte-identical, {len(r['identical_but_timing'])} identical but for timing "
          f"fields, {len(r['receipts_differing_only_by_timing_files'])} receipts differing only in those files' hashes")
    for p in s["problems"] + r["problems"]:
        print(f"  PROBLEM {p}")
    if not ok or a.keep:
        print(f"projects, logs and cluster state kept in {d}")
    print(f"{'OK' if ok else 'FAILED'} in {summary['total_seconds']} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
