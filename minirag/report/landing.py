"""The page `make report-html` opens on: each corpus's summary lines and figures, read from report.md.

    python -m minirag.report.landing results/report.md results/report.html --workflow report-workflow.html

For each `## Corpus` section of the report: its overview bullets and its best-retriever line, then the
figures it shows before its first `###` table (its summary figures, embedded as data URIs so the page
is one file); then links to report.md (every table) and to Snakemake's own HTML report of the
build (the workflow diagram, every file with its provenance, runtimes). Snakemake's report opens on
its workflow diagram, and the landing text it offers (`--report-metadata`) cannot hold figures.

What it leaves out: computing anything (the lines and figures are the report's own, so the two
cannot disagree) and styling beyond a few lines of CSS.
"""

from __future__ import annotations

import argparse
import base64
import html
import re
import sys
from pathlib import Path

from ..artifacts.io import atomic_write_text, read_text

CORPUS_RE = re.compile(r"^## Corpus `([^`]+)`\s*$")
IMAGE_RE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
LINK_RE = re.compile(r"\[([^\]]+)\]\([^)]*\)")
CODE_RE = re.compile(r"`([^`]+)`")
STYLE = ("body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#222}"
         "img{width:48%;margin:0 1% 1rem 0;vertical-align:top}ul+img{display:block;width:60%}"
         "code{background:#f3f3f3;padding:0 .2em}")


class Section:
    """One corpus's part of the page: its summary figures (paths relative to the report) and lines."""

    def __init__(self, name: str):
        self.name, self.figures, self.lines, self.in_tables = name, [], [], False


def sections(report_md: str) -> list[Section]:
    out: list[Section] = []
    current: Section | None = None
    for line in report_md.splitlines():
        if m := CORPUS_RE.match(line):
            current = Section(m.group(1))
            out.append(current)
        elif line.startswith("## "):
            current = None
        elif current is None:
            continue
        elif line.startswith("### "):
            current.in_tables = True
        elif line.startswith("- ") and not current.in_tables:
            current.lines.append(line[2:])
        elif line.startswith("Best retriever by "):
            current.lines.append(line)
        elif not current.in_tables:
            current.figures += IMAGE_RE.findall(line)
    return out


def inline(text: str) -> str:
    """A Markdown line's text as HTML: escaped, `code` kept, a link's text without its target, no bold."""
    text = html.escape(LINK_RE.sub(r"\1", text).replace("**", ""), quote=False)
    return CODE_RE.sub(r"<code>\1</code>", text)


def data_uri(path: Path) -> str:
    kind = {".png": "image/png", ".svg": "image/svg+xml"}.get(path.suffix.lower(), "application/octet-stream")
    return f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def page(report: Path, workflow: str) -> str:
    parts = [f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>minirag report</title>"
             f"<style>{STYLE}</style></head><body><h1>minirag report</h1>"]
    found = sections(read_text(report))
    if not found:
        raise ValueError(f"{report}: no '## Corpus' section; is it a minirag report?")
    for s in found:
        parts.append(f"<h2>Corpus <code>{html.escape(s.name)}</code></h2>")
        parts.append("<ul>" + "".join(f"<li>{inline(line)}</li>" for line in s.lines) + "</ul>")
        for alt, target in s.figures:
            figure = report.parent / target
            if figure.is_file():  # a figure not drawn (a corpus without questions) is left out, as in report.md
                parts.append(f"<img alt=\"{html.escape(alt)}\" src=\"{data_uri(figure)}\">")
    parts.append(f"<p>Every table, with the artifact it was read from: <a href=\"{html.escape(report.name)}\">"
                 f"{html.escape(report.name)}</a>. The workflow diagram, every file with its provenance, and the "
                 f"jobs' runtimes: <a href=\"{html.escape(workflow)}\">Snakemake's report of the build</a>.</p>"
                 "</body></html>\n")
    return "".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m minirag.report.landing", description=__doc__.split("\n")[0])
    ap.add_argument("report", type=Path, help="the built report, e.g. results/report.md")
    ap.add_argument("out", type=Path, help="the page to write, e.g. results/report.html")
    ap.add_argument("--workflow", default="report-workflow.html",
                    help="Snakemake's HTML report, relative to the page (default: %(default)s)")
    args = ap.parse_args(argv)
    try:
        text = page(args.report, args.workflow)
    except OSError as exc:
        print(f"error: {exc.filename or args.report}: {exc.strerror or exc}; build the report first (make report)",
              file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    atomic_write_text(args.out, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
