"""The base of every retriever kind and its registry `KINDS`."""

from __future__ import annotations

import ast
import importlib
import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterator, Mapping, Sequence

from ...settings import Kind, SettingsError
from ...text.expansion import ExpansionSettings
from ..ranking import Ranking, Retriever


class KindRegistry(dict):
    """The retriever kinds by type name, each module of rank/kinds/ imported when a kind of it is first asked
    for: a look-up (`in`, `[]`, `get`) imports the one module whose source declares that type (`type = "bm25"`
    in a class body, found by reading the folder's sources), a walk over them all (the schema, an error's list)
    imports every module. So a retrieve job runs its own kind's module alone, and the workflow lists that
    module as its code (stages/retrieve.py `retrieve_code`): adding or editing another kind reruns none of its
    jobs. A class registers itself by being defined (settings.py `Kind`), a test's kind too. The walk's order
    is fixed: the modules by name, each module's kinds in source order, kinds defined elsewhere after them."""

    modules: Callable[[], list[str]] = list  # the folder's modules (rank/kinds/__init__.py sets it)

    def declared(self) -> dict[str, str]:
        """type name -> the module declaring it."""
        return declared_kinds(tuple(self.modules()))

    def module_of(self, kind: Any) -> str | None:
        """The module that declares the kind type `kind`, or None."""
        return self.declared().get(kind) if isinstance(kind, str) else None

    def _load(self, kind: Any) -> None:
        if not dict.__contains__(self, kind) and (module := self.module_of(kind)) is not None:
            importlib.import_module(module)

    def _load_all(self) -> None:
        for module in self.modules():
            importlib.import_module(module)

    def __contains__(self, kind: object) -> bool:
        self._load(kind)
        return dict.__contains__(self, kind)

    def __getitem__(self, kind: str):
        self._load(kind)
        return dict.__getitem__(self, kind)

    def get(self, kind, default=None):
        self._load(kind)
        return dict.get(self, kind, default)

    def __iter__(self) -> Iterator[str]:
        self._load_all()
        declared = list(self.declared())
        elsewhere = [k for k in dict.keys(self) if k not in declared]
        return iter([k for k in declared if dict.__contains__(self, k)] + elsewhere)

    def __len__(self) -> int:
        self._load_all()
        return dict.__len__(self)

    def keys(self):
        return list(self)

    def values(self):
        return [dict.__getitem__(self, k) for k in self]

    def items(self):
        return [(k, dict.__getitem__(self, k)) for k in self]


@cache
def declared_kinds(modules: tuple[str, ...]) -> dict[str, str]:
    """type name -> the module declaring it, read from the modules' sources without importing them: a class
    body's `type = "x"` or `type, ... = "x", ...`; the first module declaring a name holds it."""
    out: dict[str, str] = {}
    for module in modules:
        path = Path(importlib.util.find_spec(module).origin)
        for node in ast.parse(path.read_bytes(), filename=str(path)).body:
            if isinstance(node, ast.ClassDef):
                for name in class_types(node):
                    out.setdefault(name, module)
    return out


def class_types(node: ast.ClassDef) -> list[str]:
    """The string a class body assigns to `type`, alone or in a tuple assignment."""
    out = []
    for stmt in node.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
            pairs = zip(target.elts, value.elts) if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) \
                else [(target, value)]
            out += [v.value for t, v in pairs if isinstance(t, ast.Name) and t.id == "type"
                    and isinstance(v, ast.Constant) and isinstance(v.value, str)]
    return out


KINDS: KindRegistry = KindRegistry()


def kinds_code(kinds: Sequence["RetrieverKind"]) -> dict:
    """The code a job building these kinds runs, as pipeline/depends.py `stage_code` takes it (dotted below the
    top package): `only`, the modules of this folder declaring them, and `also`, what they run besides their
    modules' imports (`runs_also`)."""
    package = __name__.rpartition(".")[0]  # minirag.rank.kinds
    modules = {type(k).__module__ for k in kinds if type(k).__module__.startswith(package + ".")}
    return {"only": {package.partition(".")[2]: sorted(m.partition(".")[2] for m in modules)},
            "also": sorted({m for k in kinds for m in k.runs_also})}


@dataclass
class RetrieveJob:
    """What the retrieve stage hands a kind to rank every question with (`RetrieverKind.rank`)."""
    questions: list[dict]                   # the corpus's questions (qid, query, split, ...), in file order
    inputs: list[dict]                      # the runs of `upstream()`, in that order: qid -> Ranking
    sources: Any                            # query/sources.py `Sources`: the chunks and the files the kind reads
    depth: int                              # how many chunks a ranking holds
    log: Callable[[str], None]              # the stage's log
    judged: Callable[[list[dict]], dict]    # questions -> their qrels over these chunks (evaluation/evaluate.py)
    # (retrievers' job settings by name, name) -> that retriever live, as `search` builds it: for a kind that
    # ranks questions of its own with other retrievers (a fusion fitting on synthetic questions)
    live: Callable[[Mapping[str, Mapping[str, Any]], str], Retriever] | None = None


