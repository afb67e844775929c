"""A folder as users keep it (Markdown with and without front matter, text, saved web pages, text PDFs,
Word files, and files minirag does not read), with nothing but `source.path` in the config: it builds,
cites a PDF by its page, a web page and a Word file, and says which files it skipped."""

import json
import shutil
import sys
from pathlib import Path

import pytest
from support.project import REPO, copy_built, copy_project, run, snakemake

pytestmark = pytest.mark.workflow
pytest.importorskip("pypdf")
VENV = Path(sys.executable).parent.parent

CONFIG = """\
build: [bike]
corpora:
  bike:
    source: {path: folder}
"""


@pytest.fixture(scope="module")
def bike(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("bike"))
    shutil.copytree(REPO / "tests" / "fixtures" / "folder", project / "folder")
    (project / "bike.yaml").write_text(CONFIG, encoding="utf-8")
    snakemake(project, "results/bike.md", configfile="bike.yaml")
    return project


def ask(project, query: str) -> dict:
    out = run([sys.executable, "-m", "minirag", "answer", query, "--corpus", "bike", "--configfile", "bike.yaml",
               "--json"], project)
    return json.loads(out.stdout)


def test_every_kind_of_file_is_a_document_and_the_others_are_named_once(bike):
    docs = [json.loads(line) for line in (bike / "results" / "bike" / "docs.jsonl").read_text().splitlines()]
    kinds = {d.get("source", {}).get("kind", "markdown") for d in docs}
    assert kinds == {"markdown", "text", "html", "docx", "pdf"} and len(docs) == 44
    log = (bike / "results" / "bike" / "logs" / "curate.log").read_text(encoding="utf-8")
    assert log.count("no supported kind skipped (.png, .xlsx): photo.png, prices.xlsx") == 1


def test_answers_cite_the_word_file_the_web_page_and_the_pdf_page(bike):
    said = ask(bike, "How long does a full charge take?")
    assert said["answer"].startswith("4.5 hours") and said["citations"][0]["doc_id"] == "owner-handbook.docx"
    said = ask(bike, "What size hex key is in the box?")
    assert "5 mm" in said["answer"] and said["citations"][0]["doc_id"] == "support.html"
    said = ask(bike, "How long is the frame guaranteed?")
    assert said["answer"].startswith("ten years") and said["citations"][0]["doc_id"] == "warranty.pdf#page=1"
    found = ask(bike, "How much does a replacement battery pack cost?")["retrieved"]
    assert found[0]["doc_id"] == "service-manual.pdf#page=2" and "| Battery pack 500 Wh | AC3-101 | 489.00 |" in \
        found[0]["text"]


def test_an_abstention_says_why(bike):
    said = ask(bike, "How do I sync my rides with Strava?")  # the documents never name it
    assert said["abstained"] and said["why"] == "the documents never name Strava", said
    assert "why" not in ask(bike, "How long does a full charge take?")
    printed = run([sys.executable, "-m", "minirag", "answer", "How do I sync my rides with Strava?", "--corpus", "bike",
                   "--configfile", "bike.yaml"], bike).stdout
    assert printed.splitlines()[1] == "  (why: the documents never name Strava)", printed


def test_the_conversions_are_byte_identical_across_two_clean_builds(bike, tmp_path):
    again = copy_project(tmp_path)
    shutil.copytree(REPO / "tests" / "fixtures" / "folder", again / "folder")
    (again / "bike.yaml").write_text(CONFIG, encoding="utf-8")
    snakemake(again, "results/bike/docs.jsonl", configfile="bike.yaml")
    assert (again / "results/bike/docs.jsonl").read_bytes() == (bike / "results/bike/docs.jsonl").read_bytes()
    assert sorted(p.name for p in (again / "results/bike/converted").iterdir()) == \
        sorted(p.name for p in (bike / "results/bike/converted").iterdir())


def test_a_broken_config_leaves_the_built_corpus_answering(bike, tmp_path):
    """A rebuild with a folder that is not there is refused before any job runs, so Snakemake never clears the
    documents of the build that works; `answer` goes on citing it."""
    project = copy_built(bike, tmp_path / "p")
    (project / "bike.yaml").write_text(CONFIG.replace("path: folder", "path: folderr"), encoding="utf-8")
    shutil.copy2(REPO / "pyproject.toml", project)  # what make's .venv/.installed target depends on
    make = ["make", "-s", "-f", str(REPO / "Makefile"), "build", "CONFIG=bike.yaml", f"VENV={VENV}", "CORES=1"]
    for proc in (snakemake(project, "results/bike.md", configfile="bike.yaml", check=False),
                 run(make, project, check=False)):
        assert proc.returncode != 0 and "corpora.bike.source.path: folderr not found" in proc.stderr
    # a folder that is there but holds nothing curate reads (an image, a hidden file) is refused the same way
    (project / "empty").mkdir()
    (project / "empty" / "photo.png").write_bytes(b"\x89PNG")
    (project / "empty" / ".notes.md").write_text("# hidden\n", encoding="utf-8")
    (project / "bike.yaml").write_text(CONFIG.replace("path: folder", "path: empty"), encoding="utf-8")
    proc = snakemake(project, "results/bike.md", configfile="bike.yaml", check=False)
    assert proc.returncode != 0 and "corpora.bike.source.path: empty holds no document minirag reads" in proc.stderr
    assert (project / "results/bike/docs.jsonl").read_bytes() == (bike / "results/bike/docs.jsonl").read_bytes()
    (project / "bike.yaml").write_text(CONFIG, encoding="utf-8")
    said = ask(project, "What size hex key is in the box?")
    assert "5 mm" in said["answer"] and said["citations"][0]["doc_id"] == "support.html"
