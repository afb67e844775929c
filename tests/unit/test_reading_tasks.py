"""Reading tasks synthesized from documents: facts of rows and prose lines, true / swapped / absent
tasks, the held-out split, budgets, determinism, and the JSON Lines round trip."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from minirag.answer.reading.contexts import LinePool, swap_value, table_cell_lines
from minirag.answer.reading.tasks import (
    IDK,
    KINDS,
    ReadingTask,
    heldout_docs,
    load_tasks,
    make_task,
    make_tasks,
    row_facts,
    save_tasks,
    sentence_facts,
    split_facts,
    task_id,
)
from minirag.domains.grammar.questions.learner_questions import Synthesizer
from minirag.domains.grammar.select.terms import GrammarTerms

REPO = Path(__file__).resolve().parents[2]
KB_DOCS = REPO / "results" / "kb" / "docs.jsonl"

VERBS = """# Irregular verbs

Regular verbs add -ed (work → worked → worked). Some common verbs are irregular: go → went, see → saw, eat → ate.

## Table of common irregular verbs

| Base form | Past simple | Past participle |
|---|---|---|
| begin | began | begun |
| bet | bet | bet |
| choose | chose | chosen |
| drive | drove | driven |
| eat | ate | eaten |
| speak | spoke | spoken |
| throw | threw | thrown |
| write | wrote | written |

## Prepositions

- on time = at the planned time, punctual
- by = not later than: "Send it by Friday."
"""

FUTURO = """# Futuro simple

Los compuestos siguen al verbo simple: mantener → mantendré, suponer → supondré, deshacer → desharé.

## Raíces irregulares

| Infinitivo | Raíz | yo |
|---|---|---|
| tener | tendr- | tendré |
| salir | saldr- | saldré |
| poner | pondr- | pondré |
| hacer | har- | haré |
| decir | dir- | diré |
"""

GUSTAR = """# Gustar

*Me gusta el perro* (I like the dog) and *Me gustan los perros* (I like dogs). Say *me gustaría* (I would like).

