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
from ..artifacts.missing import MissingArtifact, require
from ..evaluation.trec import trec_order
from ..index.embedders import EMBEDDERS
from ..index.rows import check_rows, item_rows
from ..index.store import FlatVectorStore
from ..index.vectors import load_vectors, load_vectors_by_id, vectors_sidecar_path
from ..rank.kinds.base import file_key
from ..rank.ranking import Ranking, Retriever
from ..rank.retrievers import BM25Retriever, DenseRetriever, IVFRetriever
from ..text.chunks import Chunk, load_chunks


class Sources:
    """The artifacts retriever kinds read, by their file keys (rank/kinds/base.py `file_key`):
    `vectors:<embedder>` an embedder's .npy, `query:<embedder>:<file>` the files its query side
    needs (embedders.py `files`), `bm25:<index>` and `ivf:<index>` an index's folder,
    `reranker:<retriever>` a trained reranker, `fitted:<retriever>` the receipt holding a fitted
    fusion's weights, `units` and `lexicon`. The mapping is what the kinds' `reads` gave the job
    (or, for a server, `serves`): a new kind that reads a new file adds its key, not a parameter.
    """

    def __init__(self, chunks: list[Chunk], files: Mapping[str, Path] | None = None, docs: Path | None = None,
                 mmap: bool = False):
        self.chunks = chunks
        self._files = {k: Path(v) for k, v in (files or {}).items()}
        self._docs = docs    # the documents, for units (their rows carry no document fields)
        self.mmap = mmap     # vectors as read-only memory maps (a build stage); in RAM for a server
        self._features: dict = {}
        self._expanders: dict = {}
        self._rerankers: dict = {}
        self._by_id: dict = {}
        self._dense: dict = {}
        self._answerers: dict = {}

    @cached_property
    def units(self) -> list[Chunk]:
        if "units" not in self._files or self._docs is None:
            raise MissingArtifact("no units.jsonl was given to this stage")
        return load_chunks(self._files["units"], self._docs)

    @cached_property
    def doc_of(self) -> dict[str, str]:
        return {c.id: c.doc_id for c in self.chunks}

    @cached_property
    def chunks_by_id(self) -> dict[str, Chunk]:
        return {c.id: c for c in self.chunks}

    def features(self, analyzer, expansion, stored: dict | None = None, codes: dict | None = None):
        """The reranker's feature maker over these chunks (one per analyzer and expansion, built once;
        `stored`: the document frequencies a trained reranker's sidecar holds, and `codes` the chunk codes
        its weights file holds, read if they are these chunks')."""
        from ..rank.rerank import FeatureMaker
        from ..text.analyze import Analyzer, settled
        if (analyzer, expansion) not in self._features:
            a = Analyzer(settled(analyzer, self.langs.values()) if analyzer.languages else analyzer)
            self._features[analyzer, expansion] = FeatureMaker(a, self.chunks, self.expander(a, expansion), stored,
                                                               codes)
        return self._features[analyzer, expansion]

    def read_all_chunks(self) -> None:
        """Every feature maker opened so far reads every chunk now: a server pays it once at start
        rather than on the first queries that rank each chunk."""
        for maker in self._features.values():
            for c in self.chunks:
                maker.code(c)

    def reranker(self, name: str, features=None) -> dict:
        """A trained reranker's weights, checked against its receipt (and to be over `features`, by default
        rerank.py's FEATURES); read once, so a live retriever ranks with the weights it was opened with even
        if the graph rewrites them."""
        from ..rank.rerank import FEATURES, load_model
        if name not in self._rerankers:
            self._rerankers[name] = load_model(self._path("reranker", name, "reranker model of"),
                                               features or FEATURES)
        return self._rerankers[name]

    def fitted_weights(self, name: str) -> list[float]:
        """The weights the retrieve stage fitted for the fusion `name`, from its run's receipt."""
        from ..artifacts.io import read_json
        path = self._path("fitted", name, "receipt of the fitted fusion")
        receipt = read_json(path)
        if not isinstance(receipt, dict) or "weights" not in receipt.get("fitted", {}):
            raise MissingArtifact(f"{path}: no fitted weights; re-run retrieve {name}")
        return [float(w) for w in receipt["fitted"]["weights"]]

    def file(self, key: str, what: str) -> Path:
        """The file given under `key` (a kind's own, from its `reads`), required to be there."""
        if key not in self._files:
            raise MissingArtifact(f"no {what} was given to this stage (file key {key!r})")
        return require(self._files[key], what)

    def _path(self, role: str, name: str, what: str) -> Path:
        return self.file(file_key(role, name), f"{what} {name!r}")

    def query_embedder(self, embedder: str, sidecar: dict):
        """The query side of `embedder`, as its vectors' sidecar describes it."""
        prefix = file_key("query", embedder, "")
        files = {k[len(prefix):]: require(p, f"{k[len(prefix):]} of embedder {embedder!r}")
                 for k, p in self._files.items() if k.startswith(prefix)}
        kind = EMBEDDERS.get(sidecar["params"].get("type"))
        if kind is None:
            raise ValueError(f"{self._files[file_key('vectors', embedder)]}: vectors of an unknown embedder type {sidecar['params'].get('type')!r}")
        return kind.query_embedder(sidecar, files)

    def dense(self, embedder: str) -> DenseRetriever:
        vectors, sidecar = load_vectors(self._path("vectors", embedder, "vectors of embedder"), self.chunks,
                                        mmap=self.mmap)  # (N, d)
        store = FlatVectorStore(self.query_embedder(embedder, sidecar))
        store.add(self.chunks, vectors)
        return DenseRetriever(store)

    def ivf(self, index: str, embedder: str, nprobe: int) -> IVFRetriever:
        """An IVF index over `embedder`'s vectors: the vectors checked against the chunks as for
        `dense`, the index refused unless built from them; queries read the index's own copy."""
        from ..index.ivf import load_ivf
        npy = self._path("vectors", embedder, "vectors of embedder")
        _, sidecar = load_vectors(npy, self.chunks, mmap=True)  # only the sidecar is needed: do not read (N, d)
        ivf = load_ivf(self._path("ivf", index, "IVF index"), vectors_sidecar_path(npy), sidecar)
        return IVFRetriever(ivf, self.query_embedder(embedder, sidecar), [c.id for c in self.chunks], nprobe)

    def dense_features(self, embedder: str):
        """A reranker's dense features over `embedder` (rank/rerank_dense.py): its vectors checked against the
        chunks as for `dense`, its query side the encoder they were made with; built once."""
        from ..rank.rerank_dense import DenseFeatures
        if embedder not in self._dense:
            vectors, sidecar = load_vectors(self._path("vectors", embedder, "vectors of embedder"), self.chunks,
                                            mmap=self.mmap)  # (N, d)
            self._dense[embedder] = DenseFeatures(self.query_embedder(embedder, sidecar), vectors,
                                                  [c.id for c in self.chunks])
        return self._dense[embedder]

    def answer(self, reader: str, spec: dict, query: str, ranked: list[str], depth: int, prompt: Mapping):
        """The extractive reader `reader`'s answer to `query` over these ranked chunk ids, as `answer` gives it
        (answer/rag.py `rag_answer`, this ranking for a retriever's): its selector reads the top `depth`, the
        prompt is built as the corpus's `prompt` settings say (k, answers, template, evidence); the selector and
        reader (`spec`: its config entry) are loaded once."""
        from types import SimpleNamespace

        from ..answer.rag import prompt_keywords, rag_answer
        selector, rd = self.answerer(reader, spec, depth)
        run = [(cid, 0.0) for cid in ranked]
        given = SimpleNamespace(search=lambda _query, k: run[:k])
        return rag_answer(query, given, rd, self.chunks_by_id, k=prompt["k"], selector=selector, langs=self.langs,
                          **prompt_keywords(prompt))[2]

    def answerer(self, reader: str, spec: dict, depth: int):
        """(answer selector reading the top `depth` chunks, extractive reader) of the trained reader `reader`,
        checked against their receipts."""
        if (reader, depth) not in self._answerers:
            from ..answer.readers import make_reader
            from ..answer.select.selector import load_selector
            model = self._path("reader", reader, "weights of reader")
            files = {"docs": self._docs, **({"chunks": self._files["chunks"]} if "chunks" in self._files else {})}
            grammar = "lexicon" in self._files  # a grammar corpus's selector reads its lexicon and terms file
            selector = load_selector(model, self.chunks, self.langs,
                                     self.file("lexicon", "lexicon") if grammar else None,
                                     self.file("terms", "terms file") if grammar else None, depth, files)
            self._answerers[reader, depth] = selector, make_reader(spec, str(model))
        return self._answerers[reader, depth]

    @cached_property
    def langs(self) -> dict[str, str]:
        """Each document's language (docs.jsonl), which the answer selector reads its candidates in."""
        from ..artifacts.integrity import load_records
        if self._docs is None:
            raise MissingArtifact("no docs.jsonl was given to this stage")
        return {d["doc_id"]: d.get("lang", "") for d in load_records(self._docs, "documents")}

    @cached_property
    def folded_texts(self) -> dict[str, str]:
        from ..text.words import fold
        return {c.id: fold(c.text) for c in self.chunks}

    def folded_text(self, chunk_id: str) -> str:
        """A chunk's text lowercased without accents (rank/feedback.py `fold`), folded once per chunk."""
        return self.folded_texts[chunk_id]

    def form_lemmas(self, reader: str, spec: dict, depth: int) -> Mapping[str, list[str]]:
        """The lexicon's form -> lemmas map, folded, as the reader's answer selector holds it (its vocabulary)."""
        vocab = self.answerer(reader, spec, depth)[0].vocab
        return vocab.forms if vocab is not None else {}  # a selector without the grammar features maps no forms

    def vectors_by_id(self, embedder: str):
        """chunk id -> vector (for MMR), read and checked once."""
        if embedder not in self._by_id:
            self._by_id[embedder] = load_vectors_by_id(self._path("vectors", embedder, "vectors of embedder"),
                                                       self.chunks, mmap=self.mmap)
        return self._by_id[embedder]

    def expander(self, analyzer, settings):
        """The query expander of the lexicon stage's file (None when `settings` expand nothing), built once
        per analyzer settings and expansion: an expanded BM25 channel and a reranker over it share one."""
        if not settings.enabled():
            return None
        from ..domain import hook
        if "lexicon" not in self._files:
            raise MissingArtifact("no lexicon was given to this stage (query expansion needs one)")
        key = (analyzer.config, settings)
        if key not in self._expanders:
            self._expanders[key] = hook("query.expander").from_file(self.file("lexicon", "lexicon"), analyzer, settings)
        return self._expanders[key]

    def bm25(self, index: str, expansion=None) -> BM25Retriever:
        """A BM25 index whose rows are checked, like vectors, to hold these chunks' texts;
        queries expanded as `expansion` (ExpansionSettings) says."""
        from ..index.bm25.index import load_bm25
        directory = self._path("bm25", index, "BM25 index")
        bm = load_bm25(directory)
        items = load_json(directory / "items.json", "BM25 index")
        over_units = items.get("items") == "units"
        expander = self.expander(bm.analyzer, expansion) if expansion is not None else None
        if over_units and "units" in self._files and read_by_job(directory / "items.json", self._files["units"]):
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


class RunOrder:
    """Ranks like the run file: `depth` results in trec_eval's order (ties: id descending), cut to k."""

    def __init__(self, retriever: Retriever, depth: int):
        self.retriever, self.depth = retriever, depth

    def search(self, query: str, k: int = 5) -> Ranking:
        return trec_order(self.retriever.search(query, k=max(k, self.depth)))[:k]


def open_retriever(sources: Sources, kinds, name: str) -> Retriever:
    """A live retriever for the corpus's retriever `name` (`kinds`: its config/typed.py `Corpus`, not
    imported here: the retrieve stage's code is this module's imports), ranking exactly as
    runs/<name>.trec does."""
    if name not in kinds.retrievers:
        raise KeyError(f"retrievers: no retriever named {name!r} (have: {', '.join(kinds.retrievers)})")
    kind, depth = kinds.retrievers[name], kinds.config["depth"]
    return RunOrder(kind.live(sources, lambda r: open_retriever(sources, kinds, r), depth), depth)
