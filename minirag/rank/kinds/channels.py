"""Channel kinds: retrievers that rank by themselves from an index (dense vectors, IVF, BM25)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ...index.ivf import IVFSettings
from ...settings import SettingsError
from ...text.expansion import ExpansionSettings
from ..ranking import Retriever
from .base import RetrieverKind


@dataclass(frozen=True)
class DenseSettings:
    """A dense channel: the embedder whose vectors it ranks by."""
    embedder: str = "hashing"  # whose vectors (embedders: {name: ...})


class Dense(RetrieverKind):
    """Cosine over an embedder's chunk vectors; queries embedded by the same embedder."""
    type, Settings = "dense", DenseSettings

    def embedder(self) -> str:
        return self.s.embedder

    def ranking_embedder(self) -> str:
        return self.s.embedder

    def dense_embedder(self) -> str:
        return self.s.embedder

    def reads(self, graph) -> dict:
        return graph.vectors(self.s.embedder)

    def open(self, sources) -> Retriever:
        """Cosine over its embedder's vectors, checked to be these chunks' (by content hash), its queries
        embedded by the encoder the vectors' sidecar names."""
        from ...index.store import FlatVectorStore
        from ...index.vectors import load_vectors
        from ..retrievers import DenseRetriever
        vectors, sidecar = load_vectors(sources.path("vectors", self.s.embedder, "vectors of embedder"),
                                        sources.chunks, mmap=sources.mmap)  # (N, d)
        store = FlatVectorStore(sources.query_embedder(self.s.embedder, sidecar))
        store.add(sources.chunks, vectors)
        return DenseRetriever(store)

    def describe(self, corpus) -> str:
        return f"dense, {self.s.embedder}"


@dataclass(frozen=True)
class IVFKindSettings(IVFSettings):
    """An IVF channel: the embedder and its index's settings."""
    embedder: str = "hashing"  # whose vectors (embedders: {name: ...}); nlist, nprobe, ...: index/ivf.py


class IVF(RetrieverKind):
    """Approximate cosine search over an embedder's vectors: an IVF index (index/ivf.py) built by
    the ivf rule, scanning `nprobe` of its `nlist` lists per query. The index belongs to its build
    settings, not to the retriever: retrievers (and sweep points) that differ in nprobe alone share
    one, so changing nprobe re-runs retrieve only. A query ranks the rows of its probed lists
    only: fewer than `depth` when those lists hold fewer rows."""
    type, Settings = "ivf", IVFKindSettings
    sweepable = ("nprobe", "nlist")

    def embedder(self) -> str:
        return self.s.embedder

    def ranking_embedder(self) -> str:
        return self.s.embedder

    def ivf_index(self) -> str:
        """The index's name, its folder under ivf/: the embedder and every build setting."""
        return ".".join([self.s.embedder] + [f"{k}={v}" for k, v in self.s.build_settings().items()])

    def reads(self, graph) -> dict:
        return {**graph.vectors(self.s.embedder), **graph.ivf_index(self.ivf_index())}

    def open(self, sources) -> Retriever:
        """Its IVF index over its embedder's vectors: the vectors checked against the chunks as for a dense
        channel, the index refused unless built from them; queries read the index's own copy."""
        from ...index.ivf import load_ivf
        from ...index.vectors import load_vectors, vectors_sidecar_path
        from ..retrievers import IVFRetriever
        npy = sources.path("vectors", self.s.embedder, "vectors of embedder")
        _, sidecar = load_vectors(npy, sources.chunks, mmap=True)  # only the sidecar is needed: do not read (N, d)
        ivf = load_ivf(sources.path("ivf", self.ivf_index(), "IVF index"), vectors_sidecar_path(npy), sidecar)
        return IVFRetriever(ivf, sources.query_embedder(self.s.embedder, sidecar), [c.id for c in sources.chunks],
                            self.s.nprobe)

    def describe(self, corpus) -> str:
        return f"IVF, {self.s.embedder}, nprobe {self.s.nprobe} of {self.s.nlist} lists"

    def controls(self, name, corpus) -> list[tuple[str, str]]:
        """Set against the exact (flat) dense run over the same vectors: what the approximation costs."""
        return [(f"IVF nprobe {self.s.nprobe}/{self.s.nlist}", other) for other, o in corpus.retrievers.items()
                if o.type == Dense.type and o.s.embedder == self.s.embedder and other not in corpus.swept]


