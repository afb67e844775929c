"""A real BEIR corpus replicated to any size, with perturbation: the cost curve on real text.

`write_replicated(source, n, settings, out_dir)` copies a BEIR folder to `n` passages: copy 0
is the original (its ids kept, so its queries and qrels hold), copies 1, 2, ... take new ids
`<id>-r<c>` and a seeded perturbation (each word dropped with probability `dropout`, then
adjacent words swapped with probability `swap`): near-duplicates that keep real text's word
statistics, to set beside the synthetic corpus of synth_corpus.py. Its qrels judge the
originals only; the copies are distractors. Passage i depends only on (seed, i // BLOCK),
so a smaller corpus is the start of a larger one; written line by line, atomically.

`synth_config`, `replica_source` and `replica_inputs` are the rule file's (workflow/rules/synth.smk)
helpers: the config's `synth:` section checked, and which BEIR folder a replica copies.

What it leaves out: new vocabulary (the copies reuse the source's words, so the vocabulary
stops growing once every original is in), and judging the copies.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..artifacts.io import atomic_path, read_jsonl, sha256_file
from ..settings import settings_from_dict, settings_to_dict
from .beir import qrels_path, qrels_rows
from .synth_corpus import BLOCK, SynthSettings, log, progress_every, write_manifest, write_qrels, write_queries

REPLICA_SETTINGS = ("seed", "dropout", "swap")  # the settings a replicated corpus reads


def synth_config(config: dict) -> tuple[dict, dict[str, str]]:
    """(the settings, {dataset: BEIR folder}) of a workflow config's optional `synth:` section,
    checked (errors name the key); `sources` names the folder a replica copies."""
    section = dict(config.get("synth") or {})
    sources = section.pop("sources", None) or {}
    return settings_to_dict(settings_from_dict(SynthSettings, section, "synth")), dict(sources)


def replica_source(sources: dict[str, str], dataset: str) -> str:
    """The BEIR folder data/synth/<dataset>/<n>/ copies: synth.sources.<dataset>, else the download rule's."""
    return sources.get(dataset, f"data/beir/{dataset}")


def replica_inputs(sources: dict[str, str], dataset: str) -> dict[str, str]:
    """The source's files (its train split only if it has one): editing any regenerates the replica."""
    root = Path(replica_source(sources, dataset))
    files = {"corpus": root / "corpus.jsonl", "queries": root / "queries.jsonl", "test": qrels_path(root, "test")}
    if qrels_path(root, "train").exists():
        files["train"] = qrels_path(root, "train")
    return {k: str(v) for k, v in files.items()}


def perturb(words: list[str], s: SynthSettings, rng) -> list[str]:
    """Drop each word with probability `dropout` (keeping at least one), then swap each adjacent
    pair (left to right, a swapped word not swapped again) with probability `swap`."""
    keep = rng.random(len(words)) >= s.dropout
    if not keep.any():
        keep[0] = True
    out = [w for w, k in zip(words, keep) if k]
    flips = rng.random(len(out)) < s.swap
    i = 0
    while i < len(out) - 1:
        if flips[i]:
            out[i], out[i + 1] = out[i + 1], out[i]
            i += 2
        else:
            i += 1
    return out


def write_replicated(source: str | Path, n: int, s: SynthSettings, out_dir: str | Path) -> list[Path]:
    """Write the BEIR folder of n passages replicated from the BEIR folder `source`."""
    source, out_dir = Path(source), Path(out_dir)
    docs = [(str(r["_id"]), r.get("title") or "", r.get("text") or "") for r in read_jsonl(source / "corpus.jsonl")]
    if not docs:
        raise ValueError(f"{source / 'corpus.jsonl'}: no documents to replicate")
    originals = {d for d, _, _ in docs}
    size = len(docs)
    every = progress_every(n)
    corpus = out_dir / "corpus.jsonl"
    with atomic_path(corpus) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        for b in range((n + BLOCK - 1) // BLOCK):
            rng = np.random.default_rng([s.seed, 5, b])
            for g in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
                copy, (doc_id, title, text) = divmod(g, size)[0], docs[g % size]
                if copy:
                    doc_id = f"{doc_id}-r{copy}"
                    if doc_id in originals:
                        raise ValueError(f"{source / 'corpus.jsonl'}: the copy id {doc_id!r} is an original id")
                    title = " ".join(perturb(title.split(), s, rng)) if title.split() else title
                    text = " ".join(perturb(text.split(), s, rng)) if text.split() else text
                fh.write(json.dumps({"_id": doc_id, "title": title, "text": text}, ensure_ascii=False) + "\n")
            done = min(n, (b + 1) * BLOCK)
            if done % every == 0 or done == n:
                log(f"replicate: {done}/{n} passages")
    present = {d for d, _, _ in docs[:n]}
    splits: dict[str, list[tuple[str, str]]] = {}
    graded: dict[tuple[str, str], int] = {}
    for split in ("test", "train"):
        if not qrels_path(source, split).exists():
            continue
        splits[split] = []
        for _, qid, doc_id, grade in qrels_rows(qrels_path(source, split)):
            if doc_id in present:
                splits[split].append((qid, doc_id))
                graded[qid, doc_id] = grade
    if not splits.get("test"):
        raise ValueError(f"{qrels_path(source, 'test')}: no judged document among the first {n} passages")
    texts = {str(r["_id"]): r["text"] for r in read_jsonl(source / "queries.jsonl")}
    order = list(dict.fromkeys(q for rows in splits.values() for q, _ in rows))
    missing = [q for q in order if q not in texts]
    if missing:
        raise ValueError(f"{source / 'queries.jsonl'}: no query {missing[0]!r} (named by its qrels)")
    written = [corpus, *write_queries(out_dir, [(q, texts[q]) for q in order]),
               *write_qrels(out_dir, splits, grade=lambda q, d: graded[q, d])]
    write_manifest(out_dir, {"kind": "replicated", "n": n, "source": str(source), "source_docs": size,
                             "settings": {"seed": s.seed, "dropout": s.dropout, "swap": s.swap},
                             "source_sha256": sha256_file(source / "corpus.jsonl")}, written)
    return written + [out_dir / "synth.json"]
