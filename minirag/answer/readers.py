"""Readers turn a Prompt into an answer with citations.

`ExtractiveReader` answers with the answer selector's best answer (selector.py: every cell
and clause of the top chunks scored by a model trained on learner questions), and, given
a prompt no selector scored (the seed's four-line call site), from the prompt's evidence
lines (evidence.py: the rows, items and sentences of the retrieved chunks that hold the
question's words, best first), returning the answer itself, not a pointer to where it is:

- from a table row, the cell under the column the question names: "past participle of
  write" and the row `Base form: write; Past simple: wrote; Past participle: written` give
  "written"; a column is named when its header shares a word with the question, and the
  cell that is itself the question's key ("write") is never the answer;
- from prose, the clause (between commas, semicolons, colons and dashes) that holds the most
  of the question's rare words.

Question words are weighted by how rare they are among the evidence lines:

    support = |content(q) found in the evidence| / |content(q)|
    line    = argmax_l  Σ_{w ∈ content(q) ∩ words(l)} log((L + 1) / (df_L(w) + 0.5))

It abstains with the prompt's "I don't know" when the evidence misses too much of the
question (support < threshold) or no line shares a content word with it. Words match on
their first six letters, a crude stem that lets "conjugate" find "conjugation".

Readers are registered by subclassing `Reader` (its `type` is the config's `readers` entry
type, its `Settings` the dataclass of its settings); `make_reader` builds a configured one.

`OpenAIReader` asks any OpenAI-compatible chat-completions server (openai_client.py): the
rendered prompt is the system message and the question the user message, so a server that
answers the last user message (`minirag serve` itself) gets the question, and a chat model
gets the context and its instructions. Its reply is the answer: the `[#n]` markers in it
are the citations, a reply saying "I don't know" is an abstention, and every answer
records the model and the endpoint it came from.

What it leaves out: generation (minigpt/reader.py: a small GPT the graph trains).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Mapping

from ..settings import Kind, setting
from ..text.words import prefix_stems
from .evidence import content_words, idf_weights, line_scores
from .minigpt.reader import MiniGPTSettings
from .prompt import IDK, Prompt
from .select.settings import SelectorSettings

# Started inside a run of spaces, the leading \s* rescanned the run at each of its spaces (quadratic in its
# length); a match starts there only at a separator right after the last match, which the lookahead keeps.
CLAUSE_RE = re.compile(r"(?:(?<!\s)|(?=[,;:()]))\s*(?:[,;:]|\s[–—-]\s|\(|\))\s*")


@dataclass(frozen=True)
class Answer:
    """A reader's answer, the chunks it cites, and where it came from."""
    text: str
    citations: list[str]  # chunk ids the answer cites
    abstained: bool
    score: float  # support: share of the question's content words found in the contexts
    latency_ms: float
    origin: dict = field(default_factory=dict)  # where a remote answer came from: {"model", "endpoint"}
    why: str = ""  # an abstention's reason, in a user's words ("the documents never name Zumba"); "" for an answer


READERS: dict[str, type["Reader"]] = {}