@dataclass(frozen=True)
class BM25KindSettings:
    """A BM25 channel: its index and its query expansion."""
    index: str = "plain"                                 # which index (bm25: {name: ...})
    expand: ExpansionSettings = ExpansionSettings()      # query expansion through a domain's lexicon (text/expansion.py)


class BM25(RetrieverKind):
    """A BM25 index of the corpus's chunks."""
    type, Settings = "bm25", BM25KindSettings

    def index(self) -> str:
        return self.s.index

    def reads(self, graph) -> dict:
        return {**graph.bm25_index(self.s.index), **(graph.lexicon(self.s.expand) if self.s.expand.enabled() else {})}

    def check(self, name, corpus, where) -> None:
        super().check(name, corpus, where)
        if self.s.expand.enabled() and corpus.bm25[self.s.index].analyzer.char_ngrams:
            raise SettingsError(f"{where}.expand: index {self.s.index!r} holds character n-grams; "
                                "query expansion needs an index of words")

    def open(self, sources) -> Retriever:
        """Its index, whose rows are checked, like vectors, to hold these chunks' (or units') texts; queries
        expanded as its `expand` says, through the lexicon."""
        from ...artifacts.integrity import load_json, read_by_job
        from ...index.bm25.index import load_bm25
        from ...index.rows import check_rows, item_rows
        from ..retrievers import BM25Retriever
        directory = sources.path("bm25", self.s.index, "BM25 index")
        bm = load_bm25(directory)
        items = load_json(directory / "items.json", "BM25 index")
        over_units = items.get("items") == "units"
        expander = sources.expander(bm.analyzer, self.s.expand)
        units = sources.given("units")
        if over_units and units is not None and read_by_job(directory / "items.json", units):
            # its job read this very units.jsonl (the sha256 its receipt records): the rows are these units,
            # so their ids and chunks come from the rows, without reading 3,000 units to hash each one
            rows = items["rows"]
            check_rows(directory / "items.json", rows, [list(r) for r in rows], bm.n_items, "bm25")
            return BM25Retriever(bm, [r[0] for r in rows], [r[2] for r in rows], expander)
        expected = sources.units if over_units else sources.chunks
        check_rows(directory / "items.json", items["rows"], item_rows(expected, items["with_context"], over_units),
                   bm.n_items, "bm25")
        if over_units:
            return BM25Retriever(bm, [u.id for u in expected], [u.metadata["parent"] for u in expected], expander)
        return BM25Retriever(bm, [c.id for c in expected], expander=expander)

    def describe(self, corpus) -> str:
        return corpus.bm25[self.s.index].describe() + self.s.expand.describe()

    # (mechanism, index setting, its value without the mechanism)
    INDEX_MECHANISMS: ClassVar[tuple[tuple[str, str, Any], ...]] = (
        ("title field", "title_weight", 0.0), ("context", "with_context", False), ("children", "items", "chunks"))

    def controls(self, name, corpus) -> list[tuple[str, str]]:
        """Each mechanism is set against a BM25 run that differs only by lacking it: an index
        without the title field, the context or the children (units), or a query not expanded."""
        mine, bm25 = corpus.bm25[self.s.index], [(r, k) for r, k in corpus.retrievers.items() if k.type == self.type]
        out = []
        for mechanism, key, off in self.INDEX_MECHANISMS:
            if getattr(mine, key) != off:
                without = replace(mine, **{key: off})
                out += [(mechanism, other) for other, o in bm25
                        if corpus.bm25[o.s.index] == without and o.s.expand == self.s.expand]
        if self.s.expand.enabled():
            out += [("expansion" + self.s.expand.describe().removeprefix(", expanded"), other)
                    for other, o in bm25 if o.s.index == self.s.index and not o.expansion().enabled()]
        return out
