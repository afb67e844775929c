"""Every artifact kind a corpus's jobs write, declared once: its path, its producing job, its check.

An `Artifact` is a file pattern under `results/<corpus>/` with the wildcards of the job that
writes it, the job (stage and name pattern) whose receipt vouches for it, and the name of
its content check in content.py. From this one table follow the layout's paths
(layout.py), which job wrote a file (`producer_of`, how a loader finds the receipt to check
against) and which content check `verify` and the loaders run:

    producer_of("results/kb/runs/bm25.trec")
    -> (Path("results/kb"), ARTIFACTS["run"], {"name": "bm25"})

The stage specs (pipeline/stages/) name these kinds in what each stage writes, and a test
checks that every spec's outputs agree with the job declared here.

What it leaves out: which artifacts a corpus has (the config and the specs decide), reading
them (the loaders) and receipts themselves (integrity.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

WILDCARD = re.compile(r"\{(\w+)\}")
# what a wildcard may hold inside a path: a shard is a number, a reader name has no dot
WILDCARD_RE = {"shard": r"\d+", "reader": r"[A-Za-z0-9][A-Za-z0-9_-]*", "n": r"\d+"}


@dataclass(frozen=True)
class Artifact:
    """One kind of file a job writes: its path pattern, the job that writes it, how its content is checked."""
    kind: str                # what it is: "run", "vectors", "bm25_index", ...
    pattern: str             # relative to results/<corpus>, wildcards in braces
    job: str                 # the stage whose receipt vouches for it
    name: str | None = None  # that job's name from the wildcards ("{shard}.{name}"), None: one job per corpus
    check: str | None = None  # the content check (a function of content.py), None: hash only

    def at(self, root: str | Path, **wildcards) -> Path:
        return Path(root) / self.pattern.format(**wildcards)

    def job_name(self, wildcards: dict) -> str | None:
        return self.name.format(**wildcards) if self.name else None

    @cached_property
    def regex(self) -> re.Pattern:
        parts, at = [], 0
        for m in WILDCARD.finditer(self.pattern):
            parts.append(re.escape(self.pattern[at:m.start()]))
            parts.append(f"(?P<{m.group(1)}>{WILDCARD_RE.get(m.group(1), r'[^/]+')})")
            at = m.end()
        parts.append(re.escape(self.pattern[at:]))
        return re.compile("".join(parts))

    @cached_property
    def ends(self) -> tuple[str, str]:
        """The pattern's text before its first wildcard and after its last: a path it matches starts and
        ends with them, so a path that does not is told apart without compiling the regex."""
        found = list(WILDCARD.finditer(self.pattern))
        return (self.pattern[:found[0].start()], self.pattern[found[-1].end():]) if found else (self.pattern, "")

    def match(self, rest: str) -> dict[str, str] | None:
        """The wildcards of `rest` (a path below the corpus root) when it is this artifact's, else None."""
        head, tail = self.ends
        if not (rest.startswith(head) and rest.endswith(tail)):
            return None
        m = self.regex.fullmatch(rest)
        return m.groupdict() if m else None


def _kinds(*items: Artifact) -> dict[str, Artifact]:
    return {a.kind: a for a in items}


BM25_FILES = ("index.npz", "vocab.json", "params.json", "items.json")
SHARD_BM25_FILES = ("postings.npz", "vocab.json", "items.json")
IVF_FILES = ("centroids.npy", "offsets.npy", "order.npy", "vectors_by_list.npy", "meta.json")
EVAL_FILES = ("metrics.json", "per_query.csv", "slices.csv", "qrels.chunk.txt", "qrels.doc.txt", "answers.csv",
              "per_query_metrics.csv", "losses.csv")
DIAGNOSIS_FILES = ("diagnosis.csv", "overlap.csv", "always_on_top.csv", "diversity.csv")
ASSERTION_FILES = ("assertions.md", "assertions.json")


def _check_of(file: str) -> str | None:
    """The content check of a file in a multi-file artifact, by what it holds."""
    return {".json": "json_file", ".jsonl": "records"}.get(Path(file).suffix)


def _files(prefix: str, folder: str, job: str, name: str | None, files: tuple[str, ...],
           checks: dict[str, str] = {}) -> list[Artifact]:
    return [Artifact(f"{prefix}:{f}", f"{folder}/{f}", job, name, checks.get(f, _check_of(f))) for f in files]


