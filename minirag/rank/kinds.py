"""The retriever kinds a config can name (`retrievers: {name: {type: ...}}`), one small class each.

A kind holds everything minirag knows about it:
- `Settings`, its settings dataclass: the only home of its defaults and bounds;
- `family`: "channel" ranks by itself from an index; "fusion" combines the runs it names
  in `of`; "diversifier" re-orders the run it names in `base`;
- `sweepable`: the settings a `sweep:` may vary (each point becomes its own run);
- what it reads: `upstream()` (retrievers whose runs it combines), `embedder()` (whose
  vectors), `index()` (which BM25 index);
- how it ranks: a channel `open`s a retriever from the artifacts; the others `combine` one
  query's input rankings (a reranker looks at the query and the chunks too), on run files
  in the retrieve stage and on live retrievers (`ComposedRetriever`) for `search`/`answer`,
  so both rank alike;
- how the report shows it: `describe(cc)` and `controls(cc)`, the runs to set it against.

Config checks, the retrieve rule's inputs, the retrieve stage, the live loader and the
report loop over `KINDS`; a new kind is one subclass here (it registers itself) and its test.

What it leaves out: the formulas (fusion.py, diversify.py), loading artifacts (live.py
hands a kind its `sources`), and the config's sweep expansion (config/corpus.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Mapping, Sequence

from ..settings import Kind, SettingsError, setting, settings_from_dict
from .diversify import mmr, source_cap
from .fusion import linear_fusion, reciprocal_rank_fusion
from .ranking import Ranking, Retriever

KINDS: dict[str, type["RetrieverKind"]] = {}


class RetrieverKind(Kind):
    registry, label = KINDS, "retriever type"
    not_settings = ("type", "sweep", "sweep_of", "sweep_param")  # a sweep is the config's, not the kind's
    family: ClassVar[str] = "channel"
    sweepable: ClassVar[tuple[str, ...]] = ()
    upstream_key: ClassVar[str] = ""  # the setting that names the runs it reads ("of", "base")

    # what it reads
    def upstream(self) -> list[str]:
        return []

    def embedder(self) -> str | None:
        return None

    def index(self) -> str | None:
        return None

    def check(self, name: str, cc: Mapping[str, Any], where: str) -> None:
        """Every name this kind refers to exists; errors name the key."""
        for other in self.upstream():
            if other not in cc["retrievers"]:
                raise SettingsError(f"{where}.{self.upstream_key}: unknown retriever {other!r} "
                                    f"(have: {', '.join(cc['retrievers'])})")
            if other == name:
                raise SettingsError(f"{where}.{self.upstream_key}: a retriever cannot take its own run as input")
        if self.embedder() is not None and self.embedder() not in cc["embedders"]:
            raise SettingsError(f"{where}.embedder: unknown embedder {self.embedder()!r} "
                                f"(have: {', '.join(cc['embedders']) or 'none'})")
        if self.index() is not None and self.index() not in cc["bm25"]:
            raise SettingsError(f"{where}.index: unknown bm25 index {self.index()!r} "
                                f"(have: {', '.join(cc['bm25']) or 'none'})")

    # how it ranks
    def open(self, sources) -> Retriever:
        raise NotImplementedError(f"{self.type} combines other runs; use combine()")

    def combine(self, query: str, rankings: Sequence[Ranking], sources, depth: int) -> Ranking:
        raise NotImplementedError(f"{self.type} ranks by itself; use open()")

    # how the report shows it
    def describe(self, cc: Mapping[str, Any]) -> str:
        raise NotImplementedError

    def controls(self, name: str, cc: Mapping[str, Any]) -> list[tuple[str, str]]:
        """(mechanism, run without it) pairs: what this run adds, and the run to set it against."""
        return []


# ------------------------------------------------------------------ channels

@dataclass(frozen=True)
class DenseSettings:
    embedder: str = "hashing"  # whose vectors (embedders: {name: ...})


class Dense(RetrieverKind):
    """Cosine over an embedder's chunk vectors; queries embedded by the same embedder."""
    type, Settings = "dense", DenseSettings

    def embedder(self) -> str:
        return self.s.embedder

    def open(self, sources) -> Retriever:
        return sources.dense(self.s.embedder)

    def describe(self, cc) -> str:
        return f"dense, {self.s.embedder}"


@dataclass(frozen=True)
class BM25KindSettings:
    index: str = "plain"  # which index (bm25: {name: ...})


class BM25(RetrieverKind):
    """A BM25 index of the corpus's chunks."""
    type, Settings = "bm25", BM25KindSettings

    def index(self) -> str:
        return self.s.index

    def open(self, sources) -> Retriever:
        return sources.bm25(self.s.index)

    def describe(self, cc) -> str:
        return cc_bm25(cc, self.s.index).describe()

    def controls(self, name, cc) -> list[tuple[str, str]]:
        """A title field is set against a BM25 run whose index differs only by having none."""
        mine = cc_bm25(cc, self.s.index)
        if not mine.title_weight:
            return []
        without = {**cc["bm25"][self.s.index], "title_weight": 0.0}
        return [("title field", other) for other, spec in cc["retrievers"].items()
                if spec["type"] == self.type and cc["bm25"][spec["index"]] == without]


def cc_bm25(cc, index: str):
    from ..index.bm25 import BM25Settings
    return settings_from_dict(BM25Settings, cc["bm25"][index], f"bm25.{index}")


# ------------------------------------------------------------------ fusions

@dataclass(frozen=True)
class RRFSettings:
    of: tuple[str, ...] = setting(min_items=2)  # the retrievers whose runs are fused
    k: int = setting(60, minimum=1)             # the constant of Cormack et al. 2009


