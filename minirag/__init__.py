"""minirag: a retrieval-augmented generation pipeline written by hand on numpy.

The seed's public API is importable from here:

    import minirag
    chunks = [c for d in docs for c in minirag.chunk_document(d, "tokens", tokenizer)]
    store = minirag.FlatVectorStore(minirag.HashingEmbedder.fit([c.text for c in chunks]))
    store.add(chunks)
    hybrid = minirag.HybridRetriever(minirag.DenseRetriever(store), minirag.BM25.from_chunks(chunks))
    ranked, prompt, answer = minirag.rag_answer(query, hybrid, minirag.ExtractiveReader(), chunks, k=3)

and a corpus the graph built answers through `BuiltCorpus` (docs/api.md):

    kb = minirag.BuiltCorpus.open("workflow/config.yaml")
    kb.search("past tense of swim", k=3); kb.answer("past tense of swim"); kb.metrics["retrieval"]

Names load on first use (PEP 562), so importing one stage's module never runs the
others' code: the Snakemake rules list the modules a stage executes as its inputs, and an
eager import here would make every stage depend on every module.

Packages, from the bottom layer up: artifacts/ (io, layout, content checks, receipts),
text/ (curate, BPE, chunk, analyze), datasets/ (BEIR, synthetic, replicated), index/ (BM25,
embedders, vectors, store, IVF), rank/ (retrievers, fusion, diversification, the kinds registry),
evaluation/ (TREC files, metrics, diagnosis, assertions), answer/ (prompt, the answer selector,
reading tasks, Mini-GPT, the readers), config/ (settings per corpus, the schema), history/,
report/, pipeline/ (the build graph), query/ (a built corpus asked questions), stages/ (one
module per rule), serve/ (HTTP) and cli.py (`python -m minirag`).
"""

from importlib import import_module

__version__ = "0.1.0"

_EXPORTS = {
    "chunk_document": "text.chunker", "Chunk": "text.chunks", "BPETokenizer": "text.bpe",
    "HashingEmbedder": "index.hashing", "MiniBiEncoder": "index.biencoder", "FlatVectorStore": "index.store",
    "BM25": "rank.retrievers", "DenseRetriever": "rank.retrievers", "HybridRetriever": "rank.fusion",
    "reciprocal_rank_fusion": "rank.fusion", "build_prompt": "answer.prompt", "ExtractiveReader": "answer.readers",
    "rag_answer": "answer.rag", "BuiltCorpus": "query.built_corpus",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'minirag' has no attribute {name!r}")
    value = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted([*globals(), *_EXPORTS])
