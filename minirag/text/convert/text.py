"""A plain-text file -> its text, as UTF-8 with its line breaks normalised; and the decoding every converter shares.

What it leaves out: guessing structure (a line in capitals is not made a heading) and encodings other
than UTF-8 (a Latin-1 file is refused, naming the byte).
"""

from __future__ import annotations

from pathlib import Path

from .errors import ConversionError


def decoded(path: Path) -> str:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConversionError(f"{path}:{line}: not valid UTF-8 (byte {exc.start}); save it as UTF-8") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def to_markdown(path: Path) -> str:
    return "\n".join(line.rstrip() for line in decoded(path).split("\n")).strip("\n")
