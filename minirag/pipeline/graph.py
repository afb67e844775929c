"""What each job of the graph reads, for one corpus: the questions the stage specs ask.

`CorpusGraph(corpus, layout)` answers, for a corpus's checked config (config/typed.py) and its results layout,
which files a job reads besides the fixed ones: the documents of the source, the runs a
fusion combines, the vectors and query-side files of a dense channel, what a trained stage
learns from; and which retrievers, embedders, indexes and readers the corpus uses: what several
stages, the report or a server ask. What one stage alone asks is a function of the graph in
that stage's module (minirag/stages/), beside its spec; the specs turn both into rules, jobs,
artifacts and command lines, and tests ask the same questions without Snakemake.

    CorpusGraph(checked_corpus(config, "kb"), CorpusLayout.of("results", "kb")).used_indexes()
    -> ["plain", "grammar"]

Where each kind's own files are (a kind's `reads` asks the graph) is kind_files.py's `KindFiles`,
which the graph is one of.

What it leaves out: the outputs (the registry and the specs), the code each stage runs
(depends.py) and running anything.
"""

from __future__ import annotations

from pathlib import Path

from ..answer.reading.retrieval_questions import GENERIC_FAMILIES
from ..domain import of_corpus
from ..text.corpus import SourceSettings
from .graph_answers import AnswerInputs
from .graph_scale import ScaleInputs
from .jobs import paths
from .kind_files import KindFiles
from .stage import Given, as_list, tracked


class CorpusGraph(KindFiles, ScaleInputs, AnswerInputs):
    @property
    def source(self) -> SourceSettings:
        return self.corpus.source

    @property
    def domain(self):
        """The corpus's domain (minirag/domain.py `Domain`), None for the generic core."""
        return of_corpus(self.corpus.domain)

    def documents(self) -> list[str]:
        if self.source.format == "beir":
            return paths(Path(self.source.path) / "corpus.jsonl")
        if self.source.format == "squad":
            return paths(self.source.path)
        # a name with { or } is no Snakemake input (a wildcard to it); curate refuses it, naming it
        return sorted(str(p) for p in Path(self.source.path).glob(self.source.glob)
                      if p.is_file() and "{" not in str(p) and "}" not in str(p))

    def chunk(self) -> dict:
        # Only token-bounded strategies read the tokenizer; the others must not rerun when it changes.
        return {"tokenizer": str(self.layout.tokenizer)} if self.corpus.chunk.strategy in ("tokens", "sections") else {}

    def beir_training(self) -> dict:
        """A BEIR collection's training split, read from its folder (a stage trained on its qrels)."""
        root = Path(self.source.path)
        return {"beir": Given(self.source.path, tuple(paths(
            root / "queries.jsonl", root / "corpus.jsonl", root / "qrels" / f"{self.source.train_split}.tsv")))}

    def beir_splits(self) -> dict:
        return {"train_split": self.source.train_split, "eval_split": self.source.split}

    def synthesising(self) -> list[str]:
        """The trained encoders that train on questions synthesised from the corpus (synth_pairs)."""
        return [e for e in self.trained() if self.corpus.embedders[e].synthesises()]

    def synth_pairs(self, name: str) -> dict:
        """The lexicon and terms file a domain's questions (the grammar's learner family) are phrased with."""
        if all(f in GENERIC_FAMILIES for f in self.corpus.embedders[name].s.questions.families):
            return {}
        return {"lexicon": str(self.layout.lexicon), "terms": self.terms_file()}

    def runs(self) -> list[str]:
        return paths(*(self.layout.run(r) for r in self.corpus.retrievers))

    def sweeps(self) -> list[tuple[str, str]]:
        return list(self.corpus.sweep_groups())

    def trained(self) -> list[str]:
        return [e for e in self.used_embedders() if self.corpus.embedders[e].trained]

    def used_embedders(self) -> list[str]:
        """Embedders whose vectors some job reads (a dense channel, MMR, the diagnosis)."""
        used = {kind.embedder() for kind in self.corpus.retrievers.values()} | {self.corpus.diagnose.embedder}
        return [e for e in self.corpus.embedders if e in used]

    def used_indexes(self) -> list[str]:
        used = {kind.index() for kind in self.corpus.retrievers.values()}
        return [i for i in self.corpus.bm25 if i in used]

    def base_retrievers(self) -> list[str]:
        return self.corpus.base_retrievers()

    def inputs_of(self) -> dict[str, list[str]]:
        """Each retriever's input runs (none for a channel)."""
        return self.corpus.inputs_of()

    def uses_tokenizer(self) -> bool:
        return (bool(self.chunk()) or any("tokenizer" in self.embedder_files(e) for e in self.used_embedders())
                or any("tokenizer" in self.train_reader(r) for r in self.trained_readers()))

    def jobs(self) -> list[tuple[str, str | None]]:
        """(stage, name) of every job the corpus's report depends on, in graph order (the specs' order)."""
        from .stages import STAGES
        return [job for spec in STAGES for job in spec.jobs(self)]

    def artifacts(self) -> list[str]:
        """Every file the corpus's jobs write but logs and benchmarks, receipts included: what the
        report stands on, so deleting any of them rebuilds it and what depends on it."""
        from .stages import STAGES
        return paths(*(p for spec in STAGES for w in spec.names(self) for p in spec.written(self, w)))

    def receipts(self) -> list[str]:
        return paths(*(self.layout.receipt(stage, name) for stage, name in self.jobs()))

    def missing(self) -> list[str]:
        """Artifacts that are not there (the corpus may never have been built)."""
        return [f for f in self.artifacts() if not Path(f).exists()]

    def benchmarks(self) -> list[str]:
        return paths(*(self.layout.benchmark(stage, name) for stage, name in self.jobs()))

    def served(self) -> list[str]:
        """Every file a server of the corpus loads: the documents and chunks, the questions (the page's
        example) and the metrics (the best retriever on dev answers unasked), what each retriever kind
        `serves` (its retrieve job's reads, a fitted fusion's receipt; no run: the server fuses live),
        what each reader kind reads to answer and the selector to score candidates."""
        reads = [{"docs": str(self.layout.docs), "chunks": str(self.layout.chunks),
                  "questions": str(self.layout.questions), "metrics": str(self.layout.eval("metrics.json"))}]
        reads += [kind.serves(self) for kind in self.corpus.retrievers.values()]
        reads += [self.generate(r) for r in self.trained_readers()]
        reads += [self.candidates(r) for r in self.selected_runs()[:1]]
        files = [f for read in reads for v in read.values() for f in as_list(tracked(v))]
        root = str(self.layout.root) + "/"  # the corpus's artifacts, not the package's own files (a terms file)
        return [f for f in dict.fromkeys(files) if f.startswith(root)]

    def main_retrievers(self) -> list[str]:
        return self.corpus.main_retrievers()
