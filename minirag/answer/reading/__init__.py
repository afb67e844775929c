"""Training data for readers, synthesized from the corpus itself: no labels needed.

    facts.py                  what the corpus's shape says a question about it should answer
    contexts.py               the lines a reading task shows beside its evidence
    tasks.py                  reading tasks: a question, evidence lines, the answer
    learner_questions.py      learner-phrased questions from the corpus's tables and prose
    learner_translations.py   cross-language questions that quote a phrase to translate
    retrieval_questions.py    those questions (or generic ones) with their chunks: the bi-encoder's training pairs

What it leaves out: the readers that learn from them (answer/minigpt/, answer/select/).
"""
