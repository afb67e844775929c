"""Where each kind's files are, under the keys kinds read them by: the part of the graph a server needs too.

`KindFiles(corpus, layout)` answers what a kind's `reads(graph)` asks (rank/kinds/base.py): an
embedder's vectors and the files its query side reads, a BM25 or IVF index, a reranker's
weights, the lexicon, a fitted fusion's receipt, each under its `file_key`. `retriever_files()`
is every configured retriever kind's `serves`: what a server's `Sources` open. `CorpusGraph`
(graph.py) is a `KindFiles` with the rest of the graph; a built corpus opens its sources from
one without importing the graph's stages and specs.

What it leaves out: jobs, specs and command lines (graph.py, stage.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ..artifacts.layout import CorpusLayout
from ..config.typed import Corpus
from ..rank.kinds.base import file_key
from .given import Given
from .jobs import paths


class KindFiles:
    def __init__(self, corpus: Corpus | Mapping[str, Any], layout: CorpusLayout):
        """`corpus`: the corpus's checked config, typed (config/typed.py), or as corpus_config serialises it."""
        self.layout = layout
        self.corpus = corpus if isinstance(corpus, Corpus) else Corpus.of(corpus)

    def embedder_files(self, name: str) -> dict:
        """The files (or, for a pretrained model, the folder of files) an embedder reads, by the stage's
        argument name: a folder is every file in it, so an edited model file reruns its jobs."""
        out: dict = {}
        for k, v in self.corpus.embedders[name].files(self.layout, name).items():
            out[k] = (Given(str(v), tuple(paths(*sorted(q for q in Path(v).rglob("*") if q.is_file()))))
                      if Path(v).is_dir() else str(v))
        return out

    def vectors(self, name: str) -> dict:
        """An embedder's vectors and the files its query side needs, by file key."""
        return {file_key("vectors", name): str(self.layout.vectors(name)),
                **{file_key("query", name, k): v for k, v in self.embedder_files(name).items()}}

    def over_units(self, index: str | None) -> bool:
        return index is not None and self.corpus.bm25[index].items == "units"

    def word_lists(self, index: str | None) -> dict:
        """The stopword and filler lists an index's analyzer reads, when it reads any."""
        files = self.corpus.bm25[index].analyzer.data_files() if index else []
        return {"word_lists": Given.tracked(files)} if files else {}

    def bm25_index(self, name: str) -> dict:
        """A BM25 index (its folder), the word lists its analyzer reads and the units it holds, by file key."""
        folder = Given(str(self.layout.bm25(name)), tuple(paths(*self.layout.bm25_files(name))))
        words = {file_key("words", name): w for w in self.word_lists(name).values()}
        return {file_key("bm25", name): folder, **words,
                **({"units": str(self.layout.units)} if self.over_units(name) else {})}

    def ivf_index(self, name: str) -> dict:
        return {file_key("ivf", name): Given(str(self.layout.ivf(name)), tuple(paths(*self.layout.ivf_files(name))))}

    def with_sidecar(self, weights: Path) -> Given:
        """Weights tracked with their .json sidecar (retraining them reruns the job), the command line
        getting the weights."""
        return Given(str(weights), tuple(paths(weights, weights.with_suffix(".json"))))

    def reranker(self, name: str) -> dict:
        return {file_key("reranker", name): self.with_sidecar(self.layout.reranker(name))}

    def lexicon(self, expand=None) -> dict:
        """The lexicon, and the word lists an expansion (`expand`: ExpansionSettings) reads with it."""
        files = expand.data_files() if expand is not None else ()
        return {"lexicon": str(self.layout.lexicon), **({file_key("words", "expand"): Given.tracked(files)} if files else {})}

    def selector_lists(self, files: dict | None = None) -> dict:
        """The word lists the answer selector reads a question with: its domain's (the grammar's, a
        construction's; `files`: the domain's files, when the caller has them); a generic corpus's selector
        reads none."""
        lists = (self.corpus.domain_files() if files is None else files).get("lists")
        return {file_key("words", "selector"): Given.tracked(lists)} if lists else {}

    def selector_domain(self) -> dict:
        """What the answer selector reads of the corpus's domain: the lexicon, its word lists and its terms
        file; nothing for a corpus without one."""
        files = self.corpus.domain_files()
        return {**self.lexicon(), **self.selector_lists(files), "terms": files["terms"]} if files else {}

    def fitted(self, name: str) -> dict:
        """The receipt of a fitted fusion's run: its weights."""
        return {file_key("fitted", name): str(self.layout.receipt("retrieve", name))}

    def retriever_files(self) -> dict:
        """Every configured retriever kind's `serves`, by file key: what a server ranks with."""
        out: dict = {}
        for kind in self.corpus.retrievers.values():
            out.update(kind.serves(self))
        return {k: v.arg if isinstance(v, Given) else v for k, v in out.items() if not isinstance(v, Given) or v.arg}
