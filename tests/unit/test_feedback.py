"""Answer-form feedback (rank/kinds/feedback.py, the `feedback` kind): the reader's cited chunk, then the top N chunks
holding its short answer, lead the run; an abstention or a long answer leaves the run as it is."""

from types import SimpleNamespace

import pytest

from minirag.answer.readers import Answer
from minirag.config.corpus import ConfigError, corpus_config
from minirag.config.typed import Corpus
from minirag.rank.kinds.feedback import answer_form, feedback_order
from minirag.stages.retrieve import retrieve_reads
from minirag.text.words import fold

TEXTS = {"a": "ser: fui, fuiste", "b": "tener: Tuve, tuviste", "c": "estar: estuve", "d": "yo tuvé ayer",
         "e": "hablar: hablé", "f": "tener: tuve"}
RUN = [(cid, float(6 - i)) for i, cid in enumerate("abcdef")]  # positional, as a reorder's input run is


def folded(cid):
    return fold(TEXTS[cid])


def test_the_cited_chunk_then_the_chunks_holding_the_form_in_the_top_n_lead_in_run_order():
    # "tuve" whole word, case and accents folded: b and d hold it ("estuve" in c does not count); f is beyond n
    assert [c for c, _ in feedback_order(RUN, "tuve", "e", folded, n=5)] == ["e", "b", "d", "a", "c", "f"]
    assert [c for c, _ in feedback_order(RUN, "tuve", "e", folded, n=6)] == ["e", "b", "d", "f", "a", "c"]
    out = feedback_order(RUN, "tuve", None, folded, n=6)
    assert [c for c, _ in out] == ["b", "d", "f", "a", "c", "e"] and [s for _, s in out] == [6, 5, 4, 3, 2, 1]


def test_the_chunks_holding_the_form_with_its_verb_lead_those_that_only_use_it_within_the_top_n():
    # b and f state "tener ... tuve"; d only uses the form: it follows them, still ahead of the rest
    order = feedback_order(RUN, "tuve", None, folded, n=6, lemmas=["tener"])
    assert [c for c, _ in order] == ["b", "f", "d", "a", "c", "e"]
    # beyond the top n nothing moves, stating the form or not (f, d)
    assert [c for c, _ in feedback_order(RUN, "tuve", "e", folded, n=3, lemmas=["tener"])] == ["e", "b", "a", "c", "d", "f"]
    # a lemma spelled as the form itself (a lexicon row "tuve -> tuve") picks nothing out
    assert [c for c, _ in feedback_order(RUN, "tuve", None, folded, n=6, lemmas=["tuve"])] == ["b", "d", "f", "a", "c", "e"]


def test_only_a_short_answer_is_a_form_to_search():
    assert answer_form("Tuvé [#2]", 3) == "tuve"
    assert answer_form("se usa el pretérito para acciones [#1]", 3) is None
    assert answer_form(" [#1]", 3) is None


CONFIG = {"corpora": {"c": {
    "source": {"format": "markdown", "path": "docs", "questions": "q.jsonl"},
    "retrievers": {"b": {"type": "bm25"}, "fb": {"type": "feedback", "of": "b", "reader": "x", "n": 2}},
    "readers": {"x": {"type": "extractive", "threshold": 0.4}, "g": {"type": "minigpt"}},
    "answer": ["b"]}}}


class FakeSources:
    """Sources whose reader gives a set answer, recording what it was asked; its selector's vocabulary maps the
    form "tuve" to its verb, as the lexicon does."""
    chunks = [SimpleNamespace(id=cid, text=text) for cid, text in TEXTS.items()]

    def __init__(self, answer):
        self.given, self.asked, self.built = answer, [], {}

    def answer(self, reader, spec, query, ranked, depth, prompt):
        self.asked.append((reader, spec, query, ranked, depth, prompt))
        return self.given

    def answerer(self, reader, spec, depth):
        return SimpleNamespace(vocab=SimpleNamespace(forms={"tuve": ["tener"]})), None

    def cached(self, key, build):
        if key not in self.built:
            self.built[key] = build()
        return self.built[key]


def feedback_kind():
    cc = corpus_config(CONFIG, "c")
    return Corpus.of(cc).retrievers["fb"]


@pytest.mark.parametrize("answer, expected", [
    (Answer("tuve [#1]", ["f"], False, 0.9, 0.0), ["f", "b", "a", "c", "d", "e"]),
    (Answer("I don't know.", [], True, 0.1, 0.0), list("abcdef")),
    (Answer("tuve ayer con mi amigo [#1]", ["f"], False, 0.9, 0.0), list("abcdef")),
])
def test_the_kind_reorders_by_its_readers_answer_and_an_abstention_or_a_long_answer_moves_nothing(answer, expected):
    kind, sources = feedback_kind(), FakeSources(answer)
    assert [c for c, _ in kind.combine("preterite of tener", [RUN], sources, 100)] == expected
    reader, spec, query, ranked, depth, prompt = sources.asked[0]
    assert (reader, spec["threshold"], ranked, depth, prompt["k"]) == ("x", 0.4, list("abcdef"), 20, 3)


