"""The learned reranker (features, logistic fit, re-ordering, model files) and the questions it trains on."""

from __future__ import annotations

import json
import math
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minirag.artifacts.integrity import IntegrityError, write_receipt
from minirag.artifacts.layout import CorpusLayout
from minirag.rank import synth
from minirag.rank.rerank import (
    FEATURES,
    FeatureMaker,
    codes_problem,
    fit_logistic,
    load_model,
    rerank,
    save_model,
    sigmoid,
)
from minirag.rank.synth import BACK, HEADING, TEMPLATES, candidates, misspell, synthesize
from minirag.text.analyze import Analyzer, AnalyzerConfig
from minirag.text.chunks import Chunk, chunk_id

F = {name: i for i, name in enumerate(FEATURES)}
HEADER = "| Base form | Past simple | Past participle |"


def chunk(name: str, text: str, context: str = "Verbs") -> Chunk:
    return Chunk(id=chunk_id(name, 0), text=text, doc_id=name, offset=0,
                 metadata={"title": "Verbs", "section": "", "context": context, "char_start": 0,
                           "char_end": len(text)})


TABLE = chunk("table", f"{HEADER}\n|---|---|---|\n| begin | began | begun |\n| go | went | gone |")
ROWS = chunk("rows", "| begin | began | begun |\n| go | went | gone |", context=f"Verbs › Irregular\n{HEADER}")
BARE_ROWS = chunk("bare", "| begin | began | begun |\n| go | went | gone |", context="Verbs › Irregular")
PROSE = chunk("prose", "You begin a story here.\nThe past participle goes in perfect tenses.\nNothing else.")
OTHER = chunk("other", "Spanish nouns have a gender.\nMost end in o or a.")
ALL = [TABLE, ROWS, BARE_ROWS, PROSE, OTHER]


@pytest.fixture(scope="module")
def maker():
    return FeatureMaker(Analyzer(AnalyzerConfig(query_stopwords=("en",))), ALL)


def features(maker, query, chunks, scores=None):
    scores = scores or [float(len(chunks) - i) for i in range(len(chunks))]
    return maker.features(query, [(c.id, s) for c, s in zip(chunks, scores)], {c.id: c for c in ALL + chunks})


# ---------------------------------------------------------------- FeatureMaker


def test_features_are_one_row_per_candidate_one_column_per_feature(maker):
    x = features(maker, "past participle of begin", ALL)
    assert x.shape == (len(ALL), len(FEATURES)) and x.dtype == np.float64
    assert features(maker, "begin", []).shape == (0, len(FEATURES))


def test_rank_is_the_inverse_square_root_of_the_position_and_score_is_min_max_scaled(maker):
    x = features(maker, "begin", [TABLE, PROSE, OTHER], scores=[10.0, 7.0, 4.0])
    np.testing.assert_allclose(x[:, F["rank"]], [1, 1 / math.sqrt(2), 1 / math.sqrt(3)])
    np.testing.assert_allclose(x[:, F["score"]], [1.0, 0.5, 0.0])
    assert features(maker, "begin", [TABLE, PROSE], scores=[3.0, 3.0])[:, F["score"]].tolist() == [1.0, 1.0]


def test_a_row_holding_every_query_term_beats_a_chunk_that_has_them_on_separate_lines(maker):
    table, prose = features(maker, "what is the past participle of begin?", [TABLE, PROSE])
    assert table[F["line_all"]] == 1.0 and prose[F["line_all"]] == 0.0
    assert table[F["line"]] == pytest.approx(1.0) and prose[F["line"]] < table[F["line"]]
    assert table[F["cover"]] == prose[F["cover"]] == pytest.approx(1.0)  # the chunk as a whole holds them all


@pytest.mark.parametrize("with_header", [TABLE, ROWS], ids=["header above a separator", "header in the context"])
def test_a_row_counts_its_table_header(maker, with_header):
    row, bare = features(maker, "past participle of begin", [with_header, BARE_ROWS])
    assert row[F["line_all"]] == 1.0 and row[F["line"]] == pytest.approx(1.0)
    assert bare[F["line_all"]] == 0.0 and 0 < bare[F["line"]] < 1


