"""How answers and questions are compared: folded words, and an answer's key.

    fold("Pretérito")        -> "preterito"
    answer_key("Vine.")      -> "vine"       (two candidates with one key give one answer)

Every corpus's selector pools its candidates by these keys; the grammar's terms (terms.py) fold their
phrases the same way.

What it leaves out: the grammar's concepts and phrases (terms.py).
"""

from __future__ import annotations

from ...text.words import TERM_RE, fold


def answer_key(text: str) -> str:
    """An answer's words, folded: two candidates with one key give one answer ("Vine." and "vine")."""
    return " ".join(TERM_RE.findall(fold(text)))
