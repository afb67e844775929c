"""A question naming what the corpus never names is abstained on (select/unnamed.py)."""

from minirag.answer.select.generic import GenericFeaturizer
from minirag.answer.select.unnamed import unnamed

PAGES = GenericFeaturizer.from_texts([
    "The Kestrel 60 weighs 3.1 kg. Error E1: the hopper is missing. Error E3: overheating.",
    "Clean the burrs every two weeks. The Kestrel's warranty lasts three years."]).idf


def test_a_name_or_code_no_page_holds_is_unnamed():
    assert unnamed("How long is a Zumba class?", PAGES) == ["Zumba"]
    assert unnamed("What does E9 mean?", PAGES) == ["E9"]
    assert unnamed("Who won the 2018 World Cup?", PAGES) == ["World", "Cup"]


def test_what_the_pages_name_in_any_form_is_not():
    for asked in ("How heavy is the Kestrel 60?", "What does E3 mean?", "Is the Kestrel's hopper washable?",
                  "What's the kestrel warranty?"):
        assert unnamed(asked, PAGES) == [], asked


def test_a_question_s_own_wording_is_never_a_name():
    # lowercase words, a sentence's first word, numbers alone and contractions are the asker's wording
    assert unnamed("How big is my kid's grinder? Honestly I'm lost.", PAGES) == []
    assert unnamed("Does the Kestrel 80 grind finer?", PAGES) == []  # a number alone: no name