def test_a_header_row_inside_the_chunk_names_the_rows_below_it_instead_of_the_contexts_header():
    c = chunk("switch", f"| comer | eat |\n\n{HEADER}\n|---|---|---|\n| begin | began | begun |",
              context="Verbs\n| Spanish | English |")
    m = FeatureMaker(Analyzer(AnalyzerConfig(query_stopwords=("en",))), ALL + [c])
    rows = {c.id: c}
    assert m.features("english of comer", [(c.id, 1.0)], rows)[0, F["line_all"]] == 1.0
    assert m.features("past participle of begin", [(c.id, 1.0)], rows)[0, F["line_all"]] == 1.0
    assert m.features("english of begin", [(c.id, 1.0)], rows)[0, F["line_all"]] == 0.0


def test_near_is_the_matched_terms_over_the_words_they_span(maker):
    close = chunk("close", "participle begin")
    far = chunk("far", "participle one two three begin")
    x = features(maker, "participle begin", [close, far])
    assert x[:, F["near"]].tolist() == [1.0, pytest.approx(2 / 5)]


def test_cover_weighs_terms_by_idf_so_the_rarer_term_counts_more(maker):
    # "begin" is in four of the five chunks, "tenses" in one
    rare, common = chunk("rare", "tenses"), chunk("common", "begin")
    x = features(maker, "begin tenses", [rare, common])
    assert x[0, F["cover"]] > 0.5 > x[1, F["cover"]] > 0
    assert x[0, F["cover"]] + x[1, F["cover"]] == pytest.approx(1.0)


def test_context_is_the_share_of_query_terms_in_the_title_headings_and_header(maker):
    x = features(maker, "past participle of begin", [ROWS, BARE_ROWS])
    assert 0 < x[0, F["context"]] < 1 and x[1, F["context"]] == 0.0  # ROWS' header names the columns


def test_quoted_is_the_share_of_quoted_words_the_chunk_holds(maker):
    assert features(maker, "past of 'begin' and 'gender'", [TABLE, OTHER, PROSE])[:, F["quoted"]].tolist() == [
        0.5, 0.5, 0.5]
    assert features(maker, "past of 'went' or 'gone'", [TABLE, PROSE])[:, F["quoted"]].tolist() == [1.0, 0.0]
    assert features(maker, "past of begin", [TABLE])[0, F["quoted"]] == 0.0


def test_length_is_the_log_of_the_chunks_words(maker):
    assert features(maker, "x", [chunk("three", "one two three")])[0, F["length"]] == pytest.approx(math.log1p(3))


def test_question_filler_changes_no_feature(maker):
    plain = features(maker, "past participle begin", ALL)
    asked = features(maker, "What is the past participle of begin?", ALL)
    np.testing.assert_array_equal(plain, asked)


def test_a_query_of_filler_only_matches_nothing(maker):
    x = features(maker, "what is the", ALL)
    assert not x[:, [F["cover"], F["line"], F["line_all"], F["near"], F["context"]]].any()


# ---------------------------------------------------------------- fit_logistic


def separable(n=200, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n * 2, 2))
    margin = x[:, 0] + 0.5 * x[:, 1]
    keep = np.abs(margin) > 0.3
    return x[keep][:n], (margin[keep][:n] > 0).astype(float)


def noisy(n=300, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)) * [1.0, 5.0, 0.2] + [0.0, 10.0, -1.0]
    y = (rng.random(n) < sigmoid(x[:, 0] - 0.3 * (x[:, 1] - 10))).astype(float)
    return x, y


def test_a_linearly_separable_set_is_separated():
    x, y = separable()
    w, b, _ = fit_logistic(x, y)
    assert ((sigmoid(x @ w + b) > 0.5) == (y == 1)).all()
    assert w[0] > 0 and w[1] > 0


def test_the_loss_starts_at_log_two_and_never_goes_up():
    x, y = noisy()
    _, _, losses = fit_logistic(x, y)
    assert len(losses) == 25 and losses[0] == pytest.approx(math.log(2))
    assert all(b <= a + 1e-12 for a, b in zip(losses, losses[1:])) and losses[-1] < losses[0] - 0.05


