"""Whether a corpus has dev questions, told from its config and source before anything is built.

A fitted fusion fits on the dev split when there is one, else on held-out synthetic questions
(rank/kinds/fusions.py): which of the two is decided when the graph is planned, so that only a
fusion without dev questions reads the synthetic ones and the retrievers it ranks them with.

- markdown: a question of the questions file with `"split": "dev"` that is answerable (no file: none);
- SQuAD: `source.dev_docs` names an article (its questions are dev);
- BEIR: never (its judged queries carry no split; a training split trains, it does not pick).

The retrieve stage decides the same thing from questions.jsonl (which the questions stage makes
from these very files), so the two agree.

What it leaves out: validating the questions (the questions stage does; a line that does not
parse is skipped here and refused there).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from ..text.corpus import FOLDERS, SourceSettings


def has_dev_questions(source: SourceSettings) -> bool:
    """Whether the corpus whose `source` this is has answerable dev questions to fit on."""
    if source.format == "squad":
        return bool(source.dev_docs)
    if source.format not in FOLDERS or not source.questions:
        return False
    path = Path(source.questions)
    if not path.is_file():
        return False
    stat = path.stat()
    return _file_has_dev(str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=16)
def _file_has_dev(path: str, mtime_ns: int, size: int) -> bool:
    # keyed by the file's mtime and size too: the graph asks once per job while it plans, and an
    # edited file is read again
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if '"dev"' not in line:  # most lines: no need to parse
                continue
            try:
                q = json.loads(line)
            except ValueError:
                continue
            if isinstance(q, dict) and q.get("split") == "dev" and q.get("answerable", True) is not False:
                return True
    return False
