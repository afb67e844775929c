"""Query expansion: concepts from a lexicon and a form map, and BM25 scoring of concepts."""

import numpy as np
import pytest

from minirag.domains.grammar.language.expand import ExpansionSettings, Paradigm, QueryExpander
from minirag.index.bm25.index import BM25Index, BM25Params
from minirag.rank.retrievers import BM25Retriever
from minirag.text.analyze import Analyzer, AnalyzerConfig

LEXICON = {"comer": ["to eat"], "eat": ["comer"], "past participle": ["participio"], "participio": ["past participle"]}
FORMS = {"comí": ["comer"], "comiste": ["comer"], "comer": ["comer"], "ate": ["eat"], "eaten": ["eat"], "eat": ["eat"]}
FILLER = AnalyzerConfig(query_stopwords=("en", "es"))


def expander(translations=0.5, forms=0.5, config=FILLER):
    return QueryExpander(Analyzer(config), LEXICON, FORMS, ExpansionSettings(translations, forms))


def test_a_form_brings_its_lemma_the_lemmas_forms_and_their_translations():
    alts = expander().word_alternatives("comí")
    assert alts["comí"] == 1.0
    assert alts["comer"] == alts["comiste"] == 0.5
    assert alts["eat"] == 0.5                      # the lemma's translation
    assert alts["ate"] == alts["eaten"] == 0.25    # the translation's forms: translations x forms


def test_weights_of_zero_switch_each_expansion_off():
    assert set(expander(translations=0.0).word_alternatives("comí")) == {"comí", "comer", "comiste"}
    # its lemma still finds the translation: comer -> eat; no other form of either comes along
    assert set(expander(forms=0.0).word_alternatives("comí")) == {"comí", "eat"}
    assert set(expander(forms=0.0).word_alternatives("comer")) == {"comer", "eat"}
    assert not ExpansionSettings().enabled()


def test_filler_is_dropped_before_expansion_and_translations_lose_their_filler():
    concepts = expander().concepts("¿Cómo se dice 'comí' en inglés?")
    assert [next(iter(c)) for c in concepts] == ["comí", "inglés"]
    assert "to" not in concepts[0]  # "to eat" contributes "eat" only


def test_a_phrase_the_lexicon_knows_adds_one_concept_of_its_translation():
    concepts = expander().concepts("what is the past participle of eat")
    assert {"participio": 0.5} in concepts
    assert len(concepts) == 4  # past, participle, eat, and the phrase's translation


def test_lexicon_keys_are_normalised_like_the_analyzer_folds_accents():
    folded = expander(config=AnalyzerConfig(fold_accents=True, query_stopwords=("es",)))
    assert folded.word_alternatives("comi")["comer"] == 0.5


def test_alternatives_become_index_terms_through_the_stemmer():
    config = AnalyzerConfig(stemmer="spanish")
    concept = expander(translations=0.0, config=config).concepts("comiste")[0]
    assert set(concept) == set(Analyzer(config)("comiste comí comer"))
    assert concept[Analyzer(config)("comiste")[0]] == 1.0


def test_expansion_refuses_character_ngram_indexes():
    with pytest.raises(ValueError, match="n-grams"):
        expander(config=AnalyzerConfig(char_ngrams=3))


TEXTS = ["yo comí pan ayer", "I ate bread yesterday", "comer y comer y comer", "nothing relevant here"]


def index(analyzer=Analyzer()):
    return BM25Index.build(TEXTS, analyzer, BM25Params())


def test_a_concept_of_one_plain_term_scores_as_the_plain_query():
    bm = index()
    plain_idx, plain_scores = bm.search("comí pan", 4)
    idx, scores = bm.search_concepts([{"comí": 1.0}, {"pan": 1.0}], 4)
    assert idx.tolist() == plain_idx.tolist()
    np.testing.assert_allclose(scores, plain_scores)


def test_a_concept_scores_its_best_alternative_not_the_sum():
    bm = index()
    only_comer = bm.search_concepts([{"comer": 0.5}], 4)
    both = bm.search_concepts([{"comí": 1.0, "comer": 0.5}], 4)
    comi = bm.search_concepts([{"comí": 1.0}], 4)
    scores = dict(zip(both[0].tolist(), both[1].tolist()))
    assert scores[0] == pytest.approx(dict(zip(comi[0].tolist(), comi[1].tolist()))[0])
    assert scores[2] == pytest.approx(dict(zip(only_comer[0].tolist(), only_comer[1].tolist()))[2])
    assert 3 not in scores  # matches no alternative


def test_expansion_finds_the_page_in_the_other_language():
    ex = expander(config=AnalyzerConfig())
    plain = BM25Retriever(index(), ["es", "en", "lemma", "none"])
    expanded = BM25Retriever(index(), ["es", "en", "lemma", "none"], expander=ex)
    assert "en" not in [c for c, _ in plain.search("comí", 4)]
    ranked = [c for c, _ in expanded.search("comí", 4)]
    assert ranked[0] == "es" and "en" in ranked and "lemma" in ranked


def test_a_file_that_is_not_a_lexicon_is_refused_naming_it(tmp_path):
    from minirag.domains.grammar.language.expand import load_lexicon
    path = tmp_path / "lexicon.json"
    path.write_text('{"lexicon": {}}', encoding="utf-8")
    with pytest.raises(ValueError, match="lexicon.json: not a lexicon"):
        load_lexicon(path)


def test_endings_give_a_form_the_map_lacks_its_lemma_and_the_lemmas_forms():
    ex = QueryExpander(Analyzer(FILLER), LEXICON, {**FORMS, "catch": ["catch"], "caught": ["catch"]},
                       ExpansionSettings(0.5, 0.5, endings=True))
    assert ex.lemmas_of("catched") == ["catch"]
    assert ex.word_alternatives("catched") == {"catched": 1.0, "catch": 0.5, "caught": 0.5}
    assert ex.lemmas_of("comí") == ["comer"]     # the map's own lemma comes first
    assert ex.lemmas_of("bread") == []
    assert expander().lemmas_of("catched") == []  # off by default


def test_paradigm_marks_the_concepts_of_words_with_a_lemma():
    ex = QueryExpander(Analyzer(FILLER), LEXICON, FORMS, ExpansionSettings(0.5, 0.5, paradigm=True))
    concepts = ex.concepts("comí pan")
    assert isinstance(concepts[0], Paradigm) and not isinstance(concepts[1], Paradigm)
    assert concepts[0] == expander().concepts("comí pan")[0]  # the same alternatives, scored otherwise
    assert "forms add up" in ExpansionSettings(0.5, 0.5, paradigm=True).describe()


def test_a_paradigm_concept_adds_its_alternatives_where_a_concept_takes_the_best():
    bm = index()
    alts = {"comí": 0.5, "comer": 0.5, "pan": 0.5}
    best = dict(zip(*(a.tolist() for a in bm.search_concepts([alts], 4))))
    summed = dict(zip(*(a.tolist() for a in bm.search_concepts([Paradigm(alts)], 4))))
    one = {t: dict(zip(*(a.tolist() for a in bm.search_concepts([{t: 0.5}], 4)))) for t in alts}
    assert summed[0] == pytest.approx(one["comí"][0] + one["pan"][0])  # "yo comí pan ayer": two alternatives
    assert best[0] == pytest.approx(max(one["comí"][0], one["pan"][0]))
    assert summed[2] == pytest.approx(best[2]) == pytest.approx(one["comer"][2])  # one alternative: the same
    assert 3 not in summed
