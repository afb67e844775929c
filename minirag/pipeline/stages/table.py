"""The stage table: every spec's stage, what it is per, what it reads and writes, its settings.

    python -m minirag.pipeline.stages                      the table for workflow/config.yaml
    python -m minirag.pipeline.stages --configfile X Y     settings keys over X's and Y's corpora
    python -m minirag.pipeline.stages --markdown           as in docs/architecture.md

`reads` comes from the stage function's signature (what its command line accepts; optional
ones in brackets; a kind's own files as one mapping by key), `writes` from the kinds each spec writes, `settings` from the spec on the given
configs' corpora (the keys its jobs there read). docs/architecture.md holds the markdown
table for the shipped configs, checked by a test.

What it leaves out: per-job file lists (`snakemake -n -p` shows them).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
from dataclasses import fields, is_dataclass

from ...artifacts.layout import CorpusLayout
from ...settings import settings_to_dict
from ..stage import Stage, path_params

DOC_CONFIGS = ("workflow/config.yaml", "workflow/config.ablations.yaml")


def stage_function(spec: Stage):
    return getattr(importlib.import_module(spec.runs), spec.function)


def reads_of(spec: Stage) -> str:
    fn = stage_function(spec)
    params = inspect.signature(fn).parameters
    shapes = {n: shape for n, shape in path_params(fn).items() if not n.startswith("out")}
    # files by key are what the job's kind reads (its `reads`), named by their keys
    names = {n: f"{n} (its kind's, by key)" if shape == "map" else n for n, shape in shapes.items()}
    return ", ".join(v if params[n].default is inspect.Parameter.empty else f"[{v}]" for n, v in names.items())


def writes_of(spec: Stage) -> str:
    out = []
    for o in spec.writes.values():
        if o.receipt:
            out.append(f"receipts/{o.kind}.json")
        else:
            out += [a.pattern for a in o.artifacts()]
    return ", ".join(out)


def entry_keys(corpus) -> dict[str, dict[str, set[str]]]:
    """The keys a job reads of each entry of the corpus's named collections (a retriever's: its retrieve job's)."""
    return {"embedders": {n: set(kind.spec()) for n, kind in corpus.embedders.items()},
            "bm25": {n: set(settings_to_dict(s)) for n, s in corpus.bm25.items()},
            "retrievers": {n: set(kind.retrieve_settings()) for n, kind in corpus.retrievers.items()},
            "readers": {n: set(corpus.reader_spec(n)) for n in corpus.readers}}


def where_from(corpus, wildcards: dict, value: dict) -> list[str]:
    """Where in a corpus's config (config/typed.py) one job's settings come from: `retrievers.{name}` for an
    entry of a named collection, `chunk.strategy` for a key of a section, the key itself for the rest."""
    from ...config.sections import CorpusSettings
    sections = {f.name: set(settings_to_dict(getattr(corpus, f.name))) for f in fields(CorpusSettings)
                if is_dataclass(getattr(corpus, f.name))}
    out, rest = [], set(value)
    for coll, entries in entry_keys(corpus).items():  # an entry's settings whole, or all of them
        for wildcard in ("name", "reader"):
            entry = entries.get(wildcards.get(wildcard, ""), set())
            if entry and rest and (entry <= rest or rest <= entry):
                out.append(f"{coll}.{{{wildcard}}}")
                rest -= entry
    plain = sorted(k for k in rest if k in {f.name for f in fields(CorpusSettings)} and k not in sections)
    out += plain
    rest -= set(plain)
    for section, keys in sections.items():
        if keys <= rest:
            out.append(section)
            rest -= keys
        elif rest and rest <= keys:
            out.append(f"{section}.{{{','.join(sorted(rest))}}}")
            rest = set()
    return out + sorted(rest)


def settings_of(spec: Stage, graphs) -> str:
    if spec.settings is None:
        return "—"
    found: dict[str, None] = {}
    for g in graphs:
        for w in spec.names(g):
            value = spec.settings(g, w)
            found.update(dict.fromkeys(where_from(g.corpus, w, value) if isinstance(value, dict) else ["(a value)"]))
    return ", ".join(found) if found else "(no job in these configs)"


def rows(graphs) -> list[dict]:
    from . import STAGES
    return [{"stage": s.rule, "per": s.job_name({k: k for k in ("name", "shard", "reader", "swept", "param", "figure")})
             or "corpus", "runs": s.module, "module": s.runs, "receipt": s.job, "reads": reads_of(s), "writes": writes_of(s),
             "settings": settings_of(s, graphs)} for s in STAGES]


def graphs_of(configfiles) -> list:
    """Each corpus of the configs, and each again in two shards (what the shard stages read)."""
    import copy

    from ...config.corpus import corpus_config, corpus_names
    from ...config.load import load_config
    from ..graph import CorpusGraph
    out = []
    for path in configfiles:
        config = load_config(path)
        for name in corpus_names(config):
            cc = corpus_config(config, name)
            sharded = copy.deepcopy(cc)
            sharded["shards"] = 2
            for index in sharded["bm25"].values():
                index["items"] = "chunks"  # units are indexed from the whole corpus
            out += [CorpusGraph(c, CorpusLayout.of("results", name)) for c in (cc, sharded)]
    return out


def markdown(table: list[dict]) -> str:
    cols = ["stage", "per", "runs", "receipt", "reads", "writes", "settings"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(f"`{r[c]}`" if c in ("stage", "runs", "receipt") else r[c] for c in cols) + " |"
              for r in table]
    return "\n".join(lines) + "\n"


def plain(table: list[dict]) -> str:
    out = []
    for r in table:
        out.append(f"{r['stage']}  per {r['per']}  ({r['module']}, receipt {r['receipt']})")
        for key in ("reads", "writes", "settings"):
            out.append(f"    {key:9s}{r[key]}")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m minirag.pipeline.stages",
                                 description="Print the graph's stages: per, reads, writes, settings.")
    ap.add_argument("--configfile", nargs="+", default=list(DOC_CONFIGS),
                    help="configs whose corpora give the settings column (default: the shipped KB configs)")
    ap.add_argument("--markdown", action="store_true", help="a markdown table, as docs/architecture.md holds")
    a = ap.parse_args(argv)
    table = rows(graphs_of(a.configfile))
    print(markdown(table) if a.markdown else plain(table), end="")
    return 0
