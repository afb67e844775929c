"""Files as users keep them, converted to Markdown: HTML and Word read with the standard library, PDF with
pypdf page by page, plain text as it is; a folder of them curated with languages detected and a cache."""

import hashlib
import shutil
from pathlib import Path

import pytest

from minirag.text.convert import ConversionError, convert, source_version
from minirag.text.convert.html import to_markdown as html_md
from minirag.text.convert.pdf import markdown_of
from minirag.text.corpus import CorpusError, FieldNames
from minirag.text.folder import curate_folder
from minirag.text.language import detect

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "folder"
FIELDS = FieldNames().__dict__


def test_a_saved_page_keeps_its_main_text_headings_lists_and_tables_and_drops_the_rest():
    title, md = html_md((FOLDER / "support.html").read_text(encoding="utf-8"))
    assert title == "Support | Arlen Bikes"
    assert md.startswith("# Support\n\nBefore you call us")
    assert "## Folding the bike\n\n1. Lower the saddle fully.\n2. Open the frame latch." in md
    assert "- a 5 mm hex key" in md
    for gone in ("Newsletter", "All rights reserved", "dataLayer", "Bikes", "Imprint"):  # nav, aside, footer, script
        assert gone not in md, gone
    _, colours = html_md((FOLDER / "colours.htm").read_text(encoding="utf-8"))
    assert "| Colour | Code |\n|---|---|\n| Slate grey | SG |" in colours


def test_html_without_main_nested_lists_and_unclosed_tags():
    _, md = html_md("<p>One<p>Two &amp; three<ul><li>a<li>b<ul><li>c</ul></ul><script>x()</script>")
    assert md == "One\n\nTwo & three\n\n- a\n- b\n  - c"


def test_a_word_file_keeps_headings_by_style_name_list_items_and_tables():
    done = convert(FOLDER / "owner-handbook.docx")
    md = done.pages[0]
    assert done.title == "Arlen C3 owner's handbook"
    assert "# Charging\n\nUse only the supplied 4 A charger.\n\nA full charge takes 4.5 hours" in md
    assert "- Switch on the display\n- Choose an assist level" in md
    assert "## Assist levels\n\n| Level | Range |\n|---|---|\n| Eco | 110 km |" in md


def test_a_pdf_gives_a_text_per_page_and_its_columns_as_a_table():
    pytest.importorskip("pypdf")
    done = convert(FOLDER / "service-manual.pdf")
    assert done.kind == "pdf" and done.title == "Arlen C3 service manual" and len(done.pages) == 3
    assert done.pages[1].startswith("2 Spare parts")
    assert "| Part | Part number | Price (EUR) |\n|---|---|---|\n| Battery pack 500 Wh | AC3-101 | 489.00 |" in done.pages[1]
    assert "check the speed sensor magnet" in done.pages[2]


def test_layout_lines_become_a_table_only_where_rows_share_their_columns():
    lines = ["Heading", "", "Name     Price", "Lid      6.90", "", "A sentence with  two spaces."]
    assert markdown_of(lines) == "Heading\n\n| Name | Price |\n|---|---|\n| Lid | 6.90 |\n\nA sentence with two spaces."


def test_a_text_files_column_table_under_a_rule_of_dashes_becomes_a_pipe_table(tmp_path):
    page = tmp_path / "codes.txt"
    page.write_text("STATUS CODES\n\nCode  Meaning                What to do\n----  ---------------------  ----------\n"
                    "W01   No cable               Plug it in.\n"
                    "                             Then restart.\n"
                    "W02   No address             Restart the modem.\n\nAfter the table.\n", encoding="utf-8")
    assert convert(page).pages[0] == ("STATUS CODES\n\n| Code | Meaning | What to do |\n|---|---|---|\n"
                                      "| W01 | No cable | Plug it in. Then restart. |\n| W02 | No address | Restart the modem. |"
                                      "\n\nAfter the table.")


def test_a_column_table_whose_row_splits_a_word_at_a_column_is_left_as_written(tmp_path):
    text = "Code  Meaning\n----  -------\nW01   No cable\nLongword here\n"
    page = tmp_path / "codes.txt"
    page.write_text(text, encoding="utf-8")
    assert convert(page).pages[0] == text.strip("\n")


def test_a_file_that_is_not_what_its_name_says_is_refused_naming_it(tmp_path):
    bad = tmp_path / "broken.docx"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ConversionError, match=r"broken\.docx: not a readable \.docx"):
        convert(bad)
    latin = tmp_path / "notes.txt"
    latin.write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(ConversionError, match=r"notes\.txt:1: not valid UTF-8"):
        convert(latin)


