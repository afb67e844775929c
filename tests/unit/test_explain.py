"""Questions asking for a rule answered with the sentence that states it (select/explain.py)."""

from minirag.answer.select.explain import asked_stems, explanation

LINES = ["English has one verb to be; Spanish has two, ser and estar.",
         "As a first approximation, ser tells you what something is, while estar tells you how or where something "
         "is (its state, condition or location).",
         "Use ser for identity and origin."]


def test_a_rule_question_gets_the_longest_sentence_naming_all_it_asks_about():
    v = explanation("When do I use ser vs estar?", LINES)
    assert v is not None and v.text.startswith("As a first approximation") and v.line == LINES[1]
    assert explanation("¿Cuándo se usa ser o estar?", LINES).line == LINES[1]
    assert explanation("What is the difference between ser and estar?", LINES).line == LINES[1]


def test_a_sentence_naming_only_part_of_the_question_decides_nothing():
    assert explanation("When do I use ser vs haber?", LINES) is None
    assert explanation("What's the difference between por and para?", LINES) is None


def test_only_questions_asking_for_a_rule_are_read_this_way():
    assert asked_stems("When do I use ser vs estar?") == ["ser", "estar"]
    assert asked_stems("How does the grind adjustment work?") != []
    for other in ("Why do I have to dry the chickpeas?", "How heavy is the grinder?", "When was it founded?",
                  "Is ser irregular?", "How do I descale it?"):
        assert asked_stems(other) == [], other
        assert explanation(other, LINES) is None


def test_function_words_set_against_each_other_are_what_it_asks_about():
    assert asked_stems("When do I use a or an?") == ["a", "an"]
    assert asked_stems("¿Cuándo se usa por o para?") == ["por", "para"]
    # content words contrasted: the articles beside them are no part of the question
    assert "the" not in asked_stems("What is the difference between the subjunctive and the indicative?")
    lines = ["Por and para both translate as for.", "Para is used for goals.",
             "Use por for a cause or a duration, and para for a purpose or a destination."]
    assert explanation("When do I use por vs para?", lines).line == lines[2]
    assert explanation("When do I use por vs para?", lines[1:2]) is None
