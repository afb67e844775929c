
import pytest

from minirag.text.corpus import CorpusError, curate_markdown

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


def test_a_page_naming_no_title_takes_its_first_heading_else_its_file_name(tmp_path):
    write(tmp_path / "t.md", doc(title=None, body="Intro line.\n\n## Error codes ##\n\n| Code | Meaning |"))
    write(tmp_path / "u.md", doc(title=None, body="No heading here."))
    (t, u) = curate_markdown(tmp_path, "**/*.md", FIELDS)
    assert (t["title"], u["title"]) == ("Error codes", "u")


def test_curate_rejects_empty_body(tmp_path):
    write(tmp_path / "e.md", doc(body="\n\n  \n"))
    with pytest.raises(CorpusError, match=r"e\.md:5: empty body"):
        curate_markdown(tmp_path, "**/*.md", FIELDS)


def test_a_page_without_front_matter_is_read_in_the_corpus_language(tmp_path):
    write(tmp_path / "n.md", "# No front matter\n\nSome text.\n")
    with pytest.raises(CorpusError, match=r"n\.md:1: no language: .*source\.default_lang"):
        curate_markdown(tmp_path, "**/*.md", FIELDS)
    (d,) = curate_markdown(tmp_path, "**/*.md", FIELDS, default_lang="en")
    assert (d["title"], d["lang"], d["tags"], d["text"]) == ("No front matter", "en", [], "# No front matter\n\nSome text.")
    write(tmp_path / "n.md", "--- not front matter\n# Title\n")  # a rule line that is not '---' is text
    assert curate_markdown(tmp_path, "**/*.md", FIELDS, default_lang="en")[0]["title"] == "Title"


def test_field_names_are_corpus_settings(tmp_path):
    write(tmp_path / "p.mdx", "---\ntitle: 页面\nlanguage: zh\n---\n正文")
    (d,) = curate_markdown(tmp_path, "**/*.mdx", {"title": "title", "lang": "language", "tags": "tags"})
    assert d["lang"] == "zh" and d["title"] == "页面"


@pytest.mark.parametrize("front, message", [
    ("title: A\nlang: en\ntags: 5", r"a\.md:4: tags must be a list of strings, got 5"),
    ("title: A\nlang: en\ntags: [verbs, 3]", r"a\.md:4: tags must be a list of strings"),
    ("title: A\nlang: en\ntags: [Verbs]", r"a\.md:4: tags must be lowercase"),
    ("title: 2024\nlang: en", r"a\.md:2: title must be a non-empty string, got 2024"),
    ("title: A\nlang: fr", r"a\.md:3: lang 'fr' is not a language of this corpus \(en, es; source.langs\)"),
    ("title: A\nlang: [en]", r"a\.md:3: front matter has no 'lang' string"),
])
def test_front_matter_values_are_type_checked_naming_file_and_line(tmp_path, front, message):
    write(tmp_path / "a.md", f"---\n{front}\n---\n# A\n\nBody.\n")
    with pytest.raises(CorpusError, match=message):
        curate_markdown(tmp_path, "**/*.md", FIELDS, langs=("en", "es"))


def test_control_characters_are_refused_naming_line_and_column(tmp_path):
    write(tmp_path / "a.md", "---\ntitle: A\nlang: en\n---\n# A\n\nBo\x00dy.\n")
    with pytest.raises(CorpusError, match=r"a\.md:7:3: control character U\+0000"):
        curate_markdown(tmp_path, "**/*.md", FIELDS)


def test_file_names_are_nfc_normalised_and_two_spellings_of_one_name_are_refused(tmp_path):
    write(tmp_path / "caf\u00e9.md", "---\ntitle: A\nlang: es\n---\nUno.\n")
    write(tmp_path / "cafe\u0301.md", "---\ntitle: B\nlang: es\n---\nDos.\n")
    with pytest.raises(CorpusError, match=r"duplicate doc id 'caf\u00e9\.md', also the id of"):
        curate_markdown(tmp_path, "**/*.md", FIELDS)


def test_a_file_name_with_whitespace_is_refused_as_a_doc_id(tmp_path):
    write(tmp_path / "my page.md", "---\ntitle: A\nlang: en\n---\nText.\n")
    with pytest.raises(CorpusError, match=r"my page\.md: the file name holds whitespace"):
        curate_markdown(tmp_path, "**/*.md", FIELDS)