def test_the_fit_is_the_minimum_of_the_documented_objective():
    """At the optimum the gradient is zero: the unregularised bias makes the mean prediction the
    mean label, and each standardised weight balances its data gradient against l2."""
    x, y = noisy()
    l2 = 3.0
    w, b, _ = fit_logistic(x, y, l2=l2)
    p = sigmoid(x @ w + b)
    mu, sd = x.mean(axis=0), x.std(axis=0)
    assert p.mean() == pytest.approx(y.mean(), abs=1e-9)
    grad = ((x - mu) / sd).T @ (p - y) / len(y) + l2 / len(y) * (w * sd)
    np.testing.assert_allclose(grad, 0, atol=1e-9)


def test_standardisation_is_folded_back_so_rescaled_features_give_the_same_predictions():
    x, y = noisy()
    scale, shift = np.array([1000.0, 0.01, 7.0]), np.array([5.0, -3.0, 100.0])
    w, b, _ = fit_logistic(x, y)
    w2, b2, _ = fit_logistic(x * scale + shift, y)
    np.testing.assert_allclose(sigmoid((x * scale + shift) @ w2 + b2), sigmoid(x @ w + b), atol=1e-9)
    np.testing.assert_allclose(w2 * scale, w, rtol=1e-6)


def test_a_constant_feature_gets_no_weight():
    x, y = noisy()
    x = np.hstack([x, np.full((len(y), 1), 4.0)])
    w, b, _ = fit_logistic(x, y)
    assert w[-1] == 0.0 and np.isfinite(b)


def test_a_stronger_l2_shrinks_the_standardised_weights():
    x, y = noisy()
    sd = x.std(axis=0)
    weak, strong = (np.linalg.norm(fit_logistic(x, y, l2=l2)[0] * sd) for l2 in (0.01, 300.0))
    assert strong < weak / 2


# ---------------------------------------------------------------- rerank


RANKING = [("a", 0.9), ("b", 0.8), ("c", 0.7), ("d", 0.6), ("e", 0.5)]


def test_only_the_top_n_are_reordered_and_the_tail_keeps_its_order():
    x = np.array([[0.0], [2.0], [1.0], [9.0], [8.0]])
    out = rerank(RANKING, x, np.array([1.0]), 0.0, n=3)
    assert [cid for cid, _ in out] == ["b", "c", "a", "d", "e"]


def test_scores_are_positional():
    out = rerank(RANKING, np.zeros((5, 1)), np.array([1.0]), 0.0, n=5)
    assert [s for _, s in out] == [5.0, 4.0, 3.0, 2.0, 1.0]


def test_ties_keep_the_first_stage_order():
    x = np.array([[1.0], [2.0], [1.0], [2.0], [0.0]])
    assert [c for c, _ in rerank(RANKING, x, np.array([1.0]), 0.0, n=5)] == ["b", "d", "a", "c", "e"]
    assert [c for c, _ in rerank(RANKING, x, np.array([0.0]), 0.0, n=5)] == ["a", "b", "c", "d", "e"]


def test_a_negative_weight_reverses_and_n_beyond_the_ranking_reorders_it_all():
    x = np.arange(5.0)[:, None]
    assert [c for c, _ in rerank(RANKING, x, np.array([-1.0]), 0.0, n=50)] == ["a", "b", "c", "d", "e"]
    assert [c for c, _ in rerank(RANKING, x, np.array([1.0]), 0.0, n=50)] == ["e", "d", "c", "b", "a"]
    assert [c for c, _ in rerank(RANKING, x, np.array([1.0]), 0.0, n=0)] == ["a", "b", "c", "d", "e"]


# ---------------------------------------------------------------- model files


@pytest.fixture
def model(tmp_path):
    """A reranker saved and vouched for by its train_reranker receipt, as the stage leaves it."""
    layout = CorpusLayout.of(tmp_path / "results", "kb")
    path = layout.reranker("bm25-rr")
    w = np.linspace(-1, 1, len(FEATURES))
    save_model(path, w, 0.25, {"examples": 12})
    write_receipt(layout.receipt("train_reranker", "bm25-rr"), "train_reranker", "bm25-rr", {}, [],
                  [path, path.with_suffix(".json")])
    return layout, path, w