| Verb | Meaning |
|---|---|
| encantar | to love |
| molestar | to bother |
| preocupar | to worry |
| doler | to hurt |
"""

DOCS = [
    {"doc_id": "en/verbs.md", "title": "Irregular verbs", "lang": "en", "tags": [], "text": VERBS},
    {"doc_id": "es/futuro.md", "title": "Futuro simple", "lang": "es", "tags": [], "text": FUTURO},
    {"doc_id": "guides/gustar.md", "title": "Gustar", "lang": "en", "tags": [], "text": GUSTAR},
]


@pytest.fixture(scope="module")
def facts():
    return row_facts(DOCS) + sentence_facts(DOCS)


@pytest.fixture(scope="module")
def tasks():
    return make_tasks(DOCS, n_train=150, n_eval=6, seed=0)


def by_source(facts):
    out = {f"{f.doc_id} {f.origin}": f for f in facts}
    assert len(out) == len(facts), "a task's source must name one fact"
    return out


def find(facts, key, relation):
    hits = [f for f in facts if f.key == key and f.relation == relation]
    assert len(hits) == 1, (key, relation, hits)
    return hits[0]


def test_row_facts_name_the_column_and_the_cell():
    rf = row_facts(DOCS)
    assert len(rf) == 8 * 2 + 5 * 2 + 4  # one per row and non-key column
    f = find(rf, "write", "Past participle")
    assert f.kind == "row" and f.value == "written" and f.lang == "en" and f.doc_id == "en/verbs.md"
    assert f.line == "Table of common irregular verbs: write · Past participle: written"  # as a selected cell shows
    assert f.line[f.span[0]:f.span[1]] == "written"
    assert "thrown" in f.alternatives and "written" not in f.alternatives
    es = find(rf, "tener", "yo")
    assert es.value == "tendré" and es.lang == "es"
    assert es.line == "Raíces irregulares: tener · yo: tendré"
    for f in rf:  # the line is what a reader sees when the selector picks the cell, the value where the span says
        doc = next(d for d in DOCS if d["doc_id"] == f.doc_id)
        assert f.line in {ln for lines in table_cell_lines(doc).values() for ln in lines}
        assert f.line[f.span[0]:f.span[1]] == f.value


def test_sentence_facts_keep_clean_shapes_only():
    sf = sentence_facts(DOCS)
    pairs = {(f.kind, f.key, f.value) for f in sf}
    assert ("arrow", "go", "went") in pairs and ("arrow", "eat", "ate") in pairs
    assert ("arrow", "mantener", "mantendré") in pairs
    assert not any(f.key == "work" for f in sf)  # "work → worked → worked" is a chain: no single answer
    assert ("gloss", "Me gusta el perro", "I like the dog") in pairs
    assert ("gloss", "me gustaría", "I would like") in pairs
    assert ("definition", "on time", "at the planned time") in pairs
    assert ("definition", "by", "not later than") in pairs
    for f in sf:
        assert len(f.value.split()) <= 4 and f.line[f.span[0]:f.span[1]] == f.value
    went = next(f for f in sf if f.key == "go")
    assert "ate" in went.alternatives and "went" not in went.alternatives


def test_counts_and_kinds(tasks):
    train = [t for t in tasks if t.split == "train"]
    held = [t for t in tasks if t.split == "heldout"]
    assert len(train) == 150
    assert Counter(t.kind for t in held) == {k: 6 for k in KINDS}
    kinds = Counter(t.kind for t in train)
    assert kinds["absent"] == 15 and kinds["swapped"] == round(135 * 0.7) and kinds["true"] == 135 - 94
    assert len({t.qid for t in tasks}) == len(tasks)
    for t in tasks:
        assert t.qid == task_id(t.question, t.lines, t.answer, t.cite)  # a hash of its content


def test_answers_are_in_the_cited_evidence_line(tasks, facts):
    src = by_source(facts)
    for t in tasks:
        if t.kind == "absent":
            assert t.answer is None and t.cite is None and t.target == IDK
            continue
        cited = dict(t.lines)[t.cite]
        fact = src[t.source]
        assert t.answer in cited and t.target == f"{t.answer} [#{t.cite}]"
        if t.kind == "true":
            assert cited == fact.line and t.answer == fact.value
        else:  # the fact's line with its value replaced: the swapped-in value, never the original
            lo, hi = fact.span
            assert cited == fact.line[:lo] + t.answer + fact.line[hi:]
            assert t.answer != fact.value and fact.value.casefold() not in cited.casefold()
            assert t.answer in fact.alternatives
        others = [text for n, text in t.lines if n != t.cite]
        assert fact.line not in others  # the original never sits beside its swapped copy


def test_absent_tasks_hold_no_line_with_the_answer(tasks, facts):
    src = by_source(facts)
    absent = [t for t in tasks if t.kind == "absent"]
    assert absent
    for t in absent:
        value = src[t.source].value
        assert t.lines and not any(value.casefold() in text.casefold() for _, text in t.lines)


def test_no_heldout_fact_is_the_evidence_of_a_training_task(tasks, facts):
    train_facts, held = split_facts(facts, DOCS, 0.2, 0)
    held_lines = {f.line for f in held}
    held_ids = {f"{f.doc_id} {f.origin}" for f in held}
    assert held and train_facts
    docs_out = heldout_docs([d["doc_id"] for d in DOCS], 0.2, 0)
    assert len(docs_out) == 1 and all(f in held for f in facts if f.doc_id in docs_out)
    assert any(f.doc_id not in docs_out for f in held)  # unseen rows of seen documents too
    src = by_source(facts)
    for t in tasks:
        fact = src[t.source]
        if t.split == "train":
            assert t.source not in held_ids and fact.line not in held_lines
            if t.cite is not None:
                assert dict(t.lines)[t.cite] not in held_lines
        else:
            assert t.source in held_ids


def test_markers_and_budgets(facts):
    for max_lines, max_chars in ((4, 480), (2, 160)):
        out = make_tasks(DOCS, n_train=60, n_eval=3, seed=1, max_lines=max_lines, max_chars=max_chars)
        for t in out:
            assert [n for n, _ in t.lines] == list(range(1, len(t.lines) + 1))
            assert 1 <= len(t.lines) <= max_lines
            assert sum(len(text) for _, text in t.lines) <= max_chars
            assert len({text for _, text in t.lines}) == len(t.lines)
            assert t.cite is None or 1 <= t.cite <= len(t.lines)


def test_hard_distractors_come_from_the_same_table(tasks):
    rows = [t for t in tasks if t.kind == "true" and "irregular verbs:" in dict(t.lines)[t.cite]]
    assert any(sum("Base form:" in text for _, text in t.lines) >= 2 for t in rows)


def test_deterministic(tasks):
    again = make_tasks(DOCS, n_train=150, n_eval=6, seed=0)
    assert again == tasks
    other = make_tasks(DOCS, n_train=150, n_eval=6, seed=5)
    assert [t.qid for t in other] != [t.qid for t in tasks]


def test_deterministic_across_processes(tmp_path):
    """String hashing differs between processes: no order may depend on it."""
    (tmp_path / "docs.json").write_text(json.dumps(DOCS), encoding="utf-8")
    code = ("import json, sys; from minirag.answer.reading.tasks import make_tasks; "
            "docs = json.load(open(sys.argv[1])); "
            "print(' '.join(t.qid for t in make_tasks(docs, n_train=80, n_eval=4, seed=3)))")
    outs = []
    for hashseed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed, "PYTHONPATH": str(REPO)}
        proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "docs.json")], env=env,
                              capture_output=True, text=True, check=True)
        outs.append(proc.stdout)
    assert outs[0] == outs[1] and outs[0].strip()


def test_swap_needs_a_value_the_line_holds_once(facts):
    rng = np.random.default_rng(0)
    assert swap_value(find(facts, "bet", "Past simple"), rng) is None  # "bet" would stay in the line
    line, new = swap_value(find(facts, "write", "Past participle"), rng)
    assert new in line and "written" not in line
    assert line.startswith("Table of common irregular verbs: write · Past participle: ")


def test_absent_task_for_every_fact_leaves_the_answer_out(facts):
    pool, rng = LinePool(DOCS, facts), np.random.default_rng(0)
    asker = Synthesizer(DOCS, GrammarTerms.base(), rng)
    for f in facts:
        t = make_task(f, "absent", "train", pool, rng, asker, max_lines=4, max_chars=480, lead=0.7)
        if t is not None:
            assert not any(f.value.casefold() in text.casefold() for _, text in t.lines)
            assert not any(f.signature in pool.signatures.get(text, ()) for _, text in t.lines)


def test_questions_in_both_languages(tasks):
    spanish = [t for t in tasks if t.question.startswith("¿") or " de " in t.question]
    english = [t for t in tasks if " of " in t.question or "What" in t.question]
    assert spanish and english
    cross = [t for t in tasks if t.source.startswith("en/") and t.question.startswith("¿")]
    assert cross  # a Spanish question about an English document


def test_render_and_round_trip(tasks, tmp_path):
    t = next(t for t in tasks if t.kind == "true")
    text = t.render()
    assert text.startswith(f"question: {t.question}\n") and f" [#{t.cite}]\n" in text and text.endswith(f"answer: {t.answer} [#{t.cite}]")
    a = next(t for t in tasks if t.kind == "absent")
    assert a.render().endswith("answer: I don't know")
    path = tmp_path / "out" / "reading_tasks.jsonl"
    save_tasks(path, tasks)
    assert load_tasks(path) == tasks
    assert not [p for p in path.parent.iterdir() if p.name != path.name]  # no temporary file left beside it
    rec = tasks[0].to_record()
    assert ReadingTask.from_record(json.loads(json.dumps(rec))) == tasks[0]
    path.write_text(json.dumps({**rec, "kind": "maybe"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="record 1"):
        load_tasks(path)


def test_too_few_facts_is_an_error():
    with pytest.raises(ValueError, match="cannot make"):
        make_tasks(DOCS[:1], n_train=5, n_eval=5, seed=0, heldout_share=0.0)


@pytest.mark.skipif(not KB_DOCS.exists(), reason="results/kb/docs.jsonl not built")
def test_real_kb_facts_and_tasks():
    docs = [json.loads(line) for line in KB_DOCS.read_text(encoding="utf-8").splitlines() if line.strip()]
    rf, sf = row_facts(docs), sentence_facts(docs)
    per = Counter((f.kind, f.lang) for f in rf + sf)
    print(f"\nrow facts {len(rf)}, sentence facts {len(sf)}, by kind and language {dict(sorted(per.items()))}")
    assert len(rf) > 1000 and len(sf) > 100
    assert per[("row", "en")] and per[("row", "es")] and per[("arrow", "en")] and per[("arrow", "es")]
    write = [f for f in rf if f.key == "write" and f.relation == "Past participle"]
    assert [f.value for f in write] == ["written"] and write[0].doc_id == "en/irregular-verbs.md"
    pool_lines = set(LinePool(docs, rf + sf).texts)
    assert all(f.line in pool_lines for f in rf + sf)  # every evidence line is one the reader sees
    out = make_tasks(docs, n_train=300, n_eval=20, seed=0)
    assert Counter((t.split, t.kind) for t in out)[("heldout", "absent")] == 20
    src = by_source(rf + sf)
    _, held = split_facts(rf + sf, docs, 0.2, 0)
    held_lines = {f.line for f in held}
    for t in out:
        assert sum(len(text) for _, text in t.lines) <= 480 and len(t.lines) <= 4
        if t.split == "train":
            assert src[t.source].line not in held_lines
        if t.cite is not None:
            assert t.answer in dict(t.lines)[t.cite]
