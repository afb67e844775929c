"""The answer selector's generic features on a corpus that is no grammar: a kettle's manual.

Trained on questions synthesized from the manual alone (no dev question), it reads a three-column table
by row and column, a two-column table, prose spans, and says it does not know what the manual does not say.
"""

from functools import lru_cache

import pytest

from minirag.answer.reading.cloze import synthesize_generic
from minirag.answer.select.generic import GenericFeaturizer, GenericQuestion, content_stems
from minirag.answer.select.selector import AnswerSelector, trained_selector
from minirag.answer.select.settings import SelectorSettings
from minirag.answer.select.spans import spans_of
from minirag.answer.train_selector import bm25_over, decide, train_selector, training_analyzer
from minirag.config.corpus import checked_corpus
from minirag.domains.grammar.select.terms import GrammarTerms
from minirag.domains.grammar.select.vocabulary import Vocabulary
from minirag.text.chunker import chunk_document
from minirag.text.corpus import FieldNames, curate_markdown

MANUAL = "tests/fixtures/manual"


@lru_cache(maxsize=1)
def manual():
    docs = curate_markdown(MANUAL, "*.md", FieldNames().__dict__, "en")
    chunks = [c for d in docs for c in chunk_document(d, "none")]
    s = SelectorSettings(features=("generic",), questions=300, steps=200)
    scorer, learned, report = train_selector(docs, chunks, {}, None, [], s)  # no grammar: no lexicon, no terms
    selector = trained_selector(report, scorer, chunks, 10)  # with pretrained similarity where it is installed
    return docs, chunks, selector, report


def answer(query: str, never_abstain: bool = False) -> str | None:
    docs, chunks, selector, report = manual()
    ranked = [chunks[i] for i in bm25_over(chunks, training_analyzer(("generic",), {"en"})).search(query, 10)[0]]
    picked = selector.select(query, ranked, {})
    best = picked.answers[0] if picked.answers else None
    said = best and (never_abstain or decide(best.p, picked.p_none, report["threshold"], report["rule"]))
    return best.text if said else None


def test_spans_are_names_dates_numbers_and_noun_phrases():
    spans = dict((t, k) for k, t in spans_of("Rollo met Charles the Simple in 911 and gave 300 people land."))
    assert spans["Charles the Simple"] == "name" and spans["300 people"] == "number"
    assert "land" in spans and "and" not in spans


def test_a_year_like_number_with_a_unit_is_a_quantity_and_a_decade_stays_a_date():
    assert ("number", "1200 ml") in spans_of("1200 ml vegetable stock") and ("date", "1200") not in spans_of("1200 ml")
    assert ("date", "1200") in spans_of("In 1200 the town was founded.")
    assert ("date", "1990") in spans_of("In the 1990s it grew.")


def test_a_number_keeps_its_qualifier_and_a_unit_one_word_on():
    spans = spans_of("Give at least 2 months' notice; partners get 10 working days, up to 12 profiles.")
    assert ("number", "at least 2 months") in spans and ("number", "10 working days") in spans
    assert ("number", "up to 12 profiles") in spans and ("number", "10 working") not in spans
    assert not any(t.startswith("least") for _, t in spans)  # never the fragment "least 2 months"
    assert ("number", "al menos 10 minutos") in (es := spans_of("Espera al menos 10 minutos."))
    assert not any(t.startswith("menos") for _, t in es)
    assert ("number", "2 large") in spans_of("Beat 2 large eggs.")  # "eggs" is no unit: counted as before
    assert ("number", "about 2 hours and 30 minutes") in spans_of("A full charge takes about 2 hours and 30 minutes.")
    assert ("number", "2 eggs and 30 g") not in spans_of("Add 2 eggs and 30 g sugar.")  # two quantities of two things


def test_a_time_of_day_is_one_date_span_and_a_span_of_times_one_answer():
    spans = dict((t, k) for k, t in spans_of("Bookings open at 06:00; on Saturdays 08:00–19:00."))
    assert spans["06:00"] == "date" and spans["08:00–19:00"] == "date" and "00" not in spans


def test_a_unit_written_as_a_word_may_follow_a_word_of_its_own():
    from minirag.answer.select.attributes import with_unit
    assert with_unit("2 working days") == {"duration"} and with_unit("at least 8 characters") == {"size"}
    assert with_unit("3 people in") == frozenset() and with_unit("2 large eggs") == frozenset()


