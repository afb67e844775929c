"""A value the documents state for what a question asks is answered, not abstained on (select/stated.py)."""

from minirag.answer.select.candidates import Candidate
from minirag.answer.select.generic import GenericFeaturizer, GenericQuestion
from minirag.answer.select.stated import Stated
from minirag.text.words import crude_stem

PAGES = Stated(GenericFeaturizer.from_texts([
    "The Lumo S3 lantern runs 60 hours on low.", "Charge the lantern from the solar panel.", "The lantern has a handle.",
    "Return shipping costs 6 EUR.", "Clean the lantern with a cloth."]))


def ask(query: str) -> GenericQuestion:
    return GenericQuestion(query, {}, 1.0)


def cell(text: str, key: str, column: str, caption: str = "Lumo S3 lantern › Specifications") -> Candidate:
    return Candidate("c1", 1, "cell", text, f"Specifications: Item: {key}; {column}: {text}", key, column, caption)


def sentence(text: str, line: str, caption: str = "Warranty") -> Candidate:
    return Candidate("c2", 1, "number", text, line, caption=caption)


WEIGHT = cell("410 g", "Weight", "Value")


def test_a_row_naming_the_attribute_states_it_for_the_thing_its_headings_name():
    assert PAGES.states(ask("How heavy is the lantern?"), WEIGHT)
    assert PAGES.states(ask("How much does the lantern weigh?"), WEIGHT)
    assert PAGES.states(ask("How heavy is it?"), cell("410 g", "Weight", "Value", caption="Specifications"))


def test_the_corpus_s_topic_is_the_words_in_most_of_its_chunks():
    assert crude_stem("lantern") in PAGES.common and crude_stem("solar") not in PAGES.common  # 4 of 5 chunks; 1 of 5


def test_the_corpus_s_topic_need_not_stand_beside_the_value():
    # "lantern" is in every page: the spec table is the lantern's even where its headings do not say so
    assert PAGES.states(ask("How heavy is the lantern?"), cell("410 g", "Weight", "Value", caption="Specifications"))


def test_a_thing_neither_the_line_nor_its_headings_name_is_not_stated_for():
    assert not PAGES.states(ask("How heavy is the charger?"), WEIGHT)
    assert not PAGES.states(ask("How much does the panel weigh?"), WEIGHT)


def test_a_value_without_the_attribute_s_unit_or_name_states_nothing():
    assert not PAGES.states(ask("How heavy is the lantern?"), cell("IPX5", "Weight", "Value"))
    assert not PAGES.states(ask("How heavy is the lantern?"), cell("350 g", "Packaging", "Value"))
    assert not PAGES.states(ask("What is the lantern?"), WEIGHT)  # no attribute asked
    assert not PAGES.states(ask("How much does the strap cost?"), sentence("6 EUR", "Return shipping costs 6 EUR."))


def test_a_column_naming_the_attribute_states_it_for_the_row_the_question_names():
    strap = cell("12.50", "Replacement strap", "Price (EUR)", caption="Spare parts")
    assert PAGES.states(ask("How much is a replacement strap?"), strap)
    assert not PAGES.states(ask("How much does the lantern cost?"), strap)


def test_a_sentence_naming_the_attribute_states_it():
    line = "The warranty period is three years from the date of purchase."
    assert PAGES.states(ask("How long is the warranty?"), sentence("three years", line))
    assert not PAGES.states(ask("How long is the warranty?"), sentence("three years", "Keep it for three years.", "Care"))


def test_the_first_candidate_that_states_it_is_chosen():
    others = [sentence("60 hours", "The lantern runs 60 hours on low."), WEIGHT, cell("420 g", "Weight", "Value")]
    assert PAGES.first(ask("How heavy is the lantern?"), others) == 1
    assert PAGES.first(ask("What colour is the lantern?"), others) is None
