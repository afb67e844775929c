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

`CorpusLayout.producer_of(path)` is the inverse: which job (stage, name) of which corpus
wrote a file, so a loader finds the receipt to check it against.

What it leaves out: which artifacts a corpus has (the config decides) and reading them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

BM25_FILES = ("index.npz", "vocab.json", "params.json", "items.json")
SHARD_BM25_FILES = ("postings.npz", "vocab.json", "items.json")
EVAL_FILES = ("metrics.json", "per_query.csv", "slices.csv", "qrels.chunk.txt", "qrels.doc.txt", "answers.csv",
              "per_query_metrics.csv", "losses.csv")
DIAGNOSIS_FILES = ("diagnosis.csv", "overlap.csv", "always_on_top.csv", "diversity.csv")
IVF_FILES = ("centroids.npy", "offsets.npy", "order.npy", "vectors_by_list.npy", "meta.json")


DEFAULT_CONFIG = "workflow/config.yaml"


def report_name(configfiles) -> str:
    """A config's report name when it sets no `report:`: "report" for the default config,
    else the name of the last config file given (mine.yaml -> mine, config.x.yaml -> x), so a
    user's config never writes over another config's report."""
    files = [Path(f) for f in configfiles]
    if not files or files[-1].as_posix().endswith(DEFAULT_CONFIG):
        return "report"
    stem = files[-1].name.split(".yaml")[0].split(".yml")[0]
    return stem.removeprefix("config.") or "report"


def report_paths(results: str | Path, name: str) -> tuple[Path, Path]:
    """(report, manifest) of a config's report: results/<name>.md and its manifest, which for
    the default report is results/manifest.json and otherwise results/<name>.manifest.json."""
    manifest = "manifest.json" if name == "report" else f"{name}.manifest.json"
    return Path(results) / f"{name}.md", Path(results) / manifest


