"""The page `make report-html` opens on: each corpus's summary lines and figures, read from report.md."""

import base64

from minirag.report.landing import main, page, sections

REPORT = """# minirag report

Built by `snakemake` from `workflow/config.yaml`.

## Corpus `kb`

- Source: `kb` (markdown); 95 documents (en 48, es 47), 120,000 characters.
- Chunking: `tokens` (target 200 BPE tokens, overlap 20); 300 chunks.

![Retrievers <all>](kb/figures/summary-retrievers.png)

![Overlap](kb/figures/summary-overlap.png) ![Losses](kb/figures/summary-losses.png)

### Retrieval, chunk level

- a list item under a table is not a summary line
![a later figure](kb/figures/sweep.png)

Best retriever by chunk hit@5: `lexical`, hit@5 = 0.725 on 153 answerable questions.

## Corpus `mine`

- Source: `folder` (folder); 44 documents (en 44), **50,000** [characters](x.md) <b>.

## Assertions

- not a corpus's line
"""
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")


def test_each_corpus_has_its_overview_lines_best_retriever_and_summary_figures_only():
    kb, mine = sections(REPORT)
    assert (kb.name, mine.name) == ("kb", "mine")
    assert kb.lines == ["Source: `kb` (markdown); 95 documents (en 48, es 47), 120,000 characters.",
                        "Chunking: `tokens` (target 200 BPE tokens, overlap 20); 300 chunks.",
                        "Best retriever by chunk hit@5: `lexical`, hit@5 = 0.725 on 153 answerable questions."]
    assert [t for _, t in kb.figures] == ["kb/figures/summary-retrievers.png", "kb/figures/summary-overlap.png",
                                          "kb/figures/summary-losses.png"]
    assert mine.figures == [] and len(mine.lines) == 1


def test_the_page_embeds_the_figures_that_exist_and_escapes_the_report_text(tmp_path):
    (tmp_path / "kb" / "figures").mkdir(parents=True)
    for name in ("summary-retrievers", "summary-overlap"):  # losses not drawn: left out, as report.md would
        (tmp_path / "kb" / "figures" / f"{name}.png").write_bytes(PNG)
    report = tmp_path / "report.md"
    report.write_text(REPORT, encoding="utf-8")
    html = page(report, "report-workflow.html")
    assert html.count('src="data:image/png;base64,') == 2 and 'alt="Retrievers &lt;all&gt;"' in html
    assert "<li>Source: <code>folder</code> (folder); 44 documents (en 44), 50,000 characters &lt;b&gt;.</li>" in html
    assert html.index("Chunking:") < html.index("data:image/png") < html.index("Corpus <code>mine")
    assert '<a href="report.md">' in html and '<a href="report-workflow.html">' in html
    assert "not a corpus" not in html and "under a table" not in html


def test_the_command_writes_the_page_and_refuses_what_is_not_a_report(tmp_path, capsys):
    report = tmp_path / "report.md"
    report.write_text(REPORT, encoding="utf-8")
    assert main([str(report), str(tmp_path / "report.html")]) == 0
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == page(report, "report-workflow.html")
    report.write_text("# notes\n\n- a list\n", encoding="utf-8")
    assert main([str(report), str(tmp_path / "other.html")]) == 2
    assert "no '## Corpus' section" in capsys.readouterr().err and not (tmp_path / "other.html").exists()
    assert main([str(tmp_path / "missing.md"), str(tmp_path / "other.html")]) == 2
    assert "missing.md" in capsys.readouterr().err
