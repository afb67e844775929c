"""A question naming what the corpus never names is abstained on (select/unnamed.py)."""

from minirag.answer.select.unnamed import Names

PAGES = Names(["The Kestrel 60 weighs 3.1 kg. Error E1: the hopper is missing. Error E3: overheating.",
               "Clean the burrs every two weeks. The Kestrel's warranty lasts three years. See Step 2."])


def test_a_name_or_code_no_page_holds_is_unnamed():
    assert PAGES.unnamed("How long is a Zumba class?") == ["Zumba"]
    assert PAGES.unnamed("What does E9 mean?") == ["E9"]
    assert PAGES.unnamed("Who won the 2018 World Cup?") == ["World", "Cup"]


def test_a_name_the_pages_number_is_unnamed_with_a_number_they_never_give_it():
    assert PAGES.unnamed("How heavy is the Kestrel 80?") == ["Kestrel 80"]
    assert PAGES.unnamed("What comes after Step 3?") == ["Step 3"]
    assert PAGES.unnamed("How heavy is the Kestrel 60?") == []


def test_what_the_pages_name_in_any_form_is_not():
    for asked in ("What does E3 mean?", "Is the Kestrel's hopper washable?", "What's the kestrel warranty?"):
        assert PAGES.unnamed(asked) == [], asked


def test_a_question_s_own_wording_is_never_a_name():
    # lowercase words, a sentence's first word, numbers alone and contractions are the asker's wording
    assert PAGES.unnamed("How big is my kid's grinder? Honestly I'm lost.") == []
    assert PAGES.unnamed("Can I grind 80 g at once?") == []


def test_a_question_in_capitals_or_title_case_names_nothing_by_its_capitals():
    assert PAGES.unnamed("HOW HEAVY IS THE GRINDER?") == []
    assert PAGES.unnamed("How Heavy Is The Grinder When Full?") == []
    assert PAGES.unnamed("WHAT DOES E9 MEAN?") == ["E9"]  # a code is a code in any case
    assert PAGES.unnamed("How long is a Zumba class at the gym?") == ["Zumba"]

