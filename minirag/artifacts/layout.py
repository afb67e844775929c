"""Where every artifact of a corpus lives under `results/<corpus>/`: the one copy of the layout.

The Snakemake rules build their input and output patterns from it (a `CorpusLayout` whose
root is `results/{corpus}` gives `results/{corpus}/runs/{name}.trec`), and the Python that
loads artifacts at query time (query/sources.py, the report) asks it for real paths. Each method
names one artifact:

    results/<corpus>/
      docs.jsonl  questions.jsonl  tokenizer.json  chunks.jsonl  units.jsonl  lexicon.json
      train_sample.jsonl   the documents trained stages learn from (a corpus with train_cap > 0)
      encoders/<embedder>.npz + .json      vectors/<embedder>.npy + .json   rerankers/<retriever>.npz + .json
      cache/<embedder>.npz   vectors by (model, indexed text) the next embed job reuses
      bm25/<index>/{index.npz, vocab.json, params.json, items.json}
      ivf/<index>/{centroids.npy, offsets.npy, order.npy, vectors_by_list.npy, meta.json}
        (<index>: the embedder and the build settings, e.g. minilm.nlist=64.seed=0.iterations=20.train_per_list=256)
      runs/<retriever>.trec   prompts/<retriever>.jsonl   answers/<reader>/<retriever>.jsonl
      readers/<reader>.npz + .json + .tasks.jsonl (a trained reader, its reading tasks)
      eval/{metrics.json, per_query.csv, per_query_metrics.csv, slices.csv, qrels.chunk.txt, qrels.doc.txt,
            diagnosis.csv, overlap.csv, always_on_top.csv, diversity.csv,
            assertions.md, assertions.json}
      shards/<i>/{docs.jsonl, chunks.jsonl, vectors/<embedder>.npy + .json,
                  bm25/<index>/{postings.npz, vocab.json, items.json}}   (a corpus with shards: N > 1)
      figures/*.png   logs/<stage>[.<name>].log   benchmarks/<stage>[.<name>].tsv
      receipts/<stage>[.<name>].json   what each job read and wrote, by sha256 (integrity.py)
      missing/<n>.txt  the n-th time the workflow found artifacts deleted, naming them (and so rebuilt them)

Each path comes from the artifact registry (registry.py, whose table the stage specs declare), which
also says which job wrote a file; `at(kind, **wildcards)` names any kind, and the layout adds the files that are no artifact kind (logs, benchmarks, receipts, notes).

What it leaves out: which artifacts a corpus has (the config decides) and reading them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..settings import NAME_PATTERN
from .registry import ARTIFACTS, BM25_FILES, DIAGNOSIS_FILES, EVAL_FILES, IVF_FILES, SHARD_BM25_FILES, files_of

__all__ = ["BM25_FILES", "DIAGNOSIS_FILES", "EVAL_FILES", "IVF_FILES", "SHARD_BM25_FILES", "CorpusLayout"]


DEFAULT_CONFIG = "workflow/config.yaml"
# What results/ holds for itself beside results/<corpus>/: build snapshots (history/blobs.py), the
# configs reports were built from (config/parsed.py), and the report's log and benchmark. A corpus of
# one of these names would share a folder with them (deleting its files would break `minirag diff`),
# so it is refused (config/corpus.py).
HISTORY_FOLDER, CONFIGS_FOLDER = "history", "configs"
RESULTS_FOLDERS = (HISTORY_FOLDER, CONFIGS_FOLDER, "logs", "benchmarks")


def report_name(config: dict, configfiles) -> str:
    """A config's report name: its `report:`, else "report" for the default config, else the name of
    the last config file given (mine.yaml -> mine, config.x.yaml -> x), so a user's config never
    writes over another config's report. Either becomes a file path, so either is checked against
    NAME_PATTERN (ValueError): a file named `x$(touch y).yaml` names no report, the user sets one."""
    name, where = config.get("report"), "report:"
    if name is None:
        files = [Path(f) for f in configfiles]
        if not files or files[-1].as_posix().endswith(DEFAULT_CONFIG):
            return "report"
        stem = files[-1].name.split(".yaml")[0].split(".yml")[0]
        name, where = stem.removeprefix("config.") or "report", f"{files[-1]}: the config sets no report:, its name"
    # fullmatch: the schema's pattern is searched, and its $ lets a trailing newline through
    if not isinstance(name, str) or not re.fullmatch(NAME_PATTERN.strip("^$"), name):
        raise ValueError(f"{where} {name!r} cannot name the report (results/<report>.md: letters, digits, '-' "
                         "and '_'); set `report: <name>` in the config")
    return name


def report_paths(results: str | Path, name: str) -> tuple[Path, Path]:
    """(report, manifest) of a config's report: results/<name>.md and its manifest, which for
    the default report is results/manifest.json and otherwise results/<name>.manifest.json."""
    manifest = "manifest.json" if name == "report" else f"{name}.manifest.json"
    return Path(results) / f"{name}.md", Path(results) / manifest


@dataclass(frozen=True)
class CorpusLayout:
    """Where each artifact of one corpus lives under its results folder."""
    root: Path  # results/<corpus>, or the pattern results/{corpus}

    @classmethod
    def of(cls, results: str | Path, corpus: str) -> "CorpusLayout":
        return cls(Path(results) / corpus)

    def at(self, kind: str, **wildcards) -> Path:
        """The file of an artifact kind of the registry, e.g. at("run", name="bm25")."""
        return ARTIFACTS[kind].at(self.root, **wildcards)

    @property
    def docs(self) -> Path:
        return self.at("docs")

    @property
    def questions(self) -> Path:
        return self.at("questions")

    @property
    def tokenizer(self) -> Path:
        return self.at("tokenizer")

    @property
    def chunks(self) -> Path:
        return self.at("chunks")

    @property
    def units(self) -> Path:
        return self.at("units")

    @property
    def train_sample(self) -> Path:
        return self.at("train_sample")

    @property
    def lexicon(self) -> Path:
        return self.at("lexicon")

    def encoder(self, embedder: str) -> Path:
        return self.at("encoder", name=embedder)

    def encoder_sidecar(self, embedder: str) -> Path:
        return self.at("encoder_sidecar", name=embedder)

    def vectors(self, embedder: str) -> Path:
        return self.at("vectors", name=embedder)

    def vectors_sidecar(self, embedder: str) -> Path:
        return self.at("vectors_sidecar", name=embedder)

    def embed_cache(self, embedder: str) -> Path:
        """Vectors by (model, indexed text) that the embed job of `embedder` reuses (index/embed_cache.py)."""
        return self.at("embed_cache", name=embedder)

    def question_pairs(self, embedder: str) -> Path:
        """The synth_pairs stage's questions for an encoder: pairs/<embedder>.jsonl."""
        return self.at("question_pairs", name=embedder)

    def reranker(self, retriever: str) -> Path:
        return self.at("reranker", name=retriever)

    def ivf(self, index: str) -> Path:
        return self.ivf_files(index)[0].parent

    def ivf_files(self, index: str) -> list[Path]:
        return [a.at(self.root, name=index) for a in files_of("ivf")]

    def bm25(self, index: str) -> Path:
        return self.bm25_files(index)[0].parent

    def bm25_files(self, index: str) -> list[Path]:
        return [a.at(self.root, name=index) for a in files_of("bm25")]

    def shard(self, shard) -> Path:
        return self.root / "shards" / str(shard)

    def shard_docs(self, shard) -> Path:
        return self.at("shard_docs", shard=shard)

    def shard_chunks(self, shard) -> Path:
        return self.at("shard_chunks", shard=shard)

    def shard_vectors(self, shard, embedder: str) -> Path:
        return self.at("shard_vectors", shard=shard, name=embedder)

    def shard_bm25(self, shard, index: str) -> Path:
        return self.shard(shard) / "bm25" / index

    def shard_bm25_files(self, shard, index: str) -> list[Path]:
        return [a.at(self.root, shard=shard, name=index) for a in files_of("shard_bm25")]

    def run(self, retriever: str) -> Path:
        return self.at("run", name=retriever)

    def candidates(self, retriever: str) -> Path:
        return self.at("candidates", name=retriever)

    def prompts(self, retriever: str) -> Path:
        return self.at("prompts", name=retriever)

    def answers(self, reader: str, retriever: str) -> Path:
        return self.at("answers", reader=reader, name=retriever)

    def reader_model(self, reader: str) -> Path:
        return self.at("reader", name=reader)

    def reader_files(self, reader: str) -> list[Path]:
        """A trained reader's weights, its sidecar (config, training, held-out scores) and what it learned from
        (reading tasks, learner questions)."""
        return [self.at(kind, name=reader) for kind in ("reader", "reader_sidecar", "reader_tasks")]

    @property
    def eval_dir(self) -> Path:
        return self.root / "eval"

    def eval(self, name: str) -> Path:
        """A file of eval/: metrics.json, per_query.csv, diagnosis.csv, assertions.md, ..."""
        return self.eval_dir / name

    @property
    def figures_dir(self) -> Path:
        return self.root / "figures"

    def figure(self, name: str) -> Path:
        return self.figures_dir / f"{name}.png"

    def log(self, stage: str, name: str | None = None) -> Path:
        return self.root / "logs" / (f"{stage}.{name}.log" if name else f"{stage}.log")

    def benchmark(self, stage: str, name: str | None = None) -> Path:
        return self.root / "benchmarks" / (f"{stage}.{name}.tsv" if name else f"{stage}.tsv")

    @property
    def benchmarks_dir(self) -> Path:
        return self.root / "benchmarks"

    def missing_note(self, n: int | str) -> Path:
        """The n-th note of artifacts the workflow found deleted (workflow/rules/common.smk)."""
        return self.root / "missing" / f"{n}.txt"

    def missing_notes(self) -> list[int]:
        """The numbers of the notes written so far, ascending."""
        return sorted(int(p.stem) for p in (self.root / "missing").glob("*.txt") if p.stem.isdigit())

    def receipt(self, stage: str, name: str | None = None) -> Path:
        return self.root / "receipts" / (f"{stage}.{name}.json" if name else f"{stage}.json")
