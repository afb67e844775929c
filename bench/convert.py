"""The folder source's converters against the libraries they could have been: structure kept, speed, install size.

    .venv/bin/python bench/convert.py [--pages 60] [--json]

For each format, minirag's converter (minirag/text/convert/) and the alternatives that are installed
(`pip install markdownify beautifulsoup4 python-docx pdfplumber` to compare them all):
- HTML: minirag's (standard library) vs markdownify on BeautifulSoup;
- Word: minirag's (zip + ElementTree) vs python-docx's paragraphs and tables;
- PDF: pypdf's text pieces laid out by minirag (pdf.py) vs pypdf's layout mode and plain extraction
  vs pdfplumber.
Structure is scored on tests/fixtures/folder/ against what its generator wrote (make_folder.py): the
headings, list items and table rows found in the output, and whether boilerplate (navigation, footer,
scripts) was left out. Speed: files (HTML, Word) or pages (PDF, a --pages-page PDF written by matplotlib
here) per second, median of 5 runs. Install size: the installed files of the distributions each needs.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FOLDER = ROOT / "tests" / "fixtures" / "folder"

# what make_folder.py put in the files: the lines a faithful conversion holds
EXPECT = {
    "html": {"file": "support.html", "headings": ["# Support", "## Folding the bike", "## What is in the box"],
             "items": ["Lower the saddle fully.", "a 5 mm hex key"], "rows": [],
             "boilerplate": ["Newsletter", "All rights reserved", "dataLayer", "Imprint"]},
    "docx": {"file": "owner-handbook.docx", "headings": ["# Charging", "# Riding", "## Assist levels"],
             "items": ["Switch on the display", "Choose an assist level"], "rows": ["Eco", "Tour", "Turbo"],
             "boilerplate": []},
    "pdf": {"file": "service-manual.pdf", "headings": [], "items": [],
            "rows": ["Battery pack 500 Wh", "Charger 4 A", "Brake pads (pair)", "Chain 116 links"], "boilerplate": []},
}


def html_minirag(path: Path) -> str:
    from minirag.text.convert.html import to_markdown
    return to_markdown(path.read_text(encoding="utf-8"))[1]


def html_markdownify(path: Path) -> str:
    from bs4 import BeautifulSoup
    from markdownify import markdownify
    return markdownify(str(BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")), heading_style="ATX")


def docx_minirag(path: Path) -> str:
    from minirag.text.convert.docx import to_markdown
    return to_markdown(path)[1]


def docx_python_docx(path: Path) -> str:
    """The plain use of python-docx: paragraphs (headings by style name) and tables, each in turn."""
    import docx
    d = docx.Document(str(path))
    out = []
    for block in d.element.body.iterchildren():
        tag = block.tag.rsplit("}", 1)[-1]
        if tag == "p":
            p = docx.text.paragraph.Paragraph(block, d)
            m = re.match(r"Heading (\d)", p.style.name or "")
            lead = "#" * int(m.group(1)) + " " if m else ("- " if "List" in (p.style.name or "") else "")
            if p.text.strip():
                out.append(lead + p.text)
        elif tag == "tbl":
            t = docx.table.Table(block, d)
            out += ["| " + " | ".join(c.text for c in row.cells) + " |" for row in t.rows]
    return "\n\n".join(out)


def pdf_pages(kind: str):
    def read(path: Path) -> list[str]:
        if kind == "pdfplumber":
            import pdfplumber
            with pdfplumber.open(str(path)) as pdf:
                return [p.extract_text() or "" for p in pdf.pages]
        from pypdf import PdfReader
        reader = PdfReader(str(path))
        if kind == "pypdf-plain":
            return [p.extract_text() or "" for p in reader.pages]
        if kind == "pypdf-layout":
            return [p.extract_text(extraction_mode="layout") or "" for p in reader.pages]
        from minirag.text.convert.pdf import pages
        return pages(path)[1]
    return read


def fidelity(text: str, expect: dict) -> dict:
    lines = [ln.strip() for ln in text.split("\n")]
    heads = sum(h in lines for h in expect["headings"])
    items = sum(any(ln.lstrip("-*0123456789. ").strip() == it and ln[:1] in "-*0123456789" for ln in lines)
                for it in expect["items"])
    rows = sum(any(ln.startswith("|") and r in ln for ln in lines) for r in expect["rows"])
    kept = sum(b in text for b in expect["boilerplate"])
    return {"headings": f"{heads}/{len(expect['headings'])}", "list items": f"{items}/{len(expect['items'])}",
            "table rows": f"{rows}/{len(expect['rows'])}",
            "boilerplate kept": f"{kept}/{len(expect['boilerplate'])}"}


def median_rate(fn, arg, units: int, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn(arg)
        times.append(time.perf_counter() - t0)
    return units / statistics.median(times)


def install_kb(dists: list[str]) -> float | None:
    total = 0
    for name in dists:
        try:
            files = md.distribution(name).files or []
        except md.PackageNotFoundError:
            return None
        total += sum((f.size or 0) for f in files)
    return round(total / 1024, 0)


def big_pdf(path: Path, pages: int) -> None:
    import matplotlib
    matplotlib.use("pdf")
    matplotlib.rcParams["pdf.fonttype"] = 42
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages
    with PdfPages(path, metadata={"CreationDate": None, "ModDate": None}) as pdf:
        for n in range(pages):
            fig = plt.figure(figsize=(8.27, 11.69))
            fig.text(0.1, 0.92, f"Section {n + 1}", fontsize=16)
            for i in range(20):
                fig.text(0.1, 0.85 - 0.02 * i, f"Line {i + 1} of page {n + 1}: the motor assists up to 25 km/h "
                         "on the flat and uphill.", fontsize=9)
            for i in range(6):
                for j, cell in enumerate((f"Part {i}", f"AC3-{n:03d}{i}", f"{10 + i}.90")):
                    fig.text(0.1 + 0.28 * j, 0.4 - 0.02 * i, cell, fontsize=9)
            pdf.savefig(fig)
            plt.close(fig)


CANDIDATES = {
    "html": [("minirag (html.parser)", html_minirag, []), ("markdownify + bs4", html_markdownify,
                                                            ["markdownify", "beautifulsoup4", "soupsieve"])],
    "docx": [("minirag (zipfile + ElementTree)", docx_minirag, []), ("python-docx", docx_python_docx,
                                                                      ["python-docx", "lxml"])],
    "pdf": [("pypdf pieces + minirag's layout", pdf_pages("minirag"), ["pypdf"]),
            ("pypdf, layout mode", pdf_pages("pypdf-layout"), ["pypdf"]),
            ("pypdf, plain", pdf_pages("pypdf-plain"), ["pypdf"]),
            ("pdfplumber", pdf_pages("pdfplumber"), ["pdfplumber", "pdfminer.six", "pypdfium2", "pillow"])],
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=int, default=60, help="pages of the PDF the speed is measured on")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "big.pdf"
        big_pdf(big, args.pages)
        for fmt, cands in CANDIDATES.items():
            path = FOLDER / EXPECT[fmt]["file"]
            for name, fn, dists in cands:
                try:
                    out = fn(path)
                except ImportError:
                    rows.append({"format": fmt, "converter": name, "installed": False})
                    continue
                text = "\n\n".join(out) if isinstance(out, list) else out
                rate = median_rate(fn, big, args.pages) if fmt == "pdf" else median_rate(fn, path, 1)
                rows.append({"format": fmt, "converter": name, "installed": True, **fidelity(text, EXPECT[fmt]),
                             "per_second": round(rate, 1), "unit": "pages" if fmt == "pdf" else "files",
                             "install_kb": install_kb(dists) if dists else 0})
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    cols = ["format", "converter", "headings", "list items", "table rows", "boilerplate kept", "per_second", "unit",
            "install_kb"]
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(str(r.get(c, "not installed" if c == "headings" else "")) for c in cols))


if __name__ == "__main__":
    main()
