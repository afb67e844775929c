"""What each job of the graph reads, for one corpus: the questions the stage specs ask.

`CorpusGraph(corpus, layout)` answers, for a corpus's checked config (config/typed.py) and its results layout,
which files a job reads besides the fixed ones: the documents of the source, the runs a
fusion combines, the vectors and query-side files of a dense channel, what a trained stage
learns from; and which retrievers, embedders, indexes and readers the corpus uses. The stage
specs (pipeline/stages/) turn these into rules, jobs, artifacts and command lines; tests ask
the same questions without Snakemake.

    CorpusGraph(checked_corpus(config, "kb"), CorpusLayout.of("results", "kb")).retrieve("hybrid")
    -> {"runs": ["results/kb/runs/biencoder.trec", "results/kb/runs/bm25.trec"], "files": {}}

Where each kind's own files are (a kind's `reads` asks the graph) is kind_files.py's `KindFiles`,
which the graph is one of.

What it leaves out: the outputs (the registry and the specs), the code each stage runs
(depends.py) and running anything.
"""

from __future__ import annotations

from pathlib import Path

from ..answer.reading.retrieval_questions import GENERIC_FAMILIES, families_known
from ..artifacts.registry import FIGURE_TABLES
from ..datasets.dev_split import has_dev_questions
from ..domain import of_corpus
from ..text.corpus import FOLDERS, SourceSettings
from .graph_answers import AnswerInputs
from .graph_scale import ScaleInputs
from .kind_files import KindFiles, paths
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

    def source_files(self) -> Given:
        """The documents, given to curate as their folder (a BEIR collection's folder, a SQuAD file)."""
        return Given(self.source.path, tuple(self.documents()))

    def question_files(self) -> Given | None:
        """What the questions stage reads: the BEIR folder's queries and qrels, or the questions file."""
        if self.source.format == "beir":
            root = Path(self.source.path)
            return Given(self.source.path, tuple(paths(root / "queries.jsonl",
                                                          root / "qrels" / f"{self.source.split}.tsv")))
        if self.source.format == "squad":
            return Given(self.source.path, (self.source.path,))
        if not self.source.questions:  # a markdown corpus without questions yet: nothing to score
            return None
        return Given(self.source.questions, (self.source.questions,))

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

    def train(self, name: str) -> dict:
        """What training the embedder `name` reads besides the documents, chunks and tokenizer (its kind's `training_reads`)."""
        return self.corpus.embedders[name].training_reads(self, name)

    def synthesising(self) -> list[str]:
        """The trained encoders that train on questions synthesised from the corpus (synth_pairs)."""
        return [e for e in self.trained() if self.corpus.embedders[e].synthesises()]

    def synth_pairs(self, name: str) -> dict:
        """The lexicon and terms file a domain's questions (the grammar's learner family) are phrased with."""
        if all(f in GENERIC_FAMILIES for f in self.corpus.embedders[name].s.questions.families):
            return {}
        return {"lexicon": str(self.layout.lexicon), "terms": self.terms_file()}

    def bm25(self, name: str) -> dict:
        """The units an index over units reads, and its analyzer's word lists."""
        return {**({"units": str(self.layout.units)} if self.over_units(name) else {}), **self.word_lists(name)}

    def ivf(self, name: str) -> dict:
        """The vectors (and sidecar) an IVF index is built from."""
        embedder = self.corpus.ivf_indexes()[name]["embedder"]
        return {"vectors": str(self.layout.vectors(embedder)), "sidecar": str(self.layout.vectors_sidecar(embedder))}

    def retrieve(self, name: str) -> dict:
        """A retrieve job's input runs (in its kind's order) and the files its kind reads, by file key; a
        fusion fitted on synthetic questions also reads them and what its upstream retrievers rank them with."""
        kind = self.corpus.retrievers[name]
        runs = {"runs": paths(*(self.layout.run(r) for r in kind.upstream()))} if kind.upstream() else {}
        if name not in self.synthetic_fits():
            return {**runs, "files": kind.reads(self)}
        files = dict(kind.reads(self))
        for r in self.feeding(name):
            files.update(self.corpus.retrievers[r].serves(self))
        return {**runs, "fit_questions": str(self.layout.fit_questions(name)), "files": files}

    def synthetic_fits(self) -> list[str]:
        """The fusions with `fit: true` of a corpus without dev questions: they fit on held-out synthetic ones."""
        if has_dev_questions(self.corpus.source):
            return []
        return [r for r, k in self.corpus.retrievers.items() if k.fits_weights()]

    def feeding(self, name: str) -> list[str]:
        """Every retriever whose ranking goes into `name`'s, transitively, in config order."""
        found: set[str] = set()
        todo = list(self.corpus.retrievers[name].upstream())
        while todo:
            r = todo.pop()
            if r not in found:
                found.add(r)
                todo += self.corpus.retrievers[r].upstream()
        return [r for r in self.corpus.retrievers if r in found]

    def fit_questions_settings(self, name: str) -> dict:
        """What the fit_questions job of the fusion `name` reads: its `fit_questions`, and what each trained
        retriever feeding it trained on: an encoder's synthesised questions by their held-out hash (seed,
        share), a reranker's by its synthesiser's settings (the questions it made are left out)."""
        retrievers, embedders = self.corpus.retrievers, self.corpus.embedders
        encoders = sorted({retrievers[r].embedder() for r in self.feeding(name)} & set(self.synthesising()))
        rerankers = [r for r in self.feeding(name) if retrievers[r].trained]
        return {**retrievers[name].s.fit_questions.synthesis(), "families": self.fit_families(name),
                "heldout_of": [{"encoder": e, "seed": embedders[e].s.questions.seed,
                                "share": embedders[e].s.questions.heldout} for e in encoders],
                "rerankers": [{"reranker": r, "synthetic": retrievers[r].s.synthetic, "seed": retrievers[r].s.seed}
                              for r in rerankers]}

    def fit_families(self, name: str) -> list[str]:
        """The question families a fusion fits on: its `fit_questions.families`, else those the encoders
        feeding it train on (their held-out questions are of the kind they were trained for), else generic."""
        given = self.corpus.retrievers[name].s.fit_questions.families
        if given:
            return list(given)
        feeding = {self.corpus.retrievers[r].embedder() for r in self.feeding(name)}
        used = {f for e in self.synthesising() if e in feeding
                for f in self.corpus.embedders[e].s.questions.families}
        return [f for f in families_known() if f in used] or ["generic"]

    def fit_questions(self, name: str) -> dict:
        """The documents the questions are made from (and the lexicon and terms learner questions are phrased
        with); the whole corpus too when a reranker feeding the fusion made its questions from it."""
        families = self.fit_families(name)
        learner = {"lexicon": str(self.layout.lexicon), "terms": self.terms_file()} \
            if any(f not in GENERIC_FAMILIES for f in families) else {}
        corpus = {"corpus": str(self.layout.docs)} if any(self.corpus.retrievers[r].trained
                                                          for r in self.feeding(name)) else {}
        return {"docs": self.training_docs(), "chunks": str(self.layout.chunks), **corpus, **learner}

    def train_reranker(self, name: str) -> dict:
        return self.corpus.retrievers[name].training_reads(self)

    def rerankers(self) -> list[str]:
        return [r for r, kind in self.corpus.retrievers.items() if kind.trained]

    def runs(self) -> list[str]:
        return paths(*(self.layout.run(r) for r in self.corpus.retrievers))

    def sweeps(self) -> list[tuple[str, str]]:
        return list(self.corpus.sweep_groups())

    def sweep_settings(self, swept: str, param: str) -> dict:
        """What the sweep figure of `swept` over `param` plots: its points (run, value) in value order."""
        value = self.corpus.swept_value
        points = sorted([swept] + self.corpus.sweep_groups()[(swept, param)], key=lambda r: value(r, param))
        return {"title": f"{self.layout.root.name}: {swept}, sweeping {param}", "param": param,
                "points": [[r, value(r, param)] for r in points]}

    def trained(self) -> list[str]:
        return [e for e in self.used_embedders() if self.corpus.embedders[e].trained]

    def summary_figures(self) -> list[str]:
        """The figures the report opens with (report/summary_figures.py); none with no questions to score."""
        scored = self.source.format not in FOLDERS or bool(self.source.questions)
        return list(FIGURE_TABLES) if scored else []

    def used_embedders(self) -> list[str]:
        """Embedders whose vectors some job reads (a dense channel, MMR, the diagnosis)."""
        used = {kind.embedder() for kind in self.corpus.retrievers.values()} | {self.corpus.diagnose.embedder}
        return [e for e in self.corpus.embedders if e in used]

    def used_indexes(self) -> list[str]:
        used = {kind.index() for kind in self.corpus.retrievers.values()}
        return [i for i in self.corpus.bm25 if i in used]

    def used_ivf(self) -> list[str]:
        return list(self.corpus.ivf_indexes())

    def ivf_settings(self, name: str) -> dict:
        """An IVF index's embedder and build settings (its name is made of them)."""
        return self.corpus.ivf_indexes()[name]

    def base_retrievers(self) -> list[str]:
        return self.corpus.base_retrievers()

    def inputs_of(self) -> dict[str, list[str]]:
        """Each retriever's input runs (none for a channel)."""
        return self.corpus.inputs_of()

    def uses_units(self) -> bool:
        return any(self.over_units(i) for i in self.used_indexes())

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
