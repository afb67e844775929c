"""Yes/no questions answered with the span that decides them, and left to the selector when nothing does."""

from minirag.answer.select.polar import question_stems, verdict

LINES = [
    "The hopper and the grounds container are **not** dishwasher-safe. Wash them by hand in warm water.",
    "Parental leave is paid at 70% of your salary for the first 9 weeks, then unpaid.",
    "You can take 1 day of paid leave per year when you move house.",
    "The dial runs from 1, the finest grind, to setting 40, the coarsest.",
]


def test_only_questions_opening_with_an_auxiliary_are_polar():
    assert question_stems("Is the hopper dishwasher safe?") == ["hopper", "dishwa", "safe"]
    assert question_stems("What is the hopper made of?") == []
    assert question_stems("Island hopping tips?") == []  # "Is" must be a word of its own


def test_the_deciding_span_keeps_its_negation_and_ends_with_its_clause():
    assert verdict("Is the hopper dishwasher safe?", LINES).text == "not dishwasher safe"
    assert verdict("Is the hopper dishwasher safe?", LINES).line == LINES[0]
    # cut at eight words, it ends on its last content word, never on "for the"
    assert verdict("Is parental leave paid?", LINES).text == "paid at 70% of your salary"


def test_an_asked_word_alone_decides_nothing_so_the_sentence_answers():
    assert verdict("Do I get a day off to move house?", LINES).text == \
        "You can take 1 day of paid leave per year when you move house"


def test_a_question_the_lines_do_not_cover_is_left_to_the_selector():
    assert verdict("Is there a dress code for the office?", LINES) is None
    assert verdict("Is the grinder safe for children?", LINES) is None  # "safe" alone is not the question
    assert verdict("How heavy is the hopper?", LINES) is None             # not polar


def test_a_sentence_cut_by_its_chunks_edge_answers_nothing():
    """"How does gustar work?" got "... use doler like gustar, ..., and with a": the chunk ended mid-sentence."""
    from minirag.answer.select.polar import covering, cut_off
    cut = "Use doler like gustar, with a definite article: Me duele la cabeza, and with a"
    assert cut_off(cut) and not cut_off("Switch the router off") and not cut_off("The hopper is not dishwasher safe.")
    assert [s for _, s, *_ in covering(["It works backwards. " + cut], ["gustar"])] == ["It works backwards."]
