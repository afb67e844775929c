"""Questions asking for a rule answered with the sentence that states it (select/explain.py)."""

from minirag.answer.select.explain import (
    WordWeights,
    asked_stems,
    explanation,
    gives_reason,
    reason_sentence,
    repeated,
    rule_sentence,
)
from minirag.answer.select.generic import content_stems

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


# rule_sentence: a domain says the question asks for a rule; the sentence holding most of its weight answers
CORPUS = ["News is uncountable and singular, even though it ends in -s.", "The news is on at nine.",
          "Dogs are loyal animals.", "Fewer is used with plural countable nouns; less with uncountable nouns.",
          "So two pieces of advice, not two advices.", "She gave me a present.", "She told me she was tired.",
          "She is a teacher.", "She was at home.", "Is she French?", "She can swim.", "He gave me the book.",
          "They gave me a present.", "Give me a minute."]
RULE_LINES = ["She told me she was tired. She gave me a present.",
              "Advice is uncountable. So two pieces of advice, not two advices.",
              "Fewer is used with plural countable nouns; less with uncountable nouns."]


def test_rare_words_weigh_more_than_common_ones():
    w = WordWeights.from_texts(CORPUS)
    assert w("advic") > w("gave") > w("she")
    assert w("zebra") > w("advic")  # a word the corpus never writes weighs most


def test_a_rule_question_gets_the_sentence_holding_most_of_its_weight():
    w = WordWeights.from_texts(CORPUS)
    v = rule_sentence("less people or fewer people", [], RULE_LINES, w)
    assert v is not None and v.text.startswith("Fewer is used") and v.line == RULE_LINES[2]
    # the quoted mistake, repeated by the sentence that corrects it, outweighs the words "she" and "gave"
    v = rule_sentence("can I say 'she gave me two advices'", ["she gave me two advices"], RULE_LINES, w)
    assert v is not None and v.text == "So two pieces of advice, not two advices"


def test_a_sentence_holding_little_of_the_question_decides_nothing():
    w = WordWeights.from_texts(CORPUS)
    assert rule_sentence("why is the subjunctive used after ojalá?", [], RULE_LINES, w) is None
    assert rule_sentence("why?", [], RULE_LINES, w) is None  # nothing asked but the cue
    assert rule_sentence("less people or fewer people", [], [], w) is None


def test_a_quoted_stretch_counts_only_as_a_run_of_two_words_or_more():
    assert repeated(["two", "advices"], "so two pieces of advice not two advices".split()) == 1.0
    assert repeated(["she", "gave", "me", "two"], "she told me".split()) == 0.0  # one word is no run
    assert repeated(["she", "gave", "me", "two"], "she gave it".split()) == 0.5


def test_why_a_quoted_mistake_is_wrong_gets_the_rule_its_example_stands_under():
    lines = ["Cuando le o les va delante de lo, la, los o las, se convierte en se:",
             "Le di el libro → Se lo di (no le lo di)", "Les mandé las fotos → Se las mandé"]
    corpus = lines + ["Lo compro", "La veo", "Le escribo", "Te lo doy", "Me lo das"]
    w = WordWeights.from_texts(corpus)
    chunk_of = dict.fromkeys(lines, "c1")
    v = rule_sentence("por qué no se puede decir 'le lo di'", ["le lo di"], lines, w, chunk_of)
    assert v.text == ("Cuando le o les va delante de lo, la, los o las, se convierte en se: "
                      "Le di el libro → Se lo di (no le lo di)") and v.line == lines[0]  # cited from the rule's line
    # not asked why: the example alone; the rule in another chunk: the example alone
    assert rule_sentence("can I say 'le lo di'", ["le lo di"], lines, w, chunk_of).line == lines[1]
    assert rule_sentence("por qué no se puede decir 'le lo di'", ["le lo di"], lines, w,
                         {**chunk_of, lines[0]: "c0"}).line == lines[1]


# reason_sentence: a why question whose selector's sentence gives no reason gets the sentence that gives one
WHY = "Why should I descale the kettle every month?"
WHY_LINES = ["Descale the kettle every month.",
             "Descale it every month because limescale slows the heating and shortens the element's life.",
             "The kettle is made of steel, so it is light."]


def asked_of(query: str) -> dict[str, float]:
    return dict.fromkeys(content_stems(query), 1.0)


def test_a_why_question_gets_the_sentence_that_gives_a_reason():
    v = reason_sentence(asked_of(WHY), WHY_LINES, said=WHY_LINES[0])
    assert v is not None and v.text.startswith("Descale it every month because") and v.line == WHY_LINES[1]
    assert reason_sentence(asked_of(WHY), WHY_LINES, said="").line == WHY_LINES[1]  # the selector abstained


def test_a_selector_sentence_that_gives_a_reason_is_left_alone():
    assert reason_sentence(asked_of(WHY), WHY_LINES, said=WHY_LINES[1]) is None
    assert gives_reason("Dry the chickpeas well: water on their surface turns to steam")  # an explaining colon
    assert gives_reason("Lávalo a mano porque el lavavajillas daña el motor")
    assert not gives_reason("Descale the kettle every month.") and not gives_reason("Temperature: 80 °C")


def test_a_reason_holding_under_half_the_question_decides_nothing():
    # "so it is light" gives a reason, but for none of descaling or the month
    assert reason_sentence(asked_of(WHY), [WHY_LINES[0], WHY_LINES[2]], said=WHY_LINES[0]) is None
    assert reason_sentence({}, WHY_LINES, said="") is None
