"""Split curated documents into chunks that remember where they came from.

A `Chunk` is an exact slice of its document's text: `doc.text[char_start:char_end]`
equals `chunk.text`, so any later stage can map a chunk back to the page it quotes.
Consecutive chunks of a document touch or overlap, never leave a gap: dropping from
each chunk the part it shares with the one before and joining the rest gives the
document back. Strategies (chosen in the config, `chunk.strategy`):

- `tokens` (default): windows of `target_tokens` BPE tokens, each sharing `overlap`
  tokens with the one before. The cut goes to the best token edge within ±10% of the
  target: after a blank line, else after a sentence end, else after a line end
  (nearest the target, the earlier one on a tie), else exactly at the target. A chunk
  never ends on a markdown heading line: such a cut moves to before the heading,
  unless the chunk would then add nothing to the one before (a run of headings longer
  than the target). When the rest of the document fits within target + 10%, it all
  goes in the last chunk.
- `sections`: one chunk per markdown section (heading to next heading; text before
  the first heading is a section too). A section longer than `max_tokens` is split at
  the last blank line that fits the budget, else the last sentence end, else the last
  line end, else at the budget. Parts do not overlap; each records its heading.
- `chars`: a sliding character window with overlap (the naive control).
- `none`: one chunk per document (for corpora whose documents are already passages).

Token positions come from `BPETokenizer.token_spans`, so cuts fall on token edges and
character offsets stay exact. Every chunk's metadata holds the document `title`, the
`section` heading in force at its first non-blank character, `char_start`/`char_end`,
and for the token strategies `n_tokens`.

What this module leaves out: it never rewrites text (no stripping, no heading
injection); the stages that embed or index a chunk add its title/section themselves.
An empty document gives no chunk.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Any, Callable, Literal

from ..settings import SettingsError, setting, settings_from_dict
from .chunks import Chunk, chunk_id
from .structure import HEADING_RE, DocumentStructure

_BLANK_LINE_END = re.compile(r"\n[^\S\n]*\n$")
_STOPS = ".!?\u2026"  # sentence ends when whitespace follows
_FULLWIDTH_STOPS = "\u3002\uff01\uff1f"  # 。！？ end a sentence with nothing after them
_CLOSERS = "\"')]\u201d\u2019\u00bb"  # may stand between a sentence end and the space


@dataclass(frozen=True)
class ChunkSettings:
    """How documents are cut into chunks."""
    strategy: Literal["tokens", "sections", "chars", "none"] = "tokens"
    target_tokens: int = setting(150, minimum=1)  # tokens: chunk length in BPE tokens (the seed's default)
    overlap: int = setting(20, minimum=0)         # tokens/chars: shared with the previous chunk
    max_tokens: int = setting(300, minimum=1)     # sections: budget before a section is split
    size: int = setting(2000, minimum=1)          # chars: window in characters

    # the settings each strategy reads: a stage's params hold exactly these, any other is refused
    READS = ("strategy", {"tokens": ("target_tokens", "overlap"), "sections": ("max_tokens",),
                          "chars": ("size", "overlap"), "none": ()})

    def used(self) -> dict[str, Any]:
        return {"strategy": self.strategy, **{k: getattr(self, k) for k in self.READS[1][self.strategy]}}

    def check(self, where: str) -> None:
        limit = {"tokens": "target_tokens", "chars": "size"}.get(self.strategy)
        if limit and self.overlap >= getattr(self, limit):
            raise SettingsError(f"{where}.overlap: {self.overlap} must be less than {limit} "
                                f"({getattr(self, limit)}), or every chunk would repeat the one before")


def make_chunk(doc: dict, start: int, end: int, sections: DocumentStructure, **extra: Any) -> Chunk:
    text = doc["text"][start:end]
    # The heading in force is the one at the first non-blank character, so a chunk
    # that starts on the blank line before "## Past" is filed under "Past".
    first = start + (len(text) - len(text.lstrip()))
    title = doc.get("title", "")
    metadata = {"title": title, "section": sections.section_at(first),
                "context": sections.context(title, start, end), "char_start": start, "char_end": end, **extra}
    return Chunk(id=chunk_id(doc["doc_id"], start), text=text, doc_id=doc["doc_id"],
                 offset=start, metadata=metadata)


def chunk_chars(doc: dict, size: int, overlap: int) -> list[Chunk]:
    """Sliding window of `size` characters advancing by `size - overlap` (the write-up's)."""
    if not 0 <= overlap < size:
        raise ValueError(f"chunk.overlap must be in [0, size): size={size}, overlap={overlap}")
    text = doc["text"]
    sections = DocumentStructure(text)
    step = size - overlap
    chunks = []
    for start in range(0, max(len(text), 1), step):
        end = min(start + size, len(text))
        if end > start:
            chunks.append(make_chunk(doc, start, end, sections))
        if start + size >= len(text):
            break
    return chunks


def chunk_whole(doc: dict) -> list[Chunk]:
    """One chunk per document; an empty document gives no chunk."""
    text = doc["text"]
    return [make_chunk(doc, 0, len(text), DocumentStructure(text))] if text else []


def boundary_rank(text: str, pos: int) -> int:
    """How good `pos` is as the end of a chunk: 3 after a blank line, 2 after a sentence
    end, 1 after a line end, 0 elsewhere."""
    head = text[max(0, pos - 16):pos]
    if _BLANK_LINE_END.search(head):
        return 3
    body = head.rstrip()
    last = body.rstrip(_CLOSERS)[-1:]
    if last and (last in _FULLWIDTH_STOPS or last in _STOPS and (
            len(body) < len(head) or pos == len(text) or text[pos].isspace())):
        return 2  # "end." followed by whitespace, not "3.14" or "e.g"
    return 1 if head.endswith("\n") else 0


def ends_on_heading(text: str, start: int, end: int) -> bool:
    """True if the last non-blank line of text[start:end] is a markdown heading."""
    stop = end
    while stop > start and text[stop - 1].isspace():
        stop -= 1
    if stop == start:
        return False
    line_start = text.rfind("\n", 0, stop) + 1
    return HEADING_RE.match(text[line_start:stop]) is not None


def _token_edges(text: str, tokenizer) -> list[int]:
    """edges[k] = char position where token k starts; edges[-1] = len(text)."""
    return [start for start, _ in tokenizer.token_spans(text)] + [len(text)]


def _before_headings(text: str, edges: list[int], start: int, floor: int, end: int) -> int:
    """Move the cut `end` back past trailing heading lines, unless that takes it back to
    `floor` (the chunk would hold nothing new)."""
    pos = edges[end]
    while ends_on_heading(text, edges[start], pos):
        stop = edges[start] + len(text[edges[start]:pos].rstrip())
        pos = text.rfind("\n", 0, stop) + 1  # start of the heading line: a token edge
        if pos <= edges[floor]:
            return end  # nothing but headings
    return end if pos == edges[end] else bisect.bisect_left(edges, pos, floor, end)


def _best_cut(text: str, edges: list[int], start: int, floor: int, candidates: range, key) -> int | None:
    """The candidate edge with the highest (rank, key(k)) past `floor` that does not end
    the chunk on a heading; None if no candidate has a rank above 0."""
    best, best_key = None, None
    for k in candidates:
        if edges[k] <= edges[floor] or ends_on_heading(text, edges[start], edges[k]):
            continue
        rank = boundary_rank(text, edges[k])
        if rank and (best_key is None or (rank, key(k)) > best_key):
            best, best_key = k, (rank, key(k))
    return best


def _fixed_cut(text: str, edges: list[int], start: int, floor: int, end: int) -> int:
    end = max(end, floor + 1)
    while end < len(edges) - 1 and edges[end] <= edges[floor]:
        end += 1  # tokens holding only part of a character have an empty span
    return _before_headings(text, edges, start, floor, end)


def _next_start(text: str, edges: list[int], start: int, end: int, overlap: int) -> int:
    """Where the chunk after [start, end) begins: `overlap` tokens back from `end`, moved to the
    start of a line (a table row, a list item) or else of a sentence, looking back at most
    `overlap` more tokens and then forward to `end`; the exact token only when neither exists.
    A chunk then never opens inside a table row ("ar | bore | borne |")."""
    after = end - overlap
    if overlap == 0 or after <= start or edges[after] <= edges[start]:
        return end  # overlap only when the chunk is longer than it, so every chunk starts further on

    def line_start(k: int) -> bool:
        # a newline may be the first character of the token after it: start on the newline then
        return text[edges[k] - 1] == "\n" or text[edges[k]] == "\n"

    def sentence_start(k: int) -> bool:
        return boundary_rank(text, edges[k]) >= 2

    back = range(after, max(start, after - overlap), -1)
    ahead = range(after + 1, end)
    for good in (line_start, sentence_start):
        for k in (*back, *ahead):
            if edges[k] > edges[start] and good(k):
                return k
    return after


def chunk_tokens(doc: dict, tokenizer, target_tokens: int, overlap: int) -> list[Chunk]:
    """Windows of about `target_tokens` tokens, each sharing `overlap` tokens with the last."""
    if not (target_tokens > 0 and 0 <= overlap < target_tokens):
        raise ValueError(f"chunk: need 0 <= overlap < target_tokens, got target_tokens={target_tokens}, overlap={overlap}")
    text = doc["text"]
    if not text:
        return []
    edges = _token_edges(text, tokenizer)
    n = len(edges) - 1
    slack = target_tokens // 10
    sections = DocumentStructure(text)
    chunks = []
    start = floor = 0  # floor: where the previous chunk ended; every chunk must pass it
    while True:
        if n - start <= target_tokens + slack:
            end = n
        else:
            target = start + target_tokens
            window = range(target - slack, target + slack + 1)
            end = _best_cut(text, edges, start, floor, window, key=lambda k: (-abs(k - target), -k))
            if end is None:
                end = _fixed_cut(text, edges, start, floor, target)
        chunks.append(make_chunk(doc, edges[start], edges[end], sections, n_tokens=end - start))
        if end == n:
            return chunks
        start, floor = _next_start(text, edges, start, end, overlap), end


def chunk_sections(doc: dict, tokenizer, max_tokens: int) -> list[Chunk]:
    """One chunk per markdown section; a long section split at paragraphs under `max_tokens`."""
    if max_tokens <= 0:
        raise ValueError(f"chunk.max_tokens must be positive, got {max_tokens}")
    text = doc["text"]
    if not text:
        return []
    edges = _token_edges(text, tokenizer)
    sections = DocumentStructure(text)
    # Headings start lines, and a line start is always a token edge.
    bounds = sorted({0, *sections.starts, len(text)})
    chunks = []
    for lo, hi in zip(bounds, bounds[1:]):
        start, stop = bisect.bisect_left(edges, lo), bisect.bisect_left(edges, hi)
        while start < stop:
            end = stop
            if stop - start > max_tokens:
                budget = range(start + 1, start + max_tokens + 1)
                end = _best_cut(text, edges, start, start, budget, key=lambda k: k)
                if end is None:
                    end = _fixed_cut(text, edges, start, start, start + max_tokens)
            chunks.append(make_chunk(doc, edges[start], edges[end], sections, n_tokens=end - start))
            start = end
    return chunks


def chunk_document(doc: dict, strategy: str = ChunkSettings.strategy, tokenizer=None, **params: Any) -> list[Chunk]:
    """Chunk one curated document record (`doc_id`, `title`, `text`, ...) by strategy name;
    `params` are ChunkSettings fields (target_tokens, overlap, max_tokens, size), defaults there."""
    return document_chunker(strategy, tokenizer, **params)(doc)


def document_chunker(strategy: str = ChunkSettings.strategy, tokenizer=None,
                     **params: Any) -> Callable[[dict], list[Chunk]]:
    """`chunk_document` with its settings checked once: the chunk stage cuts a million
    documents with one of these (checking the settings per document cost 40 % of the time)."""
    s = settings_from_dict(ChunkSettings, {"strategy": strategy, **params}, "chunk")
    if s.strategy in ("tokens", "sections") and tokenizer is None:
        raise ValueError(f"chunk.strategy {s.strategy!r} needs the trained tokenizer")
    if s.strategy == "tokens":
        return lambda doc: chunk_tokens(doc, tokenizer, s.target_tokens, s.overlap)
    if s.strategy == "sections":
        return lambda doc: chunk_sections(doc, tokenizer, s.max_tokens)
    if s.strategy == "chars":
        return lambda doc: chunk_chars(doc, s.size, s.overlap)
    return chunk_whole
