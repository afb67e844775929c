"""The graph's inputs for a large corpus: its shards (`shards: N`) and its training sample (`train_cap`).

`ScaleInputs` is the part of `CorpusGraph` (graph.py) that several stages ask of a large corpus:
its shards and which documents the trained stages learn from.

What it leaves out: what one stage alone asks (a shard's source files, the shard files a merge
reads: each in its stage's module of minirag/stages/, with its spec) and what the stages do
(shards.py, index/bm25/shards.py, stages/merge_*.py).
"""

from __future__ import annotations


class ScaleInputs:
    """Mixed into CorpusGraph: uses its corpus and layout."""

    @property
    def shards(self) -> int:
        return self.corpus.shards

    def shard_ids(self) -> list[int]:
        """The shards of a sharded corpus (shards > 1); [] for one built whole."""
        return list(range(self.shards)) if self.shards > 1 else []

    def training_docs(self) -> str:
        """The documents the tokenizer, the bi-encoder and the reader learn from: the training sample
        when the corpus sets train_cap, else docs.jsonl."""
        return str(self.layout.train_sample if self.corpus.train_cap else self.layout.docs)

