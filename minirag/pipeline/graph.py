"""What each rule of the graph reads, for one corpus: the input functions of workflow/rules/*.smk.

`CorpusGraph(cc, layout)` answers, for a corpus's checked config and its results layout,
which files a rule's job reads besides the fixed ones its rule names: the documents of
the source, the runs a fusion combines, the vectors and query-side files of a dense
channel, every artifact the report summarises. The rule files stay declarations; tests
ask the same questions without Snakemake.

    CorpusGraph(cc, CorpusLayout.of("results", "kb")).retrieve("hybrid")
    -> {"runs": ["results/kb/runs/biencoder.trec", "results/kb/runs/bm25.trec"]}

What it leaves out: the rules' outputs (the rule files build them from the same layout),
the code each stage runs (depends.py) and running anything.
"""

from __future__ import annotations

from pathlib import Path

from ..answer.readers import reader_kind
from ..artifacts.layout import DIAGNOSIS_FILES, EVAL_FILES, CorpusLayout
from ..config.corpus import answered, ivf_indexes, main_retrievers, sweep_groups
from ..index.embedders import embedder_kind
from ..rank.kinds import kind_of
from .depends import as_input
from .graph_answers import AnswerInputs
from .graph_scale import ScaleInputs, flags, paths


class CorpusGraph(ScaleInputs, AnswerInputs):
    def __init__(self, cc: dict, layout: CorpusLayout):
        self.cc, self.layout = cc, layout

    @property
    def source(self) -> dict:
        return self.cc["source"]

    def documents(self) -> list[str]:
        if self.source["format"] == "beir":
            return paths(Path(self.source["path"]) / "corpus.jsonl")
        # a name with { or } is no Snakemake input (a wildcard to it); curate refuses it, naming it
        return sorted(str(p) for p in Path(self.source["path"]).glob(self.source["glob"])
                      if p.is_file() and "{" not in str(p) and "}" not in str(p))

    def question_source(self) -> str:
        """What the questions stage reads: the BEIR folder, or the questions file."""
        return self.source["path"] if self.source["format"] == "beir" else self.source["questions"]

    def question_files(self) -> list[str]:
        if self.source["format"] == "beir":
            root = Path(self.source["path"])
            return paths(root / "queries.jsonl", root / "qrels" / f"{self.source['split']}.tsv")
        return [self.source["questions"]] if self.source["questions"] else []

    def question_args(self) -> str:
        """The questions stage's --source; none for a markdown corpus without questions (nothing to score yet)."""
        return flags(source=self.question_source())

    def chunk(self) -> dict:
        # Only token-bounded strategies read the tokenizer; the others must not rerun when it changes.
        return {"tokenizer": str(self.layout.tokenizer)} if self.cc["chunk"]["strategy"] in ("tokens", "sections") else {}

    def chunk_args(self) -> str:
        return flags(**self.chunk())

    def train(self, name: str) -> dict:
        """A BEIR training split's files, when the encoder trains on its qrels."""
        return self.beir_training() if self.cc["embedders"][name].get("train_qrels") else {}

    def beir_training(self) -> dict:
        root = Path(self.source["path"])
        return {"beir_queries": str(root / "queries.jsonl"), "beir_corpus": str(root / "corpus.jsonl"),
                "beir_qrels": str(root / "qrels" / f"{self.source['train_split']}.tsv")}

    def train_args(self, name: str) -> str:
        if not self.train(name):
            return ""
        return flags(beir=self.source["path"], train_split=self.source["train_split"], eval_split=self.source["split"])

    def embedder_args(self, name: str) -> dict:
        """The files (or, for a pretrained model, the folder) an embedder reads, by the stage's argument name."""
        return {k: str(v) for k, v in embedder_kind(self.cc, name).files(self.layout, name).items()}

    def embedder_files(self, name: str) -> dict:
        """The same as the rule's inputs: a folder as every file in it, so an edited model file reruns embed."""
        return {k: paths(*sorted(q for q in Path(v).rglob("*") if q.is_file())) if Path(v).is_dir() else v
                for k, v in self.embedder_args(name).items()}

    def embed_args(self, name: str) -> str:
        return flags(**self.embedder_args(name))

    def vectors(self, name: str) -> dict:
        """An embedder's vectors and the files its query side needs."""
        return {"vectors": str(self.layout.vectors(name)), **self.embedder_files(name)}

    def over_units(self, index: str | None) -> bool:
        return index is not None and self.cc["bm25"][index]["items"] == "units"

    def bm25(self, name: str) -> dict:
        """The units an index over units reads, and its analyzer's word lists."""
        return {**({"units": str(self.layout.units)} if self.over_units(name) else {}), **self.word_lists(name)}

    def word_lists(self, index: str | None) -> dict:
        """The stopword and filler lists an index's analyzer reads, when it reads any."""
        from ..text.analyze import AnalyzerConfig
        files = AnalyzerConfig.from_dict(self.cc["bm25"][index]["analyzer"]).data_files() if index else []
        return {"word_lists": [as_input(f) for f in files]} if files else {}

    def bm25_args(self, name: str) -> str:
        return flags(units=self.bm25(name).get("units"))

    def ivf(self, name: str) -> dict:
        """The vectors (and sidecar) an IVF index is built from."""
        embedder = ivf_indexes(self.cc)[name]["embedder"]
        return {"vectors": str(self.layout.vectors(embedder)), "sidecar": str(self.layout.vectors_sidecar(embedder))}

    def retrieve(self, name: str) -> dict:
        kind = kind_of(self.cc, name)
        inputs: dict = {}
        if self.over_units(kind.index()):
            inputs["units"] = str(self.layout.units)
        if kind.upstream():
            inputs["runs"] = paths(*(self.layout.run(r) for r in kind.upstream()))
        if kind.embedder():
            inputs.update(self.vectors(kind.embedder()))
        if kind.index():
            inputs["index"] = paths(*self.layout.bm25_files(kind.index()))
            inputs.update(self.word_lists(kind.index()))
        if kind.ivf_index():
            inputs["ivf"] = paths(*self.layout.ivf_files(kind.ivf_index()))
        if kind.trained:
            inputs["model"] = paths(self.layout.reranker(name), self.layout.reranker(name).with_suffix(".json"))
        if kind.expansion().enabled():
            inputs["lexicon"] = str(self.layout.lexicon)
        return inputs

    def train_reranker(self, name: str) -> dict:
        """The run whose candidates the reranker of `name` learns to re-order (and the lexicon its features expand with)."""
        kind = kind_of(self.cc, name)
        inputs = {"run": str(self.layout.run(kind.upstream()[0]))}
        if kind.expansion().enabled():
            inputs["lexicon"] = str(self.layout.lexicon)
        if kind.s.train_qrels:
            inputs.update(self.beir_training())
        return inputs

    def train_reranker_args(self, name: str) -> str:
        beir = {} if not kind_of(self.cc, name).s.train_qrels else {
            "beir": self.source["path"], "train_split": self.source["train_split"], "eval_split": self.source["split"]}
        return flags(lexicon=self.train_reranker(name).get("lexicon"), **beir)

    def uses_lexicon(self) -> bool:
        return (any(kind_of(self.cc, r).expansion().enabled() for r in self.cc["retrievers"])
                or any("lexicon" in reader_kind(self.cc, r).training_inputs for r in self.trained_readers()))

    def rerankers(self) -> list[str]:
        return [r for r in self.cc["retrievers"] if kind_of(self.cc, r).trained]

    def retrieve_args(self, name: str) -> str:
        kind = kind_of(self.cc, name)
        inputs = self.retrieve(name)
        files = self.embedder_args(kind.embedder()) if kind.embedder() else {}
        return flags(runs=inputs.get("runs"), vectors=inputs.get("vectors"), **files,
                     index=kind.index() and str(self.layout.bm25(kind.index())),
                     ivf=kind.ivf_index() and str(self.layout.ivf(kind.ivf_index())),
                     units=inputs.get("units"), model=inputs.get("model", [None])[0], lexicon=inputs.get("lexicon"))

    def runs(self) -> list[str]:
        return paths(*(self.layout.run(r) for r in self.cc["retrievers"]))

    def sweeps(self) -> list[tuple[str, str]]:
        return list(sweep_groups(self.cc))

    def sweep_settings(self, swept: str, param: str) -> dict:
        """What the sweep figure of `swept` over `param` plots: its points (run, value) in value order."""
        runs = self.cc["retrievers"]
        points = sorted([swept] + sweep_groups(self.cc)[(swept, param)], key=lambda r: runs[r][param])
        return {"title": f"{self.layout.root.name}: {swept}, sweeping {param}", "param": param,
                "points": [[r, runs[r][param]] for r in points]}

    def trained(self) -> list[str]:
        return [e for e in self.used_embedders() if embedder_kind(self.cc, e).trained]

    def figures(self) -> list[str]:
        """Every PNG of the corpus: one per sweep, one loss curve per trained encoder and reader."""
        figs = [self.layout.figure(f"sweep-{name}-{param}") for name, param in self.sweeps()]
        figs += [self.layout.figure(f"loss-{e}") for e in self.trained() + self.trained_readers()]
        figs += [self.layout.figure(f"summary-{f}") for f in self.summary_figures()]
        return paths(*figs)

    def summary_figures(self) -> list[str]:
        """The figures the report opens with (stages/summary_figure.py); none with no questions to score."""
        scored = self.source["format"] == "beir" or bool(self.source["questions"])
        return ["retrievers", "overlap", "losses"] if scored else []

    def used_embedders(self) -> list[str]:
        """Embedders whose vectors some job reads (a dense channel, MMR, the diagnosis)."""
        used = {kind_of(self.cc, r).embedder() for r in self.cc["retrievers"]} | {self.cc["diagnose"]["embedder"]}
        return [e for e in self.cc["embedders"] if e in used]

    def used_indexes(self) -> list[str]:
        used = {kind_of(self.cc, r).index() for r in self.cc["retrievers"]}
        return [i for i in self.cc["bm25"] if i in used]

    def used_ivf(self) -> list[str]:
        return list(ivf_indexes(self.cc))

    def uses_units(self) -> bool:
        return any(self.over_units(i) for i in self.used_indexes())

    def uses_tokenizer(self) -> bool:
        return (bool(self.chunk()) or any("tokenizer" in self.embedder_files(e) for e in self.used_embedders())
                or any("tokenizer" in self.train_reader(r) for r in self.trained_readers()))

    def jobs(self) -> list[tuple[str, str | None]]:
        """(stage, name) of every job the corpus's report depends on, in graph order."""
        jobs = [("curate", None), ("questions", None)] + [("train_sample", None)] * self.uses_train_sample()
        jobs += [("train_tokenizer", None)] * self.uses_tokenizer()
        shards = self.shard_ids()
        jobs += [(stage, str(i)) for stage in ("curate_shard", "chunk_shard") for i in shards]
        jobs += [("chunk", None)] + [("units", None)] * self.uses_units() + [("lexicon", None)] * self.uses_lexicon() + [("train_biencoder", e) for e in self.trained()]
        jobs += [("embed_shard", f"{i}.{e}") for e in self.used_embedders() for i in shards]
        jobs += [("embed", e) for e in self.used_embedders()]
        jobs += [("bm25_shard", f"{i}.{x}") for x in self.used_indexes() for i in shards]
        jobs += [("bm25", i) for i in self.used_indexes()] + [("ivf", i) for i in self.used_ivf()]
        jobs += [("train_reranker", r) for r in self.rerankers()] + [("retrieve", r) for r in self.cc["retrievers"]]
        jobs += [("train_reader", r) for r in self.trained_readers()]
        jobs += [("candidates", r) for r in self.selected_runs()] + [("prompt", r) for r in answered(self.cc)]
        jobs += [("generate", f"{reader}.{r}") for reader, r in self.answer_jobs()]
        jobs += [("evaluate", None), ("diagnose", None)] + [("assertions", None)] * bool(self.cc["assertions"])
        jobs += [("sweep_figure", f"{n}-{p}") for n, p in self.sweeps()]
        jobs += [("loss_figure", e) for e in self.trained() + self.trained_readers()]
        jobs += [("summary_figure", f) for f in self.summary_figures()]
        return jobs

    def artifacts(self) -> list[str]:
        """Every file the corpus's jobs write but logs and benchmarks, receipts included: what the
        report stands on, so deleting any of them rebuilds it and what depends on it."""
        lay = self.layout
        files = [lay.docs, lay.questions] + [lay.train_sample] * self.uses_train_sample()
        files += [lay.tokenizer] * self.uses_tokenizer() + [lay.chunks]
        for i in self.shard_ids():
            files += [lay.shard_docs(i), lay.shard_chunks(i)]
            files += [p for e in self.used_embedders() for p in (lay.shard_vectors(i, e),
                                                                 lay.shard_vectors(i, e).with_suffix(".json"))]
            files += [p for x in self.used_indexes() for p in lay.shard_bm25_files(i, x)]
        files += [lay.units] * self.uses_units() + [lay.lexicon] * self.uses_lexicon()
        for e in self.trained():
            files += [lay.encoder(e), lay.encoder_sidecar(e)]
        for e in self.used_embedders():
            files += [lay.vectors(e), lay.vectors_sidecar(e)]
            files += [lay.embed_cache(e), lay.receipt("embed_cache", e)] * (not self.shard_ids())
        for i in self.used_indexes():
            files += lay.bm25_files(i)
        for i in self.used_ivf():
            files += lay.ivf_files(i)
        for r in self.rerankers():
            files += [lay.reranker(r), lay.reranker(r).with_suffix(".json")]
        files += [lay.run(r) for r in self.cc["retrievers"]]
        files += [f for r in self.trained_readers() for f in lay.reader_files(r)]
        files += [lay.candidates(r) for r in self.selected_runs()]
        files += [lay.prompts(r) for r in answered(self.cc)] + [lay.answers(*job) for job in self.answer_jobs()]
        files += [lay.eval(f) for f in EVAL_FILES + DIAGNOSIS_FILES]
        if self.cc["assertions"]:
            files += [lay.eval("assertions.md"), lay.eval("assertions.json")]
        return paths(*files) + self.figures() + self.receipts()

    def receipts(self) -> list[str]:
        return paths(*(self.layout.receipt(stage, name) for stage, name in self.jobs()))

    def missing(self) -> list[str]:
        """Artifacts that are not there (the corpus may never have been built)."""
        return [f for f in self.artifacts() if not Path(f).exists()]

    def benchmarks(self) -> list[str]:
        return paths(*(self.layout.benchmark(stage, name) for stage, name in self.jobs()))

    def main_retrievers(self) -> list[str]:
        return main_retrievers(self.cc)
