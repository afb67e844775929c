"""The corpus's own English↔Spanish lexicon and form -> lemma map (minirag/domains/grammar/language/lexicon.py)."""

import json
from pathlib import Path

import pytest

from minirag.domains.grammar.language.expand import load_lexicon
from minirag.domains.grammar.language.lexicon import extract_lexicon, save_lexicon
from minirag.domains.grammar.language.verb_forms import extract_forms, lemma_forms

REPO = Path(__file__).resolve().parents[2]

# Spanish prose the language guess learns Spanish words from (and the Spanish page's own
# parentheses, which are comments, not glosses).
SPANISH_PAGE = """# El participio

El participio y el gerundio son formas del verbo. Ayer estudiamos el participio de comer,
de ser, de ir y de tener: ser es un verbo, tener es otro, comer también. Ayer fue lunes; ir es irregular.

Otros verbos con cambio de raíz: cerrar (cierro), pensar (pienso). Se usa con **ser** (pasiva).

- tener → tenido, ser → sido
- *A ella gusta bailar* → **A ella le gusta bailar.**
"""

# English prose, for the language guess to weigh the Spanish against.
ENGLISH_PAGE = """# Past simple

The past simple is used for finished actions at a definite time in the past, with words such as
yesterday, last week or ago. Regular verbs add -ed; irregular verbs have to be learned one by one,
and a good grammar lists them in a table with the base form, the past simple and the past participle.
Questions and negatives use did with the base form of the main verb, and the condition of an
if-clause comes first when we want to stress it. Learners often eat their words over these rules.
"""

GLOSSARY = """# Glossary

## Grammar terms

| English | Español |
|---|---|
| noun | sustantivo, nombre |
| to eat (food) | comer |
| plural | plural |
| a word that is much too long | palabra |
| past participle | participio |

| Spanish | English |
|---|---|
| por favor | please |

| Inglés | Español |
|---|---|
| subjunctive | subjuntivo |
"""

FALSE_FRIENDS = """# False friends

| Spanish word | What it means | The English look-alike in Spanish |
|---|---|---|
| embarazada | pregnant | embarrassed = avergonzado/a (or *me da vergüenza*) |
| librería | bookshop, bookstore | library = biblioteca |
"""

GUIDE = """# Spanish for English speakers

The word *ayer* (yesterday) is common, and you learn **comer** (to eat) early.

- ser — to be
- *tener* 'to have'
- el participio (past participle)
- *Fue profesor* (He was a teacher)

In English grammar the if-clause (the condition) comes first.

| Infinitive | yo | tú | Notes |
|---|---|---|---|
| tener (to have) | tuve | tuviste | irregular |
| ser / ir (to be / to go) | fui | fuiste | the same forms |
"""

ENGLISH_VERBS = """# Irregular verbs

| Base form | Past simple | Past participle |
|---|---|---|
| begin | began | begun |
| be | was / were | been |
| get | got | got (UK) / gotten (US) |
"""

SPANISH_TABLES = """# Pretérito

| Persona | Terminación | tener | estar |
|---|---|---|---|
| yo | -e | tuve | estuve |
| tú | -iste | tuviste | estuviste |

## Tener: las dos formas

| Persona | forma en -ra | forma en -se |
|---|---|---|
| yo | tuviera | tuviese |

## Otros

| Persona | Pronombre | levantarse |
|---|---|---|
| yo | me | me levanto |

| Infinitivo | tú | Presente de subjuntivo |
|---|---|---|
| hablar | no hables | hable, hables |
"""


def doc(doc_id: str, text: str, lang: str = "en") -> dict:
    return {"doc_id": doc_id, "title": doc_id, "lang": lang, "tags": [], "text": text}


def corpus() -> list[dict]:
    return [doc("es/participio.md", SPANISH_PAGE, "es"), doc("en/past-simple.md", ENGLISH_PAGE),
            doc("guides/glossary.md", GLOSSARY),
            doc("guides/false-friends.md", FALSE_FRIENDS), doc("guides/guide.md", GUIDE),
            doc("en/irregular-verbs.md", ENGLISH_VERBS), doc("es/preterito.md", SPANISH_TABLES, "es")]


@pytest.fixture(scope="module")
def lexicon():
    return extract_lexicon(corpus())


@pytest.fixture(scope="module")
def forms():
    return extract_forms(corpus())


def test_a_bilingual_table_pairs_its_cells_both_ways(lexicon):
    assert lexicon["noun"] == ["nombre", "sustantivo"]
    assert lexicon["sustantivo"] == ["noun"] and lexicon["nombre"] == ["noun"]
    assert lexicon["por favor"] == ["please"] and lexicon["please"] == ["por favor"]  # Spanish | English
    assert lexicon["subjunctive"] == ["subjuntivo"]                                   # Inglés | Español
    assert lexicon["past participle"] == ["participio"]


def test_an_english_infinitive_is_also_keyed_without_to(lexicon):
    assert lexicon["to eat"] == ["comer"] and lexicon["eat"] == ["comer"]
    assert lexicon["comer"] == ["eat", "to eat"]


def test_identical_and_too_long_pairs_are_dropped(lexicon):
    assert "plural" not in lexicon
    assert "palabra" not in lexicon and not any("too long" in key for key in lexicon)


