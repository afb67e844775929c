"""Curate a corpus: read documents and questions, check them, write clean records.

A markdown corpus is a folder of `.md`/`.mdx` files with YAML front matter (`title`,
`lang`, optional `tags`; the key names are corpus settings); doc_id = path relative to the
folder. Its questions are JSON Lines (kb/README.md). BEIR folders are read by beir.py.

Text is NFC-normalised and a BOM stripped. Bad input stops the stage with an error
naming the file and line: not UTF-8, no front matter, missing title, empty body,
duplicate doc id; for questions: missing fields, values outside the allowed sets,
evidence not found verbatim in its gold doc, answer not in its evidence, unknown doc id,
duplicate qid.

What it leaves out: BEIR's formats (beir.py), chunking and any analysis of the text.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from ..io import sha256_text
from ..settings import setting

QUESTION_FIELDS = ("qid", "query", "lang", "difficulty", "gold", "answer", "answerable")
LANGS = ("en", "es", "cross")
DIFFICULTIES = ("verbatim", "paraphrase")


@dataclass(frozen=True)
class FieldNames:
    """The front-matter key of each document field (a corpus whose pages say `language:` sets lang)."""
    title: str = "title"
    lang: str = "lang"
    tags: str = "tags"


@dataclass(frozen=True)
class SourceSettings:
    """Where a corpus's documents and questions are, and how to read them (stages curate, questions)."""
    format: Literal["markdown", "beir"] = "markdown"
    path: str = setting("kb/docs", min_length=1)   # markdown: the docs folder; beir: the folder holding corpus.jsonl
    glob: str = setting("**/*.md", min_length=1)   # markdown only: which files under path are documents
    questions: str = setting("kb/eval/questions.jsonl", min_length=1)  # markdown only: questions (JSON Lines)
    split: str = setting("test", min_length=1)     # beir only: qrels/<split>.tsv holds the judged queries
    train_split: str = ""                           # beir only: qrels used for training pairs ("" = none)
    fields: FieldNames = FieldNames()
    default_lang: str = ""                          # used when a document has no lang field ("" = the field is required)
    questions_format: Literal["minirag", "gold_docs"] = "minirag"  # gold_docs: {qid, query, gold_docs}, no answers
    question_langs: tuple[str, ...] = setting(LANGS, min_items=1)  # allowed values of a question's lang


class CorpusError(ValueError):
    """Bad input; the message starts with the file (and line) it is about."""


def normalise(text: str) -> str:
    return unicodedata.normalize("NFC", text.lstrip("\ufeff"))


def split_front_matter(raw: str, where: str) -> tuple[dict, str, int]:
    """Return (front matter, body, line number where the body starts)."""
    lines = raw.split("\n")
    if not lines or lines[0].strip() != "---":
        raise CorpusError(f"{where}:1: no front matter (the file must start with a '---' line)")
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            try:
                meta = yaml.safe_load("\n".join(lines[1:i])) or {}
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                line = mark.line + 2 if mark is not None else 1
                raise CorpusError(f"{where}:{line}: front matter is not valid YAML") from None
            if not isinstance(meta, dict):
                raise CorpusError(f"{where}:2: front matter must be a mapping of keys to values")
            return meta, "\n".join(lines[i + 1:]), i + 2
    raise CorpusError(f"{where}:1: front matter is not closed by a '---' line")


def read_markdown_doc(path: Path, root: Path, fields: dict, default_lang: str = "") -> dict:
    doc_id = path.relative_to(root).as_posix()
    try:
        raw = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise CorpusError(f"{path}:{line}: not valid UTF-8 (byte {exc.start})") from None
    meta, body, body_line = split_front_matter(normalise(raw).replace("\r\n", "\n"), str(path))
    title = meta.get(fields["title"])
    if not isinstance(title, str) or not title.strip():
        raise CorpusError(f"{path}:1: front matter has no '{fields['title']}' (the title is required)")
    lang = meta.get(fields["lang"], default_lang or None)
    if not isinstance(lang, str) or not lang.strip():
        raise CorpusError(f"{path}:1: front matter has no '{fields['lang']}' (the language is required)")
    tags = meta.get(fields["tags"], []) or []
    if isinstance(tags, str):
        tags = [tags]
    body = body.strip("\n")
    if not body.strip():
        raise CorpusError(f"{path}:{body_line}: empty body")
    return {"doc_id": doc_id, "title": title.strip(), "lang": lang.strip(),
            "tags": [str(t) for t in tags], "text": body, "sha256": sha256_text(body)}


def curate_markdown(root: str | Path, glob: str, fields: dict, default_lang: str = "") -> list[dict]:
    root = Path(root)
    if not root.is_dir():
        raise CorpusError(f"{root}: documents folder not found")
    paths = sorted(p for p in root.glob(glob) if p.is_file())
    if not paths:
        raise CorpusError(f"{root}: no documents match {glob!r}")
    docs = [read_markdown_doc(p, root, fields, default_lang) for p in paths]
    check_unique_ids(docs, str(root))
    return docs


def check_unique_ids(docs: list[dict], where: str) -> None:
    seen: dict[str, int] = {}
    for i, d in enumerate(docs):
        if d["doc_id"] in seen:
            raise CorpusError(f"{where}: duplicate doc id {d['doc_id']!r} (records {seen[d['doc_id']] + 1} and {i + 1})")
        seen[d["doc_id"]] = i


