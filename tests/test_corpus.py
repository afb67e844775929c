import json

import pytest

from minirag.text.corpus import CorpusError, curate_markdown, load_questions

FIELDS = {"title": "title", "lang": "lang", "tags": "tags"}


def write(path, text, encoding="utf-8"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)


def doc(title="T", lang="en", body="# T\n\nSome text."):
    head = "---\n" + (f"title: {title}\n" if title is not None else "") + f"lang: {lang}\n---\n"
    return head + body


def test_curate_reads_front_matter_normalises_and_hashes(tmp_path):
    # "é" written decomposed (e + combining acute) and a BOM: both must be cleaned.
    write(tmp_path / "es" / "a.md", "\ufeff" + doc(title="Café", lang="es", body="# Cafe\u0301\n\nTexto."))
    (d,) = curate_markdown(tmp_path, "**/*.md", FIELDS)
    assert d["doc_id"] == "es/a.md"
    assert d["title"] == "Café" and d["lang"] == "es"
    assert d["text"] == "# Café\n\nTexto."
    assert len(d["sha256"]) == 64


def test_curate_rejects_non_utf8_naming_file_and_line(tmp_path):
    write(tmp_path / "bad.md", doc(body="# x\n\nline two\nañejo").encode("latin-1"))
    with pytest.raises(CorpusError, match=r"bad\.md:8: not valid UTF-8"):
        curate_markdown(tmp_path, "**/*.md", FIELDS)


def test_curate_rejects_missing_title(tmp_path):
    write(tmp_path / "t.md", doc(title=None))
    with pytest.raises(CorpusError, match=r"t\.md:1: front matter has no 'title'"):
        curate_markdown(tmp_path, "**/*.md", FIELDS)


def test_curate_rejects_empty_body(tmp_path):
    write(tmp_path / "e.md", doc(body="\n\n  \n"))
    with pytest.raises(CorpusError, match=r"e\.md:5: empty body"):
        curate_markdown(tmp_path, "**/*.md", FIELDS)


def test_curate_rejects_missing_front_matter(tmp_path):
    write(tmp_path / "n.md", "# No front matter\n")
    with pytest.raises(CorpusError, match=r"n\.md:1: no front matter"):
        curate_markdown(tmp_path, "**/*.md", FIELDS)


def test_field_names_are_corpus_settings(tmp_path):
    write(tmp_path / "p.mdx", "---\ntitle: 页面\nlanguage: zh\n---\n正文")
    (d,) = curate_markdown(tmp_path, "**/*.mdx", {"title": "title", "lang": "language", "tags": "tags"})
    assert d["lang"] == "zh" and d["title"] == "页面"


def question(**over):
    q = {"qid": "q1", "query": "past of go", "lang": "en", "difficulty": "verbatim",
         "gold": [{"doc_id": "a.md", "evidence": "go went gone"}], "answer": "went", "answerable": True}
    q.update(over)
    return q


DOCS = [{"doc_id": "a.md", "title": "A", "lang": "en", "text": "Irregular: go went gone.", "sha256": ""}]


@pytest.mark.parametrize("bad, message", [
    (question(gold=[{"doc_id": "a.md", "evidence": "go wented"}]), r"q\.jsonl:2: q1: evidence not found verbatim in a\.md"),
    (question(answer="gone!"), r"q\.jsonl:2: q1: answer 'gone!' is not in its evidence"),
    (question(gold=[{"doc_id": "zz.md", "evidence": "go"}]), r"q\.jsonl:2: q1: unknown doc id 'zz\.md'"),
    (question(lang="fr"), r"q\.jsonl:2: q1: lang 'fr' is not one of en, es, cross"),
    (question(difficulty="hard"), r"difficulty 'hard' is not one of verbatim, paraphrase"),
    ({"qid": "q1", "query": "x"}, r"q\.jsonl:2: missing field\(s\): lang, difficulty, gold, answer, answerable"),
    (question(qid="q0"), r"q\.jsonl:2: duplicate qid 'q0' \(first on line 1\)"),
])
def test_bad_questions_fail_naming_file_and_line(tmp_path, bad, message):
    path = tmp_path / "q.jsonl"
    first = question(qid="q0")
    path.write_text(json.dumps(first) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=message):
        load_questions(path, DOCS)


def test_valid_question_gets_its_evidence_span(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(question()) + "\n", encoding="utf-8")
    (q,) = load_questions(path, DOCS)
    g = q["gold"][0]
    assert DOCS[0]["text"][g["char_start"]:g["char_end"]] == "go went gone"