ARTIFACTS: dict[str, Artifact] = _kinds(
    Artifact("docs", "docs.jsonl", "curate", check="records"),
    Artifact("questions", "questions.jsonl", "questions", check="records"),
    Artifact("train_sample", "train_sample.jsonl", "train_sample", check="records"),
    Artifact("tokenizer", "tokenizer.json", "train_tokenizer", check="json_file"),
    Artifact("chunks", "chunks.jsonl", "chunk", check="records"),
    Artifact("units", "units.jsonl", "units", check="records"),
    Artifact("lexicon", "lexicon.json", "lexicon", check="json_file"),
    Artifact("question_pairs", "pairs/{name}.jsonl", "synth_pairs", "{name}", "records"),
    Artifact("encoder", "encoders/{name}.npz", "train_biencoder", "{name}", "weights"),
    Artifact("encoder_sidecar", "encoders/{name}.json", "train_biencoder", "{name}", "json_file"),
    Artifact("vectors", "vectors/{name}.npy", "embed", "{name}", "vectors"),
    Artifact("vectors_sidecar", "vectors/{name}.json", "embed", "{name}", "json_file"),
    Artifact("embed_cache", "cache/{name}.npz", "embed_cache", "{name}", "embed_cache"),
    *_files("bm25", "bm25/{name}", "bm25", "{name}", BM25_FILES, {"index.npz": "bm25_index"}),
    *_files("ivf", "ivf/{name}", "ivf", "{name}", IVF_FILES, {"vectors_by_list.npy": "ivf"}),
    Artifact("reranker", "rerankers/{name}.npz", "train_reranker", "{name}", "weights"),
    Artifact("reranker_sidecar", "rerankers/{name}.json", "train_reranker", "{name}", "json_file"),
    Artifact("fit_questions", "fit/{name}.jsonl", "fit_questions", "{name}", "records"),
    Artifact("run", "runs/{name}.trec", "retrieve", "{name}", "run"),
    Artifact("reader", "readers/{name}.npz", "train_reader", "{name}", "weights"),
    Artifact("reader_sidecar", "readers/{name}.json", "train_reader", "{name}", "reader_sidecar"),
    Artifact("reader_tasks", "readers/{name}.tasks.jsonl", "train_reader", "{name}", "records"),
    Artifact("candidates", "candidates/{name}.jsonl", "candidates", "{name}", "candidates"),
    Artifact("prompts", "prompts/{name}.jsonl", "prompt", "{name}", "records"),
    Artifact("answers", "answers/{reader}/{name}.jsonl", "generate", "{reader}.{name}", "records"),
    *_files("eval", "eval", "evaluate", None, EVAL_FILES),
    *_files("diagnosis", "eval", "diagnose", None, DIAGNOSIS_FILES),
    *_files("assertions", "eval", "assertions", None, ASSERTION_FILES),
    Artifact("sweep_figure", "figures/sweep-{swept}-{param}.png", "sweep_figure", "{swept}-{param}", "figure"),
    Artifact("loss_figure", "figures/loss-{name}.png", "loss_figure", "{name}", "figure"),
    Artifact("summary_figure", "figures/summary-{figure}.png", "summary_figure", "{figure}", "figure"),
    Artifact("shard_docs", "shards/{shard}/docs.jsonl", "curate_shard", "{shard}", "records"),
    Artifact("shard_chunks", "shards/{shard}/chunks.jsonl", "chunk_shard", "{shard}", "records"),
    Artifact("shard_vectors", "shards/{shard}/vectors/{name}.npy", "embed_shard", "{shard}.{name}", "vectors"),
    Artifact("shard_vectors_sidecar", "shards/{shard}/vectors/{name}.json", "embed_shard", "{shard}.{name}",
             "json_file"),
    *_files("shard_bm25", "shards/{shard}/bm25/{name}", "bm25_shard", "{shard}.{name}", SHARD_BM25_FILES,
            {"postings.npz": "bm25_postings"}),
)


# what each summary figure the report opens with is drawn from, as artifact kinds, in the order its stage reads
FIGURE_TABLES = {"retrievers": ("eval:per_query_metrics.csv", "questions"), "overlap": ("diagnosis:overlap.csv",),
                 "losses": ("eval:losses.csv",)}


def files_of(prefix: str) -> list[Artifact]:
    """The artifacts of a multi-file kind ("bm25", "eval", ...), in their declared order."""
    return [a for k, a in ARTIFACTS.items() if k.startswith(prefix + ":")]


def producer_of(path: str | Path) -> tuple[Path, Artifact, dict[str, str]]:
    """(the corpus root, the artifact, its wildcards) of a file a corpus's job writes;
    ValueError for a file no stage writes."""
    path = Path(path)
    parts = path.parts
    # the nearest root under which the rest is a declared pattern (a corpus named like a folder
    # of another corpus's results is still told apart), but never a shard's own folder
    for cut in range(len(parts) - 1, 0, -1):
        if cut >= 2 and parts[cut - 2] == "shards" and parts[cut - 1].isdigit():
            continue
        rest = "/".join(parts[cut:])
        for artifact in ARTIFACTS.values():
            wildcards = artifact.match(rest)
            if wildcards is not None:
                return Path(*parts[:cut]), artifact, wildcards
    raise ValueError(f"{path}: not an artifact of a corpus's results folder")