def test_a_hyphenated_question_word_names_a_row_written_apart():
    assert content_stems("How much is swim-only membership a month?")[:1] == content_stems("Swim only")
    assert GenericQuestion("How warm is the water in the big pool?", {}, 1.0).type == "number"
    assert "temperature" in GenericQuestion("How warm is the water in the big pool?", {}, 1.0).attrs


def test_question_words_give_the_expected_type_in_english_and_spanish():
    types = {q: GenericQuestion(q, {}, 1.0).type for q in (
        "Who founded it?", "¿Quién lo fundó?", "When was it built?", "¿Cuándo se construyó?", "In what year?",
        "Where is it?", "¿Dónde está?", "How many people?", "¿Cuántos años?", "What colour is it?")}
    assert list(types.values()) == ["person", "person", "date", "date", "date", "place", "place", "number",
                                    "number", "thing"]
    assert content_stems("What does error code E5 mean?") == ["error", "code", "e5", "mean"]


def test_synthesized_questions_are_answerable_and_not():
    docs = curate_markdown(MANUAL, "*.md", FieldNames().__dict__, "en")
    qs = synthesize_generic(docs, 200, seed=0, minimal_edits=True)
    families = {q.family for q in qs}
    assert "table" in families and {"swap", "negate", "term"} <= families and "attribute" in families
    assert 0.1 < sum(q.answer is None for q in qs) / len(qs) < 0.5
    assert [q.query for q in qs] == [q.query for q in synthesize_generic(docs, 200, seed=0, minimal_edits=True)]
    # without minimal edits: the same questions, those edits left out
    assert synthesize_generic(docs, 200, seed=0) == [q for q in qs if q.family not in ("swap", "negate", "term")]


def test_minimal_edits_are_on_by_default_for_a_squad_source_only():
    def resolved(source, **reader):
        config = {"corpora": {"c": {"source": source, "readers": {"x": {"type": "extractive", **reader}}}}}
        return checked_corpus(config, "c").reader_settings["x"].minimal_edits
    squad = {"format": "squad", "path": "data.json", "dev_docs": ["Normans"]}
    assert resolved(squad) is True and resolved({"format": "folder", "path": "docs"}) is False
    assert resolved({"format": "folder", "path": "docs"}, minimal_edits=True) is True
    assert resolved(squad, minimal_edits=False) is False


def test_without_dev_questions_the_threshold_says_it_was_calibrated_on_synthetic_ones():
    report = manual()[3]
    assert report["calibrated_on"] == "synthetic" and "no real question" in report["dev_heldout"]["warning"]


@pytest.mark.parametrize("query,expected", [
    ("What does error code E5 mean?", "Temperature sensor fault"),   # three columns: the row's Meaning
    ("What does E3 mean?", "Overheating protection"),
    ("What to do for error E2?", "Close the lid until it clicks"),   # the same row, another column
    ("What is the capacity?", "1.7 litres"),                         # two columns
    ("What is the weight?", "1.2 kg"),
])
def test_a_table_is_read_by_its_row_and_column(query, expected):
    assert answer(query) == expected


def test_a_question_naming_a_row_and_asking_a_column_is_answered_by_that_cell_whatever_the_scorer_says():
    docs, chunks, selector, _ = manual()
    query = "The display shows E4. What should I do?"
    ranked = [chunks[i] for i in bm25_over(chunks, training_analyzer(("generic",), {"en"})).search(query, 10)[0]]
    picked = selector.select(query, ranked, {})
    assert picked.rule == "table" and picked.p_none == 0.0 and picked.answers[0].text == "Descale the kettle"
    assert picked.read.candidate(picked.answers[0].best).chunk_id == next(c.id for c in chunks if "| E4 |" in c.text)


def test_a_question_the_manual_does_not_answer_gets_no_answer():
    assert answer("Does the kettle work with Alexa?") is None


def test_a_question_naming_what_the_manual_never_names_is_abstained_on():
    docs, chunks, selector, _ = manual()
    for query in ("What does E9 mean?", "How do I pair it with Alexa?"):  # the manual's codes are E1-E6
        picked = selector.select(query, chunks[:10], {})
        assert picked.rule == "unnamed" and picked.p_none == 1.0 and answer(query) is None, query
    assert selector.select("What does E3 mean?", chunks[:10], {}).rule != "unnamed"


