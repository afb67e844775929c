"""The call site: load built artifacts into retrievers and answer a question.

Once the graph has built a corpus, answering is the seed's four lines:

    chunks = retriever.retrieve(query, k=k)
    prompt = build_prompt(query, chunks)
    answer = reader.generate(prompt)

`CorpusArtifacts` knows where each stage writes under `results/<corpus>/` (the same
paths as workflow/rules/*.smk) and rebuilds a named retriever from them, checking
vectors against chunks by content hash. Nothing here trains or builds; a missing
artifact is reported with the command that builds it.

What it leaves out: the stages themselves (cli.py runs them) and HTTP serving.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .artifacts import AlignmentError, load_aligned_vectors, load_chunks, load_vectors_by_id
from .chunk import Chunk
from .config import upstream
from .embed import HashingEmbedder
from .io import read_json, sha256_file
from .prompt import build_prompt
from .reader import Answer, make_reader
from .retrieve import BM25Retriever, ComposedRetriever, DenseRetriever, Retriever
from .store import FlatVectorStore
from .trec import trec_order


class MissingArtifact(FileNotFoundError):
    pass


@dataclass(frozen=True)
class CorpusArtifacts:
    root: Path  # results/<corpus>

    @property
    def docs(self) -> Path: return self.root / "docs.jsonl"
    @property
    def questions(self) -> Path: return self.root / "questions.jsonl"
    @property
    def tokenizer(self) -> Path: return self.root / "tokenizer.json"
    @property
    def chunks(self) -> Path: return self.root / "chunks.jsonl"
    def vectors(self, embedder: str) -> Path: return self.root / "vectors" / f"{embedder}.npy"
    def encoder(self, embedder: str) -> Path: return self.root / "encoders" / f"{embedder}.npz"
    def bm25(self, index: str) -> Path: return self.root / "bm25" / index
    def run(self, retriever: str) -> Path: return self.root / "runs" / f"{retriever}.trec"
    def prompts(self, retriever: str) -> Path: return self.root / "prompts" / f"{retriever}.jsonl"
    def answers(self, retriever: str) -> Path: return self.root / "answers" / f"{retriever}.jsonl"
    @property
    def eval_dir(self) -> Path: return self.root / "eval"


def require(path: Path, what: str) -> Path:
    if not path.exists():
        raise MissingArtifact(f"{path} is missing ({what}); build it with: "
                              f"snakemake -c1 {path}   (or snakemake -c1 results/report.md)")
    return path


def make_embedder(sidecar: dict, tokenizer_path: Path | None = None, encoder_path: Path | None = None):
    """The query-side embedder that produced a vectors file, from its sidecar."""
    params = sidecar["params"]
    if params["type"] == "hashing":
        return HashingEmbedder.from_params(params)
    if params["type"] == "biencoder":
        from .biencoder import BiEncoderEmbedder, MiniBiEncoder
        from .bpe import BPETokenizer
        # Queries must be embedded by the very encoder and tokenizer that embedded the chunks.
        for path, key in ((encoder_path, "encoder_sha256"), (tokenizer_path, "tokenizer_sha256")):
            if sha256_file(path) != sidecar[key]:
                raise AlignmentError(f"{path} is not the file the vectors were embedded with "
                                     f"({key} differs); re-run embed")
        return BiEncoderEmbedder(MiniBiEncoder.load(encoder_path), BPETokenizer.load(tokenizer_path))
    raise ValueError(f"{sidecar.get('embedder')}: unknown embedder type {params['type']!r}")


def load_dense(art: CorpusArtifacts, embedder: str, chunks: list[Chunk]) -> DenseRetriever:
    npy = require(art.vectors(embedder), f"vectors of embedder {embedder!r}")
    vectors, sidecar = load_aligned_vectors(npy, chunks)
    emb = make_embedder(sidecar, art.tokenizer, art.encoder(embedder))
    store = FlatVectorStore(emb)
    store.add(chunks, vectors)
    return DenseRetriever(store)


def load_bm25(art: CorpusArtifacts, index: str, chunks: list[Chunk]) -> BM25Retriever:
    from .bm25 import BM25Index
    directory = require(art.bm25(index), f"BM25 index {index!r}")
    bm = BM25Index.load(directory)
    ids = read_json(directory / "items.json")
    if ids != [c.id for c in chunks]:
        raise RuntimeError(f"{directory}: indexed chunk ids differ from {art.chunks}; re-run bm25")
    return BM25Retriever(bm, ids)


class RunOrder:
    """Ranks like the run file: `depth` results in trec_eval's order (ties: id descending), cut to k."""

    def __init__(self, retriever: Retriever, depth: int):
        self.retriever, self.depth = retriever, depth

    def search(self, query: str, k: int = 5):
        return trec_order(self.retriever.search(query, k=max(k, self.depth)))[:k]


def load_retriever(art: CorpusArtifacts, cc: dict, name: str, chunks: list[Chunk]) -> Retriever:
    """A live retriever for the config's retriever `name`, ranking exactly as runs/<name>.trec does."""
    return RunOrder(build_retriever(art, cc, name, chunks), cc["depth"])


def build_retriever(art: CorpusArtifacts, cc: dict, name: str, chunks: list[Chunk]) -> Retriever:
    if name not in cc["retrievers"]:
        raise KeyError(f"retrievers: no retriever named {name!r} (have: {', '.join(cc['retrievers'])})")
    spec = cc["retrievers"][name]
    if spec["type"] == "dense":
        return load_dense(art, spec["embedder"], chunks)
    if spec["type"] == "bm25":
        return load_bm25(art, spec["index"], chunks)
    vectors = None
    if spec["type"] == "mmr":
        vectors = load_vectors_by_id(require(art.vectors(spec["embedder"]), "vectors"), chunks)
    inputs = [load_retriever(art, cc, r, chunks) for r in upstream(spec)]  # ordered as their run files
    return ComposedRetriever(spec, inputs, {c.id: c.doc_id for c in chunks}, vectors, depth=cc["depth"])


def rag_answer(query: str, retriever: Retriever, reader, chunks_by_id: dict[str, Chunk], k: int = 3) -> tuple[list, object, Answer]:
    """The seed's call site; returns every intermediate value so a learner can print it."""
    ranked = retriever.search(query, k=k)
    chunks = [chunks_by_id[cid] for cid, _ in ranked]
    prompt = build_prompt(query, chunks)
    answer = reader.generate(prompt)
    return ranked, prompt, answer


__all__ = ["CorpusArtifacts", "MissingArtifact", "load_retriever", "load_chunks", "make_reader", "rag_answer"]
