"""The dev/test split: stratified, decided by qid hash, deterministic, and fixed once given."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minirag.artifacts.io import sha256_text
from minirag.text import split as split_module
from minirag.text.split import assign_splits

REPO = Path(__file__).resolve().parents[2]


def question(qid, lang="en", difficulty="verbatim", answerable=True, **extra) -> dict:
    return {"qid": qid, "query": f"question {qid}?", "lang": lang, "difficulty": difficulty,
            "answerable": answerable, **extra}


def strata(questions):
    return Counter((q["lang"], q["difficulty"], q["answerable"]) for q in questions)


def dev_per_stratum(questions):
    return Counter((q["lang"], q["difficulty"], q["answerable"]) for q in questions if q["split"] == "dev")


def mixed(n=60):
    """Questions over 2 languages × 3 difficulties × answerable or not, in uneven strata."""
    rng = random.Random(7)
    return [question(f"q{i:03d}", rng.choice(["en", "es"]), rng.choice(["verbatim", "paraphrase", "hard"]),
                     rng.random() < 0.8) for i in range(n)]


# ---------------------------------------------------------------- assign_splits


def test_every_question_gets_dev_or_test_and_nothing_else_changes():
    questions = mixed()
    before = json.dumps(questions)
    out = assign_splits(questions)
    assert json.dumps(questions) == before  # the input is not modified
    assert {q["split"] for q in out} == {"dev", "test"}
    assert [{k: v for k, v in q.items() if k != "split"} for q in out] == questions


@pytest.mark.parametrize("n", range(1, 13))
def test_a_stratum_of_n_questions_sends_a_third_of_them_rounded_to_dev(n):
    out = assign_splits([question(f"q{i}") for i in range(n)])
    assert sum(q["split"] == "dev" for q in out) == round(n / 3)


def test_the_dev_share_is_a_parameter():
    out = assign_splits([question(f"q{i}") for i in range(10)], dev_share=0.5)
    assert sum(q["split"] == "dev" for q in out) == 5
    assert all(q["split"] == "test" for q in assign_splits([question(f"q{i}") for i in range(10)], dev_share=0))


@pytest.mark.parametrize("field,values", [("lang", ["en", "es"]), ("difficulty", ["verbatim", "hard"]),
                                          ("answerable", [True, False])])
def test_each_of_language_difficulty_and_answerable_makes_its_own_stratum(field, values):
    # Two strata of 2: a third of each rounds to 1 dev each (2 in all); pooled, 4 would give round(4/3) = 1.
    questions = [question(f"q{i}", **{field: values[i % 2]}) for i in range(4)]
    out = assign_splits(questions)
    assert Counter(q[field] for q in out if q["split"] == "dev") == {values[0]: 1, values[1]: 1}


def test_the_dev_questions_of_a_stratum_are_those_whose_qid_hashes_lowest():
    questions = [question(f"en-{i:03d}") for i in range(9)]
    out = assign_splits(questions)
    lowest = sorted((q["qid"] for q in questions), key=sha256_text)[:3]
    assert sorted(q["qid"] for q in out if q["split"] == "dev") == sorted(lowest)


def test_the_split_does_not_depend_on_the_order_of_the_file():
    questions = mixed()
    first = {q["qid"]: q["split"] for q in assign_splits(questions)}
    shuffled = questions[:]
    random.Random(3).shuffle(shuffled)
    out = assign_splits(shuffled)
    assert [q["qid"] for q in out] == [q["qid"] for q in shuffled]  # order of the file kept
    assert {q["qid"]: q["split"] for q in out} == first


def test_a_question_that_has_a_split_keeps_it_and_is_not_counted_again():
    old = [question(f"old{i}", split="dev") for i in range(3)]
    new = [question(f"new{i}") for i in range(3)]
    out = assign_splits(old + new)
    assert [q["split"] for q in out[:3]] == ["dev"] * 3
    assert sum(q["split"] == "dev" for q in out[3:]) == 1  # a third of the new ones, whatever the old ones are


def test_adding_questions_never_moves_a_fixed_split():
    fixed = assign_splits(mixed(30))
    added = assign_splits(fixed + [question(f"z{i}", "en", "hard", True) for i in range(20)])
    assert added[:30] == fixed
    assert sum(q["split"] == "dev" for q in added[30:]) == round(20 / 3)


def test_questions_of_other_strata_do_not_move_an_unsplit_stratum():
    english = [question(f"en{i}", "en") for i in range(10)]
    alone = assign_splits(english)
    together = assign_splits(english + [question(f"es{i}", "es") for i in range(10)])
    assert together[:10] == alone


QIDS = st.text(alphabet="abcdefgh-0123456789", min_size=1, max_size=8)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(QIDS, st.sampled_from(["en", "es"]), st.sampled_from(["verbatim", "hard"]),
                          st.booleans()), max_size=40, unique_by=lambda t: t[0]),
       st.randoms(use_true_random=False))
def test_any_file_is_split_a_third_per_stratum_whatever_its_order(rows, rng):
    questions = [question(*row) for row in rows]
    out = assign_splits(questions)
    assert dev_per_stratum(out) == +Counter({s: round(n / 3) for s, n in strata(questions).items()})
    shuffled = questions[:]
    rng.shuffle(shuffled)
    assert {q["qid"]: q["split"] for q in assign_splits(shuffled)} == {q["qid"]: q["split"] for q in out}


# ---------------------------------------------------------------- the command


def write_questions(path: Path, questions: list[dict], ensure_ascii: bool = False) -> None:
    path.write_text("".join(json.dumps(q, ensure_ascii=ensure_ascii) + "\n" for q in questions), encoding="utf-8")


def run_main(monkeypatch, *args: str) -> None:
    monkeypatch.setattr(sys, "argv", ["split", *args])
    split_module.main()


def test_the_command_writes_the_split_into_the_file_in_place(tmp_path):
    path = tmp_path / "questions.jsonl"
    questions = [question(f"q{i}", "es", query="¿Cómo se dice «hola»?") for i in range(6)]
    questions[2]["split"] = "test"
    write_questions(path, questions)
    proc = subprocess.run([sys.executable, "-m", "minirag.text.split", str(path)], capture_output=True, text=True,
                          cwd=REPO, check=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    text = path.read_text(encoding="utf-8")
    assert "¿Cómo se dice «hola»?" in text  # UTF-8 kept readable
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines == assign_splits(questions)
    assert proc.stdout.strip() == f"{path}: {dict(sorted(Counter(q['split'] for q in lines).items()))}"


def test_running_the_command_again_changes_nothing(tmp_path, monkeypatch):
    path = tmp_path / "questions.jsonl"
    write_questions(path, mixed(20), ensure_ascii=True)
    run_main(monkeypatch, str(path))
    once = path.read_bytes()
    run_main(monkeypatch, str(path))
    assert path.read_bytes() == once


def test_the_command_takes_a_dev_share(tmp_path, monkeypatch):
    path = tmp_path / "questions.jsonl"
    write_questions(path, [question(f"q{i}") for i in range(8)])
    run_main(monkeypatch, str(path), "--dev-share", "0.5")
    assert [json.loads(line)["split"] for line in path.read_text().splitlines()].count("dev") == 4


@pytest.mark.parametrize("bad", ['{"qid": "q9", "lang": "en"', '{"lang": "en", "difficulty": "hard"}'],
                         ids=["broken JSON", "no qid"])
def test_bad_input_is_refused_and_the_file_left_as_it_was(tmp_path, monkeypatch, bad):
    path = tmp_path / "questions.jsonl"
    write_questions(path, [question("q1"), question("q2")])
    path.write_text(path.read_text() + bad + "\n")
    before = path.read_bytes()
    with pytest.raises((ValueError, KeyError)):
        run_main(monkeypatch, str(path))
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["questions.jsonl"]


def test_a_write_that_fails_leaves_the_old_file_whole_and_no_temporary_behind(tmp_path, monkeypatch):
    path = tmp_path / "questions.jsonl"
    write_questions(path, mixed(10))
    before = path.read_bytes()

    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", crash)  # the rename that makes the new file visible
    with pytest.raises(OSError, match="disk full"):
        run_main(monkeypatch, str(path))
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["questions.jsonl"]


def test_the_command_can_read_back_a_question_holding_a_unicode_line_separator(tmp_path, monkeypatch):
    path = tmp_path / "questions.jsonl"
    write_questions(path, [question("q1", query="one\u2028two"), question("q2", query="nel\u0085")],
                    ensure_ascii=True)
    run_main(monkeypatch, str(path))  # the first run reads the escaped form and writes the character itself
    run_main(monkeypatch, str(path))
    assert [json.loads(line)["query"] for line in path.read_text(encoding="utf-8").split("\n") if line] == [
        "one\u2028two", "nel\u0085"]
