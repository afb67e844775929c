"""A folder as it is -> documents: Markdown as written, and text, HTML, Word and PDF files converted.

    curate_folder("manuals/", "**/*", FieldNames().__dict__, cache=Path("results/c/cache/convert"))
    -> [{"doc_id": "intro.md", ...},
        {"doc_id": "manual.pdf#page=3", "title": "Kestrel manual · page 3", "text": "...",
         "source": {"file": "manual.pdf", "sha256": "…", "kind": "pdf", "page": 3}}, ...]

Markdown files are read as the markdown source reads them (corpus.py: front matter optional). Every
other supported file (convert/) becomes Markdown: its title is the one the file names (an HTML
<title>, a Word heading, PDF metadata), else its first heading, else the file name; its language is
detected from its words (language.py), else the corpus's default_lang, else "und". A PDF gives one
document per page with text. Files of no supported kind are named in one warning line and skipped;
a converted file with no text (a scanned PDF) gets its own warning line.

What each file became is in docs.jsonl (with the source file's sha256); the conversion of each file is
cached under `cache` by the sha256 of its bytes, so a changed PDF re-converts only itself.

What it leaves out: archives (a .zip is not opened), spreadsheets and slides.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..artifacts.io import sha256_text, write_json
from .convert import KINDS, VERSION, ConversionError, Converted, convert, kind_of
from .corpus import (
    CorpusError,
    check_unique_ids,
    checked_doc_id,
    heading_title,
    normalise,
    path_doc_id,
    read_markdown_doc,
    source_paths,
    text_problem,
)
from .language import detect

MARKDOWN = (".md", ".markdown")
UNDETERMINED = "und"  # ISO 639-2's code for a language that cannot be told


def cached_convert(path: Path, digest: str, cache: Path | None) -> Converted:
    """The file's conversion, from the cache when its bytes were converted before by this code (VERSION)."""
    entry = cache / f"{digest}.v{VERSION}.json" if cache is not None else None
    if entry is not None and entry.is_file():
        rec = json.loads(entry.read_text(encoding="utf-8"))
        return Converted(rec["kind"], rec["title"], rec["pages"])
    try:
        done = convert(path)
    except ConversionError as exc:
        raise CorpusError(str(exc)) from None
    if entry is not None:
        entry.parent.mkdir(parents=True, exist_ok=True)
        write_json(entry, {"kind": done.kind, "title": done.title, "pages": done.pages})
    return done


def converted_docs(path: Path, root: Path, default_lang: str, langs: tuple[str, ...], cache: Path | None,
                   warn) -> list[dict]:
    doc_id = checked_doc_id(path, root)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    done = cached_convert(path, digest, cache)
    texts = [normalise(t).strip("\n") for t in done.pages]
    if not any(t.strip() for t in texts):
        warn(f"warning: {path}: no text to read (a scanned PDF or an empty file); skipped")
        return []
    base = (done.title or heading_title(texts[0]) or path.stem).strip()
    docs = []
    for n, text in enumerate(texts, start=1):
        if not text.strip():
            continue
        if (problem := text_problem(text)):
            raise CorpusError(f"{path}: its text holds {problem}")
        lang = language_of(text, default_lang, langs)
        paged = done.kind == "pdf"
        docs.append({"doc_id": f"{doc_id}#page={n}" if paged else doc_id,
                     "title": f"{base} · page {n}" if paged else base, "lang": lang, "tags": [], "text": text,
                     "sha256": sha256_text(text),
                     "source": {"file": doc_id, "sha256": digest, "kind": done.kind, **({"page": n} if paged else {})}})
    return docs


def is_document(path: Path) -> bool:
    """A file the folder source reads: Markdown or a kind it converts, not hidden."""
    return (path.suffix.lower() in MARKDOWN or kind_of(path) is not None) and not path.name.startswith(".")


def holds_documents(root: str | Path, glob: str, any_kind: bool = False) -> bool:
    """Whether any file under `root` that `glob` matches is one curate reads (`any_kind`: any file),
    stopping at the first: the workflow refuses a folder without one before any job clears the last build."""
    return any((any_kind or is_document(p)) and p.is_file() for p in Path(root).glob(glob))


def curate_folder(root: str | Path, glob: str, fields: dict, default_lang: str = "", langs: tuple[str, ...] = (),
                  keep=None, outside_links: str = "refuse", warn=print, cache: Path | None = None) -> list[dict]:
    """Every document of the folder (module docstring); with `keep`, only the files whose id it accepts."""
    root = Path(root)
    if not root.is_dir():
        raise CorpusError(f"{root}: documents folder not found")
    paths = [p for p in source_paths(root, glob, outside_links, warn) if not p.name.startswith(".")]
    readable = [p for p in paths if is_document(p)]
    skipped = sorted({p.suffix.lower() or "(no extension)" for p in paths} - set(MARKDOWN) - set(KINDS))
    if skipped:
        names = [str(p.relative_to(root)) for p in paths if p not in readable]
        warn(f"warning: {root}: {len(names)} file(s) of no supported kind skipped ({', '.join(skipped)}): "
             f"{', '.join(names[:5])}{' …' if len(names) > 5 else ''}")
    if not readable:
        raise CorpusError(f"{root}: no documents match {glob!r} (Markdown, text, HTML, Word or PDF files)")
    if keep is not None:
        readable = [p for p in readable if keep(path_doc_id(p, root))]
    docs = []
    for p in readable:
        if p.suffix.lower() in MARKDOWN:
            docs.append(read_markdown_doc(p, root, fields, default_lang or language_of(readable_text(p), "", langs),
                                          langs))
        else:
            docs += converted_docs(p, root, default_lang, tuple(langs), cache, warn)
    check_unique_ids(docs, [d.get("source", {}).get("file", d["doc_id"]) for d in docs])
    if not default_lang:
        settle_languages(docs)
    return docs


def language_of(text: str, default_lang: str, langs: tuple[str, ...]) -> str:
    """The corpus's default_lang when it sets one; else the detected language when the corpus allows it
    (source.langs), else the corpus's first language, else UNDETERMINED (settled by `settle_languages`)."""
    if default_lang:
        return default_lang
    found = detect(text)
    if found and (not langs or found in langs):
        return found
    return langs[0] if langs else UNDETERMINED


def settle_languages(docs: list[dict]) -> None:
    """A document too short to tell (a page holding a table) takes the corpus's commonest detected language."""
    counts: dict[str, int] = {}
    for d in docs:
        if d["lang"] != UNDETERMINED:
            counts[d["lang"]] = counts.get(d["lang"], 0) + 1
    if counts:
        common = max(sorted(counts), key=lambda k: counts[k])
        for d in docs:
            if d["lang"] == UNDETERMINED:
                d["lang"] = common


def readable_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return ""  # read_markdown_doc names the problem
