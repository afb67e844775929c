"""The report's figures in a real browser: Snakemake's HTML report (`make report-html`) in headless Chromium.

    make report-html
    python bench/report_screenshot.py --install --out bench/report_figures.png --landing bench/report_html.png

Snakemake's HTML report is one page whose results (each figure a base64 `data_uri` with its
caption) open on a click, so the script takes the three figures a corpus's report opens with
(figures/summary-*.png) out of the report itself, lays them out as the report's image view
shows them (an <img> of that data URI under its caption) and screenshots that page; a second
screenshot is the report's landing page. `--dump-dom` of the figures page is checked to hold
every image, so a report without them fails the script (exit 1), not only a human looking.

Chromium comes from Debian's `chromium` package, installed when missing (`--install`, as
page_screenshot.py does).

What it leaves out: clicking through the report's menus (Chromium's command line cannot click).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
import tempfile
from pathlib import Path

from page_screenshot import browse, chromium

FIGURES = ("retrievers", "overlap", "losses")
ENTRY = re.compile(r'"(results/[^"]+/figures/summary-(\w+)\.png)": \{.*?"caption": "((?:[^"\\]|\\.)*)".*?'
                   r'"data_uri": "(data:image/png[^"]+)"', re.DOTALL)


def figures_of(report: str, corpus: str) -> list[dict]:
    """The summary figures of `corpus` in the HTML report: path, caption (HTML) and data URI, in FIGURES order."""
    found = {}
    for m in ENTRY.finditer(report):
        path, figure, caption, uri = m.groups()
        if f"/{corpus}/figures/" in path:
            found[figure] = {"path": path, "caption": json.loads(f'"{caption}"'), "uri": uri}
    return [found[f] for f in FIGURES if f in found]


def page(figures: list[dict], source: str) -> str:
    blocks = "\n".join(f'<figure><img src="{f["uri"]}" alt="{html.escape(f["path"])}">'
                       f'<figcaption><b>{html.escape(f["path"])}</b>{f["caption"]}</figcaption></figure>'
                       for f in figures)
    return (f"<!doctype html><meta charset='utf-8'><title>{html.escape(source)}</title>"
            "<style>body{font-family:sans-serif;margin:24px;max-width:1180px}figure{margin:0 0 28px}"
            "img{max-width:100%;border:1px solid #ccc}figcaption{font-size:13px;color:#333}</style>"
            f"<h2>The figures of {html.escape(source)}, as its image view shows them</h2>{blocks}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--report", default="results/report.html")
    ap.add_argument("--corpus", default="kb")
    ap.add_argument("--out", default="bench/report_figures.png")
    ap.add_argument("--landing", default="bench/report_html.png")
    ap.add_argument("--size", default="1280,4200")
    ap.add_argument("--install", action="store_true", help="apt-get install chromium when it is missing")
    a = ap.parse_args()
    exe = chromium(a.install)
    report = Path(a.report).resolve()
    figures = figures_of(report.read_text(encoding="utf-8"), a.corpus)
    with tempfile.TemporaryDirectory() as tmp:
        view = Path(tmp) / "figures.html"
        view.write_text(page(figures, str(a.report)), encoding="utf-8")
        dom = browse(exe, view.as_uri(), "--dump-dom").stdout
        out, landing = Path(a.out).resolve(), Path(a.landing).resolve()
        out.parent.mkdir(parents=True, exist_ok=True)
        shot = browse(exe, view.as_uri(), f"--screenshot={out}", f"--window-size={a.size}")
        first = browse(exe, report.as_uri(), f"--screenshot={landing}", "--window-size=1280,900")
    shown = dom.count("<img src=\"data:image/png")
    ok = len(figures) == len(FIGURES) and shown == len(FIGURES) and out.is_file() and shot.returncode == 0
    print(json.dumps({"report": str(a.report), "figures": [f["path"] for f in figures], "images_in_page": shown,
                      "screenshot": str(a.out), "landing": str(a.landing), "landing_ok": first.returncode == 0,
                      "ok": ok}, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
