"""A verb's forms by tense and person: naming them in text (slots.py), mining them from conjugation
tables (verb_forms.py `extract_paradigms`) and weighing up the query's tense in expansion (expand.py)."""

import json

import pytest

from minirag.domains.grammar.language.expand import ExpansionSettings, Paradigm, QueryExpander, load_lexicon
from minirag.domains.grammar.language.lexicon import extract_lexicon, save_lexicon
from minirag.domains.grammar.language.slots import implied_tenses, person_list, persons_in, query_persons, tenses_in
from minirag.domains.grammar.language.verb_forms import extract_forms, extract_paradigms
from minirag.stages.retrieve import retrieve_reads
from minirag.text.analyze import Analyzer, AnalyzerConfig


def test_tenses_are_named_in_both_languages_longest_phrase_first():
    assert tenses_in("Pretérito indefinido irregular") == ["past"]
    assert tenses_in("how do you say it in the Spanish preterite?") == ["past"]
    assert tenses_in("Base form | Past simple") == ["past"]
    assert tenses_in("past participle") == ["participle"]            # not also "past"
    assert tenses_in("¿necesito el participio?") == ["participle"]
    assert tenses_in("Pretérito imperfecto de subjuntivo") == ["subjunctive-imperfect"]
    assert tenses_in("Pretérito imperfecto de indicativo") == ["imperfect"]
    assert tenses_in("Presente de subjuntivo: formación") == ["subjunctive-present"]
    assert tenses_in("Condicional simple"), tenses_in("futuro") == (["conditional"], ["future"])
    assert tenses_in("Pretérito indefinido o imperfecto") == ["imperfect", "past"]
    assert tenses_in("Ejemplo (tener)") == tenses_in("¿trajieron o trajeron?") == []


def test_persons_are_subject_pronouns_with_their_accents():
    assert persons_in("él / ella / usted") == ["3sg"]
    assert person_list("ser (yo / él)") == ["1sg", "3sg"]             # in the order written
    assert persons_in("I had") == ["1sg"] and persons_in("nosotros/as") == ["1pl"]
    assert persons_in("el libro de tu hermano") == []                 # "el" the, "tu" your: no pronoun


SPANISH = """# Pretérito indefinido irregular

## Paradigmas

| Infinitivo | yo | tú | él / ella / usted |
|---|---|---|---|
| tener | tuve | tuviste | tuvo |
| comer | comí | comiste | comió |

# Presente

| Persona | tener |
|---|---|
| yo | tengo |
| tú | tienes |
"""
ENGLISH = """# Irregular verbs

| Base form | Past simple | Past participle |
|---|---|---|
| have | had | had |
| write | wrote | written |
"""
OTHER_TENSES = """# Ser

| Tense | ser (yo / él) |
|---|---|
| preterite | fui / fue |
| imperfect | era / era |
"""
NO_TENSE = """# Notes

| Infinitivo | yo | tú |
|---|---|---|
| poner | pongo | pones |
"""
GLOSSARY = """# Glossary

| English | Spanish |
|---|---|
| to have | tener |
| to write | escribir |
"""


def docs():
    return [{"doc_id": "es/a.md", "lang": "es", "text": SPANISH}, {"doc_id": "en/b.md", "lang": "en", "text": ENGLISH},
            {"doc_id": "guides/c.md", "lang": "en", "text": OTHER_TENSES},
            {"doc_id": "es/d.md", "lang": "es", "text": NO_TENSE}, {"doc_id": "guides/e.md", "lang": "en", "text": GLOSSARY}]


@pytest.fixture(scope="module")
def paradigms():
    return extract_paradigms(docs())


def test_a_tables_tense_comes_from_its_headings_and_person_from_its_columns(paradigms):
    # "Infinitivo | yo | tú" under "Pretérito indefinido irregular › Paradigmas": the page's tense
    assert paradigms["tener"]["past"] == {"1sg": ["tuve"], "2sg": ["tuviste"], "3sg": ["tuvo"]}
    # "Persona | tener" under "Presente": the persons are the rows
    assert paradigms["tener"]["present"] == {"1sg": ["tengo"], "2sg": ["tienes"]}


def test_a_column_header_naming_a_tense_wins_and_names_no_person(paradigms):
    assert paradigms["write"] == {"participle": {"": ["written"]}, "past": {"": ["wrote"]}}
    assert paradigms["have"] == {"participle": {"": ["had"]}, "past": {"": ["had"]}}