@dataclass(frozen=True)
class CorpusLayout:
    root: Path  # results/<corpus>, or the pattern results/{corpus}

    @classmethod
    def of(cls, results: str | Path, corpus: str) -> "CorpusLayout":
        return cls(Path(results) / corpus)

    @property
    def docs(self) -> Path:
        return self.root / "docs.jsonl"

    @property
    def questions(self) -> Path:
        return self.root / "questions.jsonl"

    @property
    def tokenizer(self) -> Path:
        return self.root / "tokenizer.json"

    @property
    def chunks(self) -> Path:
        return self.root / "chunks.jsonl"

    @property
    def units(self) -> Path:
        return self.root / "units.jsonl"

    @property
    def train_sample(self) -> Path:
        return self.root / "train_sample.jsonl"

    @property
    def lexicon(self) -> Path:
        return self.root / "lexicon.json"

    def encoder(self, embedder: str) -> Path:
        return self.root / "encoders" / f"{embedder}.npz"

    def encoder_sidecar(self, embedder: str) -> Path:
        return self.encoder(embedder).with_suffix(".json")

    def vectors(self, embedder: str) -> Path:
        return self.root / "vectors" / f"{embedder}.npy"

    def vectors_sidecar(self, embedder: str) -> Path:
        return self.vectors(embedder).with_suffix(".json")

    def embed_cache(self, embedder: str) -> Path:
        """Vectors by (model, indexed text) that the embed job of `embedder` reuses (index/embed_cache.py)."""
        return self.root / "cache" / f"{embedder}.npz"

    def question_pairs(self, embedder: str) -> Path:
        """The synth_pairs stage's questions for an encoder: pairs/<embedder>.jsonl."""
        return self.root / "pairs" / f"{embedder}.jsonl"

    def reranker(self, retriever: str) -> Path:
        return self.root / "rerankers" / f"{retriever}.npz"

    def ivf(self, index: str) -> Path:
        return self.root / "ivf" / index

    def ivf_files(self, index: str) -> list[Path]:
        return [self.ivf(index) / name for name in IVF_FILES]

    def bm25(self, index: str) -> Path:
        return self.root / "bm25" / index

    def bm25_files(self, index: str) -> list[Path]:
        return [self.bm25(index) / name for name in BM25_FILES]

    def shard(self, shard) -> Path:
        return self.root / "shards" / str(shard)

    def shard_docs(self, shard) -> Path:
        return self.shard(shard) / "docs.jsonl"

    def shard_chunks(self, shard) -> Path:
        return self.shard(shard) / "chunks.jsonl"

    def shard_vectors(self, shard, embedder: str) -> Path:
        return self.shard(shard) / "vectors" / f"{embedder}.npy"

    def shard_bm25(self, shard, index: str) -> Path:
        return self.shard(shard) / "bm25" / index

    def shard_bm25_files(self, shard, index: str) -> list[Path]:
        return [self.shard_bm25(shard, index) / name for name in SHARD_BM25_FILES]

    def run(self, retriever: str) -> Path:
        return self.root / "runs" / f"{retriever}.trec"

    def candidates(self, retriever: str) -> Path:
        return self.root / "candidates" / f"{retriever}.jsonl"

    def prompts(self, retriever: str) -> Path:
        return self.root / "prompts" / f"{retriever}.jsonl"

    def answers(self, reader: str, retriever: str) -> Path:
        return self.root / "answers" / reader / f"{retriever}.jsonl"

    def reader_model(self, reader: str) -> Path:
        return self.root / "readers" / f"{reader}.npz"

    def reader_files(self, reader: str) -> list[Path]:
        """A trained reader's weights, its sidecar (config, training, held-out scores) and what it learned from
        (reading tasks, learner questions)."""
        model = self.reader_model(reader)
        return [model, model.with_suffix(".json"), model.with_suffix(".tasks.jsonl")]

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

    @classmethod
    def producer_of(cls, path: str | Path) -> tuple["CorpusLayout", str, str | None]:
        """(layout, stage, name) of the job that writes `path`; ValueError for a file no stage writes."""
        path = Path(path)
        parts = path.parts
        at = next((i for i in range(len(parts) - 3, 0, -1) if parts[i] == "shards" and parts[i + 1].isdigit()), None)
        if at is not None:  # results/<corpus>/shards/<i>/...
            root, shard, rest = Path(*parts[:at]), parts[at + 1], parts[at + 2:]
            if rest == ("docs.jsonl",):
                return cls(root), "curate_shard", shard
            if rest == ("chunks.jsonl",):
                return cls(root), "chunk_shard", shard
            if len(rest) == 2 and rest[0] == "vectors":
                return cls(root), "embed_shard", f"{shard}.{rest[1].rsplit('.', 1)[0]}"
            if len(rest) == 3 and rest[0] == "bm25":
                return cls(root), "bm25_shard", f"{shard}.{rest[1]}"
            raise ValueError(f"{path}: not an artifact of a corpus's shard")
        top = {"docs.jsonl": "curate", "questions.jsonl": "questions", "tokenizer.json": "train_tokenizer",
               "chunks.jsonl": "chunk", "units.jsonl": "units", "lexicon.json": "lexicon",
               "train_sample.jsonl": "train_sample"}
        if path.name in top:
            return cls(path.parent), top[path.name], None
        folder, stem = path.parent.name, path.name.rsplit(".", 1)[0]
        per_name = {"encoders": "train_biencoder", "vectors": "embed", "runs": "retrieve", "prompts": "prompt",
                    "candidates": "candidates",
                    "rerankers": "train_reranker", "cache": "embed_cache", "pairs": "synth_pairs"}
        if folder in per_name:
            return cls(path.parent.parent), per_name[folder], stem
        if folder == "readers":
            return cls(path.parent.parent), "train_reader", path.name.split(".", 1)[0]
        if path.parent.parent.name == "answers":  # answers/<reader>/<retriever>.jsonl
            return cls(path.parent.parent.parent), "generate", f"{folder}.{stem}"
        if path.parent.parent.name in ("bm25", "ivf"):
            return cls(path.parent.parent.parent), path.parent.parent.name, folder
        if folder == "eval":
            stage = ("diagnose" if path.name in DIAGNOSIS_FILES else "assertions" if stem == "assertions"
                     else "evaluate")
            return cls(path.parent.parent), stage, None
        if folder == "figures":
            kind, _, name = stem.partition("-")
            return cls(path.parent.parent), f"{kind}_figure", name
        raise ValueError(f"{path}: not an artifact of a corpus's results folder")