class Reader(Kind):
    """Answers a prompt: `generate(prompt, max_new_tokens)` -> Answer, citing the prompt's chunks."""
    registry, label = READERS, "reader"
    trained: ClassVar[bool] = False  # the graph trains it (train_reader) before it answers
    remote: ClassVar[bool] = False   # it answers by calling another server: slow, and nothing to load ahead
    report: ClassVar[str] = "training"  # its section of the report (report/trained.py: selector, reading_tasks)
    selects: ClassVar[bool] = False  # its weights are the corpus's answer selector: they score every answered
    #                                  run's candidates (the first such reader of a corpus is its selector)
    # a trained kind: the corpus artifacts its training reads (the train_reader rule's inputs, by name)
    training_inputs: ClassVar[tuple[str, ...]] = ()
    # those of them only a corpus with `domain: grammar` has (the graph gives no other corpus's job them)
    grammar_inputs: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def train(cls, settings: dict, name: str, files: dict, out, log) -> None:
        """Train on `files` (training_inputs -> path); write weights to `out`, the sidecar and tasks beside it."""
        raise NotImplementedError

    @classmethod
    def reads(cls, graph, name: str) -> dict:
        """What answering with it reads besides its prompts (the generate job's inputs, what a server
        loads): a trained kind's weights. `graph` is the corpus's CorpusGraph (pipeline/graph.py)."""
        return graph.reader_weights(name) if cls.trained else {}

    @classmethod
    def selecting_reads(cls, graph, name: str) -> dict:
        """A `selects` kind: what scoring a run's candidates reads besides the run and the chunks."""
        return {**graph.selector_domain(), **graph.reader_weights(name)}

    @classmethod
    def training_reads(cls, graph, name: str) -> dict:
        """A trained kind: what its train_reader job reads besides the documents, by `training_inputs`."""
        return {**graph.corpus_files_named([k for k in cls.training_inputs if k != "docs"]),
                **(graph.selector_lists() if cls.selects else {})}

    @classmethod
    def for_source(cls, settings, source):
        """Its settings with what the corpus's source decides filled in (the config check calls it once)."""
        return settings

    @property
    def name(self) -> str:
        return self.type

    @classmethod
    def from_settings(cls, settings) -> "Reader":
        raise NotImplementedError

    def generate(self, prompt: Prompt, max_new_tokens: int | None = None) -> Answer:
        raise NotImplementedError


def cell_answer(query_words: list[str], cells: list[list[str]]) -> str | None:
    """The value under the column the question names, never the question's own key."""
    best, best_score = None, 0
    for column, value in cells:
        value_words = prefix_stems(value)
        if not value or value_words <= set(query_words):
            continue  # the question's key ("write") or an empty cell
        score = len(prefix_stems(column) & set(query_words))
        if score > best_score:
            best, best_score = value, score
    return best


def clause_answer(query_words: list[str], text: str) -> str:
    """The clause of a sentence holding the most weight of the question's words."""
    clauses = [c.strip() for c in CLAUSE_RE.split(text) if c and c.strip()]
    if len(clauses) < 2:
        return text.strip()
    w = idf_weights(query_words, [prefix_stems(c) for c in clauses])
    return max(clauses, key=lambda c: sum(w[q] for q in query_words if q in prefix_stems(c)))


def line_answer(query_words: list[str], line: dict) -> str:
    """A row's cell under the named column; else the best clause of the line (of a row without named
    columns, of the text after its heading)."""
    if line["cells"]:
        return cell_answer(query_words, line["cells"]) or clause_answer(query_words, line["text"])
    if line["kind"] == "row":
        return clause_answer(query_words, line["text"].split(": ", 1)[-1])
    return clause_answer(query_words, line["text"])


