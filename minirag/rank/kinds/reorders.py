"""Kinds that re-order one run: a per-document cap, MMR, a learned reranker (and `Reorder`, their base)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from ...settings import SettingsError, setting
from ...text.analyze import AnalyzerConfig
from ...text.expansion import ExpansionSettings
from ..diversify import mmr, source_cap
from ..ranking import Ranking
from ..rerank import DEFAULT_ANALYZER, rerank
from .base import Combining


class Reorder(Combining):
    """A kind that re-orders the run named in its `base` (or `of`) setting; `mechanism` names
    what it adds, and the report sets it against that run. Its run's scores are positions, so
    `search` and `answer` show none (`score`: null)."""
    family, upstream_key, scored, reorders = "diversifier", "base", False, True

    def upstream(self) -> list[str]:
        return [getattr(self.s, self.upstream_key)]

    def ablation_key(self) -> tuple:
        """Where the report's ablation table lists it among the runs re-ordering the same run: by type."""
        return (self.type, 0)

    def mechanism(self) -> str:
        raise NotImplementedError

    def describe(self, corpus) -> str:
        return f"{self.upstream()[0]} + {self.mechanism()}"

    def controls(self, name, corpus) -> list[tuple[str, str]]:
        return [(self.mechanism(), self.upstream()[0])]


@dataclass(frozen=True)
class CapSettings:
    """At most `cap` chunks per document in a run."""
    base: str = setting(min_length=1)      # the retriever whose run is capped
    cap: int = setting(2, minimum=1)       # at most this many chunks per document, in rank order


class Cap(Reorder):
    """At most `cap` chunks of one document in the top (the seed write-up's per-source cap)."""
    type, Settings, sweepable = "cap", CapSettings, ("cap",)

    def combine(self, query, rankings, sources, depth) -> Ranking:
        doc_of = sources.cached(("doc_of",), lambda: {c.id: c.doc_id for c in sources.chunks})
        return source_cap(rankings[0], doc_of, cap=self.s.cap, k=depth)

    def mechanism(self) -> str:
        return f"cap {self.s.cap} per document"


@dataclass(frozen=True)
class MMRSettings:
    """A run re-picked for relevance and novelty (MMR)."""
    base: str = setting(min_length=1)                             # the retriever whose run is re-picked
    lambda_: float = setting(0.7, key="lambda", minimum=0, maximum=1)  # relevance vs novelty (Carbonell & Goldstein 1998)
    embedder: str = "hashing"                                     # whose chunk vectors measure redundancy
    pool: int = setting(100, minimum=1)                           # candidates of the base run considered


class MMR(Reorder):
    """Maximal Marginal Relevance over the top `pool` of the base run."""
    type, Settings, sweepable = "mmr", MMRSettings, ("lambda",)

    def embedder(self) -> str:
        return self.s.embedder

    def reads(self, graph) -> dict:
        return graph.vectors(self.s.embedder)

    def ablation_key(self) -> tuple:
        """By type, then λ."""
        return (self.type, self.s.lambda_)

    def combine(self, query, rankings, sources, depth) -> Ranking:
        return mmr(rankings[0], self.vectors_by_id(sources), lam=self.s.lambda_, k=depth, pool=self.s.pool)

    def vectors_by_id(self, sources):
        """chunk id -> its embedder's vector, checked against the chunks, read once per sources."""
        from ...index.vectors import load_vectors_by_id
        return sources.cached(("vectors_by_id", self.s.embedder), lambda: load_vectors_by_id(
            sources.path("vectors", self.s.embedder, "vectors of embedder"), sources.chunks, mmap=sources.mmap))

    def mechanism(self) -> str:
        return f"MMR λ={self.s.lambda_:g}"


@dataclass(frozen=True)
class RerankSettings:
    """A learned reranker of a run's top candidates."""
    of: str = setting(min_length=1)                  # the retriever whose top `candidates` are re-scored
    model: Literal["logistic"] = "logistic"          # rank/rerank.py: features weighed by logistic regression
    candidates: int = setting(100, minimum=1)        # the top N re-scored; the rest keep their order after them
    synthetic: int = setting(1000, minimum=0)        # questions synthesized from tables and headings (dev: 1000 > 300, 3000)
    dev: bool = True                                 # also train on the dev split's questions (never on test)
    train_qrels: bool = False                        # also on the judged queries of source.train_split (BEIR)
    l2: float = setting(1.0, minimum=0)              # regularisation of the weights
    seed: int = 0                                    # which synthetic questions, which misspellings
    analyzer: AnalyzerConfig = DEFAULT_ANALYZER      # how query and chunk words are matched by the features
    expand: ExpansionSettings = ExpansionSettings()  # query words matched through their translations and forms
    dense: str = ""                                  # an embedder: its query-chunk cosine is a feature too ("": none)


