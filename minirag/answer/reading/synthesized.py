"""A question synthesised from the corpus, with the answer it has there (None: the corpus does not answer it).

The learner questions about the grammar (learner_questions.py, the grammar domain's) and the generic
questions from any corpus's sentences and tables (cloze.py) are both these records, so the answer
selector trains on either without importing the other's synthesiser.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LearnerQuestion:
    qid: str
    query: str
    answer: str | None  # None: the corpus does not answer it
    family: str         # plain | paraphrase | blank | alternatives | confirmation | cross | meaning | rule | absent
    lang: str           # the question's language: en | es (cross: not the document's)
    source: str         # doc_id and what it was made from

    def to_record(self) -> dict:
        return {"qid": self.qid, "query": self.query, "answer": self.answer, "family": self.family,
                "lang": self.lang, "source": self.source}

    @classmethod
    def from_record(cls, rec: dict) -> "LearnerQuestion":
        return cls(rec["qid"], rec["query"], rec["answer"], rec["family"], rec["lang"], rec["source"])