def _fail(where: str, lineno: int, msg: str) -> None:
    raise CorpusError(f"{where}:{lineno}: {msg}")


def validate_question(q: Any, docs_by_id: dict[str, dict], where: str, lineno: int,
                      langs: tuple[str, ...] = LANGS) -> dict:
    if not isinstance(q, dict):
        _fail(where, lineno, "each line must be a JSON object")
    missing = [f for f in QUESTION_FIELDS if f not in q]
    if missing:
        _fail(where, lineno, f"missing field(s): {', '.join(missing)}")
    if not isinstance(q["qid"], str) or not q["qid"]:
        _fail(where, lineno, "qid must be a non-empty string")
    if not isinstance(q["query"], str) or not q["query"].strip():
        _fail(where, lineno, f"{q['qid']}: query must be a non-empty string")
    if q["lang"] not in langs:
        _fail(where, lineno, f"{q['qid']}: lang {q['lang']!r} is not one of {', '.join(langs)}")
    if q["difficulty"] not in DIFFICULTIES:
        _fail(where, lineno, f"{q['qid']}: difficulty {q['difficulty']!r} is not one of {', '.join(DIFFICULTIES)}")
    if not isinstance(q["answerable"], bool):
        _fail(where, lineno, f"{q['qid']}: answerable must be true or false")
    gold = q["gold"]
    if not isinstance(gold, list):
        _fail(where, lineno, f"{q['qid']}: gold must be a list")
    if q["answerable"] and not gold:
        _fail(where, lineno, f"{q['qid']}: an answerable question needs at least one gold entry")
    if not q["answerable"] and (gold or q["answer"]):
        _fail(where, lineno, f"{q['qid']}: an unanswerable question has empty gold and a null answer")
    clean_gold = []
    for g in gold:
        if not isinstance(g, dict) or "doc_id" not in g or "evidence" not in g:
            _fail(where, lineno, f"{q['qid']}: each gold entry needs doc_id and evidence")
        doc = docs_by_id.get(g["doc_id"])
        if doc is None:
            _fail(where, lineno, f"{q['qid']}: unknown doc id {g['doc_id']!r}")
        evidence = normalise(g["evidence"])
        start = doc["text"].find(evidence) if evidence else -1
        if start < 0:
            _fail(where, lineno, f"{q['qid']}: evidence not found verbatim in {g['doc_id']}: {evidence[:80]!r}")
        clean_gold.append({"doc_id": g["doc_id"], "evidence": evidence,
                           "char_start": start, "char_end": start + len(evidence)})
    answer = q["answer"]
    if q["answerable"]:
        if not isinstance(answer, str) or not answer.strip():
            _fail(where, lineno, f"{q['qid']}: an answerable question needs an answer string")
        answer = normalise(answer)
        if answer not in clean_gold[0]["evidence"]:
            _fail(where, lineno, f"{q['qid']}: answer {answer!r} is not in its evidence")
    tags = q.get("tags", [])
    return {"qid": q["qid"], "query": normalise(q["query"]), "lang": q["lang"],
            "difficulty": q["difficulty"], "tags": list(tags), "answerable": q["answerable"],
            "answer": answer, "gold": clean_gold}


def gold_docs_question(q: Any, docs_by_id: dict[str, dict], where: str, lineno: int,
                       langs: tuple[str, ...]) -> dict:
    """A question that names its gold documents only (`qid`, `query`, `gold_docs`, optional `lang`)."""
    if not isinstance(q, dict):
        _fail(where, lineno, "each line must be a JSON object")
    missing = [f for f in ("qid", "query", "gold_docs") if f not in q]
    if missing:
        _fail(where, lineno, f"missing field(s): {', '.join(missing)}")
    lang = q.get("lang", langs[0])
    if lang not in langs:
        _fail(where, lineno, f"{q['qid']}: lang {lang!r} is not one of {', '.join(langs)}")
    for doc_id in q["gold_docs"]:
        if doc_id not in docs_by_id:
            _fail(where, lineno, f"{q['qid']}: unknown doc id {doc_id!r}")
    gold = [{"doc_id": d, "evidence": None, "char_start": None, "char_end": None} for d in q["gold_docs"]]
    return {"qid": str(q["qid"]), "query": normalise(q["query"]), "lang": lang,
            "difficulty": q.get("difficulty", "unlabelled"), "tags": list(q.get("tags", [])),
            "answerable": bool(gold), "answer": None, "gold": gold}


def load_questions(path: str | Path, docs: list[dict], questions_format: str = "minirag",
                   langs: tuple[str, ...] = LANGS) -> list[dict]:
    """Read and validate markdown-corpus questions against the curated docs."""
    path = Path(path)
    if not path.exists():
        raise CorpusError(f"{path}: questions file not found")
    docs_by_id = {d["doc_id"]: d for d in docs}
    parse = validate_question if questions_format == "minirag" else gold_docs_question
    out, seen = [], {}
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                q = json.loads(line)
            except json.JSONDecodeError as exc:
                _fail(str(path), lineno, f"not valid JSON: {exc.msg}")
            rec = parse(q, docs_by_id, str(path), lineno, tuple(langs))
            if rec["qid"] in seen:
                _fail(str(path), lineno, f"duplicate qid {rec['qid']!r} (first on line {seen[rec['qid']]})")
            seen[rec["qid"]] = lineno
            out.append(rec)
    if not out:
        raise CorpusError(f"{path}: no questions")
    return out


