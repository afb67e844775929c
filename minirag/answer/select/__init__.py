"""The answer selector: reading a question against its ranked chunks and picking the answer.

    candidates.py  the answers the retrieved chunks offer: cells, arrows, glosses, clauses, spans
    keys.py        an answer's key (folded), the words of a text
    generic.py     the generic feature set: spans, answer types, rows and columns (any corpus)
    spans.py       the spans of a sentence a generic answer can be
    scorer.py      a listwise logistic regression (or small MLP) over a question's candidates
    selector.py    `AnswerSelector`: candidates, features, scores, one question at a time
    settings.py    `SelectorSettings`

A domain adds a feature set of its own (minirag/domain.py "select.features": the grammar's, in
domains/grammar/select/).

What it leaves out: training it (answer/train_selector.py) and the reader kind (answer/readers.py).
"""
