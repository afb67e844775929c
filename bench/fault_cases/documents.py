"""Documents: a markdown corpus whose files misuse every field of the front matter, the text,
the file names and the links, given to the curate stage as a rule runs it."""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

from fault_harness import CURATE, Case, Edit, accepted, curate, refused, stage

BOMB = "\n".join(["a0: &a0 [x, x, x, x, x, x, x, x, x]"] + [
    f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)])
GOOD = "title: T\nlang: en"


def document(front: str | None, body: str = "# T\n\nText.\n", name: str = "zz-bad.md", raw: bytes | None = None,
             needle: str | None = None, settings: dict | None = None, ok: bool = False):
    """A document `name` added to the fixture's docs for one curate run: refused naming it (and
    `needle`), or, with ok, accepted; nothing written when refused."""
    def check(project: Path) -> tuple[bool, str]:
        path = project / "fixture/docs/en" / name
        out = project / "scratch/docs.jsonl"
        out.unlink(missing_ok=True)
        with Edit(path):
            path.write_bytes(raw if raw is not None else (f"---\n{front}\n---\n{body}" if front is not None
                                                          else body).encode())
            proc = curate(project, settings=settings, mem_mb=2048, timeout=120)
        if ok:
            return accepted(proc)
        held, said = refused(proc, *(n for n in (needle or name.split("/")[-1],) if n))
        return held and not out.exists(), said
    return check


def linked(target: str, name: str = "zz-link.md", settings: dict | None = None, expect: str = "refused",
           needle: str = "zz-link.md"):
    """A symlink in the corpus to `target` (relative to the project; a path that need not exist)."""
    def check(project: Path) -> tuple[bool, str]:
        link = project / "fixture/docs/en" / name
        outside = project / "scratch/outside.md"
        outside.write_text("---\ntitle: Outside\nlang: en\n---\n# Outside\n\nNot in the corpus.\n")
        with Edit(link):
            os.symlink(target if target.startswith("/") else project / target, link)
            proc = curate(project, settings=settings)
        if expect == "refused":
            return refused(proc, needle, "symlink")
        held, said = accepted(proc)
        if expect == "named":
            return held and needle in proc.stderr and "dangling" in proc.stderr, said + "; named on stderr"
        return held, said
    return check


def folder_link(glob: str):
    """A symlinked folder under the corpus that leads outside it: `**` does not descend into it (its
    files are not documents); a glob naming it finds them, and they are refused."""
    def check(project: Path) -> tuple[bool, str]:
        outside = project / "scratch/outside-dir"
        outside.mkdir(exist_ok=True)
        (outside / "x.md").write_text("---\ntitle: X\nlang: en\n---\n# X\n\nOutside.\n")
        link = project / "fixture/docs/en/sub"
        out = project / "scratch/docs.jsonl"
        with Edit(link):
            os.symlink(outside, link)
            proc = stage(project, "curate", "--settings", json.dumps(CURATE), "--source", "fixture/docs", "--glob",
                         glob, "--out", str(out))
        if glob.startswith("**"):
            held, said = accepted(proc)
            return held and "sub/x.md" not in out.read_text(), said + "; the folder not followed"
        return refused(proc, "x.md", "symlink")
    return check


def fifo(project: Path) -> tuple[bool, str]:
    """A FIFO named like a document: never opened (it would block the stage forever)."""
    path = project / "fixture/docs/en/zz-fifo.md"
    with Edit(path):
        os.mkfifo(path)
        return accepted(curate(project, timeout=60), "skipped, no hang")


def nfc_twins(project: Path) -> tuple[bool, str]:
    """Two files whose names are one doc id once NFC-normalised."""
    a = project / "fixture/docs/en" / unicodedata.normalize("NFC", "café.md")
    b = project / "fixture/docs/en" / unicodedata.normalize("NFD", "café.md")
    with Edit(a), Edit(b):
        for p in (a, b):
            p.write_text("---\ntitle: C\nlang: en\n---\n# C\n\nText.\n")
        return refused(curate(project), "duplicate doc id")


def no_match(project: Path) -> tuple[bool, str]:
    (project / "scratch/empty").mkdir(exist_ok=True)
    return refused(curate(project, source="scratch/empty"), "no documents")


