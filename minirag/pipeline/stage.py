"""A stage declared once: the spec every rule, job list, receipt, command line and artifact kind is derived from.

A `Stage` says where it stands in the graph (`phase`, `step`), what one step of the graph is per
(its wildcards), which jobs a config gives it (`names`), which files each job reads (`reads`, by
the stage function's argument names), what it writes (`writes`: an artifact kind, declared there
with its path pattern and content check when the stage is the one that makes it), its settings and
other command-line values, taken from the wildcards alone so that Snakemake records them as
params and a change reruns the job, and its size on a cluster. From it follow:

    spec.inputs(graph, wc)   the rule's inputs (files Snakemake tracks, by argument name)
    spec.outputs(layout, wc) the rule's outputs, the job's receipt included
    spec.argv(graph, wc)     the command line, parsed by the stage's own parser
    spec.job_name(wc)        the name in receipts/<job>.<name>.json, logs/ and benchmarks/
    spec.declared()          the artifact kinds it declares (artifacts/kinds.py is generated from them)

Each stage module of minirag/stages/ declares its specs beside its function, as `STAGES`:

    STAGES = (Stage("units", phase="chunks", step=30, per=None, names=lambda g: one(uses_units(g)),
                    reads=lambda g, w: {"docs": str(g.layout.docs), "chunks": str(g.layout.chunks)},
                    writes={"out": Out("units", at="units.jsonl", check="records")}),)

What it leaves out: Snakemake itself (workflow/rules/stages.smk loops over the specs), what a
stage does (its function, beside the spec) and finding the specs (pipeline/stages/).
"""

from __future__ import annotations

import inspect
import json
import shlex
import typing
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from ..artifacts.layout import CorpusLayout
from ..artifacts.registry import ARTIFACTS, Artifact, check_of, files_of
from .given import Given  # noqa: F401  (a stage's reads are Givens; specs import it from here)

PHASES = ("corpus", "shards", "chunks", "mine", "embed", "index", "rank", "answer", "evaluate")
"""The graph's phases, in order: a spec's `phase` and its `step` in it place it among the others."""


@dataclass(frozen=True)
class Out:
    """What one output of a stage holds: an artifact kind (a multi-file kind, e.g. "bm25", by its
    prefix), passed to the stage as a file, as the folder of its files, or not at all (a sidecar
    the stage writes beside another output).

    The stage that makes a kind declares it here: its path pattern under results/<corpus>/ (`at`,
    with the job's wildcards) and its content check (artifacts/content.py); a multi-file kind its
    folder (`at`) and `files`, each checked by `checks` or by its suffix. Another stage writing the
    same kind (a merge of shards) names it alone, and the registry gives its path."""
    kind: str
    arg: str | None = "file"    # "file", "folder" or None
    update: bool = False         # read and rewritten by the job (a cache): kept in place
    report: dict | None = None   # the Snakemake report's caption and category for a figure
    receipt: bool = False        # the kind is another job's name whose receipt this job writes
    at: str | None = None        # declared here: the path pattern (a multi-file kind's folder)
    check: str | None = None     # declared here: the content check, None: hash only
    files: tuple[str, ...] = ()  # declared here: a multi-file kind's files in its folder
    checks: Mapping[str, str] = field(default_factory=dict)  # a file's check other than its suffix's
    job: str | None = None       # the job whose receipt vouches for it: its stage's (set by it), or a cache's
    name: str | None = None      # that job's name from the wildcards: its stage's `per` (set by it)

    def paths(self, layout: CorpusLayout, wildcards: Mapping[str, str]) -> list[Path]:
        if self.receipt:
            return [layout.receipt(self.kind, wildcards.get("name"))]
        return [a.at(layout.root, **wildcards) for a in self.artifacts()]

    def artifacts(self) -> list[Artifact]:
        """The artifacts it holds: as declared here, else as the registry has them."""
        if self.receipt:
            return []
        if self.at is None:
            return [ARTIFACTS[self.kind]] if self.kind in ARTIFACTS else files_of(self.kind)
        if not self.files:
            return [Artifact(self.kind, self.at, self.job, self.name, self.check)]
        return [Artifact(f"{self.kind}:{f}", f"{self.at}/{f}", self.job, self.name, self.checks.get(f, check_of(f)))
                for f in self.files]


