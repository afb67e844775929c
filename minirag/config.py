"""The experiment config: defaults, merging, reference checks, and per-stage params.

`workflow/config.yaml` names one or more corpora; each corpus says where its documents
and questions are and how every stage treats them. This module fills in defaults,
checks that every name a setting refers to exists (an RRF over an unknown retriever,
a dense retriever over an unknown embedder) and hands each stage exactly the values it
reads, as plain sorted builtins, so that Snakemake reruns a stage only when one of
*its* values changes. Type checks live in `workflow/schemas/config.schema.yaml`.

What it leaves out: reading YAML (Snakemake and the CLI do that) and any file I/O.
"""

from __future__ import annotations

import copy
import json
from typing import Any

# Defaults for one corpus. Every key here may be set in the config; the schema lists them.
CORPUS_DEFAULTS: dict[str, Any] = {
    "source": {
        "format": "markdown",          # markdown (a folder of .md/.mdx) | beir
        "path": "kb/docs",             # markdown: the docs folder; beir: the folder holding corpus.jsonl
        "glob": "**/*.md",             # markdown only: which files under path are documents
        "questions": "kb/eval/questions.jsonl",  # markdown only: evaluation questions (JSON Lines)
        "split": "test",               # beir only: qrels/<split>.tsv holds the judged queries
        "train_split": "",             # beir only: qrels used for training pairs ("" = none)
        "fields": {"title": "title", "lang": "lang", "tags": "tags"},  # front-matter key of each field
        "default_lang": "",            # used when a document has no lang field ("" = the field is required)
        "questions_format": "minirag", # minirag (gold evidence + answers, kb/README.md) | gold_docs (qid, query, gold_docs)
        "question_langs": ["en", "es", "cross"],  # allowed values of a question's lang
    },
    "tokenizer": {"vocab_size": 2000},  # byte-level BPE trained on the curated docs
    "chunk": {
        "strategy": "tokens",          # tokens | sections | chars | none
        "target_tokens": 150,          # tokens: chunk length in BPE tokens
        "overlap": 20,                 # tokens/chars: shared with the previous chunk
        "max_tokens": 300,             # sections: budget before a section is split
        "size": 2000,                  # chars: window in characters
    },
    "embedders": {
        "hashing": {"type": "hashing", "dim": 256},
    },
    "bm25": {
        "plain": {
            "variant": "lucene", "k1": 1.5, "b": 0.75,
            "title_weight": 0.0,       # BM25F-style title field: + weight x IDF per query term in the title
            "lucene_norms": False,     # store lengths in Lucene's lossy one-byte form (to match Anserini)
            "analyzer": {"tokenizer": "word", "lowercase": True, "stopwords": [], "stemmer": None,
                         "cjk_bigrams": False, "fold_accents": False},
            "prefix_title": True,      # index "title / section / text", the seed's title + body
        },
    },
    "retrievers": {
        "dense": {"type": "dense", "embedder": "hashing"},
        "bm25": {"type": "bm25", "index": "plain"},
        "rrf": {"type": "rrf", "of": ["dense", "bm25"], "k": 60},
    },
    "depth": 100,                      # ranks written per query in every run file
    "prompt": {"k": 3, "template": "default"},
    "reader": {"type": "extractive", "threshold": 0.5},
    "diagnose": {
        "embedder": "hashing",         # whose chunk vectors measure top-k redundancy (mean pairwise cosine)
        "k": 5,                        # the top k that overlap, always-on-top and diversity look at
        "always_share": 0.2,           # a chunk in the top k of more than this share of questions is "always on top"
    },
    "note": "",                        # markdown shown at the top of the corpus's report section
    "assertions": "",                  # YAML file of assertions (workflow/assertions.*.yaml); "" = none
    "strict": False,                   # true: a failing assertion fails the build
}

RETRIEVER_DEFAULTS: dict[str, dict[str, Any]] = {
    "dense": {"embedder": "hashing"},
    "bm25": {"index": "plain"},
    "rrf": {"of": [], "k": 60},                       # Reciprocal Rank Fusion, k of Cormack et al.
    "linear": {"of": [], "alpha": 0.6, "norm": "minmax"},  # alpha weighs the first of `of` (the seed's 0.6 dense)
    "cap": {"base": "", "cap": 2},                    # at most `cap` chunks per document, in rank order
    "mmr": {"base": "", "lambda": 0.7, "embedder": "hashing", "pool": 100},  # Carbonell & Goldstein 1998
}
CHANNELS = ("dense", "bm25")  # rank by themselves; every other type reads other retrievers' runs
FUSIONS = ("rrf", "linear")
DIVERSIFIERS = ("cap", "mmr")
SWEEPABLE = {"rrf": ("k",), "linear": ("alpha",), "cap": ("cap",), "mmr": ("lambda",)}

