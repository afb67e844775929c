"""The page in a real browser: start `minirag serve`, let headless Chromium ask a question, save a screenshot.

    python bench/page_screenshot.py --out bench/page.png \
        --question "What is the past participle of write?" --reader minigpt

The page asks at once when its address carries the question (`/?q=...&reader=...`), so
Chromium's `--screenshot` after a virtual-time budget shows the answer, its citation opened
and the ranked list; `--dump-dom` of the same address is checked to hold the answer, so a
blank or broken page fails the script (exit 1), not only a human looking at the picture.

Chromium comes from Debian's `chromium` package, installed by this script when missing
(`--install`; needs root and the package mirror).

What it leaves out: clicking (the page's links are plain anchors; the test suite checks the
routes they call).
"""

from __future__ import annotations

import argparse
import html
import json
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from minirag.serve.process import ServerProcess  # noqa: E402

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def chromium(install: bool) -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None and install:
        subprocess.run(["apt-get", "install", "-y", "-q", "chromium"], check=True, stdout=subprocess.DEVNULL)
        exe = shutil.which("chromium")
    if exe is None:
        sys.exit("chromium is not installed: run with --install (apt-get install chromium)")
    return exe


def browse(exe: str, url: str, *args: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([exe, *FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=8000", *args, url],
                              capture_output=True, text=True, timeout=120)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--question", default="What is the past participle of write?")
    ap.add_argument("--retriever", default=None)
    ap.add_argument("--reader", default=None)
    ap.add_argument("--out", default="bench/page.png")
    ap.add_argument("--size", default="1280,900")
    ap.add_argument("--corpus", default="kb")
    ap.add_argument("--configfile", default="workflow/config.yaml")
    ap.add_argument("--results", default="results")
    ap.add_argument("--install", action="store_true", help="apt-get install chromium when it is missing")
    a = ap.parse_args()
    exe = chromium(a.install)
    params = {k: v for k, v in (("q", a.question), ("retriever", a.retriever), ("reader", a.reader)) if v}
    with ServerProcess(REPO, a.corpus, a.configfile, a.results) as server:
        url = f"{server.url}/?{urllib.parse.urlencode(params)}"
        body = json.dumps({"query": a.question, "retriever": a.retriever, "reader": a.reader}).encode()
        req = urllib.request.Request(server.url + "/answer", body, {"Content-Type": "application/json"})
        expected = json.loads(urllib.request.urlopen(req, timeout=60).read())
        dom = browse(exe, url, "--dump-dom").stdout
        out = Path(a.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        shot = browse(exe, url, f"--screenshot={out.resolve()}", f"--window-size={a.size}")
    shown = html.escape(expected["answer"].split(" [#")[0])
    ok = shown in dom and out.is_file() and shot.returncode == 0
    print(json.dumps({"url": url, "answer": expected["answer"], "citations": [c["doc_id"] for c in expected["citations"]],
                      "answer_in_page": shown in dom, "screenshot": str(out), "ok": ok}, ensure_ascii=False, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
