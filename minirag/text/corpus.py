"""Curate a corpus: read a folder of markdown documents, check them, write clean records.

A markdown corpus is a folder of `.md`/`.mdx` files, each with YAML front matter (`title`,
`lang`, optional `tags`; the key names are corpus settings) or without: a page that does not
name its title takes its first heading's, else its file name; one that does not name its
language is in the corpus's `default_lang`. doc_id = path relative to the folder,
NFC-normalised. Text is NFC-normalised and a BOM stripped.

Bad input stops the stage with an error naming the file and line: not UTF-8, front matter
not closed or not a mapping, a title, language or tag of the wrong type, no language (none in
the front matter and no `default_lang`), a language the corpus does not declare
(`source.langs`), control characters in the text, an empty body, two files whose names
are one doc id once normalised, a file name with whitespace (a doc id is a field of TREC
run and qrels lines, which whitespace would break).

What it leaves out: questions (questions.py), BEIR's formats (beir.py), chunking and any
analysis of the text.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..artifacts.io import sha256_text, shown
from ..settings import PATH_PATTERN, setting

QUESTION_LANGS = ("en", "es", "cross")  # the KB's values: a question in English, in Spanish, or across the two
LANG_CODE_RE = re.compile(r"^(?:[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*|cross)$")
CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]")  # C0 but tab/newlines, DEL, C1
SURROGATE_RE = re.compile(r"[\ud800-\udfff]")  # only a JSON escape makes one: it is not text, UTF-8 cannot hold it
FRONT_MATTER_NODES, FRONT_MATTER_DEPTH = 10_000, 20  # what front matter may expand to (safe_yaml.py)


@dataclass(frozen=True)
class FieldNames:
    """The front-matter key of each document field (a corpus whose pages say `language:` sets lang)."""
    title: str = "title"
    lang: str = "lang"
    tags: str = "tags"


@dataclass(frozen=True)
class SourceSettings:
    """Where a corpus's documents and questions are, and how to read them (stages curate, questions)."""
    # folder: Markdown, text, HTML, Word and PDF files by extension (folder.py); markdown: Markdown only
    format: Literal["folder", "markdown", "beir", "squad"] = "folder"
    path: str = setting("kb/docs", min_length=1, pattern=PATH_PATTERN)  # folder, markdown: the docs folder; beir: its folder; squad: the JSON file
    glob: str = ""                                  # folder, markdown: which files under path are documents ("" = GLOBS)
    questions: str = setting("", pattern=PATH_PATTERN)  # folder, markdown: the questions file ("" = none yet: nothing to score)
    split: str = setting("test", min_length=1, pattern=PATH_PATTERN)  # beir only: qrels/<split>.tsv: judged queries
    strict_qrels: bool = False                      # beir only: qrels naming absent queries or documents are an error, not a warning
    train_split: str = setting("", pattern=PATH_PATTERN)  # beir only: qrels used for training pairs ("" = none)
    fields: FieldNames = FieldNames()
    default_lang: str = ""                          # used when a document has no lang field ("" = the field is required)
    langs: tuple[str, ...] = ()                     # the languages documents may declare (empty: any)
    questions_format: Literal["minirag", "gold_docs"] = "minirag"  # gold_docs: {qid, query, gold_docs}, no answers
    outside_links: Literal["refuse", "follow"] = "refuse"  # markdown: a symlink under path that leads out of it
    # allowed values of a question's lang; empty: any language code ("fr", "pt-BR") or "cross"
    question_langs: tuple[str, ...] = ()
    dev_docs: tuple[str, ...] = ()                  # squad only: the articles (titles) whose questions are the dev split

    # the keys only one format reads (settings.py: READS); any other is read by both
    READS = ("format", {"markdown": ("glob", "questions", "questions_format", "outside_links"),
                        "folder": ("glob", "questions", "questions_format", "outside_links"),
                        "beir": ("split", "strict_qrels", "train_split")})


GLOBS = {"folder": "**/*", "markdown": "**/*.md"}  # a source's files when its glob is not given
FOLDERS = tuple(GLOBS)  # the formats that read a folder of files (with a questions file of the project's format)


class CorpusError(ValueError):
    """Bad input; the message starts with the file (and line) it is about."""


def normalise(text: str) -> str:
    return unicodedata.normalize("NFC", text.lstrip("\ufeff"))


