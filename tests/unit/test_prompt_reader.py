from dataclasses import replace

from support.chunks import make_chunk

from minirag.answer.evidence import chunk_lines, select_evidence
from minirag.answer.prompt import IDK, Prompt, build_prompt
from minirag.answer.readers import ExtractiveReader

VERBS = "| Base form | Past simple | Past participle |\n|---|---|---|\n| eat | ate | eaten |\n| write | wrote | written |"


def test_build_prompt_without_chunks_instructs_i_dont_know():
    p = build_prompt("What is the past of go?", [])
    assert IDK in p.text and "no context holds" in p.text
    assert p.citations == [] and p.evidence == []


def test_evidence_lines_keep_the_marker_of_their_chunk_and_map_to_chunk_ids():
    c1, c2 = make_chunk("Go is irregular.", offset=0), make_chunk("The past of go is went.", offset=50)
    p = build_prompt("past of go?", [c1, c2])
    assert "[#2] The past of go is went." in p.text and "[#1] Go is irregular." in p.text
    assert p.citations == [c1.id, c2.id]
    assert p.text.index("Question: past of go?") > p.text.index("[#2]")


def test_a_row_is_shown_with_its_columns_named_and_the_header_is_no_line():
    lines = chunk_lines(make_chunk("## Tener\n\n| Persona | Tener |\n|---|---|\n| yo | tuve |\n| tú | tuviste |"), 1)
    assert [ln.text for ln in lines] == ["Tener: Persona: yo; Tener: tuve", "Tener: Persona: tú; Tener: tuviste"]
    assert lines[0].cells == (("Persona", "yo"), ("Tener", "tuve"))


def test_a_chunk_cut_from_a_table_takes_the_header_from_its_context():
    chunk = make_chunk("| eat | ate | eaten |\n| go | went | gone |")
    chunk.metadata["context"] = "Irregular verbs › Table\n| Base form | Past simple | Past participle |"
    lines = chunk_lines(chunk, 1)
    assert lines[1].text == "Table: Base form: go; Past simple: went; Past participle: gone"


def test_selection_keeps_the_lines_with_the_rarest_question_words_within_the_budget():
    table = make_chunk(VERBS, offset=100)
    prose = make_chunk("A past participle follows have. The past simple is for finished actions.", offset=0)
    sel = select_evidence("What is the past participle of write?", [prose, table], max_lines=2, max_chars=400)
    assert sel.lines[0].n == 2 and "write" in sel.lines[0].text
    assert len(sel.lines) == 2 and sel.total == 4
    tight = select_evidence("What is the past participle of write?", [prose, table], max_lines=4, max_chars=80)
    assert tight.chars <= 80 and len(tight.lines) < 4
    assert tight.cut() == {"lines_kept": len(tight.lines), "lines_total": 4, "chars_kept": tight.chars}


def test_reader_answers_with_the_cell_under_the_column_the_question_names():
    prose = make_chunk("Irregular verbs do not add -ed. Learn the past simple by heart.", offset=0)
    table = make_chunk(VERBS, offset=100)
    ans = ExtractiveReader(threshold=0.5).generate(build_prompt("What is the past participle of write?", [prose, table]))
    assert ans.text == "written [#2]" and ans.citations == [table.id]
    ans = ExtractiveReader(threshold=0.5).generate(build_prompt("past simple of eat", [prose, table]))
    assert ans.text == "ate [#2]"


def test_reader_answers_prose_with_the_clause_that_holds_the_question():
    chunk = make_chunk("Use since with a point in time, and for with a period of time.", offset=0)
    ans = ExtractiveReader().generate(build_prompt("since or for with a point in time?", [chunk]))
    assert ans.text == "Use since with a point in time [#1]"


def test_reader_abstains_when_the_context_lacks_the_question():
    ctx = make_chunk("Use estar for location: Estoy en casa.", offset=0)
    ans = ExtractiveReader(threshold=0.5).generate(build_prompt("How do French nouns get their gender?", [ctx]))
    assert ans.abstained and ans.text == IDK and ans.citations == []


def test_reader_abstains_without_context():
    ans = ExtractiveReader().generate(build_prompt("past of go?", []))
    assert ans.abstained and ans.text == IDK


