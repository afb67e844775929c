"""A synthetic BEIR corpus of any size for the cost curve: Zipfian English words, seeded topics.

`write_synthetic(n, settings, out_dir)` writes a BEIR folder (`corpus.jsonl`, `queries.jsonl`,
`qrels/test.tsv`, `qrels/train.tsv`, and `synth.json`: the settings, the vocabulary's hash and
each file's sha256) of `n` passages whose words follow a Zipf law over a real English
vocabulary, the alphabetic words of the `wordfreq` package in its frequency order:

    p(r) = r^-s / H(V, s),   H(V, s) = sum_{r=1..V} r^-s      (Zipf 1949; rank r of V words)

A passage is a mixture of a few seeded topics (weights Dirichlet(1)), so that retrieval is not
trivial; each topic is a reweighting of the same law that boosts its own content words and
damps the other topics' ones, built so that the topics average back to the Zipf law (`Model`
has the formula): the corpus keeps the configured exponent however strong the topics. Passage
lengths are log-normal (median `length_median` words, shape `length_sigma`, clipped to
[min_words, max_words]: KB chunks hold 60-120 words, SciFact abstracts ~200); sentences of
8-24 words, capitalised and closed by a full stop; a title of a few words of the first topic.

A query is a few of its target passage's most distinctive words (tf x -log p(word) over its
content words, the top `query_pool`, `query_words` of them drawn) plus `query_noise`
background words, shuffled; its qrels row is that passage. Test and train queries target distinct passages.

Passage i depends only on (seed, i // BLOCK): each block of BLOCK passages is drawn whole from
its own seeded generator, so the corpus of 10^4 passages is the first 10^4 of the corpus of
10^6, and the output is byte-identical for identical settings, n and vocabulary. Passages are
written line by line into a temporary file renamed into place (io.atomic_path), so memory
does not grow with n; progress goes to stderr.

The replicated corpora (real text copied with perturbation) are replicate_corpus.py's.

What it leaves out: a vocabulary that keeps growing with the corpus (the Zipf law saturates
at V words; a real corpus keeps meeting new names and numbers), multiple languages,
graded relevance, and realism beyond word statistics (no syntax).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..artifacts.io import atomic_path, sha256_file, write_json
from ..settings import SettingsError, setting, settings_to_dict
from .zipf import cdf, zipf_probabilities

BLOCK = 1000  # passages drawn from one generator: the unit of prefix-stability
ASCII_WORD_RE = re.compile(r"[a-z]+")  # words the default analyzer (lowercased \w+) keeps whole


@dataclass(frozen=True)
class SynthSettings:
    """How a synthetic corpus is drawn (and a replicated one perturbed); config key `synth`."""
    seed: int = setting(0, minimum=0)
    vocab_size: int = setting(250_000, minimum=100)      # wordfreq's most frequent alphabetic English words
    zipf_s: float = setting(1.0, exclusive_minimum=0)    # the Zipf exponent s
    topics: int = setting(500, minimum=1)
    topic_boost: float = setting(100.0, minimum=1)       # a topic multiplies its own words' probability by this
    topic_min_rank: int = setting(100, minimum=1)        # words of lower rank (the, of, ...) belong to no topic
    topics_per_doc: int = setting(3, minimum=1)          # a passage mixes this many topics (Dirichlet(1) weights)
    length_median: float = setting(90.0, exclusive_minimum=0)  # words per passage (KB chunks: 60-120)
    length_sigma: float = setting(0.35, minimum=0)       # log-normal shape
    min_words: int = setting(20, minimum=1)
    max_words: int = setting(400, minimum=1)
    title_words: int = setting(5, minimum=0)
    queries: int = setting(1000, minimum=1)              # test queries (qrels/test.tsv)
    train_queries: int = setting(1000, minimum=0)        # train queries (qrels/train.tsv), other passages
    query_words: int = setting(4, minimum=1)             # distinctive words of the target per query
    query_pool: int = setting(10, minimum=1)             # ... drawn from its top query_pool
    query_noise: int = setting(1, minimum=0)             # background words added to each query
    dropout: float = setting(0.1, minimum=0, maximum=0.9)  # replicated: a copy drops each word with this probability
    swap: float = setting(0.1, minimum=0, maximum=1)     # replicated: then swaps adjacent words with this one

    def check(self, where: str) -> None:
        if self.max_words < self.min_words:
            raise SettingsError(f"{where}.max_words: {self.max_words} is below min_words {self.min_words}")
        if self.query_words > self.query_pool:
            raise SettingsError(f"{where}.query_words: {self.query_words} is more than query_pool {self.query_pool}")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def english_vocabulary(size: int) -> list[str]:
    """The `size` most frequent English words of wordfreq that are plain lowercase ASCII letters,
    in wordfreq's frequency order (its rank is the Zipf rank)."""
    try:
        import wordfreq
    except ImportError:
        raise RuntimeError("the synthetic corpus needs the wordfreq package: pip install -e '.[synth]'") from None
    words = [w for w in wordfreq.top_n_list("en", 10**7, wordlist="large") if ASCII_WORD_RE.fullmatch(w)]
    if len(words) < size:
        raise ValueError(f"synth.vocab_size: {size} words asked, wordfreq has {len(words)} alphabetic English words")
    return words[:size]