def test_a_saved_model_loads_back_with_its_weights(model):
    layout, path, w = model
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded["w"], w)
    assert loaded["b"] == 0.25
    sidecar = json.loads(path.with_suffix(".json").read_text())
    assert sidecar["features"] == list(FEATURES) and sidecar["weights"]["length"] == 1.0
    assert sidecar["bias"] == 0.25 and sidecar["examples"] == 12


def test_a_model_without_its_receipt_is_refused(model):
    layout, path, _ = model
    layout.receipt("train_reranker", "bm25-rr").unlink()
    with pytest.raises(IntegrityError, match=r"receipts/train_reranker\.bm25-rr\.json is missing"):
        load_model(path)


def test_weights_changed_since_training_are_refused(model):
    _, path, _ = model
    path.write_bytes(path.read_bytes() + b"\0")
    with pytest.raises(IntegrityError, match=r"bm25-rr\.npz: changed since its job wrote it"):
        load_model(path)


def test_a_model_trained_on_other_features_is_refused(model):
    layout, path, _ = model
    sidecar = path.with_suffix(".json")
    sidecar.write_text(json.dumps({**json.loads(sidecar.read_text()), "features": ["rank", "score"]}))
    write_receipt(layout.receipt("train_reranker", "bm25-rr"), "train_reranker", "bm25-rr", {}, [],
                  [path, sidecar])
    with pytest.raises(ValueError, match="trained on features .* re-run train_reranker"):
        load_model(path)


# ---------------------------------------------------------------- synthesized questions


DOC = """# Verbs

Intro.

## Irregular verbs

| Base form | Past simple | Past participle (pp) |
|---|---|---|
| **begin** | began | begun |
| go | went / goed | gone, been |
| only | two |
|  | empty | key |
| do | did |  |

## Tiempos

El pretérito.
"""


def test_every_row_cell_under_a_header_and_every_sub_heading_is_templated():
    pool = candidates([{"doc_id": "a.md", "text": DOC}])
    per_cell = len(TEMPLATES) + len(BACK)
    # begin and go: two columns each; do: one (its last cell is empty); short and key-less rows: none
    assert len(pool) == 5 * per_cell + 2 * len(HEADING)  # "# Verbs" is the title: not asked about
    queries = {q for _, q, *_ in pool}
    assert {"what is the past participle of begin?", "begin past simple", "went?", "what is gone?",
            "¿cuál es el past simple de do?", "what is tiempos?"} <= queries
    assert not any(w in q for q in queries for w in ("**", "(pp)", "goed", "been", "only"))
    assert "what is verbs?" not in queries


def test_gold_spans_are_the_exact_row_or_section_in_the_document():
    docs = [{"doc_id": "a.md", "text": DOC}, {"doc_id": "b.md", "text": "## Solo\n\nText.\n"}]
    texts = {d["doc_id"]: d["text"] for d in docs}
    for template, query, doc_id, lo, hi in candidates(docs):
        span = texts[doc_id][lo:hi]
        if template in HEADING:
            heading = span.split("\n")[0]
            assert heading.startswith("## ") and heading[3:].lower() in query
            assert "\n## " not in span and (hi == len(texts[doc_id]) or texts[doc_id][hi:].startswith("#"))
        else:
            assert span.startswith("| ") and span.endswith(" |") and "\n" not in span
    spans = {(doc_id, lo, hi) for _, _, doc_id, lo, hi in candidates(docs)}
    assert ("a.md", DOC.index("| go"), DOC.index("| go") + len("| go | went / goed | gone, been |")) in spans
    assert ("b.md", 0, len("## Solo\n\nText.\n")) in spans


def test_synthesis_is_deterministic_for_a_seed():
    docs = [{"doc_id": "a.md", "text": DOC}]
    assert synthesize(docs, 20, seed=3) == synthesize(docs, 20, seed=3)
    assert synthesize(docs, 20, seed=3) != synthesize(docs, 20, seed=4)