EMBEDDER_DEFAULTS: dict[str, dict[str, Any]] = {
    "hashing": {"dim": 256},
    "biencoder": {"train_qrels": False},  # add (query, relevant doc) pairs of source.train_split (BEIR)
}


class ConfigError(ValueError):
    """A config value that is missing, unknown or inconsistent; the message names the key."""


def deep_merge(base: dict, override: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def corpus_names(config: dict) -> list[str]:
    """The corpora to build: `build` if the config sets it, else every corpus it names.

    Snakemake merges a `--configfile` into workflow/config.yaml, so a config for another
    corpus says `build: [itself]` rather than relying on the default's corpora vanishing.
    """
    corpora = config.get("corpora") or {}
    if not corpora:
        raise ConfigError("config: 'corpora' must name at least one corpus")
    names = config.get("build") or list(corpora)
    for name in names:
        if name not in corpora:
            raise ConfigError(f"build: unknown corpus {name!r} (have: {', '.join(corpora)})")
    return list(names)


def has_answers(cc: dict) -> bool:
    """Whether the corpus's questions carry answers for a reader to be scored on."""
    return cc["source"]["format"] == "markdown" and cc["source"]["questions_format"] == "minirag"


def answered(cc: dict) -> list[str]:
    """Retrievers whose runs go through prompt and reader: all but sweep points (they are
    scored on retrieval only), and none where the questions carry no answers."""
    if not has_answers(cc):
        return []
    return [n for n, r in cc["retrievers"].items() if "sweep_of" not in r]


def corpus_config(config: dict, corpus: str) -> dict:
    """The full settings of one corpus: defaults, then the config's values, then checks."""
    corpora = config.get("corpora") or {}
    if corpus not in corpora:
        raise ConfigError(f"corpora: no corpus named {corpus!r} (have: {', '.join(corpora)})")
    user = corpora[corpus] or {}
    # Named collections replace the defaults whole: a config that lists its retrievers
    # means exactly those, not those plus the defaults.
    merged = deep_merge({k: v for k, v in CORPUS_DEFAULTS.items()
                         if k not in ("embedders", "bm25", "retrievers")}, user)
    for key in ("embedders", "bm25", "retrievers"):
        merged[key] = copy.deepcopy(user[key]) if key in user else copy.deepcopy(CORPUS_DEFAULTS[key])
    for name, emb in merged["embedders"].items():
        merged["embedders"][name] = deep_merge(EMBEDDER_DEFAULTS.get(emb.get("type", ""), {}), emb)
    plain = CORPUS_DEFAULTS["bm25"]["plain"]
    for name, idx in merged["bm25"].items():
        merged["bm25"][name] = deep_merge(plain, idx or {})
    retrievers = {}
    for name, ret in merged["retrievers"].items():
        spec = deep_merge(RETRIEVER_DEFAULTS.get(ret.get("type", ""), {}), ret)
        sweep = spec.pop("sweep", None)
        retrievers[name] = spec
        for param, values in (sweep or {}).items():
            if param not in SWEEPABLE.get(spec.get("type"), ()):
                raise ConfigError(f"corpora.{corpus}.retrievers.{name}.sweep.{param}: not a sweepable parameter of "
                                  f"{spec.get('type')!r} (sweepable: {', '.join(SWEEPABLE.get(spec.get('type'), ())) or 'none'})")
            for value in values:
                retrievers[sweep_name(name, param, value)] = {**spec, param: value, "sweep_of": name, "sweep_param": param}
    merged["retrievers"] = retrievers
    check_references(merged, f"corpora.{corpus}")
    return merged


def sweep_name(name: str, param: str, value: Any) -> str:
    """The retriever a sweep point becomes, e.g. `rrf@k=20`: its own run, its own evaluation."""
    return f"{name}@{param}={value}"


def base_retrievers(cc: dict) -> list[str]:
    """Retrievers that rank by themselves (dense, bm25): the channels of every fusion."""
    return [n for n, r in cc["retrievers"].items() if r["type"] in CHANNELS]


def check_references(cc: dict, where: str) -> None:
    embedders, indexes, retrievers = cc["embedders"], cc["bm25"], cc["retrievers"]
    if not retrievers:
        raise ConfigError(f"{where}.retrievers: name at least one retriever")
    for name, ret in retrievers.items():
        key = f"{where}.retrievers.{name}"
        kind = ret.get("type")
        if kind == "dense":
            check_embedder(embedders, ret["embedder"], f"{key}.embedder")
        elif kind == "bm25":
            if ret["index"] not in indexes:
                raise ConfigError(f"{key}.index: unknown bm25 index {ret['index']!r} "
                                  f"(have: {', '.join(indexes) or 'none'})")
        elif kind in FUSIONS:
            if len(ret["of"]) < 2:
                raise ConfigError(f"{key}.of: fuse at least two retrievers")
            for other in ret["of"]:
                check_upstream(retrievers, name, other, f"{key}.of")
            if kind == "linear" and "weights" in ret and len(ret["weights"]) != len(ret["of"]):
                raise ConfigError(f"{key}.weights: one weight per retriever in 'of' ({len(ret['of'])})")
        elif kind in DIVERSIFIERS:
            check_upstream(retrievers, name, ret["base"], f"{key}.base")
            if kind == "mmr":
                check_embedder(embedders, ret["embedder"], f"{key}.embedder")
        else:
            raise ConfigError(f"{key}.type: unknown retriever type {kind!r} "
                              f"({', '.join(RETRIEVER_DEFAULTS)})")
    for name in retrievers:
        upstream_closure(retrievers, name, f"{where}.retrievers")
    src = cc["source"]
    if src["train_split"] and src["train_split"] == src["split"]:
        raise ConfigError(f"{where}.source.train_split: {src['train_split']!r} is the evaluation split; "
                          "training on it would score the model on what it was trained on")
    for name, emb in embedders.items():
        if emb.get("train_qrels") and not (cc["source"]["format"] == "beir" and cc["source"]["train_split"]):
            raise ConfigError(f"{where}.embedders.{name}.train_qrels: needs a BEIR source with source.train_split")
        if emb.get("type") not in EMBEDDER_DEFAULTS:
            raise ConfigError(f"{where}.embedders.{name}.type: unknown embedder type "
                              f"{emb.get('type')!r} ({', '.join(EMBEDDER_DEFAULTS)})")
    check_embedder(embedders, cc["diagnose"]["embedder"], f"{where}.diagnose.embedder")
    if cc["prompt"]["k"] < 1:
        raise ConfigError(f"{where}.prompt.k: must be at least 1")


def check_embedder(embedders: dict, name: str, key: str) -> None:
    if name not in embedders:
        raise ConfigError(f"{key}: unknown embedder {name!r} (have: {', '.join(embedders) or 'none'})")


def check_upstream(retrievers: dict, name: str, other: str, key: str) -> None:
    if other not in retrievers:
        raise ConfigError(f"{key}: unknown retriever {other!r} (have: {', '.join(retrievers)})")
    if other == name:
        raise ConfigError(f"{key}: a retriever cannot take its own run as input")


def upstream(spec: dict) -> list[str]:
    """The retrievers whose runs this one reads."""
    if spec["type"] in FUSIONS:
        return list(spec["of"])
    if spec["type"] in DIVERSIFIERS:
        return [spec["base"]]
    return []


def upstream_closure(retrievers: dict, name: str, key: str, seen: tuple = ()) -> None:
    if name in seen:
        raise ConfigError(f"{key}.{name}: retrievers form a cycle ({' -> '.join(seen + (name,))})")
    for other in upstream(retrievers[name]):
        upstream_closure(retrievers, other, key, seen + (name,))


def params_json(value: Any) -> str:
    """A stage's settings as canonical JSON: sorted keys, so equal settings compare equal."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def stage_settings(cc: dict, stage: str, name: str | None = None) -> dict:
    """Exactly the values `stage` reads; `name` picks an embedder, index or retriever."""
    if stage == "curate":
        src = cc["source"]
        return {"format": src["format"], "fields": src["fields"], "default_lang": src["default_lang"]}
    if stage == "questions":
        src = cc["source"]
        return {"format": src["format"], "split": src["split"], "questions_format": src["questions_format"],
                "question_langs": src["question_langs"]}
    if stage == "train_tokenizer":
        return dict(cc["tokenizer"])
    if stage == "chunk":
        ch = cc["chunk"]
        keys = {"tokens": ("target_tokens", "overlap"), "sections": ("max_tokens",),
                "chars": ("size", "overlap"), "none": ()}[ch["strategy"]]
        return {"strategy": ch["strategy"], **{k: ch[k] for k in keys}}
    if stage in ("embed", "train_biencoder"):
        return dict(cc["embedders"][name])
    if stage == "bm25":
        return dict(cc["bm25"][name])
    if stage == "retrieve":
        # The embedder's or index's own settings travel in the artifact it reads.
        spec = {k: v for k, v in cc["retrievers"][name].items() if k not in ("sweep_of", "sweep_param")}
        return {**spec, "depth": cc["depth"]}
    if stage == "prompt":
        return dict(cc["prompt"])
    if stage == "generate":
        return dict(cc["reader"])
    if stage == "diagnose":
        base = base_retrievers(cc)
        return {**cc["diagnose"], "base": base, "fused": [n for n in cc["retrievers"] if n not in base]}
    if stage == "assert":
        return {"strict": cc["strict"]}
    raise KeyError(stage)
