"""What a corpus's config holds: its single-valued sections (`CorpusSettings`) and its named collections
with the entries a corpus has when its config names none (`COLLECTIONS`).

Each section is the settings dataclass of the code that reads it (text/corpus.py, text/bpe.py,
text/chunker.py, answer/*, evaluation/diagnose.py): the only homes of the defaults, which the schema
(schema.py) is generated from.

What it leaves out: checking a config (corpus.py) and the typed tree a checked one becomes (typed.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..answer.prompt import PromptSettings
from ..answer.select.settings import CandidateSettings
from ..evaluation.diagnose import DiagnoseSettings
from ..settings import PATH_PATTERN, setting
from ..text.bpe import TokenizerSettings
from ..text.chunker import ChunkSettings
from ..text.corpus import SourceSettings


@dataclass(frozen=True)
class CorpusSettings:
    """The single-valued sections of a corpus; the named collections are listed in COLLECTIONS."""
    # grammar: the English/Spanish grammar domain (lexicon, query expansion, grammar reader); null: the generic core
    domain: Literal["grammar"] | None = None
    source: SourceSettings = SourceSettings()
    tokenizer: TokenizerSettings = TokenizerSettings()
    chunk: ChunkSettings = ChunkSettings()
    depth: int = setting(100, minimum=1)       # ranks written per query in every run file
    candidates: CandidateSettings = CandidateSettings()  # what the answer selector reads of each answered run
    prompt: PromptSettings = PromptSettings()
    diagnose: DiagnoseSettings = DiagnoseSettings()
    note: str = ""                             # markdown shown at the top of the corpus's report section
    assertions: str = setting("", pattern=PATH_PATTERN)  # YAML file of assertions (workflow/assertions.*.yaml)
    strict: bool = False                       # true: a failing assertion fails the build
    serve: str = ""                            # the retriever `search` and `answer` use unasked; "" = the best on dev
    answer: tuple[str, ...] = ("*",)           # runs every reader answers; "*" = all but sweep points, [] = none
    shards: int = setting(1, minimum=1, maximum=10_000)        # > 1: chunk, embed and BM25 run as one job per shard, then merge
    train_cap: int = setting(0, minimum=0)     # > 0: tokenizer, bi-encoder and reader learn from at most this many documents
    train_seed: int = 0                        # which documents that sample holds (shards.training_sample)


# The collections a corpus has when its config names none; each entry's settings take
# their kind's defaults. `reader` is a single kind-typed entry.
COLLECTIONS: dict[str, dict[str, dict]] = {
    "embedders": {"hashing": {"type": "hashing"}},
    # the question filler and stemmer of the languages the documents are in (dev suite: hit@5 up on 2 of 3 corpora)
    "bm25": {"plain": {"analyzer": {"languages": "documents"}}},
    "retrievers": {"dense": {"type": "dense", "embedder": "hashing"}, "bm25": {"type": "bm25", "index": "plain"},
                   "rrf": {"type": "rrf", "of": ["dense", "bm25"]}},
    "readers": {"extractive": {"type": "extractive"}},
}
