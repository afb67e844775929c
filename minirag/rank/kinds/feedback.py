"""The `feedback` kind: a reader's short answer over a run's top chunks pulls up the chunks that hold it.

A conjugation question's gold chunks are every chunk holding the answer form ("tuve"), so after the
reader answers, `feedback_order` puts the chunk it cited first, then the chunks of the top `n` whose
text holds the answer as a whole word (case and accents folded), in run order, then the rest. Among those,
the chunks that also hold the form's verb (its lemmas in the corpus's lexicon: "tener") come first: a
paradigm row "| tener | tuve | ... |" or an arrow "tener → tuve" states the form, where "Tuve que salir"
only uses it. (Taking such chunks from the whole run, not only its top `n`, was tried and left out.)

The kind is this module alone: its settings, its class (registered on import: `KINDS` imports this module
when a config names `feedback`) and its formula. It ranks with a part of the config beyond its settings (its
reader's, `config_reads`/`bind`) and answers through `sources.answer`, as `answer` does.

What it leaves out: the reader (answer/), and deciding whether an answer is short enough to search for
beyond `answer_form`'s word count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from ...settings import SettingsError, setting, settings_to_dict
from ...text.words import fold
from ..diversify import positional
from ..ranking import Ranking
from .base import file_key
from .reorders import Reorder

CITATION_RE = re.compile(r"(?<!\s)\s*\[#\d+\]")  # starts where its spaces start: inside, it rescanned the run


def answer_form(answer: str, max_words: int) -> str | None:
    """The folded answer without its [#n] markers, or None when it is empty or over `max_words` words
    (a sentence, not a form: searching for it would move nothing useful)."""
    form = fold(CITATION_RE.sub("", answer)).strip()
    return form if form and len(form.split()) <= max_words else None


def whole_word(word: str) -> re.Pattern:
    return re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)")


def feedback_order(ranking: Ranking, form: str, cited: str | None, folded_text: Callable[[str], str],
                   n: int, lemmas: Sequence[str] = ()) -> Ranking:
    """The cited chunk (if ranked), then the top `n` chunks holding `form` as a whole word, those that also
    hold one of its (folded) `lemmas` first, then the rest, each group in run order; scores are positional
    (n, n-1, ...), as diversify.py writes them."""
    pattern = whole_word(form)
    verbs = [whole_word(lemma) for lemma in lemmas if lemma != form]
    ids = [cid for cid, _ in ranking]
    head = [cited] if cited in ids else []
    holding = [cid for cid in ids[:n] if cid not in head and pattern.search(folded_text(cid))]
    stating = [cid for cid in holding if any(v.search(folded_text(cid)) for v in verbs)]
    holding = stating + [cid for cid in holding if cid not in stating]
    first = set(head) | set(holding)
    return positional(head + holding + [c for c in ids if c not in first])


@dataclass(frozen=True)
class FeedbackSettings:
    """A run re-ordered by its reader's answer: the chunks holding the answer form first ."""
    of: str = setting(min_length=1)          # the retriever whose run the reader answers over and that is re-ordered
    reader: str = setting(min_length=1)      # an extractive reader of the config: its selector answers with a short span
    n: int = setting(20, minimum=1)          # the top N searched for the answer (dev hit@5: 10 0.857, 20 0.870, 50 0.857)
    max_words: int = setting(3, minimum=1)   # a longer answer is a sentence, not a form: the run stays as it is


class Feedback(Reorder):
    """The reader `reader` answers over the top of the run `of` live, as `answer` does; when it answers with
    at most `max_words` words, the chunk it cites, then the top `n` chunks holding the answer (those holding
    its verb too first, the lexicon's lemmas of it), lead the run.
    An abstention or a long answer leaves the run as it is. Its reader reads what it reads over an answered
    run: the top `candidates.depth` chunks for its selector, and the corpus's `prompt` settings (`bind`)."""
    type, Settings, sweepable, upstream_key = "feedback", FeedbackSettings, ("n",), "of"
    config_keys = ("readers", "reading")
    runs_also = ("query.answering",)  # its reader, through sources.answer
    reader_spec: dict | None = None  # its reader's config entry (bind)
    reading: dict | None = None      # {"depth": candidates.depth, "prompt": the prompt settings} (bind)

    def check(self, name, corpus, where) -> None:
        super().check(name, corpus, where)
        readers = corpus.readers
        if self.s.reader not in readers:
            raise SettingsError(f"{where}.reader: unknown reader {self.s.reader!r} (have: {', '.join(readers) or 'none'})")
        if readers[self.s.reader].type != "extractive":
            raise SettingsError(f"{where}.reader: {self.s.reader!r} is a {readers[self.s.reader].type} reader; feedback needs an "
                                f"extractive one (it answers with a short span)")

    def reader(self) -> str:
        return self.s.reader

    def config_reads(self, corpus) -> dict:
        """Its reader's settings (threshold, abstain), how much of the run its selector reads (candidates.depth)
        and the prompt it answers from (prompt: k, answers, template, evidence): changing any of them re-ranks,
        as they re-answer."""
        if self.s.reader not in corpus.readers:
            return {}
        return {"readers": {self.s.reader: corpus.reader_spec(self.s.reader)},
                "reading": {"depth": corpus.candidates.depth, "prompt": settings_to_dict(corpus.prompt)}}

    def bind(self, part) -> None:
        self.reader_spec = part.get("readers", {}).get(self.s.reader)
        self.reading = part.get("reading")

    def reads(self, graph) -> dict:
        """The reader's weights (tracked with their sidecar: retraining it re-ranks), the lexicon, the terms file
        and the chunks its selector's stored vocabulary was built from."""
        return {file_key("reader", self.s.reader): graph.with_sidecar(graph.layout.reader_model(self.s.reader)),
                **graph.selector_domain(), "chunks": str(graph.layout.chunks)}

    def combine(self, query, rankings, sources, depth) -> Ranking:
        run = rankings[0][:depth]
        if self.reader_spec is None or self.reading is None:
            raise ValueError(f"retrievers.{self.name}: its reader's settings were not bound (config/typed.py Corpus.of)")
        answer = sources.answer(self.s.reader, self.reader_spec, query, [cid for cid, _ in run],
                                self.reading["depth"], self.reading["prompt"])
        form = None if answer.abstained else answer_form(answer.text, self.s.max_words)
        if form is None:
            return run
        cited = answer.citations[0] if answer.citations else None
        lemmas = self.form_lemmas(sources).get(form, [])
        folded = self.folded_texts(sources)
        return feedback_order(run, form, cited, folded.__getitem__, self.s.n, lemmas)

    def form_lemmas(self, sources) -> dict[str, list[str]]:
        """The lexicon's form -> lemmas map, folded, as its reader's answer selector holds it (its vocabulary)."""
        vocab = sources.answerer(self.s.reader, self.reader_spec, self.reading["depth"])[0].vocab
        return vocab.forms if vocab is not None else {}  # a selector without the grammar features maps no forms

    @staticmethod
    def folded_texts(sources) -> dict[str, str]:
        """Each chunk's text lowercased without accents (text/words.py `fold`), folded once per sources."""
        return sources.cached(("folded",), lambda: {c.id: fold(c.text) for c in sources.chunks})

    def mechanism(self) -> str:
        return f"{self.s.reader}'s answer form searched in the top {self.s.n}"
