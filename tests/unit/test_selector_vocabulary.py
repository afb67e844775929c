"""The answer selector's vocabulary, built once by train_reader and kept in its sidecar: read back it is
the vocabulary built from the chunks; answering reads it only when it was built from the very files it
answers from (else rebuilds it); a damaged one is refused naming the file and the key."""

import json

import pytest
from test_answer_selection import LEXICON, chunks, terms, vocab  # noqa: F401  (fixtures)

from minirag.answer.select import selector as selector_module
from minirag.answer.select.scorer import AnswerScorer
from minirag.artifacts.integrity import write_receipt
from minirag.artifacts.io import sha256_file, write_json, write_jsonl
from minirag.artifacts.layout import CorpusLayout
from minirag.domains.grammar.select.analysis import analyze
from minirag.domains.grammar.select.features import FEATURES
from minirag.domains.grammar.select.none_option import NULL_FEATURES
from minirag.domains.grammar.select.terms import DEFAULT_TERMS
from minirag.domains.grammar.select.vocabulary import Vocabulary

ATTRIBUTES = ("keys", "words", "forms", "lexicon", "form_concepts", "suffix_concepts", "word_langs", "by_deletion",
              "by_stem")


def test_a_vocabulary_read_back_is_the_one_built(vocab, terms):  # noqa: F811
    back = Vocabulary.from_record(json.loads(json.dumps(vocab.to_record(), ensure_ascii=False)), terms)
    for name in ATTRIBUTES:
        built, read = getattr(vocab, name), getattr(back, name)
        assert (list(built.items()) == list(read.items())) if isinstance(built, dict) else built == read, name
    for q in ("¿Cómo se conjuga venir en pretérito, yo?", "past participle of writte", "what is hació"):
        assert analyze(q, back).to_record() == analyze(q, vocab).to_record()
    with pytest.raises(ValueError, match="format"):
        Vocabulary.from_record({"keys": []}, terms)


@pytest.fixture
def trained(tmp_path, chunks, vocab):  # noqa: F811
    """A corpus folder with docs, chunks, lexicon and a selector whose sidecar holds the vocabulary."""
    layout = CorpusLayout.of(tmp_path / "results", "c")
    write_jsonl(layout.docs, [{"doc_id": d, "text": "x"} for d in ("es/pret.md", "es/pres.md", "en/irr.md")])
    write_jsonl(layout.chunks, [{"id": c.id, "doc_id": c.doc_id} for c in chunks])
    write_json(layout.lexicon, LEXICON)
    write_receipt(layout.receipt("lexicon", None), "lexicon", None, {}, [], [layout.lexicon])
    model = layout.reader_model("extractive")
    model.parent.mkdir(parents=True, exist_ok=True)
    AnswerScorer(len(FEATURES), len(NULL_FEATURES), hidden=2, seed=0).save_atomic(model)
    files = {"docs": layout.docs, "chunks": layout.chunks, "lexicon": layout.lexicon, "terms": DEFAULT_TERMS}
    record = {**vocab.to_record(), "built_from": {k: sha256_file(p) for k, p in files.items()}}
    write_json(model.with_suffix(".json"), {"threshold": 0.5, "vocabulary": record})
    write_receipt(layout.receipt("train_reader", "extractive"), "train_reader", "extractive", {}, [],
                  [model, model.with_suffix(".json")])
    return layout, model


def test_answering_reads_the_stored_vocabulary_only_when_built_from_its_files(trained, chunks, monkeypatch):  # noqa: F811
    layout, model = trained
    langs = {"es/pret.md": "es", "es/pres.md": "es", "en/irr.md": "en"}
    rebuilt = []
    original = Vocabulary.from_chunks
    monkeypatch.setattr(Vocabulary, "from_chunks", classmethod(lambda cls, *a: rebuilt.append(1) or original(*a)))
    files = {"docs": layout.docs, "chunks": layout.chunks}
    read = selector_module.load_selector(model, chunks, langs, layout.lexicon, DEFAULT_TERMS, 20, files)
    assert rebuilt == [] and "venir" in read.vocab.keys
    layout.chunks.write_text(layout.chunks.read_text() + "\n", encoding="utf-8")  # another chunks file
    again = selector_module.load_selector(model, chunks, langs, layout.lexicon, DEFAULT_TERMS, 20, files)
    assert rebuilt == [1] and again.vocab.keys == read.vocab.keys


def test_a_damaged_vocabulary_is_refused_naming_the_file_and_key(trained):
    from minirag.artifacts.content import ContentError, check_file
    layout, model = trained
    sidecar = model.with_suffix(".json")
    check_file(sidecar)
    data = json.loads(sidecar.read_text())
    word = next(iter(data["vocabulary"]["word_langs"]))
    data["vocabulary"]["word_langs"][word] = {"es": 0}
    sidecar.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ContentError, match=r"extractive\.json: vocabulary\.word_langs"):
        check_file(sidecar)


GOOD = {"format": "minirag-vocabulary/1", "keys": ["a"], "words": ["a", "b"], "forms": {"a": ["b"]},
        "lexicon": {}, "form_concepts": {"a": ["tense:past"]}, "suffix_concepts": {},
        "word_langs": {"a": {"en": 2, "": 1}, "b": {}}, "built_from": {k: "0" * 64 for k in ("docs", "chunks", "lexicon", "terms")}}


@pytest.mark.parametrize("key, value", [
    ("keys", ["a", 1]), ("keys", "a"), ("words", None), ("forms", {"a": "b"}), ("forms", {1: ["b"]}),
    ("lexicon", {"a": ["b", None]}), ("form_concepts", []), ("word_langs", {"a": {"en": 0}}),
    ("word_langs", {"a": {"en": True}}), ("word_langs", {"a": {"en": 1.0}}), ("word_langs", {"a": [1]}),
    ("word_langs", []), ("built_from", {"docs": "0" * 64})])
def test_each_key_of_the_wrong_shape_is_named(key, value):
    from minirag.artifacts.vocab_record import vocabulary_problem
    assert vocabulary_problem(GOOD) is None
    assert vocabulary_problem({**GOOD, key: value}).startswith(f"vocabulary.{key}:")
