"""The HTML report as a browser shows it: `make report-html`'s page in headless Chromium.

    make report-html
    python bench/report_screenshot.py --install --out bench/report_html.png

Screenshots results/report.html (the page the HTML report opens on: each corpus's summary figures
and lines) and checks, in the page's DOM as Chromium built it, that every corpus shows its three
summary figures as embedded images; a page without them fails the script (exit 1), not only a
human looking. Chromium comes from Debian's `chromium` package, installed when missing
(`--install`, as page_screenshot.py does).

What it leaves out: clicking through Snakemake's report behind the page's link (Chromium's
command line cannot click).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from page_screenshot import browse, chromium

FIGURES = 3  # retrievers, overlap, losses: what a corpus with questions opens with


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--report", default="results/report.html")
    ap.add_argument("--out", default="bench/report_html.png")
    ap.add_argument("--size", default="1280,1900")
    ap.add_argument("--install", action="store_true", help="apt-get install chromium when it is missing")
    ap.add_argument("--json", action="store_true", help="print the result as JSON only")
    a = ap.parse_args()
    exe = chromium(a.install)
    report, out = Path(a.report).resolve(), Path(a.out).resolve()
    dom = browse(exe, report.as_uri(), "--dump-dom").stdout
    corpora = re.findall(r"<h2>Corpus <code>([^<]+)</code></h2>", dom)
    images = [len(re.findall(r'<img [^>]*src="data:image/png', part)) for part in re.split(r"<h2>", dom)[1:]]
    out.parent.mkdir(parents=True, exist_ok=True)
    shot = browse(exe, report.as_uri(), f"--screenshot={out}", f"--window-size={a.size}")
    ok = bool(corpora) and all(n == FIGURES for n in images) and shot.returncode == 0 and out.is_file()
    result = {"report": a.report, "corpora": corpora, "images_per_corpus": images, "screenshot": a.out, "ok": ok}
    if not a.json:
        print("corpus | embedded figures")
        for name, n in zip(corpora, images):
            print(f"{name} | {n}")
    print(json.dumps(result, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
