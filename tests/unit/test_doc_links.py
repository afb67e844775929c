"""The README and docs/ hold together: every relative link and image points at a file of the
repository, every `#anchor` at a heading of the page it names, no page names an issue, and the
README stays short.

Links inside code (fenced blocks, `inline`) are text, not links; http(s) and mailto links are
left alone (no network here)."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def prose(text: str) -> str:
    """The text outside fenced code blocks and inline code spans."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, flags=re.M)}


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in LINK.findall(prose(page.read_text(encoding="utf-8"))):
        if re.match(r"(https?|mailto):", target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading with that anchor")
    return broken


def test_every_relative_link_of_the_readme_and_docs_resolves():
    assert len(PAGES) > 5, PAGES
    problems = {page.relative_to(REPO).as_posix(): broken_links(page) for page in PAGES}
    assert not {name: found for name, found in problems.items() if found}


def test_a_broken_link_or_anchor_is_found(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## The `serve` route, in full\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("# Page\n\n[ok](other.md#the-serve-route-in-full) [self](#page) `[code](nowhere.md)`\n"
                    "[gone](missing.md) [bad anchor](other.md#nothing) ![img](pic.png)\n"
                    "```\n[in a block](nowhere.md)\n```\n", encoding="utf-8")
    assert broken_links(page) == ["missing.md: no such file", "other.md#nothing: no heading with that anchor",
                                  "pic.png: no such file"]


def test_no_page_names_an_issue_number():
    for page in PAGES:
        found = re.findall(r"\bissues? #?\d+", page.read_text(encoding="utf-8"), flags=re.I)
        assert not found, (page.name, found)


def test_the_readme_stays_a_page_a_newcomer_reads_through():
    """What it is, two commands, the graph, your own corpus, links: reference goes to docs/."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 160, f"README.md has {len(lines)} lines; move reference to docs/"