def test_asking_for_more_than_the_pool_gives_each_question_once():
    docs = [{"doc_id": "a.md", "text": DOC}]
    pool = candidates(docs)
    out = synthesize(docs, 10_000, seed=0, misspell_share=0.0)
    assert len(out) == len(pool)
    assert sorted((q["query"], q["gold"][0]["char_start"]) for q in out) == sorted((p[1], p[3]) for p in pool)
    assert [q["qid"] for q in out] == [f"synth-{i:05d}" for i in range(len(pool))]
    assert all(q["gold"] == [{"doc_id": "a.md", "char_start": q["gold"][0]["char_start"],
                              "char_end": q["gold"][0]["char_end"]}] for q in out)
    assert synthesize([{"doc_id": "x.md", "text": "No tables, no sub-headings."}], 5) == []


@pytest.mark.parametrize("share", [0.0, 0.3, 1.0])
def test_the_misspelt_share_is_about_what_is_asked(monkeypatch, share):
    rows = "".join(f"| verb{i} | past{i} | part{i} |\n" for i in range(40))
    docs = [{"doc_id": "big.md", "text": f"## Big\n\n{HEADER}\n|---|---|---|\n{rows}"}]
    monkeypatch.setattr(synth, "misspell", lambda word, rng: word + "§")  # every slip made visible
    out = synthesize(docs, 600, seed=5, misspell_share=share)
    assert len(out) == 600
    assert sum("§" in q["query"] for q in out) == pytest.approx(600 * share, abs=45)


def allowed_slips(word: str) -> set[str]:
    stripped = "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))
    if len(word) < 4:
        return {stripped, word}
    inner = range(1, len(word) - 1)
    return ({stripped} | {word[:i] + word[i + 1:] for i in inner} | {word[:i] + word[i] + word[i:] for i in inner}
            | {word[:i - 1] + word[i] + word[i - 1] + word[i + 1:] for i in inner})


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="abcdeéñó", min_size=1, max_size=10), st.integers(0, 2**32 - 1))
def test_a_misspelling_is_one_learners_slip(word, seed):
    assert misspell(word, np.random.default_rng(seed)) in allowed_slips(word)


def test_misspellings_drop_accents_drop_double_or_swap_letters():
    slips = {misspell("pretérito", np.random.default_rng(seed)) for seed in range(60)}
    assert "preterito" in slips
    assert {len(s) for s in slips} == {8, 9, 10}
    assert any(len(s) == 9 and s != "pretérito" and sorted(s) == sorted("pretérito") for s in slips)


FEATURES_IN_A_FRESH_PROCESS = """
import sys
from minirag.rank.rerank import FeatureMaker
from minirag.text.analyze import Analyzer, AnalyzerConfig
from minirag.text.chunks import Chunk, chunk_id
words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november".split()
texts = [" ".join(words[:i + 2] * (i % 3 + 1)) + "\\n" + " ".join(words[i % 5::i % 4 + 1]) for i in range(12)]
chunks = [Chunk(id=chunk_id(f"d{i}", 0), text=t, doc_id=f"d{i}", offset=0,
                metadata={"title": "T", "section": "", "context": " ".join(words[i:i + 5]), "char_start": 0,
                          "char_end": len(t)}) for i, t in enumerate(texts)]
maker = FeatureMaker(Analyzer(AnalyzerConfig()), chunks)
x = maker.features(" ".join(words), [(c.id, 1.0 / (i + 1)) for i, c in enumerate(chunks)], {c.id: c for c in chunks})
sys.stdout.write(x.tobytes().hex())
"""