def test_an_abstention_on_what_the_manual_never_names_says_so_from_the_candidates_to_the_answer():
    from minirag.answer.rag import rag_answer
    from minirag.answer.readers import ExtractiveReader
    docs, chunks, selector, report = manual()
    picked = selector.select("What does E9 mean?", chunks[:10], {})
    assert picked.why == "the documents never name E9" and picked.to_record("q", 2)["why"] == picked.why
    given = type("Given", (), {"search": lambda self, query, k: [(c.id, 0.0) for c in chunks[:k]]})()
    reader = ExtractiveReader(report["threshold"], rule=report["rule"])
    _, prompt, said = rag_answer("How do I pair it with Alexa?", given, reader, chunks, selector=selector)
    assert said.abstained and said.why == prompt.none_why == "the documents never name Alexa"
    _, _, said = rag_answer("What does E3 mean?", given, reader, chunks, selector=selector)
    assert not said.abstained and said.why == ""


def test_the_grammar_features_go_on_top_of_the_generic_ones():
    from minirag.answer.select.generic import GENERIC, NULL_GENERIC
    from minirag.answer.select.selector import feature_names
    from minirag.domains.grammar.select.features import FEATURES
    from minirag.domains.grammar.select.none_option import NULL_FEATURES
    docs, chunks, _, _ = manual()
    vocab = Vocabulary.from_chunks(chunks, {}, GrammarTerms.base(), {})
    both = AnswerSelector(vocab, None, 10, ("generic", "grammar"), GenericFeaturizer.from_texts([c.text for c in chunks]))
    r = both.read("What does error code E5 mean?", chunks, {})
    assert feature_names(("generic", "grammar")) == (GENERIC + FEATURES, NULL_GENERIC + NULL_FEATURES)
    assert r.X.shape[1] == len(GENERIC) + len(FEATURES) and r.z.shape == (len(NULL_GENERIC) + len(NULL_FEATURES),)
    assert "e5" not in r.keys  # the row key the question names is never a candidate answer
    assert "temperature sensor fault" in r.keys


def test_quantities_keep_their_units_ranges_and_words():
    numbers = lambda s: {t for k, t in spans_of(s) if k == "number"}  # noqa: E731
    assert "250 °C" in numbers("Preheat the oven to 250 °C for 45 minutes.")
    assert {"two years", "every two weeks"} <= numbers("It lasts two years; brush it every two weeks.")
    assert "12 to 16 hours" in numbers("Leave it in the fridge for 12 to 16 hours.")
    assert "14 × 22 × 38 cm" in numbers("It measures 14 × 22 × 38 cm.")


def test_a_question_asks_for_an_attribute_in_its_own_words():
    from minirag.answer.select.attributes import asked, named, with_unit
    assert asked("How heavy is it?") == {"weight"} and asked("How much does the lid cost?") == {"price"}
    assert asked("What should I do on E4?") == {"action"} and asked("What does E9 mean?") == {"meaning"}
    # "how much" asks a price only where nothing else is asked, or a word of price is there too
    assert asked("How much does it weigh?") == {"weight"} and asked("How much does the heavy one cost?") == {"price", "weight"}
    assert named("Weight (net)") == {"weight"} and named("What to do") == {"action"}
    assert with_unit("1.2 kg") == {"weight"} and with_unit("once a week") == {"frequency"}
    assert not with_unit("juice of 1 lemon") and not with_unit("Turn it once")  # a letter after a number is no unit


def test_questions_are_synthesized_the_way_users_ask():
    docs = curate_markdown(MANUAL, "*.md", FieldNames().__dict__, "en")
    qs = synthesize_generic(docs, 600, seed=0)
    asked = {(q.query, q.answer) for q in qs if q.family.startswith("ask-")}
    assert ("How heavy is it?", "1.2 kg") in asked or ("How much does it weigh?", "1.2 kg") in asked
    assert any(q == "What does E3 mean?" and a == "Overheating protection" for q, a in asked)
    keys = {f"E{i}" for i in range(1, 7)}
    absent = [q for q in qs if q.family == "absent"]
    assert absent and all(q.answer is None for q in absent)
    named = [q.query for q in absent if "E" in q.query]  # a code the table does not have, never one it has
    assert named and not any(f" {k} " in f" {q.rstrip('?')} " for q in named for k in keys)


def test_a_value_stated_as_the_asked_attribute_is_the_only_competitor():
    import numpy as np

    from minirag.answer.select.generic import GENERIC
    from minirag.answer.select.selector import best_lines
    X = np.zeros((3, len(GENERIC)), dtype=np.float32)
    X[:, GENERIC.index("g_cov")] = [0.9, 0.8, 0.1]  # two well-covering sentences, one Weight row
    X[2, GENERIC.index("g_attr_both")] = 1.0
    assert best_lines(X, 6).tolist() == [2]
    X[2, GENERIC.index("g_attr_both")] = 0.0
    assert best_lines(X, 6).tolist() == [0, 1, 2]