class Rerank(Reorder):
    """A learned reranker over the top `candidates` of the run `of` (rank/rerank.py); its model is
    trained by the train_reranker stage into rerankers/<name>.npz."""
    type, Settings, sweepable, upstream_key = "rerank", RerankSettings, ("candidates",), "of"
    embedder_key = "dense"
    trained = True

    def embedder(self) -> str | None:
        """The embedder of its dense features (rank/rerank_dense.py), if it has them."""
        return self.s.dense or None

    def features(self) -> tuple[str, ...]:
        from ..rerank_dense import feature_names
        return feature_names(bool(self.s.dense))

    def check(self, name, corpus, where) -> None:
        super().check(name, corpus, where)
        src = corpus.source
        if self.s.train_qrels and not (src.format == "beir" and src.train_split):
            raise SettingsError(f"{where}.train_qrels: needs a BEIR source with source.train_split")

    def reads(self, graph) -> dict:
        return {**graph.reranker(self.name), **(graph.lexicon(self.s.expand) if self.s.expand.enabled() else {}),
                **(graph.vectors(self.s.dense) if self.s.dense else {})}

    def training_reads(self, graph) -> dict:
        """The run whose candidates it learns to re-order, the lexicon its features expand with, a BEIR
        training split when it learns from its qrels too, and its dense features' vectors and encoder."""
        return {"run": str(graph.layout.run(self.upstream()[0])),
                **(graph.lexicon(self.s.expand) if self.s.expand.enabled() else {}),
                **(graph.beir_training() if self.s.train_qrels else {}),
                **({"files": graph.vectors(self.s.dense)} if self.s.dense else {})}

    def combine(self, query, rankings, sources, depth) -> Ranking:
        model = self.model(sources)
        head = rankings[0][: self.s.candidates]
        x = self.feature_matrix(query, head, sources, model)  # (N, F)
        return rerank(rankings[0], x, model["w"], model["b"], self.s.candidates)[:depth]

    def model(self, sources) -> dict:
        """Its trained weights (rerankers/<name>.npz), checked against their receipt and to be over its
        features; read once per sources, so a live retriever ranks with the weights it was opened with even if
        the graph rewrites them."""
        from ..rerank import load_model
        return sources.cached(("reranker", self.name), lambda: load_model(
            sources.path("reranker", self.name, "reranker model of"), self.features()))

    def feature_matrix(self, query, head, sources, model) -> np.ndarray:
        """(len(head), len(self.features())): the count features, then the dense ones when it has them."""
        features = sources.features(self.s.analyzer, self.s.expand, model.get("df"), model.get("codes"))
        x = features.features(query, head, sources.chunks_by_id)  # (N, F)
        if self.s.dense:
            x = np.hstack([x, self.dense_features(sources).features(query, head)])  # (N, F + 1)
        return x

    def dense_features(self, sources):
        """Its dense features over its `dense` embedder (rank/rerank_dense.py): the vectors checked against the
        chunks as for a dense channel, the query side the encoder they were made with; built once per sources."""
        from ...index.vectors import load_vectors
        from ..rerank_dense import DenseFeatures

        def build():
            vectors, sidecar = load_vectors(sources.path("vectors", self.s.dense, "vectors of embedder"),
                                            sources.chunks, mmap=sources.mmap)  # (N, d)
            return DenseFeatures(sources.query_embedder(self.s.dense, sidecar), vectors, [c.id for c in sources.chunks])
        return sources.cached(("dense_features", self.s.dense), build)

    def mechanism(self) -> str:
        return f"learned rerank of the top {self.s.candidates}" + (f" with {self.s.dense}'s cosine" if self.s.dense else "")

    def controls(self, name, corpus) -> list[tuple[str, str]]:
        """Set against its input run and, with dense features, against a reranker that differs only by lacking them."""
        out = super().controls(name, corpus)
        if self.s.dense:
            mine = replace(self.s, dense="")
            out += [(f"{self.s.dense}'s cosine as a feature", other) for other, o in corpus.retrievers.items()
                    if other != name and o.type == self.type and o.s == mine
                    and corpus.swept.get(other) == corpus.swept.get(name)]
        return out
