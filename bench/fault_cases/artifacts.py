"""Artifacts: built files truncated, bit-flipped, replaced or edited (refused by their receipt),
forged with their hashes rewritten in every receipt that names them (refused by the content
checks, by `minirag verify` and by the loader that reads them), and deleted (rebuilt)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Callable

import numpy as np
from fault_harness import (
    Case,
    Edit,
    Forged,
    R,
    evaluate_stage,
    forge,
    minirag,
    planned,
    refused,
    search,
    snakemake,
    stage,
)

from fault_cases import artifacts_more


def damaged(rel: str, damage: Callable[[bytes], bytes], command: Callable[[Path], object], *needles: str,
            log: str | None = None):
    def check(project: Path) -> tuple[bool, str]:
        with Edit(project / rel) as path:
            path.write_bytes(damage(path.read_bytes()))
            return refused(command(project), *(needles or (rel,)), log=project / log if log else None)
    return check


def forged(rel: str, damage: Callable[[Path, bytes], bytes], loader: Callable[[Path], object] | None, *needles: str):
    """The file rewritten with its hashes: `minirag verify` must name it, and so must `loader`."""
    def check(project: Path) -> tuple[bool, str]:
        name = rel.split("/")[-1]
        with Forged(project, rel) as path:
            forge(project, rel, damage(path, path.read_bytes()))
            verify = minirag(project, "verify")
            said = next((ln for ln in verify.stdout.splitlines() if name in ln), verify.stdout.strip()[:160])
            held = verify.returncode == 1 and "Traceback" not in verify.stderr and all(
                n in said for n in needles) and name in said
            if loader is not None:
                held = held and refused(loader(project), name, *needles)[0]
            return held, said[:160]
    return check


def rebuilt_after(check):
    """`check`, then the build again: a job that failed on the damage took its outputs with it."""
    def wrapped(project: Path) -> tuple[bool, str]:
        try:
            return check(project)
        finally:
            snakemake(project, "results/mini.md", timeout=1800)
    return wrapped


def deleted(rel: str, rule: str):
    def check(project: Path) -> tuple[bool, str]:
        with Edit(project / rel) as path:
            path.unlink()
            return planned(snakemake(project, "-n", "results/mini.md"), rule)
    return check


# ------------------------------------------------------------------ damage


def cut_mid_line(data: bytes) -> bytes:
    """Keep the run's lines but cut the last one inside its score: it still has six fields."""
    last = data.decode().rstrip("\n").rsplit("\n", 1)
    return (last[0] + "\n" + last[1].rsplit(" ", 2)[0] + " 1.2 x").encode()


def flip(data: bytes) -> bytes:
    i = len(data) // 2
    return data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1:]


def swap_two_term_ids(data: bytes) -> bytes:
    vocab = json.loads(data)
    a, b = list(vocab)[:2]
    vocab[a], vocab[b] = vocab[b], vocab[a]
    return json.dumps(vocab).encode()


def edit_chunk_text(data: bytes) -> bytes:
    lines = data.decode().splitlines()
    rec = json.loads(lines[1])
    rec["text"] += " (edited)"
    lines[1] = json.dumps(rec, ensure_ascii=False)
    return ("\n".join(lines) + "\n").encode()


def drop_key(key: str) -> Callable[[bytes], bytes]:
    def damage(data: bytes) -> bytes:
        obj = json.loads(data)
        obj.pop(key)
        return json.dumps(obj).encode()
    return damage


# ------------------------------------------------------------------ forgeries


def npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def vectors(change: Callable[[np.ndarray], np.ndarray]):
    return lambda path, data: npy(change(np.load(io.BytesIO(data))))


def with_row(value: float):
    def change(a):
        a = a.copy()
        a[3, 5] = value
        return a
    return change


def npz_arrays(change: Callable[[dict], dict]):
    def damage(path: Path, data: bytes) -> bytes:
        with np.load(io.BytesIO(data)) as z:
            arrays = change({k: z[k].copy() for k in z.files})
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        return buf.getvalue()
    return damage


def set_item(name: str, index: int, value):
    def change(arrays):
        arrays[name][index] = value
        return arrays
    return change


def run_lines(edit: Callable[[list[str]], list[str]]):
    return lambda path, data: "".join(edit(data.decode().splitlines(keepends=True))).encode()


def field(n: int, value: str, line: int = 1):
    def edit(lines):
        parts = lines[line].split()
        parts[n] = value
        return lines[:line] + [" ".join(parts) + "\n"] + lines[line + 1:]
    return edit


def dense_instead(path: Path, data: bytes) -> bytes:
    return (path.parent / "dense.trec").read_bytes()


def json_value(change: Callable[[object], object]):
    return lambda path, data: json.dumps(change(json.loads(data)), allow_nan=True).encode()


def jsonl_line(line: str):
    return lambda path, data: data + line.encode() + b"\n"


def assert_(project: Path):
    return minirag(project, "assert")