@dataclass(frozen=True)
class Size:
    """What one job of a stage asks a cluster for: memory (MB) and wall time (minutes), one CPU.
    The SLURM profile is generated from these (pipeline/slurm_profile.py); `why` says where a
    size other than the default came from."""
    mem_mb: int = 1024
    runtime: int = 10
    why: str = ""


Reads = Mapping[str, "str | list[str] | Given | Mapping[str, str | Given]"]
NO_VALUES: Callable = lambda graph, w: {}  # noqa: E731


@dataclass(frozen=True)
class Stage:
    rule: str                                   # the Snakemake rule
    phase: str                                  # one of PHASES: where it stands in the graph
    step: int                                   # its place in its phase (each phase's steps are its own)
    names: Callable[[Any], list[dict]]          # graph -> the wildcards of every job a config has
    reads: Callable[[Any, dict], Reads]         # (graph, wildcards) -> files by argument name
    writes: Mapping[str, Out]                   # argument (or output) name -> what it holds
    per: str | None = "{name}"                  # the job's name from its wildcards; None: one per corpus
    module: str = ""                            # minirag.stages.<module>, or a domain's module by its full
                                                # dotted name; default: the rule
    job: str = ""                               # the name of its receipt, log, benchmark; default: the rule
    settings: Callable[[Any, dict], Any] | None = None  # (graph, wildcards) -> the config values it reads
    values: Callable[[Any, dict], dict] = NO_VALUES     # other command-line values (a name, a glob)
    corpora: str | None = None                  # "whole" or "sharded": only corpora built that way
    constraints: Mapping[str, str] = field(default_factory=dict)  # regexes of its own wildcards
    size: Size = Size()                         # a job's memory and time on a cluster
    # (graph, wildcards) -> {"only": {package: its modules the job runs}, "also": [modules]}: of a package that
    # imports its folder's modules when asked (rank/kinds/), those a job runs, and what it runs by name
    # besides (pipeline/depends.py `stage_code`); None: its module's imports, every such package's modules
    job_code: Callable[[Any, dict], dict] | None = None

    def __post_init__(self):
        object.__setattr__(self, "module", self.module or self.rule)
        object.__setattr__(self, "job", self.job or self.rule)
        if self.phase not in PHASES:
            raise ValueError(f"stage {self.rule}: phase {self.phase!r} is none of {', '.join(PHASES)}")
        # a kind declared here is vouched for by this stage's receipt (unless it names another) under its name
        object.__setattr__(self, "writes", {k: replace(o, job=o.job or self.job, name=self.per) if o.at else o
                                            for k, o in self.writes.items()})

    @property
    def order(self) -> tuple[int, int]:
        """Its place in the graph: the specs, the rules and every job list come in this order."""
        return PHASES.index(self.phase), self.step

    def declared(self) -> list[Artifact]:
        """The artifact kinds this stage declares (those of its outputs given a path pattern)."""
        return [a for o in self.writes.values() if o.at for a in o.artifacts()]

    @property
    def runs(self) -> str:
        """The module `python -m` runs: minirag.stages.<module>, or the full name a domain's stage gives."""
        return self.module if "." in self.module else f"minirag.stages.{self.module}"

    @property
    def function(self) -> str:
        """The stage function: the module's last name (`curate` of curate_shard, `lexicon` of a domain's)."""
        return self.runs.rsplit(".", 1)[1]

    def job_name(self, wildcards: Mapping[str, str]) -> str | None:
        return self.per.format(**wildcards) if self.per else None

    def jobs(self, graph) -> list[tuple[str, str | None]]:
        return [(self.job, self.job_name(w)) for w in self.names(graph)]

    def inputs(self, graph, wildcards: Mapping[str, str]) -> dict[str, str | list[str]]:
        out: dict[str, str | list[str]] = {}
        for key, value in self.reads(graph, dict(wildcards)).items():
            out[key] = [f for v in value.values() for f in as_list(tracked(v))] if isinstance(value, Mapping) \
                else tracked(value)
        return out

    def outputs(self, layout: CorpusLayout, wildcards: Mapping[str, str]) -> dict[str, list[Path]]:
        """Every file the job writes by output name, its receipt last."""
        out = {key: o.paths(layout, wildcards) for key, o in self.writes.items()}
        out["receipt"] = [layout.receipt(self.job, self.job_name(wildcards))]
        return out

    def written(self, graph, wildcards: Mapping[str, str]) -> list[Path]:
        return [p for paths in self.outputs(graph.layout, wildcards).values() for p in paths]

    def settings_json(self, graph, wildcards: Mapping[str, str]) -> str | None:
        if self.settings is None:
            return None
        return json.dumps(self.settings(graph, dict(wildcards)), sort_keys=True, ensure_ascii=False,
                          separators=(",", ":"))

    def argv(self, graph, wildcards: Mapping[str, str]) -> list[str]:
        """The stage's command line after `python -m <runs>`: one value a flag as
        `--flag=value` (so a value starting with '-' stays a value), lists as `--flag a b`."""
        w = dict(wildcards)
        args = [opt(k, v) for k, v in self.values(graph, w).items() if v is not None]
        settings = self.settings_json(graph, w)
        if settings is not None:
            args.append(opt("settings", settings))
        for key, value in self.reads(graph, w).items():
            args += keyed(key, value) if isinstance(value, Mapping) else flag(key, value.arg if isinstance(value, Given) else value)
        for key, o in self.writes.items():
            if o.arg:
                paths = o.paths(graph.layout, w)
                args.append(opt(key, paths[0].parent if o.arg == "folder" else paths[0]))
        args.append(opt("receipt", graph.layout.receipt(self.job, self.job_name(w))))
        return args

    def command(self, graph, wildcards: Mapping[str, str]) -> str:
        return shlex.join(self.argv(graph, wildcards))


