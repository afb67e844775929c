"""The answer selector: reading a learner's question through the corpus and picking the answer.

    concepts.py    the grammatical concepts a question can ask for
    terms.py       which concept a phrase names
    vocabulary.py  what the corpus names: table keys, forms, translations, endings
    analysis.py    what a question asks about and what it asks for
    candidates.py  the answers the retrieved chunks offer
    features.py    a candidate's features
    scorer.py      a listwise logistic regression (or small MLP) over a question's candidates
    selector.py    `AnswerSelector`: all of the above, one question at a time
    settings.py    `SelectorSettings`

What it leaves out: training it (answer/train_selector.py) and the reader kind (answer/readers.py).
"""