def test_the_kind_puts_the_chunks_holding_the_answers_verb_first_its_lemmas_from_the_sources_lexicon():
    corpus = {**CONFIG["corpora"]["c"], "retrievers": {**CONFIG["corpora"]["c"]["retrievers"],
                                                       "fb": {"type": "feedback", "of": "b", "reader": "x", "n": 6}}}
    kind = Corpus.of(corpus_config({"corpora": {"c": corpus}}, "c")).retrievers["fb"]
    sources = FakeSources(Answer("tuve [#1]", ["a"], False, 0.9, 0.0))
    assert [c for c, _ in kind.combine("preterite of tener", [RUN], sources, 100)] == ["a", "b", "f", "d", "c", "e"]


@pytest.mark.parametrize("change, message", [
    ({"reader": "nope"}, "retrievers.fb.reader: unknown reader 'nope'"),
    ({"reader": "g"}, "retrievers.fb.reader: 'g' is a minigpt reader; feedback needs an extractive one"),
    ({"of": "zz"}, "retrievers.fb.of: unknown retriever 'zz'"),
    ({"n": 0}, "retrievers.fb.n"),
])
def test_bad_settings_are_refused_in_one_line_naming_the_key(change, message):
    raw = {"corpora": {"c": {**CONFIG["corpora"]["c"], "retrievers": {
        **CONFIG["corpora"]["c"]["retrievers"], "fb": {**CONFIG["corpora"]["c"]["retrievers"]["fb"], **change}}}}}
    with pytest.raises(ConfigError, match=message) as e:
        corpus_config(raw, "c")
    assert "\n" not in str(e.value)


def test_a_corpus_that_answers_no_run_has_no_trained_reader_to_feed_back():
    raw = {"corpora": {"c": {**CONFIG["corpora"]["c"], "answer": []}}}
    with pytest.raises(ConfigError, match="retrievers.fb.reader: the corpus answers no run"):
        corpus_config(raw, "c")


def test_the_retrieve_job_carries_its_readers_settings_so_a_threshold_change_reruns_it():
    from minirag.artifacts.layout import CorpusLayout
    from minirag.pipeline.graph import CorpusGraph
    from minirag.pipeline.stages import settings_of
    cc = corpus_config(CONFIG, "c")
    settings = settings_of(CorpusGraph(cc, CorpusLayout.of("results", "c")), "retrieve", name="fb")
    assert settings["readers"]["x"]["threshold"] == 0.4 and settings["of"] == "b"
    files = retrieve_reads(CorpusGraph(cc, CorpusLayout.of("results", "c")), "fb")["files"]
    assert {"reader:x", "chunks"} <= set(files) and not {"lexicon", "terms"} & set(files)  # no grammar: neither
    grammar = corpus_config({"corpora": {"c": {**CONFIG["corpora"]["c"], "domain": "grammar"}}}, "c")
    files = retrieve_reads(CorpusGraph(grammar, CorpusLayout.of("results", "c")), "fb")["files"]
    assert {"reader:x", "lexicon", "terms", "chunks"} <= set(files)
    # the reader's weights tracked with their sidecar; the word lists its selector reads are inputs too
    assert files["reader:x"].files == ("results/c/readers/x.npz", "results/c/readers/x.json")
    assert {f.rsplit("/", 1)[-1] for f in files["words:selector"].files} == {"constructions.txt"}


def test_its_reader_answers_as_over_an_answered_run_candidates_depth_and_the_prompt_settings():
    prompt = {"k": 4, "answers": 1, "template": "default", "evidence_lines": 5, "evidence_chars": 200}
    corpus = {**CONFIG["corpora"]["c"], "candidates": {"depth": 15}, "prompt": prompt}
    kind = Corpus.of(corpus_config({"corpora": {"c": corpus}}, "c")).retrievers["fb"]
    sources = FakeSources(Answer("tuve [#1]", ["f"], False, 0.9, 0.0))
    kind.combine("preterite of tener", [RUN], sources, 100)
    depth, given = sources.asked[0][4:]
    assert depth == 15 and {k: given[k] for k in prompt} == prompt
    unbound = kind.__class__.from_spec(CONFIG["corpora"]["c"]["retrievers"]["fb"], "retrievers.fb")
    unbound.name = "fb"
    with pytest.raises(ValueError, match="retrievers.fb: its reader's settings were not bound"):
        unbound.combine("preterite of tener", [RUN], sources, 100)