def test_a_row_label_names_the_tense_and_a_header_the_persons_paired_in_order(paradigms):
    assert paradigms["ser"]["past"] == {"1sg": ["fui"], "3sg": ["fue"]}
    assert paradigms["ser"]["imperfect"] == {"1sg": ["era"], "3sg": ["era"]}


def test_a_table_naming_no_tense_keeps_its_forms_but_places_none(paradigms):
    assert "poner" not in paradigms
    assert extract_forms(docs())["pongo"] == ["poner"]


def test_the_paradigms_are_a_third_key_old_readers_skip_and_files_are_byte_identical(tmp_path, paradigms):
    lexicon, forms = extract_lexicon(docs()), extract_forms(docs())
    save_lexicon(tmp_path / "a.json", lexicon, forms, paradigms)
    reversed_docs = docs()[::-1]
    save_lexicon(tmp_path / "b.json", extract_lexicon(reversed_docs), extract_forms(reversed_docs),
                 extract_paradigms(reversed_docs))
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert load_lexicon(tmp_path / "a.json") == (lexicon, forms)
    assert load_lexicon(tmp_path / "a.json", paradigms=True) == (lexicon, forms, paradigms)
    assert json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))["paradigms"]["tener"]["past"]["1sg"] == ["tuve"]
    save_lexicon(tmp_path / "old.json", lexicon, forms)  # a file written before the paradigms
    assert load_lexicon(tmp_path / "old.json", paradigms=True) == (lexicon, forms, {})


def expander(tenses: float, paradigms=None, endings=False, persons=0.0, more_docs=()):
    d = docs() + list(more_docs)
    settings = ExpansionSettings(translations=0.5, forms=0.5, paradigm=True, endings=endings, tenses=tenses, persons=persons)
    return QueryExpander(Analyzer(AnalyzerConfig(query_stopwords=("en", "es"))), extract_lexicon(d), extract_forms(d),
                         settings, extract_paradigms(d) if paradigms is None else paradigms)


def concept_of(exp, query, word):
    return next(c for c in exp.concepts(query) if word in c)


def test_a_tense_the_query_names_weighs_up_the_verbs_forms_in_it():
    c = concept_of(expander(3.0), "conjugate tener in the preterite", "tener")
    assert isinstance(c, Paradigm)
    assert c["tuve"] == c["tuvo"] == c["tener"] == 1.5 and c["tengo"] == c["tienes"] == 0.5
    off = concept_of(expander(0.0), "conjugate tener in the preterite", "tener")
    assert off["tuve"] == off["tengo"] == 0.5  # as before the option


def test_a_translated_form_brings_its_translations_forms_of_its_own_tense():
    # "had" is have's past (and participle): tener's past forms weigh up, its present ones do not
    c = concept_of(expander(3.0), "how do you say 'I had' in Spanish", "had")
    assert c["tuve"] == c["tuviste"] == 0.75 and c["tengo"] == 0.25
    # a lemma has no tense of its own: all of write's forms count alike
    w = concept_of(expander(3.0), "how do you say to write", "write")
    assert w["wrote"] == w["written"] == 0.5


def test_the_words_own_tense_does_not_pick_among_its_own_verbs_forms():
    # "¿tuve o tengo?" asks about both: the word's own verb keeps every form at one weight
    c = concept_of(expander(3.0), "¿tuve o tengo?", "tuve")
    assert c["tuviste"] == c["tienes"] == 0.5


def test_without_paradigms_the_option_changes_nothing():
    plain = expander(0.0).concepts("how do you say 'I had' in the preterite")
    assert expander(3.0, paradigms={}).concepts("how do you say 'I had' in the preterite") == plain


def test_a_form_the_map_lacks_takes_the_tense_its_ending_has_in_the_paradigms():
    # "tenió" is no table's form: endings guess tener, and -ió ends comió, a past form
    c = concept_of(expander(3.0, endings=True), "¿él tenió frío?", "tenió")
    assert c["tuvo"] == c["tuve"] == 1.5 and c["tengo"] == c["tienes"] == 0.5
    assert concept_of(expander(0.0, endings=True), "¿él tenió frío?", "tenió")["tuvo"] == 0.5


def test_a_construction_calls_for_the_tense_a_query_does_not_name():
    assert implied_tenses("'if I were rich' in Spanish, what form of ser goes after si?") == ["subjunctive-imperfect"]
    assert implied_tenses("Quiero que me lo ___ mañana (traer)") == ["subjunctive-present"]
    assert implied_tenses("No lo veo, pero puede que Luis esté por aquí") == ["subjunctive-present"]
    assert implied_tenses("how do I tell my brother 'go to the shop!' in Spanish") == ["imperative"]
    assert implied_tenses("¡Ven aquí! ¿cómo se forma?") == ["imperative"]
    # no construction: a question mark and an exclamation in a row, a word inside another word
    assert implied_tenses("he flys or he flies?!") == implied_tenses("the word order of questions") == []
    assert implied_tenses("Si llueve, no salgo") == []   # si + present: a real condition, no tense called for


