"""A saved web page -> Markdown: its main text with headings, lists and tables kept; navigation and scripts dropped.

    to_markdown("<title>Parts</title><nav>…</nav><main><h2>Prices</h2><table>…</table></main>")
    -> ("Parts", "## Prices\n\n| Part | Price |\n|---|---|\n| Lid | 6.90 |")

The page is parsed into a small tree (the standard library's HTMLParser), then rendered: h1-h6 as
ATX headings, ul/ol items as "- " and "1. " lines (nested ones indented), a table as a pipe table whose
first row is its header, pre as a fenced block, every other block as a paragraph. When the page has a
<main> (else an <article>), only that is read; script, style, nav, header, footer, aside, form and the
like never are. Inline markup (links, emphasis) is kept as its text.

What it leaves out: CSS (a block hidden by a stylesheet is read), images' alt text, and cell spans
(a colspan cell is one cell).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from .pipe import pipe_table

SKIP = frozenset("script style noscript nav header footer aside form svg template head button select iframe".split())
VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
BLOCK = frozenset("p div section article main li ul ol table tr td th thead tbody tfoot pre blockquote dl dt dd "
                  "figure figcaption h1 h2 h3 h4 h5 h6 br hr body html".split())
SPACE_RE = re.compile(r"\s+")


class Node:
    __slots__ = ("tag", "children", "parent")

    def __init__(self, tag: str, parent: "Node | None" = None):
        self.tag, self.children, self.parent = tag, [], parent


class TreeBuilder(HTMLParser):
    """Elements and text as a tree, forgiving unclosed tags (a closing tag closes up to its match)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.at = Node("root")
        self.title: list[str] = []
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        if tag == "title":
            self._in_title = True
        if tag in ("p", "li", "tr", "td", "th") and self.at.tag == tag:  # an unclosed <p>, <li>, <td>
            self.at = self.at.parent
        node = Node(tag, self.at)
        self.at.children.append(node)
        if tag not in VOID:
            self.at = node

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
        node = self.at
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.at = node.parent

    def handle_data(self, data):
        if self._in_title:
            self.title.append(data)
        self.at.children.append(data)


def find(node: Node, tag: str) -> Node | None:
    for child in node.children:
        if isinstance(child, Node) and child.tag not in SKIP:
            if child.tag == tag:
                return child
            if (found := find(child, tag)) is not None:
                return found
    return None


def inline(node: Node) -> str:
    """The text of a node, its inline markup dropped, its whitespace collapsed."""
    parts = []
    for child in node.children:
        if isinstance(child, str):
            parts.append(child)
        elif child.tag == "br":
            parts.append(" ")
        elif child.tag not in SKIP:
            parts.append(inline(child))
    return SPACE_RE.sub(" ", "".join(parts)).strip()


def table(node: Node) -> list[str]:
    rows = []

    def walk(n: Node):
        for child in n.children:
            if isinstance(child, Node) and child.tag == "tr":
                rows.append([inline(c).replace("|", "\\|") for c in child.children
                             if isinstance(c, Node) and c.tag in ("td", "th")])
            elif isinstance(child, Node) and child.tag not in ("table",) + tuple(SKIP):
                walk(child)
    walk(node)
    return pipe_table([r for r in rows if any(r)])


def blocks(node: Node, out: list[str], depth: int = 0) -> None:
    """Render the block structure of `node` into `out`, one block (or list item) per entry."""
    run: list[str] = []  # inline content between blocks

    def flush():
        text = SPACE_RE.sub(" ", "".join(run)).strip()
        if text:
            out.append(text)
        run.clear()

    for child in node.children:
        if isinstance(child, str):
            run.append(child)
            continue
        if child.tag in SKIP:
            continue
        if child.tag not in BLOCK:
            run.append(" " + inline(child) + " ")
            continue
        flush()
        tag = child.tag
        if re.fullmatch(r"h[1-6]", tag):
            if (text := inline(child)):
                out.append("#" * int(tag[1]) + " " + text)
        elif tag in ("ul", "ol"):
            items = [c for c in child.children if isinstance(c, Node) and c.tag == "li"]
            for i, item in enumerate(items, start=1):
                nested = [c for c in item.children if isinstance(c, Node) and c.tag in ("ul", "ol")]
                own = Node("li")
                own.children = [c for c in item.children if not (isinstance(c, Node) and c.tag in ("ul", "ol"))]
                out.append("  " * depth + (f"{i}. " if tag == "ol" else "- ") + inline(own))
                for sub in nested:
                    holder = Node("div")
                    holder.children = [sub]
                    blocks(holder, out, depth + 1)
            out.append("")
        elif tag == "table":
            out += table(child) + [""]
        elif tag == "pre":
            out += ["```", "".join(c if isinstance(c, str) else inline(c) for c in child.children).strip("\n"), "```"]
        else:
            blocks(child, out, depth)
    flush()


def to_markdown(html: str) -> tuple[str, str]:
    """(the page's title, its main text as Markdown); the title is <title>, else the first h1, else ""."""
    tb = TreeBuilder()
    tb.feed(html)
    tb.close()
    main = find(tb.root, "main") or find(tb.root, "article") or tb.root
    out: list[str] = []
    blocks(main, out)
    md, prev = [], None
    for line in out:  # blocks separated by one blank line, list items and table rows kept together
        tight = prev is not None and ((line.startswith(("- ", "  ")) or re.match(r"\d+\. ", line))
                                      and (prev.startswith(("- ", "  ")) or re.match(r"\d+\. ", prev))
                                      or line.startswith("|") and prev.startswith("|"))
        if line == "":
            prev = None
            continue
        md.append(line if tight or not md else "\n" + line)
        prev = line
    title = SPACE_RE.sub(" ", "".join(tb.title)).strip()
    if not title and (h1 := find(tb.root, "h1")) is not None:
        title = inline(h1)
    return title, "\n".join(md).strip()
