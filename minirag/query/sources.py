"""Built artifacts back into retrievers: what `search`, `answer` and the retrieve stage rank with.

`Sources` resolves what a retriever kind asks for (rank/kinds.py) to files and loads it
checked: an embedder's vectors aligned with the chunks by content hash, the query-side
embedder rebuilt from the vectors' sidecar (refusing an encoder or tokenizer other than
the ones the vectors were made with), an IVF index built from those very vectors, a BM25
index whose items are the chunks.
`open_retriever` rebuilds any retriever of the config from the layout, fusions and
diversifiers over their inputs recursively, ranking exactly as its run file does.
A missing artifact is reported with the command that builds it.

Every file is checked against its job's receipt before it is used (integrity.py).

What it leaves out: building anything (the stages do) and the call site (answer/rag.py).
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Mapping

from ..artifacts.integrity import load_json
from ..artifacts.layout import CorpusLayout
from ..artifacts.missing import MissingArtifact, require
from ..evaluation.trec import trec_order
from ..index.embedders import EMBEDDERS, embedder_kind
from ..index.rows import check_rows, item_rows
from ..index.store import FlatVectorStore
from ..index.vectors import load_vectors, load_vectors_by_id, vectors_sidecar_path
from ..rank.kinds import RetrieverKind, kind_of
from ..rank.ranking import Ranking, Retriever
from ..rank.retrievers import BM25Retriever, DenseRetriever, IVFRetriever
from ..text.chunks import Chunk, load_chunks


class Sources:
    """The artifacts a retriever kind reads, by name: vectors of an embedder, a BM25 index.

    `vectors` maps an embedder name to its .npy, `query_files` to the files its query side
    needs (embedders.py `files`), `indexes` a BM25 index name to its folder, `ivf` an IVF
    index name to its folder.
    """

    def __init__(self, chunks: list[Chunk], vectors: Mapping[str, Path] | None = None,
                 query_files: Mapping[str, Mapping[str, Path]] | None = None,
                 indexes: Mapping[str, Path] | None = None, units: tuple[Path, Path] | None = None,
                 models: Mapping[str, Path] | None = None, lexicon: Path | None = None,
                 ivf: Mapping[str, Path] | None = None, mmap: bool = False,
                 fits: Mapping[str, Path] | None = None):
        self.chunks = chunks
        self._fits = fits or {}  # receipts of fusions whose weights the retrieve stage fitted
        self.mmap = mmap  # vectors as read-only memory maps (a build stage); in RAM for a server
        self._ivf = ivf or {}
        self._vectors, self._query_files, self._indexes = vectors or {}, query_files or {}, indexes or {}
        self._units = units  # (units.jsonl, docs.jsonl), for indexes over units
        self._models = models or {}  # reranker models by retriever name
        self._lexicon = lexicon      # the lexicon stage's file, for query expansion
        self._features: dict = {}
        self._expanders: dict = {}
        self._rerankers: dict = {}
        self._by_id: dict = {}

    @classmethod
    def from_layout(cls, layout: CorpusLayout, cc: dict, chunks: list[Chunk]) -> "Sources":
        from ..config.corpus import ivf_indexes  # here, not at the top: the retrieve stage never imports the config
        return cls(chunks, {e: layout.vectors(e) for e in cc["embedders"]},
                   {e: embedder_kind(cc, e).files(layout, e) for e in cc["embedders"]},
                   {i: layout.bm25(i) for i in cc["bm25"]}, (layout.units, layout.docs),
                   {r: layout.reranker(r) for r in cc["retrievers"] if kind_of(cc, r).trained}, layout.lexicon,
                   {i: layout.ivf(i) for i in ivf_indexes(cc)},
                   fits={r: layout.receipt("retrieve", r) for r in cc["retrievers"] if cc["retrievers"][r].get("fit")})

    @cached_property
    def units(self) -> list[Chunk]:
        if self._units is None:
            raise MissingArtifact("no units.jsonl was given to this stage")
        return load_chunks(*self._units)

    @cached_property
    def doc_of(self) -> dict[str, str]:
        return {c.id: c.doc_id for c in self.chunks}

    @cached_property
    def chunks_by_id(self) -> dict[str, Chunk]:
        return {c.id: c for c in self.chunks}

    def features(self, analyzer, expansion, stored: dict | None = None):
        """The reranker's feature maker over these chunks (one per analyzer and expansion, built once;
        `stored`: the document frequencies a trained reranker's sidecar holds, read if they are these
        chunks')."""
        from ..rank.rerank import FeatureMaker
        from ..text.analyze import Analyzer
        if (analyzer, expansion) not in self._features:
            a = Analyzer(analyzer)
            self._features[analyzer, expansion] = FeatureMaker(a, self.chunks, self.expander(a, expansion), stored)
        return self._features[analyzer, expansion]

    def read_all_chunks(self) -> None:
        """Every feature maker opened so far reads every chunk now: a server pays it once at start
        rather than on the first queries that rank each chunk."""
        for maker in self._features.values():
            for c in self.chunks:
                maker.code(c)

    def reranker(self, name: str) -> dict:
        """A trained reranker's weights, checked against its receipt; read once, so a live retriever
        ranks with the weights it was opened with even if the graph rewrites them."""
        from ..rank.rerank import load_model
        if name not in self._rerankers:
            self._rerankers[name] = load_model(self._path(self._models, name, "reranker model of"))
        return self._rerankers[name]

    def fitted_weights(self, name: str) -> list[float]:
        """The weights the retrieve stage fitted for the fusion `name`, from its run's receipt."""
        from ..artifacts.io import read_json
        receipt = read_json(self._path(self._fits, name, "receipt of the fitted fusion"))
        if not isinstance(receipt, dict) or "weights" not in receipt.get("fitted", {}):
            raise MissingArtifact(f"{self._fits[name]}: no fitted weights; re-run retrieve {name}")
        return [float(w) for w in receipt["fitted"]["weights"]]

    def _path(self, table: Mapping[str, Path], name: str, what: str) -> Path:
        if name not in table:
            raise MissingArtifact(f"no {what} {name!r} was given to this stage")
        return require(table[name], f"{what} {name!r}")

    def query_embedder(self, embedder: str, sidecar: dict):
        """The query side of `embedder`, as its vectors' sidecar describes it."""
        files = {k: require(p, f"{k} of embedder {embedder!r}") for k, p in self._query_files.get(embedder, {}).items()}
        kind = EMBEDDERS.get(sidecar["params"].get("type"))
        if kind is None:
            raise ValueError(f"{self._vectors[embedder]}: vectors of an unknown embedder type {sidecar['params'].get('type')!r}")
        return kind.query_embedder(sidecar, files)

    def dense(self, embedder: str) -> DenseRetriever:
        vectors, sidecar = load_vectors(self._path(self._vectors, embedder, "vectors of embedder"), self.chunks,
                                        mmap=self.mmap)  # (N, d)
        store = FlatVectorStore(self.query_embedder(embedder, sidecar))
        store.add(self.chunks, vectors)
        return DenseRetriever(store)

    def ivf(self, index: str, embedder: str, nprobe: int) -> IVFRetriever:
        """An IVF index over `embedder`'s vectors: the vectors checked against the chunks as for
        `dense`, the index refused unless built from them; queries read the index's own copy."""
        from ..index.ivf import load_ivf
        npy = self._path(self._vectors, embedder, "vectors of embedder")
        _, sidecar = load_vectors(npy, self.chunks, mmap=True)  # only the sidecar is needed: do not read (N, d)
        ivf = load_ivf(self._path(self._ivf, index, "IVF index"), vectors_sidecar_path(npy), sidecar)
        return IVFRetriever(ivf, self.query_embedder(embedder, sidecar), [c.id for c in self.chunks], nprobe)

    def vectors_by_id(self, embedder: str):
        """chunk id -> vector (for MMR), read and checked once."""
        if embedder not in self._by_id:
            self._by_id[embedder] = load_vectors_by_id(self._path(self._vectors, embedder, "vectors of embedder"),
                                                       self.chunks, mmap=self.mmap)
        return self._by_id[embedder]

    def expander(self, analyzer, settings):
        """The query expander of the lexicon stage's file (None when `settings` expand nothing), built once
        per analyzer settings and expansion: an expanded BM25 channel and a reranker over it share one."""
        if not settings.enabled():
            return None
        from ..text.expand import QueryExpander
        if self._lexicon is None:
            raise MissingArtifact("no lexicon was given to this stage (query expansion needs one)")
        key = (analyzer.config, settings)
        if key not in self._expanders:
            self._expanders[key] = QueryExpander.from_file(require(self._lexicon, "lexicon"), analyzer, settings)
        return self._expanders[key]

    def bm25(self, index: str, expansion=None) -> BM25Retriever:
        """A BM25 index whose rows are checked, like vectors, to hold these chunks' texts;
        queries expanded as `expansion` (ExpansionSettings) says."""
        from ..index.bm25.index import load_bm25
        directory = self._path(self._indexes, index, "BM25 index")
        bm = load_bm25(directory)
        items = load_json(directory / "items.json", "BM25 index")
        over_units = items.get("items") == "units"
        expander = self.expander(bm.analyzer, expansion) if expansion is not None else None
        if over_units and self._units is not None and read_by_job(directory / "items.json", self._units[0]):
            # its job read this very units.jsonl (the sha256 its receipt records): the rows are these units,
            # so their ids and chunks come from the rows, without reading 3,000 units to hash each one
            rows = items["rows"]
            check_rows(directory / "items.json", rows, [list(r) for r in rows], bm.n_items, "bm25")
            return BM25Retriever(bm, [r[0] for r in rows], [r[2] for r in rows], expander)
        expected = self.units if over_units else self.chunks
        check_rows(directory / "items.json", items["rows"], item_rows(expected, items["with_context"], over_units),
                   bm.n_items, "bm25")
        if over_units:
            return BM25Retriever(bm, [u.id for u in expected], [u.metadata["parent"] for u in expected], expander)
        return BM25Retriever(bm, [c.id for c in expected], expander=expander)


