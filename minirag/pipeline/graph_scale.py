"""The graph's inputs for a large corpus: its shards (`shards: N`) and its training sample (`train_cap`).

`ScaleInputs` is the part of `CorpusGraph` (graph.py) that the shard rules and the training
sample ask: which source files a shard reads, which shard files a merge reads, what a shard's
embed job needs besides its chunks, which documents the trained stages learn from. Shared
with graph.py: `paths`, inputs as strings.

What it leaves out: the specs (pipeline/stages/) and what the stages do (shards.py,
index/bm25/shards.py, stages/merge_*.py).
"""

from __future__ import annotations

from pathlib import Path

from .given import Given
from .kind_files import paths  # noqa: F401  (paths: shared with graph.py)
from .shards import shard_of


class ScaleInputs:
    """Mixed into CorpusGraph: uses its corpus, layout, source, documents(), embedder_files(), uses_tokenizer(), trained()."""

    @property
    def shards(self) -> int:
        return self.corpus.shards

    def shard_ids(self) -> list[int]:
        """The shards of a sharded corpus (shards > 1); [] for one built whole."""
        return list(range(self.shards)) if self.shards > 1 else []

    def shard_documents(self, shard: int) -> list[str]:
        """The source files of one shard: a markdown document's id is its path, so a folder's
        shard lists only its own files and editing one reruns that shard alone; a BEIR corpus is
        one file, read by every shard."""
        if self.source.format in ("beir", "squad"):
            return self.documents()
        from ..text.corpus import path_doc_id, source_paths
        root = Path(self.source.path)
        # planning lists the files; the curate_shard job refuses a symlink leading out (outside_links)
        return [str(p) for p in source_paths(root, self.source.glob, outside_links="follow")
                if shard_of(path_doc_id(p, root), self.shards) == shard and not {"{", "}"} & set(str(p))]

    def shard_source(self, shard: int) -> Given:
        """The source folder as curate_shard gets it, with the files of that shard alone."""
        return Given(self.source.path, tuple(self.shard_documents(shard)))

    def shard_chunks(self) -> list[str]:
        return paths(*(self.layout.shard_chunks(i) for i in self.shard_ids()))

    def shard_vectors(self, name: str) -> list[str]:
        """Each shard's vectors of `name`, their sidecars and the shard's chunks (what merge_vectors reads)."""
        return paths(*(p for i in self.shard_ids() for p in (
            self.layout.shard_vectors(i, name), self.layout.shard_vectors(i, name).with_suffix(".json"),
            self.layout.shard_chunks(i))))

    def shard_bm25(self, name: str) -> list[str]:
        return paths(*(p for i in self.shard_ids() for p in self.layout.shard_bm25_files(i, name)))

    def fit_chunks(self, name: str) -> dict:
        """The whole corpus's chunks, for an embedder fitted on them (hashing's IDF)."""
        return {"fit_chunks": str(self.layout.chunks)} if self.corpus.embedders[name].fitted else {}

    def embed_shard(self, name: str) -> dict:
        """A shard's embed job's inputs beyond its chunks."""
        return {"files": self.embedder_files(name), **self.fit_chunks(name)}

    def training_docs(self) -> str:
        """The documents the tokenizer, the bi-encoder and the reader learn from: the training sample
        when the corpus sets train_cap, else docs.jsonl."""
        return str(self.layout.train_sample if self.corpus.train_cap else self.layout.docs)

    def uses_train_sample(self) -> bool:
        return bool(self.corpus.train_cap) and (self.uses_tokenizer() or bool(self.trained()))