def file_key(role: str, *names: str) -> str:
    """The key a kind's file goes by, from its job's command line to `Sources`: `vectors:<embedder>`,
    `query:<embedder>:<file>`, `bm25:<index>`, `ivf:<index>`, `reranker:<retriever>`, `lexicon`.
    Config names hold no ':' (settings.NAME_PATTERN), so a key reads back unambiguously."""
    return ":".join((role, *names))


class RetrieverKind(Kind):
    registry, label = KINDS, "retriever type"
    not_settings = ("type", "sweep", "sweep_of", "sweep_param")  # a sweep is the config's, not the kind's
    family: ClassVar[str] = "channel"
    sweepable: ClassVar[tuple[str, ...]] = ()
    upstream_key: ClassVar[str] = ""  # the setting that names the runs it reads ("of", "base")
    embedder_key: ClassVar[str] = "embedder"  # the setting that names the embedder it reads (a reranker's "dense")
    trained: ClassVar[bool] = False   # the graph trains a model for it (train_reranker) before it ranks
    fuses: ClassVar[bool] = False     # it fuses runs: the report sets it against the best of them (its fusion table)
    reorders: ClassVar[bool] = False  # it re-orders one run: the report's ablation table lists it under that run
    scored: ClassVar[bool] = True     # False: its run's scores are positions (n, n-1, ...), not shown to users
    config_keys: ClassVar[tuple[str, ...]] = ()  # the keys of its `config_reads`, beside its settings in a job's
    # modules (below minirag) it runs that its module does not import, reached by name (query/answering.py,
    # through Sources.answer): its jobs list them as their code
    runs_also: ClassVar[tuple[str, ...]] = ()
    name: str = ""                    # the config's name for it (config/typed.py sets it)

    def ranks_alone(self) -> bool:
        """A channel (its family's, not a fusion's or a diversifier's): every fusion may take its run."""
        return self.family == "channel"

    # what it reads
    def upstream(self) -> list[str]:
        return []

    def embedder(self) -> str | None:
        return None

    def index(self) -> str | None:
        return None

    def ivf_index(self) -> str | None:
        """The IVF index it searches (built by the ivf rule), by name."""
        return None

    def ranking_embedder(self) -> str | None:
        """The embedder whose vectors alone rank its run (a dense or IVF channel): the report's notes on a
        pretrained encoder read its runs. None for a kind that ranks otherwise, or re-ranks with vectors."""
        return None

    def dense_embedder(self) -> str | None:
        """The embedder whose vectors rank its run by exact cosine over every chunk (a dense run): what the
        report sets a trained encoder's runs against the control's with. None for every other kind."""
        return None

    def reader(self) -> str | None:
        """The config's reader it answers with while it ranks (a feedback run), if any."""
        return None

    def reads(self, graph) -> dict:
        """The files its retrieve job reads besides the questions, the chunks and its input runs, by
        `file_key`: what its live retriever opens (through `Sources`) and what a server hashes.
        `graph` is the corpus's CorpusGraph (pipeline/graph.py), which knows where each file is."""
        return {}

    def serves(self, graph) -> dict:
        """What a server reads to rank as its run does: its job's reads, and what its job wrote for it."""
        return self.reads(graph)

    def training_reads(self, graph) -> dict:
        """A `trained` kind: what its training job (train_reranker) reads besides the corpus and questions."""
        return {}

    def retrieve_settings(self) -> dict:
        """What its retrieve job reads of its settings, serialised: all of them, unless its kind says."""
        return self.spec()

    def config_reads(self, corpus) -> dict:
        """The part of the config beyond its own settings it ranks with (a feedback run: its reader's settings;
        a fusion fitting on synthetic questions: the settings of the retrievers feeding it),
        as the retrieve job's settings carry it (a change reruns the job); `bind` hands it back."""
        return {}

    def bind(self, part: Mapping[str, Any]) -> None:
        """Take `config_reads`'s part of the config (from the config, or from the retrieve job's settings)."""

    def expansion(self) -> ExpansionSettings:
        """How it expands queries with the lexicon stage's translations and forms (off unless set)."""
        return getattr(self.s, "expand", ExpansionSettings())

    def check(self, name: str, corpus, where: str) -> None:
        """Every name this kind refers to exists in the corpus's config; errors name the key."""
        for other in self.upstream():
            if other not in corpus.retrievers:
                raise SettingsError(f"{where}.{self.upstream_key}: unknown retriever {other!r} "
                                    f"(have: {', '.join(corpus.retrievers)})")
            if other == name:
                raise SettingsError(f"{where}.{self.upstream_key}: a retriever cannot take its own run as input")
        if self.embedder() is not None and self.embedder() not in corpus.embedders:
            raise SettingsError(f"{where}.{self.embedder_key}: unknown embedder {self.embedder()!r} "
                                f"(have: {', '.join(corpus.embedders) or 'none'})")
        if self.expansion().persons > 0 and self.expansion().tenses == 0:
            raise SettingsError(f"{where}.expand.persons: weighs up the forms of the query's tense in its person; "
                                "set expand.tenses too")
        if self.index() is not None and self.index() not in corpus.bm25:
            raise SettingsError(f"{where}.index: unknown bm25 index {self.index()!r} "
                                f"(have: {', '.join(corpus.bm25) or 'none'})")

    # how it ranks: by itself from what it reads (a channel), unless it is `Combining`
    def open(self, sources) -> Retriever:
        raise NotImplementedError(f"{self.type} combines other runs; use combine()")

    def combine(self, query: str, rankings: Sequence[Ranking], sources, depth: int) -> Ranking:
        raise NotImplementedError(f"{self.type} ranks by itself; use open()")

    def rank(self, job: RetrieveJob) -> tuple[list[Ranking], dict | None]:
        """Every question's ranking (the retrieve stage's run), and what its receipt records beyond
        the files (None: nothing). A channel opens itself and ranks the questions in one batch."""
        channel = self.open(job.sources)
        ranked = channel.search_batch([q["query"] for q in job.questions], job.depth)
        if hasattr(channel, "computations"):  # an approximate index: how much of the flat scan it made
            job.log(f"retrieve: {channel.computations / max(len(job.questions), 1):.0f} distance computations "
                    f"per query ({len(job.sources.chunks)} rows)")
        return ranked, None

    def live(self, sources, upstream: Callable[[str], Retriever], depth: int) -> Retriever:
        """The retriever that ranks as its run does, for `search`/`answer` (`upstream(name)`: the live
        retriever of a run it reads, each asked for `depth` results). A channel opens itself."""
        return self.open(sources)

    # how the report shows it
    def describe(self, corpus) -> str:
        raise NotImplementedError

    def controls(self, name: str, corpus) -> list[tuple[str, str]]:
        """(mechanism, run without it) pairs: what this run adds, and the run to set it against."""
        return []


