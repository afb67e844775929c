"""The Mini-GPT reader's plumbing: tasks as tokens, batches, the curriculum, markers mapped back to chunks."""

import numpy as np
import pytest
from support.chunks import make_chunk

from minirag.answer.minigpt.model import MiniGPT
from minirag.answer.minigpt.reader import (
    MiniGPTReader,
    MiniGPTSettings,
    TaskEncoder,
    batches,
    evidence_alone,
    parse,
    render_source,
    score_heldout,
)
from minirag.answer.prompt import IDK, build_prompt
from minirag.answer.reading.tasks import ReadingTask
from minirag.text.bpe import BPETokenizer

TEXT = ("question: What is the past participle of write?\nBase form: write; Past participle: written [#1]\n"
        "Verbs such as go do not follow them. [#2]\nanswer: written [#1] I don't know")


@pytest.fixture(scope="module")
def tok():
    return BPETokenizer.train([TEXT] * 3, vocab_size=300)


def task(answer="written", cite=1, kind="true"):
    lines = ((1, "Base form: write; Past participle: written"), (2, "Verbs such as go do not follow them."))
    return ReadingTask("t", "What is the past participle of write?", lines, answer, cite if answer else None, kind,
                       "train", "test")


def test_the_source_is_the_task_without_its_answer(tok):
    t = task()
    assert render_source(t.question, list(t.lines)) == t.render(with_answer=False)
    enc = TaskEncoder(tok, 128)
    seq, n_src, marks = enc.example(t)
    assert seq[:n_src] == tok.encode(t.render(with_answer=False)) and len(marks) == len(seq)
    marked = tok.decode([i for i, m in zip(seq[:n_src], marks) if m])
    assert " write" in marked.split("?")[-1] and "Verbs" not in marked  # the question's words in the lines
    assert not any(marks[n_src:])  # answer tokens are never marked
    assert tok.decode(seq[n_src:-1]) == " written [#1]" and seq[-1] == enc.eos == tok.vocab_size


def test_a_task_too_long_for_the_block_is_left_out_and_a_source_drops_its_last_lines(tok):
    enc = TaskEncoder(tok, 40)
    assert enc.example(task()) is None
    ids, kept = enc.source(task().question, list(task().lines), room=8)
    assert len(ids) + 8 <= 40 and kept < 2


def test_batches_mask_the_answer_and_mark_the_source(tok):
    enc = TaskEncoder(tok, 128)
    long, short = enc.example(task()), enc.example(task(answer=None))
    for seq, n_src, m in (long, short):
        ids, targets, loss_mask, src_mask, marks = next(batches([(seq, n_src, m)], 1, enc.eos, seed=0))
        assert list(marks[0]) == m[:-1]
        assert list(ids[0]) == seq[:-1] and list(targets[0]) == seq[1:]
        assert list(targets[0][loss_mask[0]]) == seq[n_src:]              # the answer tokens and <eos>, no more
        assert src_mask[0, :n_src].all() and not src_mask[0, n_src:].any()
    ids, _, loss_mask, _, _ = next(batches([long, short], 2, enc.eos, seed=0))
    assert ids.shape == (2, max(len(long[0]), len(short[0])) - 1)       # padded to the longer
    assert sorted(loss_mask.sum(axis=1)) == sorted([len(long[0]) - long[1], len(short[0]) - short[1]])


def test_the_curriculum_keeps_the_evidence_line_alone_as_marker_one():
    first = evidence_alone(task(cite=1))
    assert first.lines == ((1, "Base form: write; Past participle: written"),) and first.cite == 1


def test_parse_splits_the_answer_from_its_marker():
    assert parse("written [#2]") == ("written", 2)
    assert parse("I don't know") == ("I don't know", None)


class Scripted:
    """A model stand-in that writes a fixed answer, to test how the reader maps markers back."""

    def __init__(self, tok, text, eos):
        self.ids = tok.encode(text) + [eos]

    def generate(self, ids, src_len, max_new_tokens, stop_ids=(), marks=None):
        return list(self.ids)


def reader_saying(tok, text, min_support=0.0):
    enc = TaskEncoder(tok, 160)
    return MiniGPTReader(Scripted(tok, text, enc.eos), enc, 16, 4, min_support)


def test_a_local_marker_is_mapped_back_to_the_chunk_of_its_line(tok):
    prose = make_chunk("Verbs such as go do not follow them.", offset=0)
    table = make_chunk("| Base form | Past participle |\n|---|---|\n| write | written |", offset=100)
    prompt = build_prompt("What is the past participle of write?", [prose, table])
    line = next(i for i, e in enumerate(prompt.evidence, start=1) if "written" in e["text"])
    text, cites, abstained, _ = reader_saying(tok, f" written [#{line}]").answer(prompt)
    assert text == "written [#2]" and cites == [table.id] and not abstained


def test_an_answer_without_a_valid_marker_or_saying_it_does_not_know_abstains(tok):
    prompt = build_prompt("past participle of write?", [make_chunk("| write | written |")])
    for said in (" I don't know", " written", " written [#9]"):
        text, cites, abstained, _ = reader_saying(tok, said).answer(prompt)
        assert abstained and text == IDK and cites == []


def test_the_support_check_refuses_an_answer_from_a_line_without_the_questions_words(tok):
    prose = make_chunk("The past simple of go is went.", offset=0)
    table = make_chunk("| Base form | Past participle |\n|---|---|\n| write | written |", offset=100)
    prompt = build_prompt("What is the past participle of write?", [prose, table])
    row = next(i for i, e in enumerate(prompt.evidence, start=1) if "written" in e["text"])
    other = next(i for i, e in enumerate(prompt.evidence, start=1) if "went" in e["text"])
    assert not reader_saying(tok, f" written [#{row}]", 0.6).answer(prompt)[2]
    assert reader_saying(tok, f" went [#{other}]", 0.6).answer(prompt)[2]  # 1 of the 3 words: past
    assert not reader_saying(tok, f" went [#{other}]", 0.0).answer(prompt)[2]


def test_no_evidence_means_i_dont_know_without_running_the_model(tok):
    text, _, abstained, _ = reader_saying(tok, " written [#1]").answer(build_prompt("past of go?", []))
    assert abstained and text == IDK


def test_settings_make_the_model_config_with_one_more_token_for_eos():
    cfg = MiniGPTSettings(d=16, n_heads=2).model_config(301)
    model = MiniGPT(cfg)
    assert cfg.vocab_size == 301 and model.params and all(np.isfinite(p).all() for p in model.params.values())


def test_heldout_scores_apply_the_support_threshold_to_recorded_outcomes():
    outcomes = [{"kind": "true", "right": True, "cite_right": True, "support": 0.5},
                {"kind": "true", "right": True, "cite_right": False, "support": 1.0},
                {"kind": "swapped", "right": True, "cite_right": True, "support": 0.7},
                {"kind": "absent", "right": False, "cite_right": False, "support": 0.4},
                {"kind": "absent", "right": False, "cite_right": False, "support": None}]
    alone, checked = score_heldout(outcomes, 0.0), score_heldout(outcomes, 0.6)
    assert alone["true"] == {"n": 2, "answer": 1.0, "answer_and_cite": 0.5}
    assert checked["true"] == {"n": 2, "answer": 0.5, "answer_and_cite": 0.0}  # the 0.5-support answer is refused
    assert alone["absent"]["abstained"] == 0.5 and checked["absent"]["abstained"] == 1.0
    assert checked["swapped"]["follows_context"] == 1.0