SUBJUNCTIVE = """# Presente de subjuntivo

| Persona | tener |
|---|---|
| yo | tenga |
| tú | tengas |
"""


def test_the_tense_a_construction_calls_for_weighs_up_the_verbs_forms_unless_the_query_names_one():
    exp = expander(3.0, more_docs=[{"doc_id": "es/f.md", "lang": "es", "text": SUBJUNCTIVE}])
    c = concept_of(exp, "quiero que ___ paciencia (tener)", "tener")
    assert c["tenga"] == c["tengas"] == 1.5 and c["tuve"] == c["tengo"] == 0.5
    named = concept_of(exp, "quiero que me digas el pretérito de tener", "tener")  # named: the preterite wins
    assert named["tuve"] == 1.5 and named["tenga"] == 0.5


def test_a_querys_persons_are_its_pronouns_the_english_ones_only_quoted_or_bracketed():
    assert query_persons("ayer el camarero nos ___ la cuenta (pedir, él)") == ["3sg"]
    assert query_persons("how do you say 'I had' in the Spanish preterite?") == ["1sg"]   # "you" asks; 'I' is asked
    assert query_persons("How do I say it in Spanish? (salir, I form)") == ["1sg"]
    assert query_persons("how do I tell my brother to come") == []                          # the asker only
    assert persons_in("I had") == ["1sg"]  # a table's header: every pronoun names its person


def test_the_forms_of_the_querys_tense_in_its_person_weigh_up_again():
    exp = expander(3.0, persons=2.0)
    c = concept_of(exp, "pretérito de tener con él", "tener")
    assert c["tuvo"] == 3.0 and c["tuve"] == c["tuviste"] == 1.5 and c["tengo"] == 0.5
    # a translation's forms too: 'I had' is tener's past, first person
    had = concept_of(exp, "how do you say 'I had' in Spanish", "had")
    assert had["tuve"] == 1.5 and had["tuviste"] == 0.75
    # no person asked: the tense's forms alike, as without the option
    assert concept_of(exp, "pretérito de tener", "tener") == concept_of(expander(3.0), "pretérito de tener", "tener")


def test_weighing_persons_without_tenses_is_refused_naming_the_key():
    from minirag.config.corpus import ConfigError, corpus_config
    raw = {"corpora": {"c": {"domain": "grammar", "source": {"format": "markdown", "path": "docs"},
                             "retrievers": {"b": {"type": "bm25", "expand": {"forms": 0.5, "persons": 2}}}}}}
    with pytest.raises(ConfigError, match=r"retrievers\.b\.expand\.persons: .*set expand\.tenses too"):
        corpus_config(raw, "c")


def test_a_quoted_pronoun_that_is_also_a_verb_form_of_the_corpus_names_no_person():
    # «he hacido»: Spanish "he" is haber's, not the English pronoun
    assert query_persons("mi amigo escribe «he hacido», ¿está bien?", verb_forms={"he"}) == []
    assert query_persons("mi amigo escribe «he hacido», ¿está bien?") == ["3sg"]


def test_the_word_lists_an_expansion_reads_are_inputs_of_its_jobs():
    from minirag.artifacts.layout import CorpusLayout
    from minirag.config.corpus import corpus_config
    from minirag.pipeline.graph import CorpusGraph
    expand = {"forms": 0.5, "tenses": 3}
    raw = {"corpora": {"c": {"domain": "grammar", "source": {"format": "markdown", "path": "docs", "questions": "q.jsonl"},
                             "retrievers": {"t": {"type": "bm25", "expand": expand},
                                            "p": {"type": "bm25", "expand": {**expand, "persons": 3}}},
                             "readers": {"x": {"type": "extractive"}}, "answer": ["t"]}}}
    graph = CorpusGraph(corpus_config(raw, "c"), CorpusLayout.of("results", "c"))

    def lists(files, key):
        return {f.rsplit("/", 1)[-1] for f in files[key].files} if key in files else set()
    assert lists(retrieve_reads(graph, "t")["files"], "words:expand") == {"tenses.txt", "constructions.txt"}
    assert lists(retrieve_reads(graph, "p")["files"], "words:expand") == {"tenses.txt", "constructions.txt", "persons.txt"}