def split_front_matter(raw: str, where: str) -> tuple[dict, str, int]:
    """Return (front matter, body, line number where the body starts); a page that does not start with
    a '---' line has none ({}, the whole page, 1)."""
    lines = raw.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, raw, 1
    import yaml  # here: `search` and `answer` import this module for SourceSettings and never read YAML

    from ..artifacts.safe_yaml import load_yaml
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            try:
                text = "\n".join(lines[1:i])
                meta = load_yaml(text, where, FRONT_MATTER_NODES, FRONT_MATTER_DEPTH, first_line=2) or {}
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                line = mark.line + 2 if mark is not None else 1
                raise CorpusError(f"{where}:{line}: front matter is not valid YAML") from None
            if not isinstance(meta, dict):
                raise CorpusError(f"{where}:2: front matter must be a mapping of keys to values")
            return meta, "\n".join(lines[i + 1:]), i + 2
    raise CorpusError(f"{where}:1: front matter is not closed by a '---' line")


def key_line(raw: str, key: str) -> int:
    """The line of a front-matter key, for messages (1 when it is not written there)."""
    for n, line in enumerate(raw.split("\n")[1:], start=2):
        if line.strip() == "---":
            break
        if line.split(":")[0].strip() == key:
            return n
    return 1


def first_control(text: str) -> tuple[int, int, str] | None:
    """(line, column, character) of the first control character, or None."""
    m = CONTROL_RE.search(text)
    if m is None:
        return None
    line = text.count("\n", 0, m.start()) + 1
    return line, m.start() - text.rfind("\n", 0, m.start()), m.group()


def text_problem(text: str) -> str | None:
    """Why `text` is not clean text (a control character but tab and line breaks, a lone surrogate
    from a JSON escape such as \\ud800), or None."""
    m = CONTROL_RE.search(text) or SURROGATE_RE.search(text)
    if m is None:
        return None
    kind = "a lone surrogate" if SURROGATE_RE.match(m.group()) else "a control character"
    return f"{kind} U+{ord(m.group()):04X} at character {m.start()}"


def id_problem(value: str) -> str | None:
    """Why `value` cannot be an id (a document's or a question's): ids are fields of TREC run and
    qrels lines, which whitespace splits and control characters corrupt. None when it can."""
    if not value:
        return "an id cannot be empty"
    if re.search(r"\s", value):
        return f"{shown(value)} holds whitespace, which a TREC line cannot carry"
    problem = text_problem(value)
    return f"{shown(value)} holds {problem}" if problem else None


def path_doc_id(path: Path, root: Path) -> str:
    """A markdown document's id: its path under the source folder, NFC-normalised."""
    return unicodedata.normalize("NFC", path.relative_to(root).as_posix())


def checked_doc_id(path: Path, root: Path) -> str:
    doc_id = path_doc_id(path, root)
    if id_problem(doc_id):
        raise CorpusError(f"{path}: the file name holds whitespace or a control character, which a doc id in "
                          "TREC run and qrels lines cannot carry; rename the file")
    if "{" in doc_id or "}" in doc_id:
        raise CorpusError(f"{path}: the file name holds {{ or }}, which Snakemake reads as a wildcard in an "
                          "input path; rename the file")
    return doc_id


HEADING_RE = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)


def heading_title(body: str) -> str:
    """The text of the page's first ATX heading ("" when it has none)."""
    m = HEADING_RE.search(body)
    return m.group(1).strip() if m else ""