def read_by_job(artifact: Path, source: Path) -> bool:
    """Whether the job that wrote `artifact` read `source` as it is now (its receipt's sha256 of it)."""
    import os

    from ..artifacts.integrity import read_receipt, receipt_of
    from ..artifacts.io import sha256_file
    receipt, _ = receipt_of(artifact)
    recorded = read_receipt(receipt, artifact).get("inputs", {}).get(os.path.normpath(source))
    return recorded is not None and Path(source).is_file() and recorded == sha256_file(source)


class ComposedRetriever:
    """A fusion, diversifier or reranker over live retrievers, each asked for `depth` results as in the graph."""

    def __init__(self, kind: RetrieverKind, inputs: list[Retriever], sources: "Sources", depth: int):
        self.kind, self.inputs, self.sources, self.depth = kind, inputs, sources, depth

    def search(self, query: str, k: int = 5) -> Ranking:
        rankings = [r.search(query, k=self.depth) for r in self.inputs]
        return self.kind.combine(query, rankings, self.sources, self.depth)[:k]


class RunOrder:
    """Ranks like the run file: `depth` results in trec_eval's order (ties: id descending), cut to k."""

    def __init__(self, retriever: Retriever, depth: int):
        self.retriever, self.depth = retriever, depth

    def search(self, query: str, k: int = 5) -> Ranking:
        return trec_order(self.retriever.search(query, k=max(k, self.depth)))[:k]


def open_retriever(sources: Sources, cc: dict, name: str) -> Retriever:
    """A live retriever for the config's retriever `name`, ranking exactly as runs/<name>.trec does."""
    if name not in cc["retrievers"]:
        raise KeyError(f"retrievers: no retriever named {name!r} (have: {', '.join(cc['retrievers'])})")
    kind = kind_of(cc, name)
    if kind.family == "channel":
        inner = kind.open(sources)
    else:
        inputs = [open_retriever(sources, cc, r) for r in kind.upstream()]  # ordered as their run files
        inner = ComposedRetriever(kind, inputs, sources, cc["depth"])
    return RunOrder(inner, cc["depth"])


def open_corpus(results: str | Path, corpus: str, cc: dict) -> tuple[CorpusLayout, list[Chunk], Sources]:
    """The layout, the chunks and the sources of a built corpus."""
    layout = CorpusLayout.of(results, corpus)
    chunks = load_chunks(layout.chunks, layout.docs)
    return layout, chunks, Sources.from_layout(layout, cc, chunks)
