"""The grammar's feature set of the answer selector: what it fills of the extension point "select.features".

The core's selector (answer/select/selector.py) holds one of these beside its generic features and asks it
to prepare a chunk's candidates, read a question, describe the candidates, rule some out and describe
"none of them"; the training asks it for the vocabulary it reads questions through, the analyzer its
training questions' chunks are found with, and its synthetic questions.

    fs = GrammarFeatureSet(Vocabulary.from_chunks(chunks, lexicon, terms, langs))
    a = fs.analyze("¿pretérito de tener?");  X = fs.matrix(a, blocks)   # (m, len(FEATURES))

What it leaves out: the features themselves (features.py), the question's reading (analysis.py).
"""

from __future__ import annotations

import re

from minirag.answer.select.selector import stored_vocabulary
from minirag.artifacts.integrity import load_json
from minirag.text.analyze import AnalyzerConfig

from ..questions.learner_questions import synthesize
from ..questions.offtopic import offtopic_questions
from .analysis import RULE_RE, analyze
from .concepts import PERSONS
from .features import FEATURES, Featurizer
from .none_option import NULL_FEATURES, null_features
from .ruled_out import ruled_out_of
from .terms import GrammarTerms
from .vocabulary import Vocabulary

# Asking whether something is right, or setting two things against each other, asks for the rule that says
RULE_CHECK_RE = re.compile(r"\b(?:correct|correcto|incorrect|incorrecto|wrong|mistake|error|vs|versus|instead of|"
                           r"en vez de|can i say|is it ok|esta bien|esta mal|se puede decir|how come)\b")


class GrammarFeatureSet:
    """The selector's grammar features over a corpus's vocabulary (its table keys, forms, translations)."""
    names = FEATURES
    null_names = NULL_FEATURES
    cell_slots = PERSONS  # a cell of six forms names the persons in order
    # a training question's chunks: English and Spanish question filler dropped, Spanish stems, accents folded
    training_analyzer = AnalyzerConfig(query_stopwords=("en", "es"), stemmer="spanish", fold_accents=True)

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab
        self.featurizer = Featurizer(vocab.terms, vocab.language)

    def block(self, candidates):
        return self.featurizer.block(candidates)

    def analyze(self, query: str):
        return analyze(query, self.vocab)

    def matrix(self, analysis, blocks):
        return self.featurizer.matrix(analysis, blocks)

    def ruled_out(self, analysis, blocks):
        """A mask of the candidates no answer can be: what the question quotes (ruled_out.py)."""
        return ruled_out_of(analysis, blocks, self.vocab)

    def rule_question(self, analysis, unsure: bool) -> list[str] | None:
        """What a question quotes when it asks for a rule, a meaning or whether something is right (when, why,
        what does X mean, "is 'I have seen him yesterday' correct?", X vs Y), else None: the core answers it
        with the sentence that states the rule where one holds enough of the question (explain.py
        rule_sentence). A choice alone ("he flys or he flies?", "less people or fewer people") asks for the
        option: it gets the rule only when the selector is `unsure` of its best answer."""
        rule = analysis.asks in ("rule", "meaning") or RULE_CHECK_RE.search(analysis.folded)
        choice = analysis.asks == "choice" and (unsure or RULE_RE.search(analysis.folded))
        return list(analysis.quoted) if rule or choice else None

    def null_features(self, analysis, kept):
        return null_features(analysis, kept)

    @staticmethod
    def vocabulary(chunks, lexicon: dict, terms: GrammarTerms | None, langs: dict[str, str]) -> Vocabulary:
        """What the features read questions through, from the chunks; without a terms file, the concepts'
        own names."""
        return Vocabulary.from_chunks(chunks, lexicon, terms if terms is not None else GrammarTerms.base(), langs)

    @staticmethod
    def stored_vocabulary(model, chunks, langs: dict[str, str], lexicon, terms, files: dict | None) -> Vocabulary:
        """The vocabulary over lexicon.json and the terms file (None, None: the concepts' own names). When
        train_reader built it from the docs and chunks files `files` names (and this lexicon and terms file),
        the selector's sidecar holds it (milliseconds), else it is rebuilt from the chunks (a second on the KB)."""
        lex = load_json(lexicon, "lexicon") if lexicon is not None else {}
        grammar = GrammarTerms.load(terms, lex.get("lexicon", {}))
        built = {"lexicon": lexicon, "terms": terms} if lexicon is not None else {}
        record = stored_vocabulary(model, {**(files or {}), **built}) if files else None
        return Vocabulary.from_record(record, grammar) if record else Vocabulary.from_chunks(chunks, lex, grammar, langs)

    @staticmethod
    def questions(docs: list[dict], terms: GrammarTerms, lexicon: dict, n: int, seed: int,
                  vocab: Vocabulary | None) -> list:
        """Learner questions about the grammar and, given the corpus's vocabulary, off-topic ones about its
        examples' content (what the grammar does not answer)."""
        out = synthesize(docs, terms, n, seed, lexicon.get("lexicon", {}))
        if vocab is not None:
            out += offtopic_questions(docs, vocab, n // 10, seed)
        return out
