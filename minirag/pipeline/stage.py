"""A stage declared once: the spec every rule, job list, receipt and command line is derived from.

A `Stage` says what one step of the graph is per (its wildcards), which jobs a config gives
it (`names`), which files each job reads (`reads`, by the stage function's argument names),
which artifact kinds it writes (`writes`, kinds of artifacts/registry.py), its settings and
other command-line values, taken from the wildcards alone so that Snakemake records them as
params and a change reruns the job. From it follow:

    spec.inputs(graph, wc)   the rule's inputs (files Snakemake tracks, by argument name)
    spec.outputs(layout, wc) the rule's outputs, the job's receipt included
    spec.argv(graph, wc)     the command line, parsed by the stage's own parser
    spec.job_name(wc)        the name in receipts/<job>.<name>.json, logs/ and benchmarks/

    Stage("units", per=None, names=lambda g: [{}] * g.uses_units(),
          reads=lambda g, w: {"docs": str(g.layout.docs), "chunks": str(g.layout.chunks)},
          writes={"out": Out("units")})

What it leaves out: Snakemake itself (workflow/rules/stages.smk loops over the specs), what a
stage does (minirag/stages/<module>.py) and which specs exist (pipeline/stages/).
"""

from __future__ import annotations

import inspect
import json
import shlex
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from ..artifacts.layout import CorpusLayout
from ..artifacts.registry import ARTIFACTS, files_of
from .given import Given  # noqa: F401  (a stage's reads are Givens; specs import it from here)


@dataclass(frozen=True)
class Out:
    """What one output of a stage holds: an artifact kind (a multi-file kind, e.g. "bm25", by its
    prefix), passed to the stage as a file, as the folder of its files, or not at all (a sidecar
    the stage writes beside another output)."""
    kind: str
    arg: str | None = "file"    # "file", "folder" or None
    update: bool = False         # read and rewritten by the job (a cache): kept in place
    report: dict | None = None   # the Snakemake report's caption and category for a figure
    receipt: bool = False        # the kind is another job's name whose receipt this job writes

    def paths(self, layout: CorpusLayout, wildcards: Mapping[str, str]) -> list[Path]:
        if self.receipt:
            return [layout.receipt(self.kind, wildcards.get("name"))]
        if self.kind in ARTIFACTS:
            return [ARTIFACTS[self.kind].at(layout.root, **wildcards)]
        return [a.at(layout.root, **wildcards) for a in files_of(self.kind)]

    def artifacts(self) -> list:
        return [] if self.receipt else [ARTIFACTS[self.kind]] if self.kind in ARTIFACTS else files_of(self.kind)


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

    def __post_init__(self):
        object.__setattr__(self, "module", self.module or self.rule)
        object.__setattr__(self, "job", self.job or self.rule)

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
