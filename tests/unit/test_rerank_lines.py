"""The reranker's vectorised features (rerank_lines.py) are the per-line loop's, bit for bit.

`reference_features` is FeatureMaker.features as it was before the matching ran over all candidates and
lines at once (a loop over candidates, lines and terms); the trained weights and the rerank run files
depend on the last bit of every feature, so the comparison is of the float64 bytes."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from minirag.rank.rerank import FeatureMaker
from minirag.rank.rerank_lines import chunk_lines
from minirag.text.analyze import Analyzer, AnalyzerConfig
from minirag.text.chunks import Chunk, chunk_id


def reference_features(maker: FeatureMaker, query: str, ranking, chunks) -> np.ndarray:
    concepts, quoted = maker.query_concepts(query)
    weights = [maker.concept_weight(c) for c in concepts]
    total = sum(weights) or 1.0
    matches: dict[str, list[tuple[int, float]]] = {}
    for ci, concept in enumerate(concepts):
        for t, w in concept.items():
            matches.setdefault(t, []).append((ci, w))

    def matched(terms):
        best = {}
        for t in terms:
            for ci, w in matches.get(t, ()):
                if w > best.get(ci, 0.0):
                    best[ci] = w
        return best

    def share(best):
        return sum(weights[ci] * best[ci] for ci in sorted(best)) / total

    scores = np.array([s for _, s in ranking], dtype=np.float64)
    low, spread = (float(scores.min()), float(scores.max() - scores.min())) if len(scores) else (0.0, 0.0)
    out = np.zeros((len(ranking), 9))
    for i, (cid, s) in enumerate(ranking):
        c = chunks[cid]
        body, context = maker.analyzer(c.text), set(maker.analyzer(c.context))
        words = set(body) | context
        best_line, best_all, best_near = 0.0, 0.0, 0.0
        for line_words in chunk_lines(c, maker.analyzer):
            positions = {}
            for j, w in enumerate(line_words):
                positions.setdefault(w, []).append(j)
            firsts, best = {}, {}
            for t, pos in positions.items():
                for ci, w in matches.get(t, ()):
                    if w > best.get(ci, 0.0):
                        best[ci] = w
                    if pos[0] < firsts.get(ci, len(line_words)):
                        firsts[ci] = pos[0]
            if not best:
                continue
            line_share = share(best)
            near = len(firsts) / (max(firsts.values()) - min(firsts.values()) + 1)
            if line_share > best_line or (line_share == best_line and near > best_near):
                best_line, best_near = line_share, near
            best_all = max(best_all, float(len(best) == len(concepts)))
        out[i] = [1 / math.sqrt(i + 1), (s - low) / spread if spread else 1.0, share(matched(words)), best_line,
                  best_all, best_near, share(matched(context)),
                  sum(t in words for t in quoted) / len(quoted) if quoted else 0.0, math.log1p(len(body))]
    return out


class Expander:
    """A stand-in for the grammar's QueryExpander: each query word a concept with weighted alternatives
    (some of weight 0, which is seen in a line but adds nothing)."""

    def __init__(self, analyzer, alternatives):
        self.analyzer, self.alternatives = analyzer, alternatives

    def concepts(self, query):
        return [{t: 1.0, **self.alternatives.get(t, {})} for t in self.analyzer.query(query)]


WORDS = ["begin", "began", "begun", "go", "went", "gone", "past", "participle", "verb", "of", "the", "ser"]
word = st.sampled_from(WORDS)
cell = st.lists(word, min_size=1, max_size=3).map(" ".join)
row = st.lists(cell, min_size=2, max_size=3).map(lambda cells: "| " + " | ".join(cells) + " |")
prose = st.lists(word, min_size=1, max_size=9).map(" ".join)
line = st.one_of(row, row, prose, st.just("|---|---|"), st.just(""))
chunk_text = st.lists(line, min_size=1, max_size=7).map("\n".join)
context = st.one_of(prose, st.tuples(prose, row).map("\n".join))


@settings(max_examples=150, deadline=None)
@given(texts=st.lists(st.tuples(chunk_text, context), min_size=1, max_size=8),
       query=st.lists(st.one_of(word, word, st.just('"went"'), st.just("zzz")), max_size=7).map(" ".join),
       expand=st.booleans(), scores=st.lists(st.floats(0, 10), min_size=8, max_size=8))
def test_features_equal_the_per_line_loop(texts, query, expand, scores):
    analyzer = Analyzer(AnalyzerConfig(query_stopwords=("en",)))
    chunks = [Chunk(id=chunk_id(f"d{i}", 0), text=t, doc_id=f"d{i}", offset=0,
                    metadata={"title": "T", "section": "", "context": ctx, "char_start": 0, "char_end": len(t)})
              for i, (t, ctx) in enumerate(texts)]
    alternatives = {"begun": {"began": 0.5, "begin": 0.0}, "went": {"gone": 0.7, "go": 0.4}} if expand else {}
    maker = FeatureMaker(analyzer, chunks[: max(1, len(chunks) // 2)],
                         Expander(analyzer, alternatives) if expand else None)
    by_id = {c.id: c for c in chunks}
    ranking = [(c.id, s) for c, s in zip(chunks[::-1], scores)]
    for _ in range(2):  # the second time from the cached chunk codes
        got = maker.features(query, ranking, by_id)
        assert got.tobytes() == reference_features(maker, query, ranking, by_id).tobytes()