def test_a_reader_that_never_abstains_gives_the_selectors_best_answer_however_unlikely():
    from minirag.answer.prompt import Selected
    from minirag.answer.select.settings import SelectorSettings
    chunk = make_chunk("The kettle holds 1.7 litres.", offset=0)
    best = [Selected("1.7 litres", 0.01, "The kettle holds 1.7 litres.", "number", chunk, 1, "", "")]
    prompt = build_prompt("How much does it hold?", [chunk], answers=best, p_none=0.99)
    calibrated = ExtractiveReader(threshold=0.5, rule="none")
    never = ExtractiveReader.from_settings(SelectorSettings(abstention="never"), None)
    assert calibrated.generate(prompt).abstained
    ans = never.generate(prompt)
    assert not ans.abstained and ans.text.startswith("1.7 litres") and never.calibrated_on == "never"


def test_an_abstention_says_which_probability_missed_the_threshold_or_what_was_missing():
    from minirag.answer.prompt import Selected
    chunk = make_chunk("The kettle holds 1.7 litres.", offset=0)
    best = [Selected("1.7 litres", 0.3, "The kettle holds 1.7 litres.", "number", chunk, 1, "", "")]
    doubtful = build_prompt("How much does it hold?", [chunk], answers=best, p_none=0.86)
    assert ExtractiveReader(threshold=0.275, rule="none").generate(doubtful).why == \
        "the chance that no candidate answers (0.86) is above the threshold (0.275)"
    assert ExtractiveReader(threshold=0.5).generate(doubtful).why == \
        "the best answer's chance (0.30) is below the threshold (0.5)"
    assert ExtractiveReader(threshold=0.2).generate(doubtful).why == \
        "the best answer's chance (0.30) is not above that of none (0.86)"
    assert ExtractiveReader(threshold=0.5, rule="none").generate(build_prompt("How much?", [chunk], answers=[])).why \
        == "no candidate answer in the chunks read"
    named = build_prompt("Does it pair with Alexa?", [chunk], answers=best, p_none=1.0,
                         none_why="the documents never name Alexa")
    assert ExtractiveReader(threshold=0.275, rule="none").generate(named).why == "the documents never name Alexa"
    assert Prompt.from_record(named.to_record("q")).none_why == "the documents never name Alexa"
    answered = ExtractiveReader(threshold=0.9, rule="none").generate(doubtful)
    assert not answered.abstained and answered.why == ""
    ctx = make_chunk("Use estar for location: Estoy en casa.", offset=0)
    assert "of the question's words are in the evidence" in \
        ExtractiveReader().generate(build_prompt("How do French nouns get their gender?", [ctx])).why


def test_a_value_the_documents_state_for_what_is_asked_is_given_where_probability_alone_would_abstain():
    from minirag.answer.prompt import Selected
    chunk = make_chunk("| Weight | 410 g |\n| Battery | 4,400 mAh |", offset=0)
    likely = Selected("4,400 mAh", 0.05, "Item: Battery; Value: 4,400 mAh", "cell", chunk, 1, "Battery", "Value")
    weight = Selected("410 g", 0.03, "Item: Weight; Value: 410 g", "cell", chunk, 1, "Weight", "Value", stated=True)
    reader = ExtractiveReader(threshold=0.2, rule="none")
    prompt = build_prompt("How heavy is the lantern?", [chunk], answers=[likely, weight], p_none=0.95)
    assert prompt.answers[1]["stated"] and "stated" not in prompt.answers[0]
    ans = reader.generate(prompt)
    assert not ans.abstained and ans.text == "410 g [#1]" and ans.why == ""
    # where the reader answers anyway its own best answer stands; a rule that abstains still does
    assert reader.generate(build_prompt("How heavy is it?", [chunk], answers=[likely, weight], p_none=0.1)).text \
        == "4,400 mAh [#1]"
    ruled = build_prompt("How heavy is the Lumo S9?", [chunk], answers=[likely, weight], p_none=1.0,
                         none_why="the documents never name S9")
    assert reader.generate(ruled).abstained
    # without the mark, the same probabilities abstain
    plain = build_prompt("How heavy is the lantern?", [chunk], answers=[likely, replace(weight, stated=False)],
                         p_none=0.95)
    assert reader.generate(plain).abstained