class Combining(RetrieverKind):
    """A kind that ranks by combining its `upstream()` runs, query by query (`combine`): in the retrieve
    stage over their run files, live over their retrievers (`ComposedRetriever`), so both rank alike."""
    family = "fusion"  # or "diversifier" (reorders.py): config/ and `built_corpus` name it

    def combine(self, query: str, rankings: Sequence[Ranking], sources, depth: int) -> Ranking:
        raise NotImplementedError(f"{self.type} combines its upstream runs: it implements combine()")

    def rank(self, job: RetrieveJob) -> tuple[list[Ranking], dict | None]:
        return [self.combine(q["query"], [r.get(q["qid"], []) for r in job.inputs], job.sources, job.depth)
                for q in job.questions], None

    def live(self, sources, upstream: Callable[[str], Retriever], depth: int) -> Retriever:
        inputs = [upstream(r) for r in self.upstream()]  # ordered as their run files
        return ComposedRetriever(self, inputs, sources, depth)


class ComposedRetriever:
    """A fusion, diversifier or reranker over live retrievers, each asked for `depth` results as in the graph."""

    def __init__(self, kind: Combining, inputs: list[Retriever], sources, depth: int):
        self.kind, self.inputs, self.sources, self.depth = kind, inputs, sources, depth

    def search(self, query: str, k: int = 5) -> Ranking:
        rankings = [r.search(query, k=self.depth) for r in self.inputs]
        return self.kind.combine(query, rankings, self.sources, self.depth)[:k]


# What a retrieve job's settings carry beside a kind's own and its `config_keys`: the corpus's depth
# (stages/retrieve.py retrieve_settings).
JOB_KEYS = ("depth",)


def job_kind(settings: Mapping[str, Any], name: str) -> RetrieverKind:
    """The kind of a retrieve job's retriever `name`, from the job's settings: its own settings, bound to
    the part of the config it ranks with (`config_reads`, which the job's settings carry too)."""
    found = KINDS.get(settings.get("type"))
    beside = JOB_KEYS + (found.config_keys if found is not None else ())
    kind = RetrieverKind.from_spec({k: v for k, v in settings.items() if k not in beside}, f"retrievers.{name}")
    kind.name = name
    kind.bind(settings)
    return kind