def dense_search(project: Path):
    return search(project, "eat", "-k", "22", retriever="dense")


def bm25_search(project: Path):
    return search(project, "eat", retriever="bm25")


RUN = f"{R}/runs/bm25.trec"


def damaged_cases() -> list[tuple]:
    """Truncated, bit-flipped, replaced or edited: refused by the receipt's hash."""
    run_rel = RUN
    return [
        ("run cut mid-line (6 fields kept)", damaged(run_rel, cut_mid_line, evaluate_stage)),
        ("run truncated at a line end", damaged(run_rel, lambda d: d[: d.rfind(b"\n", 0, len(d) // 2) + 1],
                                                evaluate_stage)),
        ("run bit-flipped", damaged(run_rel, flip, evaluate_stage)),
        ("chunk text edited", damaged(f"{R}/chunks.jsonl", edit_chunk_text, evaluate_stage)),
        ("chunk text edited, live search", damaged(f"{R}/chunks.jsonl", edit_chunk_text, bm25_search)),
        ("bm25 vocab: two term ids swapped", damaged(f"{R}/bm25/plain/vocab.json", swap_two_term_ids, bm25_search)),
        ("bm25 index.npz truncated", damaged(f"{R}/bm25/plain/index.npz", lambda d: d[: len(d) // 2], bm25_search)),
        ("bm25 index.npz bit-flipped", damaged(f"{R}/bm25/plain/index.npz", flip, bm25_search)),
        ("bm25 index.npz replaced by garbage", damaged(f"{R}/bm25/plain/index.npz", lambda d: b"garbage" * 10,
                                                       bm25_search)),
        ("bm25 vocab.json not JSON", damaged(f"{R}/bm25/plain/vocab.json", lambda d: d[:-5], bm25_search)),
        ("vectors sidecar not JSON", damaged(f"{R}/vectors/hashing.json", lambda d: d[:-5], dense_search)),
        ("vectors sidecar missing npy_sha256", damaged(f"{R}/vectors/hashing.json", drop_key("npy_sha256"),
                                                       dense_search)),
        ("vectors .npy bit-flipped", damaged(f"{R}/vectors/hashing.npy", flip, dense_search)),
        ("prompts edited", damaged(f"{R}/prompts/rrf.jsonl", flip, lambda p: stage(
            p, "generate", "--settings", '{"type": "extractive", "threshold": 0.5}', "--prompts",
            f"{R}/prompts/rrf.jsonl", "--model", f"{R}/readers/extractive.npz", "--out", "scratch/a.jsonl"))),
        ("answers edited", damaged(f"{R}/answers/extractive/rrf.jsonl", flip, evaluate_stage)),
        ("questions edited", damaged(f"{R}/questions.jsonl", flip, evaluate_stage)),
        ("docs edited", damaged(f"{R}/docs.jsonl", flip, evaluate_stage)),
        ("reader weights bit-flipped", damaged(f"{R}/readers/minigpt.npz", flip, lambda p: minirag(
            p, "answer", "past of eat", "--reader", "minigpt"))),
        ("reranker weights bit-flipped", damaged(f"{R}/rerankers/bm25-rerank.npz", flip,
                                                 lambda p: search(p, "eat", retriever="bm25-rerank"))),
        ("receipt not JSON", damaged(f"{R}/receipts/retrieve.bm25.json", lambda d: d[:-3], evaluate_stage,
                                     "receipts/retrieve.bm25.json")),
        ("metrics edited, report", rebuilt_after(damaged(f"{R}/eval/metrics.json", flip, lambda p: snakemake(
            p, "--forcerun", "report", "results/mini.md"), "metrics.json", log="results/logs/mini.log"))),
    ]


def forged_cases() -> list[tuple]:
    """Rewritten with the hashes: refused by the content checks."""
    run_rel = RUN
    return [        ("forged vectors: a NaN", forged(f"{R}/vectors/hashing.npy", vectors(with_row(np.nan)), dense_search,
                                         "row 3", "NaN")),
        ("forged vectors: an Inf", forged(f"{R}/vectors/hashing.npy", vectors(with_row(np.inf)), dense_search,
                                          "row 3")),
        ("forged vectors: float64", forged(f"{R}/vectors/hashing.npy", vectors(lambda a: a.astype(np.float64)),
                                           dense_search, "float64")),
        ("forged vectors: a row short", forged(f"{R}/vectors/hashing.npy", vectors(lambda a: a[:-1]),
                                               dense_search)),
        ("forged vectors: a column short", forged(f"{R}/vectors/hashing.npy", vectors(lambda a: a[:, :-1]),
                                                  dense_search, "shape")),
        ("forged vectors: 3-D", forged(f"{R}/vectors/hashing.npy", vectors(lambda a: a[:, :, None]),
                                       dense_search)),
        ("forged run: a pair twice", forged(run_rel, run_lines(lambda ls: ls[:2] + [ls[1]] + ls[3:]), assert_,
                                            "ranked twice")),
        ("forged run: a NaN score", forged(run_rel, run_lines(field(4, "nan")), assert_, "not a finite")),
        ("forged run: an infinite score", forged(run_rel, run_lines(field(4, "inf", 0)), assert_, "not a finite")),
        ("forged run: ranks out of order", forged(run_rel, run_lines(lambda ls: [ls[1], ls[0]] + ls[2:]), assert_,
                                                  "rank")),
        ("forged run: a rank skipped", forged(run_rel, run_lines(field(3, "9", 1)), assert_, "rank 9")),
        ("forged run: scores rising", forged(run_rel, run_lines(field(4, "99.0", 1)), assert_, "above rank 1")),
        ("forged run: an unknown chunk", forged(run_rel, run_lines(field(2, "ffffffffffff", 0)), assert_,
                                                "ffffffffffff")),
        ("forged run: an unknown query", forged(run_rel, run_lines(field(0, "zz-99", 0)), assert_, "zz-99")),
        ("forged run: another run's content", forged(run_rel, dense_instead, assert_, "named 'dense'")),
        ("forged run: a rank that is not a number", forged(run_rel, run_lines(field(3, "one", 0)), assert_,
                                                           "rank must be an integer")),
        ("forged bm25: an item out of range", forged(f"{R}/bm25/plain/index.npz",
                                                     npz_arrays(set_item("items", 0, 10**6)), bm25_search,
                                                     "outside")),
        ("forged bm25: a NaN weight", forged(f"{R}/bm25/plain/index.npz", npz_arrays(set_item("weights", 4, np.nan)),
                                             bm25_search, "NaN")),
        ("forged bm25: offsets falling", forged(f"{R}/bm25/plain/index.npz", npz_arrays(set_item("indptr", 2, 10**5)),
                                                bm25_search, "offsets")),
        ("forged bm25: a negative length", forged(f"{R}/bm25/plain/index.npz",
                                                  npz_arrays(set_item("doc_lengths", 0, -3)), bm25_search,
                                                  "negative")),
        ("forged bm25: a posting twice", forged(f"{R}/bm25/plain/index.npz", npz_arrays(posting_twice), bm25_search,
                                                "ascending")),
        ("forged reader weights: a NaN", forged(f"{R}/readers/minigpt.npz", npz_arrays(nan_weight), None, "NaN")),
        ("forged reranker weights: an Inf", forged(f"{R}/rerankers/bm25-rerank.npz", npz_arrays(
            set_item("w", 0, np.inf)), lambda p: search(p, "eat", retriever="bm25-rerank"), "NaN or infinity")),
        ("forged metrics.json: NaN", forged(f"{R}/eval/metrics.json", json_value(lambda m: {**m, "x": float("nan")}),
                                            None, "NaN")),
        ("forged docs.jsonl: a line that is a list", forged(f"{R}/docs.jsonl", jsonl_line("[1, 2]"), None,
                                                            "not a JSON object")),
        ("forged figure: not a PNG", forged(f"{R}/figures/sweep-rrf-mmr-lambda.png", lambda p, d: b"GIF89a" + d[6:],
                                            None, "PNG")),
    ]


def cases() -> list[Case]:
    g = "artifacts"
    c = [Case(name, g, check) for name, check in damaged_cases() + forged_cases()]
    delete = {"docs.jsonl": "curate", "questions.jsonl": "questions", "tokenizer.json": "train_tokenizer",
              "chunks.jsonl": "chunk", "vectors/hashing.npy": "embed", "vectors/hashing.json": "embed",
              "bm25/plain/index.npz": "bm25", "bm25/plain/vocab.json": "bm25", "bm25/plain/items.json": "bm25",
              "runs/bm25.trec": "retrieve", "prompts/rrf.jsonl": "prompt", "answers/extractive/rrf.jsonl": "generate",
              "eval/metrics.json": "evaluate", "eval/diagnosis.csv": "diagnose", "eval/assertions.json": "assertions",
              "figures/sweep-rrf-mmr-lambda.png": "sweep_figure", "receipts/retrieve.bm25.json": "retrieve",
              "readers/minigpt.npz": "train_reader", "rerankers/bm25-rerank.npz": "train_reranker",
              "lexicon.json": "lexicon"}
    c += [Case(f"deleted {rel}", g, deleted(f"{R}/{rel}", rule)) for rel, rule in delete.items()]
    return c + artifacts_more.cases(forged)


def posting_twice(arrays):
    indptr, items = arrays["indptr"], arrays["items"]
    t = int(np.flatnonzero(np.diff(indptr) >= 2)[0])  # a term with two postings: make them one item twice
    items[indptr[t] + 1] = items[indptr[t]]
    return arrays


def nan_weight(arrays):
    name = next(k for k, a in arrays.items() if a.dtype.kind == "f" and a.ndim == 2)
    arrays[name][0, 0] = np.nan
    return arrays