def test_a_value_with_the_asked_unit_in_the_row_the_question_names_competes_with_the_stated_ones():
    import numpy as np

    from minirag.answer.select.generic import GENERIC
    from minirag.answer.select.selector import best_lines
    X = np.zeros((4, len(GENERIC)), dtype=np.float32)
    X[:, GENERIC.index("g_cov")] = [0.9, 0.8, 0.2, 0.1]
    X[0, GENERIC.index("g_attr_both")] = 1.0  # "a child swim ticket costs €4": the price named in its sentence
    X[[2, 3], GENERIC.index("g_attr_unit")] = 1.0  # "€29" and "€4" cells, under a *Monthly* header
    X[2, GENERIC.index("g_row_q")] = 1.0  # "€29" is in the row the question names (*Swim only*)
    assert best_lines(X, 6).tolist() == [0, 2]


@pytest.mark.parametrize("query,expected", [
    ("How heavy is the kettle?", "1.2 kg"),
    ("How long is the cable?", "75 cm"),
])
def test_a_question_in_users_words_reads_the_row_that_names_its_attribute(query, expected):
    # the span it chose; whether it abstains is the threshold's (a fixture this small calibrates a strict one)
    assert answer(query, never_abstain=True) == expected


def test_with_dev_questions_the_threshold_is_calibrated_on_them_and_held_out_synthesized_ones():
    from minirag.answer.train_selector import examples
    docs, chunks, _, _ = manual()
    learner = synthesize_generic(docs, 60, seed=0)
    dev = [{"qid": f"d{i}", "query": q, "answer": a, "answerable": a is not None, "split": "dev"}
           for i, (q, a) in enumerate([("What does E2 mean?", "Lid open"), ("Does it play music?", None)])]
    held = [ex for ex in examples(learner, dev, 20.0, hold_synthetic=True) if ex.fold >= 0]
    assert sum(ex.real for ex in held) == 2 and sum(not ex.real for ex in held) == len(learner[::3])  # a third
    assert all(ex.fold == -1 for ex in examples(learner, dev, 20.0) if not ex.real)  # the grammar reader's way
    s = SelectorSettings(features=("generic",), questions=120, steps=50)
    report = train_selector(docs, chunks, {}, None, dev, s)[2]
    assert report["calibrated_on"] == "dev+synthetic" and "warning" not in report["dev_heldout"]


def test_a_yes_no_question_is_answered_with_the_span_that_decides_it():
    docs, chunks, selector, report = manual()
    query = "Does the warranty cover damage caused by limescale?"
    ranked = [chunks[i] for i in bm25_over(chunks, training_analyzer(("generic",), {"en"})).search(query, 10)[0]]
    picked = selector.select(query, ranked, {})
    record = picked.to_record("q1", 3)
    assert record["rule"] == "polar" and record["p_none"] == 0.0
    assert record["answers"][0]["text"] == "not damage caused by limescale"
    assert "It covers manufacturing defects but not damage caused by limescale" in record["answers"][0]["line"]
    assert answer(query) == "not damage caused by limescale"
    assert "rule" not in selector.select("What is the weight?", ranked, {}).to_record("q2", 3)


def test_the_threshold_is_calibrated_on_scorers_that_never_saw_the_fold_they_answer():
    """Each fold's scorer is trained from scratch: the whole scorer's weights (which saw every fold) do
    not reach the outcomes the threshold is set on."""
    import numpy as np

    from minirag.answer.select.scorer import Group
    from minirag.answer.train_selector import Example, heldout_outcomes
    docs, chunks, selector, report = manual()
    s = SelectorSettings(features=("generic",), questions=60, steps=30)
    items, groups = [], []
    for i, (q, a) in enumerate([("What does E2 mean?", "Lid open"), ("What is the capacity?", "1.7 litres"),
                                ("What does E5 mean?", "Temperature sensor fault"), ("Does it play music?", None)]):
        r = selector.read(q, chunks[:10], {})
        right = np.array([answer_key_of(t) == answer_key_of(a or "") for t in r.texts])
        items.append((Example(q, a, 1.0, i % 2, a is not None), r, right))
        groups.append(Group(r.X, right, r.z, 1.0))
    trained, garbage = selector.scorer, type(selector.scorer)(len(selector.scorer.mean),
                                                             len(selector.scorer.params["u"]))
    garbage.params = {k: np.full_like(v, 9.0) for k, v in trained.params.items()}
    assert heldout_outcomes(trained, groups, items, s, True) == heldout_outcomes(garbage, groups, items, s, True)


