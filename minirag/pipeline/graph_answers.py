"""The graph's inputs for answering: the answer selector's candidates, the prompts, the readers.

`AnswerInputs` is the part of `CorpusGraph` (graph.py) that the answer specs ask: which runs are
answered and by which readers, what a trained reader learns from (its kind's `training_inputs`), which
reader is the corpus's answer selector and which terms file it reads, what a candidates, prompt and
generate job reads besides its run.

What it leaves out: the specs and what the stages do (stages/candidates.py,
prompt.py, generate.py, train_reader.py).
"""

from __future__ import annotations

from ..config.typed import Corpus
from .jobs import paths
from .stage import Given


class AnswerInputs:
    corpus: Corpus
    layout: object

    def answered(self) -> list[str]:
        return self.corpus.answered()

    def answer_jobs(self) -> list[tuple[str, str]]:
        """(reader, retriever) of every answer file: each reader on each answered run. BEIR and
        gold_docs questions judge documents, not answers: no reader runs there."""
        return [(reader, r) for reader in self.corpus.readers for r in self.corpus.answered()]

    def answers(self) -> list[str]:
        return paths(*(self.layout.answers(reader, r) for reader, r in self.answer_jobs()))

    def trained_readers(self) -> list[str]:
        if not self.corpus.answered():
            return []
        return [r for r, kind in self.corpus.readers.items() if kind.trained]

    def selected_runs(self) -> list[str]:
        """The runs whose candidates the selector scores: every answered run, when there is a selector."""
        return self.corpus.answered() if self.selector() else []

    def generate(self, reader: str) -> dict:
        """A generate job's inputs beyond its prompts: what its reader kind reads (a trained one's weights)."""
        return self.corpus.readers[reader].reads(self, reader) if reader in self.trained_readers() else {}

    def reader_weights(self, reader: str) -> dict:
        """A trained reader's weights, given as the .npz, tracked with its sidecar."""
        model, sidecar = self.layout.reader_files(reader)[:2]
        return {"model": Given(str(model), (str(model), str(sidecar)))}

    def train_reader(self, name: str) -> dict:
        """What a trained reader learns from besides the documents (its kind's `training_reads`)."""
        return self.corpus.readers[name].training_reads(self, name)

    def corpus_files_named(self, names: list[str]) -> dict:
        """The corpus files a kind asks for by name: tokenizer, chunks, lexicon, terms, questions. The lexicon
        and the terms file are a domain's (the grammar's): a corpus without one reads neither."""
        files = self.corpus.domain_files()
        domain = {"lexicon": self.layout.lexicon, "terms": files["terms"]} if files else {}
        available = {"tokenizer": self.layout.tokenizer, "chunks": self.layout.chunks, "questions": self.layout.questions,
                     **domain}
        return {k: str(available[k]) for k in names if k in available}

    def selector(self) -> str | None:
        """The reader whose trained answer selector scores every answered run's candidates (config/corpus.py
        `selector_reader`: the corpus's first `extractive` reader; None: no candidates, prompts as the seed
        builds them)."""
        return self.corpus.selector_reader()

    def terms_file(self) -> str:
        """The domain's terms file the selector reads (the grammar's: candidates.terms, else the one it ships)."""
        return self.corpus.terms_file()

    def candidates(self, name: str) -> dict:
        """A candidates job's inputs beyond the run and the chunks: what the selector's kind scores with."""
        selector = self.selector()
        return self.corpus.readers[selector].selecting_reads(self, selector)