def path_params(fn: Callable) -> dict[str, str]:
    """{parameter: "one", "list" or "map"} for every Path-typed parameter of the stage function: a
    path, a list of paths, or paths by key (`dict[str, Path]`, the files a kind reads by its keys)."""
    hints = typing.get_type_hints(fn)
    out = {}
    for name in inspect.signature(fn).parameters:
        hint = hints.get(name, str)
        origins = {typing.get_origin(h) for h in (hint, *typing.get_args(hint))}  # dict[str, Path] | None too
        if list in origins:
            out[name] = "list"
        elif dict in origins:
            out[name] = "map"
        elif Path in (hint, *typing.get_args(hint)):
            out[name] = "one"
    return out


def tracked(value) -> str | list[str]:
    """The files Snakemake tracks for one read: a Given's files, else the path or paths themselves."""
    return list(value.files) if isinstance(value, Given) else value


def opt(key: str, value) -> str:
    return f"--{key.replace('_', '-')}={value}"


def as_list(value) -> list:
    return [value] if isinstance(value, str) else list(value)


def keyed(key: str, files: Mapping) -> list[str]:
    """Paths by key as `--files KEY PATH KEY PATH ...`; a Given with no path (a word list) is tracked only."""
    pairs = [(k, v.arg if isinstance(v, Given) else v) for k, v in files.items()]
    return flag(key, [x for k, v in pairs if v is not None for x in (k, v)])


def flag(key: str, value) -> list[str]:
    """A path argument on the command line: nothing for None or an empty list."""
    if value is None or value == [] or value == ():
        return []
    if isinstance(value, (list, tuple)):
        # list items are paths; one that starts with '-' would read as a flag: ./-x is the same file
        return [f"--{key.replace('_', '-')}", *(f"./{v}" if str(v).startswith("-") else str(v) for v in value)]
    return [opt(key, value)]