def test_a_meaning_column_and_equation_cells(lexicon):
    assert lexicon["embarazada"] == ["pregnant"]
    assert lexicon["librería"] == ["bookshop", "bookstore"]
    assert lexicon["library"] == ["biblioteca"]
    assert lexicon["embarrassed"] == ["avergonzado"]  # the gender ending and the parenthesis dropped


def test_inline_glosses_of_an_english_page(lexicon):
    assert lexicon["ayer"] == ["yesterday"]   # *ayer* (yesterday)
    assert "to eat" in lexicon["comer"]       # **comer** (to eat)
    assert "to be" in lexicon["ser"]          # ser — to be
    assert "to have" in lexicon["tener"]      # *tener* 'to have' and tener (to have) in a verb table
    assert "ir" in lexicon["to go"] and "ser" in lexicon["to be"]  # ser / ir (to be / to go)
    assert lexicon["participio"] == ["past participle"]            # el participio (past participle)


def test_sentences_comments_and_same_language_parentheses_are_not_pairs(lexicon):
    assert "fue profesor" not in lexicon                      # a sentence and its translation
    assert "cierro" not in lexicon and "pasiva" not in lexicon  # a Spanish page's comments
    assert "if-clause" not in lexicon and "condition" not in lexicon  # English glossed in English


def test_english_irregular_verbs(forms):
    assert forms["begun"] == ["begin"] and forms["began"] == ["begin"]
    assert forms["was"] == ["be"] and forms["were"] == ["be"]
    assert forms["got"] == ["get"] and forms["gotten"] == ["get"]
    assert forms["begin"] == ["begin"]  # a lemma maps to itself


def test_spanish_conjugation_tables(forms):
    assert forms["tuve"] == ["tener"] and forms["estuviste"] == ["estar"]  # verbs named by the header
    assert forms["tuviese"] == ["tener"]       # named by the heading above ("Tener: las dos formas")
    assert forms["fui"] == ["ir", "ser"]       # one cell, the verbs of its row
    assert forms["levanto"] == ["levantarse"]  # "me levanto": the reflexive pronoun dropped
    assert forms["hables"] == ["hablar"]       # "no hables", and a list "hable, hables"
    assert forms["hable"] == ["hablar"]
    assert not any(form.startswith("-") for form in forms)  # endings are not forms


def test_forms_written_in_prose(forms):
    assert forms["tenido"] == ["tener"] and forms["sido"] == ["ser"]  # tener → tenido, ser → sido
    assert forms["cierro"] == ["cerrar"] and forms["pienso"] == ["pensar"]
    assert "pasiva" not in forms and "a" not in forms  # ser (pasiva), bailar → A ella …


def test_lemma_forms_is_the_inverse(forms):
    lemmas = lemma_forms(forms)
    assert lemmas["begin"] == ["began", "begin", "begun"]
    assert lemmas["tener"] == sorted(lemmas["tener"]) and {"tuve", "tenido", "tener"} <= set(lemmas["tener"])
    assert all(lemma in forms[form] for lemma, fs in lemmas.items() for form in fs)


def test_save_and_load_round_trip_one_plain_json_file(tmp_path, lexicon, forms):
    path = tmp_path / "lexicon.json"
    save_lexicon(path, lexicon, forms)
    assert load_lexicon(path) == (lexicon, forms)
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n") and "librería" in text  # UTF-8 kept, not \\u escapes
    assert text == json.dumps(json.loads(text), sort_keys=True, ensure_ascii=False, indent=1) + "\n"
    assert [p.name for p in tmp_path.iterdir()] == ["lexicon.json"]  # no temporary file left behind


def test_the_same_documents_give_a_byte_identical_file(tmp_path):
    for name, docs in (("a.json", corpus()), ("b.json", corpus()[::-1])):
        save_lexicon(tmp_path / name, extract_lexicon(docs), extract_forms(docs))
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_facts_of_the_real_knowledge_base():
    path = REPO / "results" / "kb" / "docs.jsonl"
    if not path.exists():
        pytest.skip("results/kb/docs.jsonl is not built")
    docs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    lexicon, forms = extract_lexicon(docs), extract_forms(docs)
    print(f"{len(lexicon)} lexicon entries, {len(forms)} forms")
    assert len(lexicon) > 500 and len(forms) > 1000
    # guides/glossary-en-es.md: | past participle | participio |, | to have (possess) | tener |
    assert "past participle" in lexicon["participio"] and "participio" in lexicon["past participle"]
    assert "to have" in lexicon["tener"] and "tener" in lexicon["have"]
    # guides/false-friends.md: | embarazada | pregnant | ... |, | librería | ... | library = biblioteca |
    assert "pregnant" in lexicon["embarazada"] and "biblioteca" in lexicon["library"]
    # guides/preterite-vs-imperfect.md: | ayer (yesterday) | siempre (always) |
    assert "yesterday" in lexicon["ayer"]
    # es/preterito-indefinido-irregular.md: | tener | tuve | tuviste | ...
    assert forms["tuve"] == ["tener"] and forms["fui"] == ["ir", "ser"]
    # en/irregular-verbs.md: | begin | began | begun |
    assert forms["begun"] == ["begin"] and forms["were"] == ["be"]
    # es/verbos-reflexivos.md: | yo | me | me levanto | me visto |
    assert forms["levanto"] == ["levantarse"]
