"""SQuAD v1.1 / v2.0 JSON: documents and questions read in place.

A SQuAD file is `{"version", "data": [{"title", "paragraphs": [{"context", "qas": [...]}]}]}`; a
question is `{"id", "question", "answers": [{"text", "answer_start"}], "is_impossible"}` (v2.0 adds
`is_impossible` and `plausible_answers`; v1.1 questions are all answerable). Here:

- one document per article, its title the article's (underscores read as spaces), its text the
  paragraphs in order separated by a blank line, so a chunker that cuts at paragraphs keeps them;
- one question per question, with every crowd answer (`answers`, the distinct texts in order, `answer`
  the first), gold the character span of each distinct answer in its document, and an
  unanswerable one marked `answerable: false` with no gold and no answer;
- a question's `split` is "dev" when its article is one of `dev_docs` (choices are made there) and
  "test" otherwise.

    docs = list(iter_squad_documents("dev-v2.0.json", "en"))
    qs = load_squad_questions("dev-v2.0.json", docs, dev_docs=("Normans",))

What it leaves out: the paragraphs' own ids (a chunk is located by characters) and SQuAD's
`plausible_answers` (an unanswerable question has no answer to be scored against).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from ..artifacts.io import sha256_text
from ..text.corpus import CONTROL_RE, CorpusError, id_problem, normalise

PARAGRAPH_SEP = "\n\n"


def read_squad(path: str | Path) -> list[dict]:
    """The articles of a SQuAD JSON file, each checked to hold a title and paragraphs."""
    path = Path(path)
    if not path.is_file():
        raise CorpusError(f"{path}: SQuAD file not found")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorpusError(f"{path}: not a UTF-8 JSON file ({exc})") from None
    articles = data.get("data") if isinstance(data, dict) else None
    if not isinstance(articles, list):
        raise CorpusError(f"{path}: expected an object with a 'data' list of articles")
    for i, a in enumerate(articles):
        if not isinstance(a, dict) or not isinstance(a.get("title"), str) or not isinstance(a.get("paragraphs"), list):
            raise CorpusError(f"{path}: article {i}: expected 'title' (a string) and 'paragraphs' (a list)")
    return articles


def doc_id_of(title: str) -> str:
    return normalise(title.strip()).replace(" ", "_")


def article_text(article: dict) -> tuple[str, list[int]]:
    """(the article's text, where each paragraph starts in it)."""
    starts, parts, at = [], [], 0
    for p in article["paragraphs"]:
        context = CONTROL_RE.sub(" ", normalise(str(p.get("context", ""))))
        starts.append(at)
        parts.append(context)
        at += len(context) + len(PARAGRAPH_SEP)
    return PARAGRAPH_SEP.join(parts), starts


def iter_squad_documents(path: str | Path, default_lang: str = "en", keep=None) -> Iterator[dict]:
    """Document records (doc_id, title, lang, tags, text, sha256), one per article, in file order."""
    seen: set[str] = set()
    for i, article in enumerate(read_squad(path)):
        doc_id = doc_id_of(article["title"])
        problem = id_problem(doc_id)
        if problem:
            raise CorpusError(f"{path}: article {i}: title: {problem}")
        if doc_id in seen:
            raise CorpusError(f"{path}: article {i}: a second article titled {article['title']!r}")
        seen.add(doc_id)
        if keep is not None and not keep(doc_id):
            continue
        text, _ = article_text(article)
        yield {"doc_id": doc_id, "title": doc_id.replace("_", " "), "lang": default_lang or "en", "tags": [],
               "text": text, "sha256": sha256_text(text)}


def question_record(qa: dict, doc: dict, start: int, split: str, where: str) -> dict:
    qid = str(qa.get("id", ""))
    if id_problem(qid) or not isinstance(qa.get("question"), str) or not qa["question"].strip():
        raise CorpusError(f"{where}: a question needs an 'id' without whitespace and a non-empty 'question'")
    impossible = bool(qa.get("is_impossible", False))
    answers, gold, seen = [], [], set()
    for a in ([] if impossible else qa.get("answers") or []):
        text = normalise(str(a.get("text", ""))).strip()
        at = start + int(a.get("answer_start", -1))
        if not text:
            continue
        if doc["text"][at:at + len(text)] != text:  # an offset that drifted: the first occurrence instead
            at = doc["text"].find(text, start)
            if at < 0:
                raise CorpusError(f"{where}: {qid}: answer {text!r} not found in its paragraph")
        if text not in answers:
            answers.append(text)
        if (at, text) not in seen:
            seen.add((at, text))
            gold.append({"doc_id": doc["doc_id"], "evidence": text, "char_start": at, "char_end": at + len(text)})
    answerable = bool(answers)
    return {"qid": qid, "query": normalise(qa["question"]).strip(), "lang": doc["lang"], "difficulty": "unlabelled",
            "tags": [] if answerable else ["unanswerable"], "answerable": answerable,
            "answer": answers[0] if answerable else None, "answers": answers, "gold": gold, "split": split}


def load_squad_questions(path: str | Path, docs: list[dict], dev_docs: tuple[str, ...] = ()) -> list[dict]:
    """Every question of the file's articles that were curated (`docs`), in file order (module docstring)."""
    by_id = {d["doc_id"]: d for d in docs}
    dev = {doc_id_of(t) for t in dev_docs}
    unknown = dev - {doc_id_of(a["title"]) for a in read_squad(path)}
    if unknown:
        raise CorpusError(f"{path}: source.dev_docs names no article of the file: {', '.join(sorted(unknown))}")
    out, seen = [], set()
    for i, article in enumerate(read_squad(path)):
        doc = by_id.get(doc_id_of(article["title"]))
        if doc is None:
            continue
        _, starts = article_text(article)
        split = "dev" if doc["doc_id"] in dev else "test"
        for j, (p, start) in enumerate(zip(article["paragraphs"], starts)):
            for qa in p.get("qas") or []:
                rec = question_record(qa, doc, start, split, f"{path}: article {i} paragraph {j}")
                if rec["qid"] in seen:
                    raise CorpusError(f"{path}: duplicate question id {rec['qid']}")
                seen.add(rec["qid"])
                out.append(rec)
    if not out:
        raise CorpusError(f"{path}: no questions")
    return out