class ExtractiveReader(Reader):
    """The best answer the answer selector found (the prompt's `answers`, scored by the weights the
    graph trains, train_selector.py), cited; "I don't know" when "none of them" is likelier or its
    probability is under the threshold, unless an answer states what is asked (select/stated.py). A prompt built without a selector (the seed's call site
    with no trained weights) is answered from its evidence lines instead (module docstring)."""
    type, Settings, trained, selects, report = "extractive", SelectorSettings, True, True, "selector"
    training_inputs = ("docs", "chunks", "lexicon", "terms", "questions")
    grammar_inputs = ("lexicon", "terms")
    SUPPORT = 0.5  # without a selector: abstain below this share of the question's words found

    @classmethod
    def for_source(cls, settings: SelectorSettings, source) -> SelectorSettings:
        if settings.minimal_edits is None:  # a SQuAD source's unanswerable questions are minimal edits
            return replace(settings, minimal_edits=source.format == "squad")
        return settings

    @classmethod
    def train(cls, settings: dict, name: str, files: dict, out, log) -> None:
        from .training import train_extractive
        train_extractive(settings, name, files, out, log)

    def __init__(self, threshold: float = 0.5, abstain: str = IDK, rule: str = "best", calibrated_on: str = "",
                 never: bool = False):
        self.threshold, self.abstain, self.rule, self.calibrated_on = threshold, abstain, rule, calibrated_on
        self.never = never  # `abstention: never`: the best answer whatever its probability

    @classmethod
    def from_settings(cls, settings: SelectorSettings, model) -> "ExtractiveReader":
        """The threshold set, else the one calibrated on the dev questions (the weights' sidecar)."""
        from .select.selector import selector_sidecar
        side = selector_sidecar(model) if model else {}
        rule, on = side.get("rule", "best"), side.get("calibrated_on", "dev")
        never = settings.abstention == "never"
        if never or settings.threshold is not None:
            return cls(settings.threshold or 0.0, settings.abstain, rule, "never" if never else "config", never)
        return cls(side["threshold"], settings.abstain, rule, on)

    def generate(self, prompt: Prompt, max_new_tokens: int | None = None) -> Answer:
        t0 = time.perf_counter()
        if prompt.answers is not None:
            best = prompt.answers[0] if prompt.answers else None
            answers = best is not None and (self.never or (prompt.p_none <= self.threshold if self.rule == "none"
                                                           else best["p"] >= self.threshold and best["p"] > prompt.p_none))
            stated = next((a for a in prompt.answers if a.get("stated")), None)
            if not answers and not prompt.none_why and stated is not None:  # what the documents state is given
                best, answers = stated, True
            if not answers:
                return Answer(self.abstain, [], True, best["p"] if best else 0.0, (time.perf_counter() - t0) * 1000.0,
                              why=self.why_abstained(prompt, best))
            return Answer(f"{best['text']} [#{best['n']}]", [prompt.citations[best["n"] - 1]], False, best["p"],
                          (time.perf_counter() - t0) * 1000.0)
        return self.from_lines(prompt, t0)

    def why_abstained(self, prompt: Prompt, best: dict | None) -> str:
        """Why the selector's answers were not given: a rule's reason (the prompt's `none_why`), no candidate,
        or which probability missed the threshold."""
        if prompt.none_why:
            return prompt.none_why
        if best is None:
            return "no candidate answer in the chunks read"
        if self.rule == "none":
            return (f"the chance that no candidate answers ({prompt.p_none:.2f}) is above the threshold "
                    f"({self.threshold:g})")
        if best["p"] < self.threshold:
            return f"the best answer's chance ({best['p']:.2f}) is below the threshold ({self.threshold:g})"
        return f"the best answer's chance ({best['p']:.2f}) is not above that of none ({prompt.p_none:.2f})"

    def from_lines(self, prompt: Prompt, t0: float) -> Answer:
        """The seed's extractive reading: the best line's named cell or best clause."""
        query_words = content_words(prompt.query)
        lines = prompt.evidence
        found = set().union(*(prefix_stems(ln["text"]) for ln in lines))
        support = (sum(w in found for w in query_words) / len(query_words)) if query_words else 0.0
        scores = line_scores(prompt.query, [ln["text"] for ln in lines])
        best = max(range(len(lines)), key=lambda i: (scores[i], -i), default=None)  # ties: the line shown first
        if best is None or scores[best] <= 0 or support < self.SUPPORT:
            why = (f"{support:.0%} of the question's words are in the evidence (at least {self.SUPPORT:.0%} needed)"
                   if support < self.SUPPORT else "no evidence line shares a word with the question")
            return Answer(self.abstain, [], True, support, (time.perf_counter() - t0) * 1000.0, why=why)
        n = lines[best]["n"]
        text = line_answer(query_words, lines[best])
        return Answer(f"{text} [#{n}]", [prompt.citations[n - 1]], False, support, (time.perf_counter() - t0) * 1000.0)


class MiniGPTReaderKind(Reader):
    """A small GPT the graph trains on reading tasks from the corpus (minigpt/reader.py)."""
    type, Settings, trained, report = "minigpt", MiniGPTSettings, True, "reading_tasks"
    training_inputs = ("docs", "tokenizer")

    @classmethod
    def train(cls, settings: dict, name: str, files: dict, out, log) -> None:
        from .training import train_minigpt
        train_minigpt(settings, name, files, out, log)

    def __init__(self, inner):
        self.inner = inner

    @classmethod
    def from_settings(cls, settings: MiniGPTSettings, model) -> "MiniGPTReaderKind":
        from .minigpt.reader import MiniGPTReader
        return cls(MiniGPTReader.load(model, settings))

    def generate(self, prompt: Prompt, max_new_tokens: int | None = None) -> Answer:
        text, citations, abstained, ms = self.inner.answer(prompt, max_new_tokens)
        support = 0.0 if abstained else 1.0
        return Answer(text, citations, abstained, support, ms,
                      why=MODEL_IDK if abstained else "")