def read_markdown_doc(path: Path, root: Path, fields: dict, default_lang: str = "",
                      langs: tuple[str, ...] = ()) -> dict:
    doc_id = checked_doc_id(path, root)
    try:
        raw = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise CorpusError(f"{path}:{line}: not valid UTF-8 (byte {exc.start})") from None
    raw = normalise(raw).replace("\r\n", "\n")
    bad = first_control(raw)
    if bad:
        raise CorpusError(f"{path}:{bad[0]}:{bad[1]}: control character U+{ord(bad[2]):04X} in the text; "
                          "remove it (only tab and line breaks are allowed)")
    meta, body, body_line = split_front_matter(raw, str(path))
    where = lambda key: f"{path}:{key_line(raw, key)}"  # noqa: E731
    title = meta[fields["title"]] if fields["title"] in meta else heading_title(body) or path.stem
    if not isinstance(title, str) or not title.strip():
        raise CorpusError(f"{where(fields['title'])}: {fields['title']} must be a non-empty string, got {shown(title)} "
                          "(leave it out to take the first heading)")
    lang = meta.get(fields["lang"], default_lang or None)
    if not isinstance(lang, str) or not lang.strip():
        if fields["lang"] not in meta:
            raise CorpusError(f"{path}:1: no language: give the page a '{fields['lang']}' in its front matter, "
                              "or the corpus a source.default_lang")
        raise CorpusError(f"{where(fields['lang'])}: front matter has no '{fields['lang']}' string "
                          "(the language is required)")
    if langs and lang.strip() not in langs:
        raise CorpusError(f"{where(fields['lang'])}: {fields['lang']} {shown(lang)} is not a language of this corpus "
                          f"({', '.join(langs)}; source.langs)")
    tags = meta.get(fields["tags"], []) or []
    if isinstance(tags, str):
        tags = [tags]
    if not isinstance(tags, list) or not all(isinstance(t, str) and t.strip() for t in tags):
        raise CorpusError(f"{where(fields['tags'])}: {fields['tags']} must be a list of strings, got {shown(tags)}")
    if any(t != t.lower() for t in tags):
        raise CorpusError(f"{where(fields['tags'])}: {fields['tags']} must be lowercase, got {shown(tags)}")
    for key, value in ((fields["title"], title), (fields["lang"], lang), *((fields["tags"], t) for t in tags)):
        if text_problem(value):  # a YAML escape ("\x07", "\ud800") puts in what the raw text check cannot see
            raise CorpusError(f"{where(key)}: {key} holds {text_problem(value)}; remove it")
    body = body.strip("\n")
    if not body.strip():
        raise CorpusError(f"{path}:{body_line}: empty body")
    return {"doc_id": doc_id, "title": title.strip(), "lang": lang.strip(),
            "tags": [t.strip() for t in tags], "text": body, "sha256": sha256_text(body)}


def source_paths(root: str | Path, glob: str, outside_links: str = "refuse", warn=None) -> list[Path]:
    """The markdown files of a source folder, in the order documents are curated.

    A symlink is a document when it leads to a file inside the folder; one that leads out of it
    (a file or a folder elsewhere) is refused unless `outside_links` is "follow", so a corpus
    folder cannot quietly publish a file from elsewhere on the machine; a dangling one is
    skipped and named through `warn`."""
    root = Path(root)
    real_root = root.resolve()
    out = []
    for p in sorted(root.glob(glob)):
        if not p.exists():
            if p.is_symlink() and warn is not None:
                warn(f"warning: {p}: a dangling symlink (to {os.readlink(p)}); skipped")
            continue
        if not p.is_file():
            continue
        if outside_links != "follow" and not p.resolve().is_relative_to(real_root):
            raise CorpusError(f"{p}: a symlink leading out of the documents folder (to {p.resolve()}); move the "
                              "file into the folder, or set source.outside_links: follow")
        out.append(p)
    return out


def curate_markdown(root: str | Path, glob: str, fields: dict, default_lang: str = "",
                    langs: tuple[str, ...] = (), keep=None, outside_links: str = "refuse", warn=None) -> list[dict]:
    """Every document of the folder; with `keep`, only those whose id (path) it accepts (a shard)."""
    root = Path(root)
    if not root.is_dir():
        raise CorpusError(f"{root}: documents folder not found")
    paths = source_paths(root, glob, outside_links, warn)
    if not paths:
        raise CorpusError(f"{root}: no documents match {glob!r}")
    if keep is not None:
        paths = [p for p in paths if keep(path_doc_id(p, root))]
    docs = [read_markdown_doc(p, root, fields, default_lang, tuple(langs)) for p in paths]
    check_unique_ids(docs, [str(p) for p in paths])
    return docs


def check_unique_ids(docs: list[dict], where: list[str]) -> None:
    """No two records share a doc id; `where` names each record (a file, or file:line)."""
    seen: dict[str, int] = {}
    for i, d in enumerate(docs):
        if d["doc_id"] in seen:
            raise CorpusError(f"{where[i]}: duplicate doc id {d['doc_id']!r}, also the id of {where[seen[d['doc_id']]]} "
                              "(file names equal once NFC-normalised are one id)")
        seen[d["doc_id"]] = i