def test_features_do_not_depend_on_the_process_string_hashing():
    # a chunk's words are a set, iterated in an order Python's per-process string hashing sets:
    # the shares must not be summed in that order, or the trained weights and the rerank run
    # files change in the last bit from one process to the next
    import os
    import subprocess
    import sys
    outs = {subprocess.run([sys.executable, "-c", FEATURES_IN_A_FRESH_PROCESS], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
            for seed in range(6)}
    assert len(outs) == 1


def test_stored_document_frequencies_are_read_only_for_the_same_chunk_texts(monkeypatch):
    """train_reranker keeps the feature maker's document frequencies in its sidecar; a feature maker
    over the same texts reads them (no chunk analyzed) and ranks the same, over other texts it counts."""
    built = FeatureMaker(Analyzer(AnalyzerConfig(query_stopwords=("en",))), ALL)
    record = json.loads(json.dumps(built.df_record()))
    calls = []
    monkeypatch.setattr(Analyzer, "__call__", lambda self, text: calls.append(text) or [])
    read = FeatureMaker(Analyzer(AnalyzerConfig(query_stopwords=("en",))), ALL, stored=record)
    monkeypatch.undo()
    assert calls == [] and read.idf == built.idf and read.default_idf == built.default_idf
    ranking = [(c.id, 1.0) for c in ALL]
    np.testing.assert_array_equal(read.features("past of begin", ranking, {c.id: c for c in ALL}),
                                  built.features("past of begin", ranking, {c.id: c for c in ALL}))
    other = FeatureMaker(Analyzer(AnalyzerConfig(query_stopwords=("en",))), ALL[:-1], stored=record)
    assert other.n == len(ALL) - 1 and other.df != record["terms"]


def test_stored_chunk_codes_are_read_for_the_same_chunk_texts_and_give_the_same_features(monkeypatch):
    """train_reranker keeps every chunk's code beside the weights; a feature maker over the same texts reads
    a candidate's code instead of analyzing it, and every feature is the same, bit for bit."""
    built = FeatureMaker(Analyzer(AnalyzerConfig(query_stopwords=("en",))), ALL)
    record = json.loads(json.dumps(built.df_record()))
    codes = built.codes_record(ALL)
    assert codes is not None and codes_problem(codes, len(ALL), len(record["terms"])) is None
    read = FeatureMaker(Analyzer(AnalyzerConfig(query_stopwords=("en",))), ALL, stored=record, codes=codes)
    by_id = {c.id: c for c in ALL}
    ranking = [(c.id, float(len(ALL) - i)) for i, c in enumerate(ALL)]
    queries = ("past of begin", "'went' go", "nouns gender", "participle perfect tenses", "zzz")
    expected = [built.features(query, ranking, by_id) for query in queries]
    calls = []
    analyze = Analyzer.__call__
    monkeypatch.setattr(Analyzer, "__call__", lambda self, text: calls.append(text) or analyze(self, text))
    for query, x in zip(queries, expected):
        np.testing.assert_array_equal(read.features(query, ranking, by_id), x)
    assert not [t for t in calls if t in {c.text for c in ALL}]  # no chunk analyzed
    # other texts: the codes are not read (the document frequencies are not these chunks' either)
    assert FeatureMaker(Analyzer(AnalyzerConfig()), ALL[:-1], stored=record, codes=codes)._stored is None


def test_damaged_chunk_codes_are_named():
    built = FeatureMaker(Analyzer(AnalyzerConfig()), ALL)
    codes, n_terms = built.codes_record(ALL), len(built.df)
    bad_term = {**codes, "code_sets": codes["code_sets"].copy()}
    bad_term["code_sets"][0] = n_terms
    assert "term id outside" in codes_problem(bad_term, len(ALL), n_terms)
    bad_end = {**codes, "code_index": codes["code_index"].copy()}
    bad_end["code_index"][-1, 0] += 1
    assert "entries ends" in codes_problem(bad_end, len(ALL), n_terms)
    bad_line = {**codes, "code_entries": codes["code_entries"].copy()}
    bad_line["code_entries"][0, 0] = 99
    assert "beyond its chunk's lines" in codes_problem(bad_line, len(ALL), n_terms)
    assert "shapes" in codes_problem(codes, len(ALL) + 1, n_terms)
    assert "integer arrays" in codes_problem({**codes, "code_sets": codes["code_sets"].astype(float)}, len(ALL), n_terms)


def test_a_model_with_damaged_chunk_codes_is_refused(tmp_path):
    layout = CorpusLayout.of(tmp_path / "results", "kb")
    path = layout.reranker("bm25-rr")
    built = FeatureMaker(Analyzer(AnalyzerConfig()), ALL)
    codes = built.codes_record(ALL)
    codes["code_sets"][0] = len(built.df) + 5
    save_model(path, np.zeros(len(FEATURES)), 0.0, {"df": built.df_record()}, codes)
    write_receipt(layout.receipt("train_reranker", "bm25-rr"), "train_reranker", "bm25-rr", {}, [],
                  [path, path.with_suffix(".json")])
    with pytest.raises(ValueError, match=r"bm25-rr\.npz: a term id outside .* re-run train_reranker"):
        load_model(path)