IDK_PHRASES = ("i don't know", "i do not know", "no lo sé", "no lo se")
MODEL_IDK = "the model answered that it does not know"  # why a model's own "I don't know" abstained
MARKER_RE = re.compile(r"\[#(\d+)\]")


@dataclass(frozen=True)
class OpenAISettings:
    """A reader that asks an OpenAI-compatible server."""
    base_url: str = setting("http://127.0.0.1:8000/v1", pattern=r"^https?://\S+$")  # the API root, up to /v1
    model: str = setting("minirag", min_length=1)
    api_key_env: str = setting("", pattern=r"^([A-Za-z_][A-Za-z0-9_]*)?$")  # the NAME of the variable holding the key
    temperature: float = setting(0.0, minimum=0, maximum=2)
    max_tokens: int = setting(256, minimum=1)
    timeout_s: float = setting(60.0, exclusive_minimum=0)
    retries: int = setting(2, minimum=0)        # further tries after a refused connection, a timeout, a 429 or 5xx
    backoff_s: float = setting(0.5, minimum=0)  # the wait before retry i is backoff_s * 2**i
    max_response_bytes: int = setting(8_000_000, minimum=1024)  # a longer reply is refused (read up to this)


class OpenAIReader(Reader):
    """The answer of a model behind an OpenAI-compatible API, given the rendered prompt."""
    type, Settings, remote = "openai", OpenAISettings, True

    def __init__(self, client, temperature: float = 0.0, max_tokens: int = 256):
        self.client, self.temperature, self.max_tokens = client, temperature, max_tokens

    @classmethod
    def from_settings(cls, settings: OpenAISettings) -> "OpenAIReader":
        from .openai_client import ChatClient
        key = ""
        if settings.api_key_env:
            key = os.environ.get(settings.api_key_env, "")
            if not key:
                raise ValueError(f"api_key_env: the environment variable {settings.api_key_env} is not set")
        client = ChatClient(settings.base_url, settings.model, key, settings.timeout_s, settings.retries,
                            settings.backoff_s, settings.max_response_bytes)
        return cls(client, settings.temperature, settings.max_tokens)

    def generate(self, prompt: Prompt, max_new_tokens: int | None = None) -> Answer:
        from .openai_client import reply_text
        t0 = time.perf_counter()
        messages = [{"role": "system", "content": prompt.text}, {"role": "user", "content": prompt.query}]
        reply = self.client.complete(messages, self.temperature, max_new_tokens or self.max_tokens)
        text = reply_text(reply).strip()
        cited = [int(n) for n in MARKER_RE.findall(text) if 1 <= int(n) <= len(prompt.citations)]
        citations = list(dict.fromkeys(prompt.citations[n - 1] for n in cited))
        abstained = not text or any(p in text.lower().replace("’", "'") for p in IDK_PHRASES)
        model = reply.get("model") if isinstance(reply.get("model"), str) and reply.get("model") else None
        origin = {"model": model or self.client.model, "endpoint": self.client.url}
        return Answer(text, [] if abstained else citations, abstained, 0.0 if abstained else 1.0,
                      (time.perf_counter() - t0) * 1000.0, origin,
                      why="" if not abstained else MODEL_IDK if text else "the model gave no answer")


def make_reader(spec: Mapping[str, Any], model: str | None = None) -> Reader:
    """The reader a config entry {type: ..., settings...} names, built from its checked settings
    (a trained reader from its weights, `model`)."""
    cls, settings = Reader.settings_of(spec, "reader")
    if cls.trained:
        if model is None:
            raise ValueError(f"a {cls.type} reader needs its trained weights (the train_reader stage's .npz)")
        return cls.from_settings(settings, model)
    return cls.from_settings(settings)