def test_the_language_is_told_from_function_words_or_not_at_all():
    assert detect("The battery is guaranteed for two years or 500 charge cycles, whichever comes first.") == "en"
    assert detect("La batería tiene una garantía de dos años o de 500 ciclos de carga en total.") == "es"
    assert detect("Die Batterie hat eine Garantie von zwei Jahren und ist für den Alltag gemacht.") == "de"
    assert detect("| Eco | 110 km |") is None


def test_a_folder_as_it_is_gives_one_document_per_file_and_per_pdf_page(tmp_path):
    pytest.importorskip("pypdf")
    warnings = []
    docs = curate_folder(FOLDER, "**/*", FIELDS, warn=warnings.append, cache=tmp_path / "converted")
    ids = {d["doc_id"]: d for d in docs}
    assert {"service-manual.pdf#page=2", "support.html", "owner-handbook.docx", "notes-ride.txt", "bell.md",
            "faq/q1.md"} <= set(ids)
    page = ids["service-manual.pdf#page=2"]
    digest = hashlib.sha256((FOLDER / "service-manual.pdf").read_bytes()).hexdigest()
    assert page["source"] == {"file": "service-manual.pdf", "sha256": digest, "kind": "pdf", "page": 2}
    assert page["title"] == "Arlen C3 service manual · page 2"
    assert {d["lang"] for d in docs} == {"en"}  # the table page, too short to tell, takes the corpus's language
    assert ids["bell.md"]["title"] == "The bell" and "source" not in ids["bell.md"]  # no front matter: its heading
    assert warnings == ["warning: " + str(FOLDER) + ": 2 file(s) of no supported kind skipped (.png, .xlsx): "
                        "photo.png, prices.xlsx"]
    assert len(docs) == 44


def test_a_changed_file_is_converted_again_and_only_it(tmp_path, monkeypatch):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("support.html", "owner-handbook.docx", "notes-ride.txt"):
        shutil.copy(FOLDER / name, folder / name)
    cache = tmp_path / "converted"
    first = curate_folder(folder, "**/*", FIELDS, warn=lambda m: None, cache=cache)
    import minirag.text.folder as folder_module
    converted = []
    real = folder_module.convert
    monkeypatch.setattr(folder_module, "convert", lambda p: converted.append(p.name) or real(p))
    assert curate_folder(folder, "**/*", FIELDS, warn=lambda m: None, cache=cache) == first and converted == []
    (folder / "notes-ride.txt").write_text("Notes\n\nThe bell rings twice as loud as the old one did.\n",
                                           encoding="utf-8")
    again = curate_folder(folder, "**/*", FIELDS, warn=lambda m: None, cache=cache)
    assert converted == ["notes-ride.txt"] and again[1:] == first[1:] and again[0] != first[0]
    monkeypatch.setattr(folder_module, "VERSION", "other-code")  # the converters changed: nothing cached is reused
    converted.clear()
    assert curate_folder(folder, "**/*", FIELDS, warn=lambda m: None, cache=cache) == again
    assert sorted(converted) == ["notes-ride.txt", "owner-handbook.docx", "support.html"]


def test_the_cache_version_changes_with_any_converters_source(tmp_path):
    import minirag.text.convert as convert_package
    package = Path(convert_package.__file__).parent
    assert convert_package.VERSION == source_version(package)
    copy = tmp_path / "convert"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert source_version(copy) == convert_package.VERSION
    (copy / "text.py").write_text((copy / "text.py").read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert source_version(copy) != convert_package.VERSION


def test_a_scan_is_skipped_with_a_warning_and_an_empty_folder_is_refused(tmp_path):
    (tmp_path / "blank.txt").write_text("\n\n", encoding="utf-8")
    (tmp_path / "page.md").write_text("# Page\n\nThe text of the page is here for the reader.\n", encoding="utf-8")
    warnings = []
    docs = curate_folder(tmp_path, "**/*", FIELDS, warn=warnings.append)
    assert [d["doc_id"] for d in docs] == ["page.md"] and "blank.txt: no text to read" in warnings[0]
    with pytest.raises(CorpusError, match="no documents match"):
        curate_folder(tmp_path, "**/*.pdf", FIELDS, warn=warnings.append)


def test_without_the_documents_extra_a_pdf_stops_the_build_with_one_line_naming_it(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "pypdf", None)  # as if it were not installed
    with pytest.raises(ConversionError, match=r"service-manual\.pdf: reading PDF files needs pypdf: pip install -e "
                                              r"'\.\[documents\]'"):
        convert(FOLDER / "service-manual.pdf")
