"""Shell and path injection through every config value that reaches a rule: paths, globs, names,
notes, URLs, and ids inside the input files. A case holds when nothing ran (no PWNED file
anywhere) and the build either succeeded or refused the value with its key."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from fault_harness import CONFIG, REPO, Case, nothing_ran, refused, run, snakemake

PWN = "$(touch PWNED)"


def built(config_text: str, name: str = "inj", setup=None, target: str | None = None, refuse: str | None = None,
          fails: str | None = None):
    """Build (or dry-run, when refusing) a config; held when nothing ran and it built, refused the
    value naming `refuse`, or (`fails`) failed at a job with an error naming `fails`."""
    def check(project: Path) -> tuple[bool, str]:
        for p in nothing_ran(project):
            p.unlink()
        if setup is not None:
            setup(project)
        (project / f"{name}.yaml").write_text(config_text.replace("build: [mini]", f"build: [{name}]")
                                              .replace("  mini:", f"  {name}:"))
        args = ["-n"] if refuse else []
        proc = snakemake(project, *args, target or f"results/{name}.md", config=f"{name}.yaml", timeout=1800)
        pwned = nothing_ran(project)
        if pwned:
            return False, f"ran: {pwned[0]}"
        if refuse or fails:
            return refused(proc, refuse or fails)
        ok = proc.returncode == 0
        return ok, "built; nothing ran" if ok else (proc.stderr.strip().splitlines() or ["?"])[-1][:160]
    return check


def copy_docs(folder: str):
    def setup(project: Path):
        dest = project / folder
        if not dest.exists():
            shutil.copytree(project / "fixture/docs", dest)
    return setup


def copy_file(src: str, dest: str):
    def setup(project: Path):
        (project / dest).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(project / src, project / dest)
    return setup


def hostile_doc_name(project: Path):
    folder = project / "scratch/docs-named"
    if not folder.exists():
        shutil.copytree(project / "fixture/docs", folder)
        (folder / "en" / "$(touch$IFS\\PWNED)-`touch$IFS\\PWNED`.md").write_text(
            "---\ntitle: T\nlang: en\n---\n# T\n\nA page whose name is a command.\n")


def hostile_qid(project: Path):
    lines = (project / "fixture/questions.jsonl").read_text().splitlines()
    last = json.loads(lines[-1])  # not one the fixture's assertions name
    last["qid"] = "$(touch${IFS}PWNED);`touch${IFS}PWNED`"
    (project / "scratch/q-hostile.jsonl").write_text("\n".join(lines[:-1] + [json.dumps(last)]) + "\n")


def config_named(file_name: str, report: str | None = "named", make: str | None = "check-config",
                 refuse: str | None = None):
    """A config for the built corpus saved as `file_name` (with `report:` unless None), given to
    `make <make> CONFIG=file_name` (or, make None, to `snakemake -n --configfile`): the name reaches
    minirag as data. Held when nothing ran and it was accepted (built, for `make build`), or refused
    naming `refuse`."""
    def check(project: Path) -> tuple[bool, str]:
        for p in nothing_ran(project):
            p.unlink()
        path = project / file_name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text((f"report: {report}\n" if report else "") + CONFIG)
        venv = Path(sys.executable).parent.parent
        try:
            if make:  # -o: the venv is installed already (the project has no pyproject.toml to install from)
                proc = run(["make", "-s", "-f", str(REPO / "Makefile"), make, f"CONFIG={file_name}", f"VENV={venv}",
                            "-o", f"{venv}/.installed"], project, timeout=1800)
            else:
                proc = snakemake(project, "-n", config=file_name)
        finally:
            path.unlink()
        pwned = nothing_ran(project)
        if pwned:
            return False, f"ran: {pwned[0]}"
        if refuse:
            return refused(proc, refuse)
        report_md = project / "results" / f"{report}.md"
        ok = proc.returncode == 0 and (make != "build" or report_md.is_file())
        for built_file in (report_md, project / "results" / f"{report}.manifest.json"):
            built_file.unlink(missing_ok=True)
        return ok, "accepted as data; nothing ran" if ok else ((proc.stderr or proc.stdout).strip().splitlines()
                                                               or ["?"])[-1][:160]
    return check


def cases() -> list[Case]:
    g = "injection"
    sub = lambda old, new: CONFIG.replace(old, new)  # noqa: E731
    return [Case(name, g, check, fast=fast) for name, check, fast in [
        ("assertions path with ||touch PWNED||", built(sub("fixture/assertions.yaml",
                                                          json.dumps("scratch/a||touch PWNED||b.yaml")),
                                                      setup=copy_file("fixture/assertions.yaml",
                                                                      "scratch/a||touch PWNED||b.yaml")), False),
        ("docs folder named $(touch PWNED)", built(sub("path: fixture/docs", f"path: 'scratch/{PWN}'"),
                                                   setup=copy_docs(f"scratch/{PWN}")), False),
        ("questions path with ;touch PWNED;", built(sub("questions: fixture/questions.jsonl",
                                                        "questions: 'scratch/q;touch PWNED;.jsonl'"),
                                                    setup=copy_file("fixture/questions.jsonl",
                                                                    "scratch/q;touch PWNED;.jsonl")), False),
        ("glob with quotes and a command", built(sub("langs: [en, es]}", "langs: [en, es], glob: \"**/*'$(touch "
                                                     "PWNED)'*.md\"}"), refuse="holds no document",
                                                 target="results/inj/docs.jsonl"), True),
        ("a document named $(touch PWNED)", built(sub("path: fixture/docs", "path: scratch/docs-named"),
                                                  setup=hostile_doc_name), False),
        ("a qid holding $(touch PWNED)", built(sub("questions: fixture/questions.jsonl",
                                                   "questions: scratch/q-hostile.jsonl"), setup=hostile_qid), False),
        ("note with backticks", built(sub("    assertions:", f"    note: '`touch PWNED` {PWN}'\n    assertions:")),
         False),
        ("a corpus named $(touch PWNED)", built(CONFIG.replace("[mini]", f"['{PWN}']").replace(
            "  mini:", f"  '{PWN}':"), name="pwn", refuse="corpora"), True),
        ("a retriever named x;touch PWNED", built(sub("      dense:", "      'x;touch PWNED':"),
                                                  refuse="x;touch PWNED"), True),
        ("an index named $(touch PWNED)", built(sub("index: plain}", f"index: '{PWN}'}}"), refuse="PWNED"), True),
        ("a reader named `touch PWNED`", built(sub("      extractive: {type: extractive}",
                                                   "      '`touch PWNED`': {type: extractive}"),
                                               refuse="touch PWNED"), True),
        ("report named ../../escape", built("report: ../../escape\n" + CONFIG, refuse="report"), True),
        ("a base_url holding $(touch PWNED)", built(sub("      extractive: {type: extractive}",
                                                        "      extractive: {type: extractive}\n      remote: {type: "
                                                        "openai, base_url: 'http://127.0.0.1:9/$(touch${IFS}PWNED)'"
                                                        ", retries: 0, timeout_s: 1}"),
                                                    target="results/inj/answers/remote/bm25.jsonl", fails="generate"),
         False),
        ("api_key_env $(touch PWNED)", built(sub("      extractive: {type: extractive}",
                                                 "      extractive: {type: extractive}\n      remote: {type: openai, "
                                                 f"api_key_env: '{PWN}'}}"), refuse="api_key_env"), True),
        ("make check-config CONFIG holding backticks", config_named("scratch/y`touch PWNED`.yaml"), True),
        ("make check-config CONFIG holding $(touch PWNED)", config_named(f"scratch/x{PWN}.yaml"), True),
        ("make check-config CONFIG holding $(shell touch PWNED)", config_named("scratch/x$(shell touch PWNED).yaml"),
         True),
        ("make check-config CONFIG holding a quote and a newline", config_named("scratch/a'b\"c\nd.yaml"), True),
        ("make check-config CONFIG named like a flag (-r.yaml)", config_named("-r.yaml"), True),
        ("make build CONFIG holding backticks (built)", config_named("scratch/y`touch PWNED`.yaml", make="build"),
         False),
        ("make check-config CONFIG holding $(touch PWNED), no report:",
         config_named(f"scratch/x{PWN}.yaml", report=None, refuse="cannot name the report"), True),
        ("a configfile named x$(touch PWNED).yaml, no report:",
         config_named(f"scratch/x{PWN}.yaml", report=None, make=None, refuse="cannot name the report"), True),
        ("a configfile named z;touch PWNED3;.yaml, no report:",
         config_named("scratch/z;touch PWNED3;.yaml", report=None, make=None, refuse="cannot name the report"), True),
        ("report: a name and a newline", built('report: "x\\n"\n' + CONFIG, refuse="report"), True),
        ("an embedder type with a command", built(sub("    assertions:", f"    embedders: {{hashing: {{type: '{PWN}'}}}}"
                                                      "\n    assertions:"), refuse="type"), True),
    ]]