class RRF(RetrieverKind):
    """Reciprocal Rank Fusion of the runs in `of`, each contributing its top max(depth, 20)."""
    type, Settings, family, sweepable, upstream_key = "rrf", RRFSettings, "fusion", ("k",), "of"

    def upstream(self) -> list[str]:
        return list(self.s.of)

    def combine(self, query, rankings, sources, depth) -> Ranking:
        n = max(depth, 20)
        return reciprocal_rank_fusion([r[:n] for r in rankings], self.s.k, top_k=depth)

    def describe(self, cc) -> str:
        return f"RRF k={self.s.k} of {' + '.join(self.s.of)}"


@dataclass(frozen=True)
class LinearSettings:
    of: tuple[str, ...] = setting(min_items=2)           # the retrievers whose scores are fused
    alpha: float = setting(0.6, minimum=0, maximum=1)    # weight of the first of `of` (the seed's 0.6 dense); 1 - alpha the second
    norm: Literal["minmax", "zscore"] = "minmax"         # how each ranking's scores are normalised first
    weights: tuple[float, ...] = ()                      # one weight per run of `of`, instead of alpha

    def check(self, where: str) -> None:
        if self.weights and len(self.weights) != len(self.of):
            raise SettingsError(f"{where}.weights: one weight per retriever in 'of' ({len(self.of)})")
        if not self.weights and len(self.of) != 2:
            raise SettingsError(f"{where}.weights: alpha weighs two runs; give one weight per retriever in 'of'")

    def resolved_weights(self) -> list[float]:
        return list(self.weights) or [self.alpha, 1.0 - self.alpha]


class Linear(RetrieverKind):
    """A weighted sum of normalised scores of the runs in `of` (the seed write-up's hybrid)."""
    type, Settings, family, sweepable, upstream_key = "linear", LinearSettings, "fusion", ("alpha",), "of"

    def upstream(self) -> list[str]:
        return list(self.s.of)

    def combine(self, query, rankings, sources, depth) -> Ranking:
        return linear_fusion(rankings, self.s.resolved_weights(), norm=self.s.norm, top_k=depth)

    def describe(self, cc) -> str:
        weights = list(self.s.weights) or [self.s.alpha, round(1 - self.s.alpha, 6)]
        return f"linear {self.s.norm} {'/'.join(f'{w:g}' for w in weights)} of {' + '.join(self.s.of)}"


# ------------------------------------------------------------------ diversifiers

@dataclass(frozen=True)
class CapSettings:
    base: str = setting(min_length=1)      # the retriever whose run is capped
    cap: int = setting(2, minimum=1)       # at most this many chunks per document, in rank order


class Cap(RetrieverKind):
    """At most `cap` chunks of one document in the top (the seed write-up's per-source cap)."""
    type, Settings, family, sweepable, upstream_key = "cap", CapSettings, "diversifier", ("cap",), "base"

    def upstream(self) -> list[str]:
        return [self.s.base]

    def combine(self, query, rankings, sources, depth) -> Ranking:
        return source_cap(rankings[0], sources.doc_of, cap=self.s.cap, k=depth)

    def describe(self, cc) -> str:
        return f"{self.s.base} + {self.mechanism()}"

    def mechanism(self) -> str:
        return f"cap {self.s.cap} per document"

    def controls(self, name, cc) -> list[tuple[str, str]]:
        return [(self.mechanism(), self.s.base)]


@dataclass(frozen=True)
class MMRSettings:
    base: str = setting(min_length=1)                             # the retriever whose run is re-picked
    lambda_: float = setting(0.7, key="lambda", minimum=0, maximum=1)  # relevance vs novelty (Carbonell & Goldstein 1998)
    embedder: str = "hashing"                                     # whose chunk vectors measure redundancy
    pool: int = setting(100, minimum=1)                           # candidates of the base run considered


class MMR(RetrieverKind):
    """Maximal Marginal Relevance over the top `pool` of the base run."""
    type, Settings, family, sweepable, upstream_key = "mmr", MMRSettings, "diversifier", ("lambda",), "base"

    def upstream(self) -> list[str]:
        return [self.s.base]

    def embedder(self) -> str:
        return self.s.embedder

    def combine(self, query, rankings, sources, depth) -> Ranking:
        return mmr(rankings[0], sources.vectors_by_id(self.s.embedder), lam=self.s.lambda_, k=depth, pool=self.s.pool)

    def describe(self, cc) -> str:
        return f"{self.s.base} + {self.mechanism()}"

    def mechanism(self) -> str:
        return f"MMR λ={self.s.lambda_:g}"

    def controls(self, name, cc) -> list[tuple[str, str]]:
        return [(self.mechanism(), self.s.base)]


# ------------------------------------------------------------------ composition

class ComposedRetriever:
    """A fusion or diversifier over live retrievers, each asked for `depth` results as in the graph."""

    def __init__(self, kind: RetrieverKind, inputs: Sequence[Retriever], sources, depth: int):
        self.kind, self.inputs, self.sources, self.depth = kind, list(inputs), sources, depth

    def search(self, query: str, k: int = 5) -> Ranking:
        rankings = [r.search(query, k=self.depth) for r in self.inputs]
        return self.kind.combine(query, rankings, self.sources, self.depth)[:k]


def kind_of(cc: Mapping[str, Any], name: str) -> RetrieverKind:
    """The kind of the config's retriever `name`, with its settings."""
    return RetrieverKind.from_spec(cc["retrievers"][name], f"retrievers.{name}")