def cases() -> list[Case]:
    g = "documents"
    c = [Case(name, g, check) for name, check in [
        ("tags: 5", document(GOOD + "\ntags: 5")),
        ("tags: [verbs, 3]", document(GOOD + "\ntags: [verbs, 3]")),
        ("tags: {a: 1}", document(GOOD + "\ntags: {a: 1}")),
        ("tags uppercase", document(GOOD + "\ntags: [Verbs]")),
        ("lang: fr (not declared)", document("title: T\nlang: fr")),
        ("lang: [en]", document("title: T\nlang: [en]")),
        ("lang missing", document("title: T")),
        ("title: 2024", document("title: 2024\nlang: en")),
        ("title empty", document("title: ''\nlang: en")),
        ("title a list", document("title: [a, b]\nlang: en")),
        ("title missing: the first heading's", document("lang: en", ok=True)),
        ("alias bomb in tags", document(GOOD + "\n" + BOMB + "\ntags: *a8", needle="alias bomb")),
        ("alias bomb in title", document("lang: en\n" + BOMB + "\ntitle: *a8", needle="alias bomb")),
        ("alias bomb in lang", document("title: T\n" + BOMB + "\nlang: *a8", needle="alias bomb")),
        ("alias bomb in an unknown key", document(GOOD + "\n" + BOMB + "\nextra: *a8", needle="alias bomb")),
        ("recursive alias", document(GOOD + "\ntags: &a [x, *a]", needle="recursive")),
        ("front matter nested 20,000 deep", document(GOOD + "\ntags: " + "[" * 20000 + "]" * 20000,
                                                     needle="zz-bad.md:4")),
        ("front matter not valid YAML", document(GOOD + "\ntags: [a, b", needle="not valid YAML")),
        ("front matter a list", document("- a\n- b", needle="mapping")),
        ("front matter not closed", document(None, body="---\ntitle: T\nlang: en\n# T\n\nText.\n")),
        ("no front matter, no default_lang", document(None, body="# T\n\nText.\n", needle="default_lang")),
        ("no front matter: the corpus's default_lang", document(None, body="# T\n\nText.\n", ok=True,
                                                                  settings={"default_lang": "en"})),
        ("a YAML tag that runs code", document(GOOD + '\ntags: !!python/object/apply:os.system ["touch PWNED"]')),
        ("empty body", document(GOOD, body="")),
        ("blank body", document(GOOD, body="\n  \n\t\n")),
        ("NUL in the text", document(GOOD, body="# T\n\nA\x00B.\n", needle="U+0000")),
        ("ESC in the text", document(GOOD, body="# T\n\nA\x1b[31mB.\n", needle="U+001B")),
        ("DEL in the text", document(GOOD, body="# T\n\nA\x7fB.\n", needle="U+007F")),
        ("C1 control in the text", document(GOOD, body="# T\n\nA\x85B.\n", needle="U+0085")),
        ("control character in the title (a YAML escape)", document('title: "A\\x07B"\nlang: en', needle="U+0007")),
        ("lone surrogate in a tag (a YAML escape)", document(GOOD + '\ntags: ["a\\ud800"]', needle="surrogate")),
        ("not UTF-8", document(None, raw=b"---\ntitle: T\nlang: en\n---\n# T\n\ncaf\xe9\n", needle="UTF-8")),
        ("UTF-16 with a BOM", document(None, raw="---\ntitle: T\nlang: en\n---\n# T\n".encode("utf-16"),
                                       needle="UTF-8")),
        ("a file name with a space", document(GOOD, name="zz bad.md", needle="whitespace")),
        ("a file name with a tab", document(GOOD, name="zz\tbad.md", needle="whitespace")),
        ("a file name with a newline", document(GOOD, name="zz\nbad.md", needle="whitespace")),
        ("a file name with an ESC", document(GOOD, name="zz\x1bbad.md", needle="control character")),
        ("a file name with {braces} (a wildcard to Snakemake)", document(GOOD, name="zz{IFS}.md", needle="wildcard")),
        ("two names, one id once NFC", nfc_twins),
        ("symlink leading out of the corpus", linked("scratch/outside.md")),
        ("symlink to /etc/passwd", linked("/etc/passwd")),
        ("symlinked folder leading out, **/*.md", folder_link("**/*.md")),
        ("symlinked folder leading out, named by the glob", folder_link("en/sub/*.md")),
        ("symlink leading out, outside_links: follow", linked("scratch/outside.md",
                                                              settings={"outside_links": "follow"}, expect="ok")),
        ("symlink within the corpus", linked("fixture/docs/en/index.md", expect="ok")),
        ("dangling symlink (named, skipped)", linked("scratch/nowhere.md", expect="named")),
        ("symlink loop (named, skipped)", linked("fixture/docs/en/zz-link.md", expect="named")),
        ("a FIFO named .md", fifo),
        ("UTF-8 BOM (accepted)", document(None, raw=b"\xef\xbb\xbf---\ntitle: T\nlang: en\n---\n# T\n\nText.\n",
                                          ok=True)),
        ("CRLF line ends (accepted)", document(None, raw=b"---\r\ntitle: T\r\nlang: en\r\n---\r\n# T\r\n\r\nText.\r\n",
                                               ok=True)),
    ]]
    c += [Case(name, g, check) for name, check in [
        ("front matter: lang twice", document("title: T\nlang: en\nlang: es", needle="duplicate key 'lang'")),
        ("front matter: title twice, nested", document("title: T\nlang: en\nextra: {a: 1, a: 2}",
                                                       needle="duplicate key 'a'")),
        ("one word of 1 MB", document("title: T\nlang: en", body="# T\n\n" + "a" * (1 << 20) + "\n", ok=True)),
    ]]
    c.append(Case("no documents match", g, no_match))
    c.append(Case("documents folder missing", g, lambda p: refused(curate(p, source="nowhere"), "nowhere")))
    return c