def wordfreq_version() -> str:
    from importlib.metadata import version
    return version("wordfreq")


class Model:
    """The corpus's distributions as cumulative tables that `np.searchsorted` samples from.

    Topic k is the Zipf law reweighted: words of rank >= topic_min_rank are dealt to the K
    topics in rounds of K consecutive ranks (a seeded permutation per round, so every topic
    holds about 1/K of the content mass); topic k multiplies its own words' probability by
    beta (`topic_boost`) and every other content word's by gamma = (K - beta) / (K - 1):

        p_k(w) = p(w) * m_k(w),   m_k(w) = 1 (head word), beta (w in topic k), gamma (otherwise)

    Each content word is boosted in one topic and damped in K - 1, so the average of the
    p_k over topics is p itself: a corpus whose passages use the topics evenly keeps the
    configured Zipf law, however strong the topics. p_k is sampled as a mixture of one
    table shared by all topics (head words at weight 1, content words at gamma) and the
    topic's own words at weight beta - gamma.
    """

    def __init__(self, s: SynthSettings, vocab: list[str]):
        self.s, self.vocab = s, np.array(vocab, dtype=object)  # (V,)
        v, k = len(vocab), s.topics
        if s.topic_boost > k:
            raise SettingsError(f"synth.topic_boost: {s.topic_boost} exceeds the number of topics {k} (the other "
                                "topics would need negative weights to keep the Zipf law)")
        if v - (s.topic_min_rank - 1) < k:
            raise SettingsError(f"synth.topics: {k} topics, but only {v - s.topic_min_rank + 1} words of rank >= "
                                f"topic_min_rank {s.topic_min_rank}")
        self.p = zipf_probabilities(v, s.zipf_s)                # (V,)
        self.surprise = -np.log(self.p)                         # (V,) -log p: how distinctive a word is
        self.cdf = cdf(self.p)                                  # (V,) the background law
        head = s.topic_min_rank - 1
        content = np.arange(head, v)                            # (C,) word ids dealt to topics
        rounds = -(-len(content) // k)
        rng = np.random.default_rng([s.seed, 0])
        deal = rng.permuted(np.tile(np.arange(k), (rounds, 1)), axis=1).ravel()[:len(content)]  # (C,) topic of each
        order = np.argsort(deal, kind="stable")                 # content words grouped by topic, by rank within
        self.topic_words = content[order]                       # (C,)
        self.topic_start = np.searchsorted(deal[order], np.arange(k + 1))  # (K+1,) group bounds
        gamma = (k - s.topic_boost) / (k - 1) if k > 1 else 0.0
        self.base_cdf = cdf(np.where(np.arange(v) < head, self.p, gamma * self.p))  # (V,)
        base_mass = self.p[:head].sum() + gamma * self.p[head:].sum()
        own = (s.topic_boost - gamma) * np.add.reduceat(self.p[self.topic_words], self.topic_start[:-1])  # (K,)
        self.own_share = own / (base_mass + own)                # (K,) P(a word of topic k is one of its own)
        # Topic k's own words' cumulative weights shifted into (k, k + 1]: one searchsorted samples any topic.
        w = self.p[self.topic_words]
        cum = np.cumsum(w)
        ends = cum[self.topic_start[1:] - 1]
        starts = np.concatenate([[0.0], ends[:-1]])
        group = np.repeat(np.arange(k), np.diff(self.topic_start))  # (C,)
        self.topic_cdf = group + (cum - starts[group]) / (ends - starts)[group]
        self.topic_cdf[self.topic_start[1:] - 1] = np.arange(1, k + 1)  # exact ends

    def background(self, rng, size: int) -> np.ndarray:
        """Word ids drawn from the Zipf law itself: (size,)."""
        return np.minimum(np.searchsorted(self.cdf, rng.random(size), side="right"), len(self.p) - 1)

    def own_words(self, rng, topics: np.ndarray) -> np.ndarray:
        """One of its own words for each given topic: (T,) topics -> (T,) word ids."""
        pos = np.searchsorted(self.topic_cdf, topics + rng.random(len(topics)), side="right")
        return self.topic_words[np.minimum(pos, len(self.topic_words) - 1)]

    def from_topics(self, rng, topics: np.ndarray) -> np.ndarray:
        """A word of p_k for each given topic k: (T,) -> (T,) word ids."""
        ids = np.minimum(np.searchsorted(self.base_cdf, rng.random(len(topics)), side="right"), len(self.p) - 1)
        own = rng.random(len(topics)) < self.own_share[topics]  # (T,)
        ids[own] = self.own_words(rng, topics[own])
        return ids

    def block(self, b: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Word ids of the BLOCK passages of block b and of their titles, drawn whole."""
        s = self.s
        rng = np.random.default_rng([s.seed, 1, b])
        lengths = np.clip(np.rint(rng.lognormal(np.log(s.length_median), s.length_sigma, BLOCK)),
                          s.min_words, s.max_words).astype(np.int64)              # (B,)
        doc_topics = rng.integers(0, s.topics, (BLOCK, s.topics_per_doc))         # (B, M)
        mix = np.cumsum(rng.dirichlet(np.ones(s.topics_per_doc), BLOCK), axis=1)  # (B, M) cumulative weights
        owner = np.repeat(np.arange(BLOCK), lengths)                              # (T,) passage of each word
        pick = (rng.random(len(owner))[:, None] > mix[owner]).sum(axis=1)         # (T,) which of its topics
        ids = self.from_topics(rng, doc_topics[owner, np.minimum(pick, s.topics_per_doc - 1)])  # (T,)
        titles = self.own_words(rng, np.repeat(doc_topics[:, 0], s.title_words)).reshape(BLOCK, s.title_words)
        bounds = np.concatenate([[0], np.cumsum(lengths)])
        return [ids[bounds[i]:bounds[i + 1]] for i in range(BLOCK)], list(titles)

    def text(self, ids: np.ndarray, rng) -> str:
        """Words joined into sentences of 8-24 words: capitalised, closed by a full stop."""
        words = self.vocab[ids].tolist()
        i = 0
        while i < len(words):
            j = min(len(words), i + int(rng.integers(8, 25)))
            words[i] = words[i].capitalize()
            words[j - 1] += "."
            i = j
        return " ".join(words)

    def query(self, ids: np.ndarray, rng) -> str:
        """A few of the passage's most distinctive words (tf x -log p among its content words, the
        head words below topic_min_rank never), plus background noise."""
        uniq, tf = np.unique(ids, return_counts=True)
        score = np.where(uniq >= self.s.topic_min_rank - 1, tf * self.surprise[uniq], -1.0)
        pool = uniq[np.lexsort((uniq, -score))[:self.s.query_pool]]          # best first, ties by rank
        take = rng.choice(pool, min(self.s.query_words, len(pool)), replace=False)
        words = np.concatenate([take, self.background(rng, self.s.query_noise)])
        return " ".join(self.vocab[rng.permutation(words)].tolist())


def pick_targets(n: int, s: SynthSettings) -> tuple[np.ndarray, np.ndarray]:
    """Distinct passages that the test and the train queries target (sorted within each split)."""
    want = s.queries + s.train_queries
    if want > n:
        raise ValueError(f"synth.queries + synth.train_queries: {want} queries need as many passages, the corpus "
                         f"has {n}")
    chosen = np.random.default_rng([s.seed, 2]).choice(n, want, replace=False)
    return np.sort(chosen[:s.queries]), np.sort(chosen[s.queries:])


def progress_every(n: int) -> int:
    return max(BLOCK, (n // 20) // BLOCK * BLOCK)


def write_synthetic(n: int, s: SynthSettings, out_dir: str | Path, vocab: list[str] | None = None) -> list[Path]:
    """Write the BEIR folder of n synthetic passages; returns the files written."""
    if n < 1:
        raise ValueError(f"synthetic corpus: n must be at least 1, got {n}")
    out_dir = Path(out_dir)
    from_wordfreq = vocab is None
    vocab = english_vocabulary(s.vocab_size) if from_wordfreq else vocab
    model = Model(s, vocab)
    test, train = pick_targets(n, s)
    qid_of = {int(d): f"q{j}" for j, d in enumerate(test)} | {int(d): f"t{j}" for j, d in enumerate(train)}
    queries: dict[str, str] = {}
    every = progress_every(n)
    corpus = out_dir / "corpus.jsonl"
    with atomic_path(corpus) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        for b in range((n + BLOCK - 1) // BLOCK):
            docs, titles = model.block(b)
            rng = np.random.default_rng([s.seed, 3, b])  # sentence breaks of this block
            for i in range(min(BLOCK, n - b * BLOCK)):
                g = b * BLOCK + i
                title = " ".join(dict.fromkeys(w.capitalize() for w in model.vocab[titles[i]].tolist()))
                fh.write(json.dumps({"_id": f"d{g}", "title": title, "text": model.text(docs[i], rng)},
                                    ensure_ascii=False) + "\n")
                if g in qid_of:
                    queries[qid_of[g]] = model.query(docs[i], np.random.default_rng([s.seed, 4, g]))
            done = min(n, (b + 1) * BLOCK)
            if done % every == 0 or done == n:
                log(f"synth: {done}/{n} passages")
    splits = {"test": [(f"q{j}", f"d{d}") for j, d in enumerate(test)],
              "train": [(f"t{j}", f"d{d}") for j, d in enumerate(train)]}
    order = [q for rows in splits.values() for q, _ in rows]
    written = [corpus, *write_queries(out_dir, [(q, queries[q]) for q in order]), *write_qrels(out_dir, splits)]
    write_manifest(out_dir, {"kind": "synthetic", "n": n, "settings": settings_to_dict(s),
                             "wordfreq": wordfreq_version() if from_wordfreq else None,
                             "vocab_sha256": hashlib.sha256("\n".join(vocab).encode()).hexdigest()}, written)
    return written + [out_dir / "synth.json"]


def write_queries(out_dir: Path, rows: list[tuple[str, str]]) -> list[Path]:
    path = out_dir / "queries.jsonl"
    with atomic_path(path) as tmp:
        tmp.write_text("".join(json.dumps({"_id": q, "text": t}, ensure_ascii=False) + "\n" for q, t in rows),
                       encoding="utf-8")
    return [path]


def write_qrels(out_dir: Path, splits: dict[str, list[tuple[str, str]]], grade=None) -> list[Path]:
    """qrels/<split>.tsv of each split's (query, document) rows; `grade` (q, d) -> score, 1 when None."""
    out = []
    for split, rows in splits.items():
        path = out_dir / "qrels" / f"{split}.tsv"
        with atomic_path(path) as tmp:
            tmp.write_text("query-id\tcorpus-id\tscore\n" + "".join(
                f"{q}\t{d}\t{grade(q, d) if grade else 1}\n" for q, d in rows), encoding="utf-8")
        out.append(path)
    return out


def write_manifest(out_dir: Path, head: dict, files: list[Path]) -> None:
    """synth.json: how the folder was made and the sha256 of each file (what a curate receipt records too)."""
    write_json(out_dir / "synth.json", {**head, "files": {p.relative_to(out_dir).as_posix(): sha256_file(p)
                                                           for p in files}})
