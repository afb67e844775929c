"""The evaluation questions of a markdown corpus: read, every field checked, gold located.

Two formats (`source.questions_format`):
- `minirag` (kb/README.md): qid, query, optional lang, difficulty and tags, gold [{doc_id, evidence}],
  answer (a string, or a list of accepted answers, the first in the first evidence), answerable;
  lang is any language code or "cross" unless `source.question_langs` lists the allowed ones; without
  it, the question's detected language, else its gold document's (question_lang). The evidence must
  occur verbatim in its gold document and the answer in the first evidence; each gold entry gets the character span of its evidence, which is what
  makes relevance independent of chunking.
- `gold_docs`: qid, query, gold_docs [doc ids], optional lang, difficulty, tags; scored per
  document, with no answers.

Every field is type-checked; a bad question stops the stage with the file, the line and the
field: not UTF-8, not JSON, a missing field, a value of the wrong type or outside its set,
an unknown doc id, evidence not found, an answer not in its evidence, a duplicate qid.

What it leaves out: the documents (corpus.py) and BEIR's judged queries (beir.py).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

from ..artifacts.io import numbered_jsonl, shown
from .corpus import LANG_CODE_RE, CorpusError, id_problem, normalise, text_problem

QUESTION_FIELDS = ("qid", "query", "gold", "answer", "answerable")  # lang, difficulty and tags: optional
DIFFICULTIES = ("verbatim", "paraphrase")
SPLITS = ("dev", "test")  # optional field: dev questions are for choices, test for reported figures


class Where:
    """A question's place in its file, for messages: `file:line: qid: field: ...`."""

    def __init__(self, path: str, lineno: int):
        self.path, self.lineno, self.qid = path, lineno, None

    def fail(self, msg: str, field: str | None = None):
        parts = [f"{self.path}:{self.lineno}"] + [self.qid] * bool(self.qid) + [field] * bool(field)
        raise CorpusError(": ".join(parts) + f": {msg}")

    def text(self, q: dict, field: str, empty_ok: bool = False) -> str:
        value = q.get(field)
        if not isinstance(value, str) or not (empty_ok or value.strip()):
            self.fail(f"expected a non-empty string, got {shown(value)}", field)
        problem = text_problem(value)
        if problem:
            self.fail(f"holds {problem}; remove it", field)
        return value

    def checked_qid(self, q: dict) -> str:
        """The question id, under the rule doc ids follow (corpus.id_problem), NFC-normalised as doc ids
        are: "café-1" typed in NFD is the same id as in NFC, so the two are one id twice."""
        value = q.get("qid")
        problem = id_problem(value) if isinstance(value, str) else f"expected a non-empty string, got {shown(value)}"
        if problem:
            self.fail(problem, "qid")
        return unicodedata.normalize("NFC", value)

    def strings(self, q: dict, field: str) -> list[str]:
        value = q.get(field, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            self.fail(f"expected a list of strings, got {shown(value)}", field)
        return value

    def choice(self, value: Any, field: str, allowed: tuple[str, ...]) -> str:
        if value not in allowed:
            self.fail(f"{shown(value)} is not one of {', '.join(allowed)}", field)
        return value

    def lang(self, value: Any, allowed: tuple[str, ...]) -> str:
        """A question's language: one of `allowed`, or (none set) any language code or "cross"."""
        if allowed:
            return self.choice(value, "lang", allowed)
        if not isinstance(value, str) or not LANG_CODE_RE.match(value):
            self.fail(f"{shown(value)} is not a language code (en, fr, pt-BR) or cross", "lang")
        return value


def question_lang(query: str, gold: list[dict], docs_by_id: dict[str, dict], langs: tuple[str, ...]) -> str:
    """A question without `lang`: its detected language when the corpus allows it (text/language.py), else
    its first gold document's, else the corpus's first allowed language, else its commonest document language."""
    from .language import detect
    found = detect(query)
    if found and (not langs or found in langs):
        return found
    first = docs_by_id[gold[0]["doc_id"]].get("lang") if gold else None
    if first and (not langs or first in langs):
        return first
    if langs:
        return langs[0]
    counts: dict[str, int] = {}
    for lang in filter(None, (d.get("lang") for d in docs_by_id.values())):
        counts[lang] = counts.get(lang, 0) + 1
    return max(sorted(counts), key=lambda k: counts[k]) if counts else "en"


def validate_question(q: Any, docs_by_id: dict[str, dict], w: Where, langs: tuple[str, ...] = ()) -> dict:
    if not isinstance(q, dict):
        w.fail("each line must be a JSON object")
    missing = [f for f in QUESTION_FIELDS if f not in q]
    if missing:
        w.fail(f"missing field(s): {', '.join(missing)}")
    w.qid = w.checked_qid(q)
    query = w.text(q, "query")
    lang = w.lang(q["lang"], langs) if "lang" in q else None
    difficulty = w.choice(q["difficulty"], "difficulty", DIFFICULTIES) if "difficulty" in q else ""
    tags = w.strings(q, "tags")
    if not isinstance(q["answerable"], bool):
        w.fail(f"expected true or false, got {shown(q['answerable'])}", "answerable")
    gold = q["gold"]
    if not isinstance(gold, list):
        w.fail(f"expected a list of {{doc_id, evidence}}, got {shown(gold)}", "gold")
    if q["answerable"] and not gold:
        w.fail("an answerable question needs at least one gold entry", "gold")
    if not q["answerable"] and (gold or q["answer"] is not None):
        w.fail("an unanswerable question has empty gold and a null answer", "gold")
    clean_gold = []
    for g in gold:
        if not isinstance(g, dict) or set(g) != {"doc_id", "evidence"}:
            w.fail(f"each entry needs exactly doc_id and evidence, got {shown(g)}", "gold")
        doc_id, evidence = w.text(g, "doc_id"), normalise(w.text(g, "evidence"))
        doc = docs_by_id.get(doc_id)
        if doc is None:
            w.fail(f"unknown doc id {shown(doc_id)}", "gold")
        start = doc["text"].find(evidence)
        if start < 0:
            w.fail(f"evidence not found verbatim in {doc_id}: {evidence[:80]!r}", "gold")
        clean_gold.append({"doc_id": doc_id, "evidence": evidence, "char_start": start, "char_end": start + len(evidence)})
    answer, accepted = q["answer"], {}
    if q["answerable"]:
        answers = [normalise(a) for a in w.strings(q, "answer")] if isinstance(q["answer"], list) else []
        answer = answers[0] if answers else normalise(w.text(q, "answer"))
        if isinstance(q["answer"], list) and not answers:
            w.fail("a list of accepted answers needs at least one", "answer")
        if answer not in clean_gold[0]["evidence"]:
            w.fail(f"{shown(answer)} is not in its evidence", "answer")
        accepted = {"answers": answers} if answers else {}  # every accepted answer; `answer` is the first
    lang = lang or question_lang(query, clean_gold, docs_by_id, langs)
    return {"qid": w.qid, "query": normalise(query), "lang": lang, "difficulty": difficulty, "tags": list(tags),
            "answerable": q["answerable"], "answer": answer, **accepted, "gold": clean_gold, **split_of(q, w)}


def split_of(q: dict, w: Where) -> dict:
    """{"split": ...} when the question names one (dev or test), else {}."""
    return {"split": w.choice(q["split"], "split", SPLITS)} if "split" in q else {}


def gold_docs_question(q: Any, docs_by_id: dict[str, dict], w: Where, langs: tuple[str, ...]) -> dict:
    """A question that names its gold documents only (`qid`, `query`, `gold_docs`, optional `lang`)."""
    if not isinstance(q, dict):
        w.fail("each line must be a JSON object")
    missing = [f for f in ("qid", "query", "gold_docs") if f not in q]
    if missing:
        w.fail(f"missing field(s): {', '.join(missing)}")
    if isinstance(q["qid"], int) and not isinstance(q["qid"], bool):
        q = {**q, "qid": str(q["qid"])}
    w.qid = w.checked_qid(q)
    query = w.text(q, "query")
    gold_docs = w.strings(q, "gold_docs")
    for doc_id in gold_docs:
        if doc_id not in docs_by_id:
            w.fail(f"unknown doc id {shown(doc_id)}", "gold_docs")
    difficulty = q.get("difficulty", "unlabelled")
    if not isinstance(difficulty, str):
        w.fail(f"expected a string, got {shown(difficulty)}", "difficulty")
    gold = [{"doc_id": d, "evidence": None, "char_start": None, "char_end": None} for d in gold_docs]
    lang = w.lang(q["lang"], langs) if "lang" in q else question_lang(query, gold, docs_by_id, langs)
    return {"qid": w.qid, "query": normalise(query), "lang": lang, "difficulty": difficulty,
            "tags": list(w.strings(q, "tags")), "answerable": bool(gold), "answer": None, "gold": gold,
            **split_of(q, w)}


def load_questions(path: str | Path, docs: list[dict], questions_format: str = "minirag",
                   langs: tuple[str, ...] = ()) -> list[dict]:
    """Read and validate markdown-corpus questions against the curated docs."""
    path = Path(path)
    if not path.exists():
        raise CorpusError(f"{path}: questions file not found")
    docs_by_id = {d["doc_id"]: d for d in docs}
    parse = validate_question if questions_format == "minirag" else gold_docs_question
    out, seen = [], {}
    for lineno, q in numbered_jsonl(path):
        w = Where(str(path), lineno)
        rec = parse(q, docs_by_id, w, tuple(langs))
        if rec["qid"] in seen:
            first, raw = seen[rec["qid"]]
            same = "" if raw == q.get("qid") else "; the two are one id once NFC-normalised, as doc ids are"
            w.fail(f"duplicate qid (first on line {first}{same})")
        seen[rec["qid"]] = (lineno, q.get("qid"))
        out.append(rec)
    if not out:
        raise CorpusError(f"{path}: no questions")
    return out