def answer_key_of(text: str) -> str:
    from minirag.answer.select.keys import answer_key
    return answer_key(text)



def test_the_answer_that_states_what_is_asked_is_marked_and_shown_in_the_prompt():
    docs, chunks, selector, _ = manual()
    ranked = [chunks[i] for i in bm25_over(chunks, training_analyzer(("generic",), {"en"})).search(
        "How heavy is the kettle?", 10)[0]]
    picked = selector.select("How heavy is the kettle?", ranked, {})
    assert picked.stated in (0, 1) and picked.answers[picked.stated].text == "1.2 kg"
    records = picked.answer_records(2)
    assert [bool(r.get("stated")) for r in records] == [i == picked.stated for i in range(len(records))]
    assert selector.select("What does E3 mean?", ranked, {}).stated is None  # no attribute with a unit asked


def test_how_and_undecided_yes_no_questions_get_whole_sentences_and_a_what_question_spans():
    docs, chunks, selector, _ = manual()

    def whole(query: str) -> list[bool]:
        picked = selector.select(query, chunks[:10], {})  # the candidates' records, which the prompt shows
        return [r["text"] == r["line"] for r in picked.answer_records(len(picked.answers)) if r["kind"] != "cell"]
    assert all(whole("How do I descale the kettle?")) and whole("How do I descale the kettle?")
    assert not all(whole("What do I fill the kettle with?"))
    # a yes/no question that no sentence decides (none holds "child", "use" and "kettle"): sentences too
    assert all(whole("Can my child use the kettle?")) and whole("Can my child use the kettle?")


def test_a_how_much_question_counts_what_it_names_and_the_numbers_that_count_it_compete():

    from support.chunks import make_chunk

    from minirag.answer.select.candidates import candidates_of
    from minirag.answer.select.generic import GENERIC, GenericBlock, block_matrix
    from minirag.answer.select.selector import best_lines
    assert GenericQuestion("How much butter goes into the shortbread?", {}, 1.0).counted == "butter"
    assert GenericQuestion("How many days of holiday do I get?", {}, 1.0).counted == "day"
    assert GenericQuestion("How much does it cost?", {}, 1.0).counted == ""  # a verb: nothing counted
    chunk = make_chunk("- 225 g unsalted butter, softened\n- 100 g light brown sugar\n"
                       "Chill the dough so the butter firms up in the shortbread.", offset=0)
    cands = candidates_of(chunk, 1, "en", spans=True)
    X, _ = block_matrix(GenericQuestion("How much butter goes into the shortbread?", {}, 1.0), GenericBlock(cands), 1)
    counted = {c.text for c, x in zip(cands, X[:, GENERIC.index("g_counted")]) if x}
    assert "225 g" in counted and not {"100 g", "Chill the dough so the butter firms up in the shortbread."} & counted
    kept = {cands[i].text for i in best_lines(X, 6)}
    assert "225 g" in kept and "Chill the dough so the butter firms up in the shortbread." not in kept


def test_a_why_question_gets_the_sentence_giving_a_reason_cited_from_its_chunk():
    from minirag.text.chunks import Chunk
    docs, chunks, selector, _ = manual()
    care = Chunk(id="care00000001", doc_id="care.md", offset=0,
                 text="# Care\n\nRinse the kettle twice after descaling, because vinegar left inside gives the next cup "
                      "a sour taste.\n")
    query = "Why rinse the kettle twice after descaling?"
    ranked = [chunks[i] for i in bm25_over(chunks, training_analyzer(("generic",), {"en"})).search(query, 4)[0]]
    picked = selector.select(query, ranked + [care], {})
    assert picked.answers[0].text.startswith("Rinse the kettle twice after descaling, because vinegar")
    assert picked.read.candidate(picked.answers[0].best).chunk_id == care.id  # cited from the sentence's chunk
    # where the selector's own sentence gives no reason (the scorer preferred another), the rule gives the one that does
    from dataclasses import replace

    from minirag.answer.select.selection import reasoned
    ruled = reasoned(replace(picked, answers=[a for a in picked.answers if "because" not in a.text]))
    assert ruled.rule == "reason" and ruled.p_none == 0.0
    assert ruled.answers[0].text.startswith("Rinse the kettle twice after descaling, because vinegar")
    assert ruled.read.candidate(ruled.answers[0].best).chunk_id == care.id
    # without a sentence that gives a reason, the selector's own answer
    assert selector.select(query, ranked, {}).rule == ""
