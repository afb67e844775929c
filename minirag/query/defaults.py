"""What the command line and the server pick when the user does not say: the corpus, the retriever,
and the command that builds a corpus that is not there yet.

- `default_corpus(configfile)`: the config's first built corpus (its `build` list, else its first
  corpus), so `--configfile mine.yaml` alone opens the corpus mine.yaml builds.
- `served_retriever(corpus, metrics)`: the config's `serve` retriever; without one, the main retriever
  the evaluation ranks best on the dev split (chunk hit@5, MRR breaking a tie; the test split when
  there is no dev split); without metrics or an answerable question, the first fusion, else the
  first retriever. It returns the name and one line saying why, which `answer` prints and the page shows.
- `build_command(configfile)`: `make report` for the default config, else `make build CONFIG=<file>`.
- `example_question(questions)`: the page's example, a dev question the corpus answers, stated plainly
  where the questions say so (`difficulty: verbatim`, not a learner's misspelt paraphrase).

What it leaves out: opening anything (built_corpus.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEFAULT_CONFIG = "workflow/config.yaml"


def default_corpus(configfile: str | Path) -> str:
    from ..config.corpus import corpus_names
    from ..config.load import load_config
    return corpus_names(load_config(configfile))[0]


def named_corpus(configfile: str | Path, corpus: str | None, results: str | Path | None = None) -> tuple[str, Any]:
    """(the corpus's name, its checked settings, typed: config/typed.py): `corpus`, else the config's first built one; the
    config file read once (given `results`, from the report's JSON copy of these bytes when there is
    one: config/parsed.py), the corpus checked by minirag's own checks (load.py: no JSON-schema pass)."""
    from ..config.corpus import ConfigError, checked_corpus, corpus_names
    from ..config.load import load_config
    config = load_config(configfile, schema=False, results=results)
    try:
        corpus = corpus or corpus_names(config)[0]
        return corpus, checked_corpus(config, corpus)
    except ConfigError as exc:
        raise ConfigError(f"{configfile}: {exc}" if not str(exc).startswith(str(configfile)) else str(exc)) from None


def build_command(configfile: str | Path) -> str:
    return "make report" if Path(configfile) == Path(DEFAULT_CONFIG) else f"make build CONFIG={configfile}"


def ranked_on(metrics: dict) -> tuple[str, dict]:
    """(split, its retrieval figures): dev's when the questions have a dev split, else test's; none
    when the split has no answerable question (a corpus without questions scores every run 0)."""
    dev = (metrics.get("splits") or {}).get("dev")
    if dev and dev.get("retrieval") and dev.get("answerable", 0) > 0:
        return "dev", dev["retrieval"]
    return "test", (metrics.get("retrieval") or {}) if metrics.get("answerable", 0) > 0 else {}


def served_retriever(corpus, metrics: dict | None) -> tuple[str, str]:
    """(the retriever to serve by default, why it is the one), as the module docstring says; `corpus`: the
    corpus's config/typed.py `Corpus`."""
    if corpus.serve:
        return corpus.serve, "the config's serve retriever"
    main = corpus.main_retrievers()
    split, figures = ranked_on(metrics or {})
    scored = [r for r in main if r in figures]
    if scored:
        def key(r):
            chunk = figures[r]["chunk"]
            return chunk["hit@5"], chunk["mrr"]
        best = max(scored, key=key)  # the first of equals: config order
        return best, f"best chunk hit@5 on the {split} split ({key(best)[0]:.3f}, eval/metrics.json)"
    first = next((r for r in main if corpus.retrievers[r].fuses), main[0])
    return first, "no evaluation to rank by: the config's first fusion" if corpus.retrievers[first].fuses \
        else "no evaluation to rank by: the config's first retriever"


def example_question(qs: list[dict]) -> dict | None:
    """The question a page shows as an example: the first answerable dev question stated plainly
    (`difficulty: verbatim`), else the first answerable dev one, else the first question."""
    answered = [q for q in qs if q.get("split") == "dev" and q.get("answerable", True)]
    return next((q for q in answered if q.get("difficulty") == "verbatim"), answered[0] if answered else
                (qs[0] if qs else None))
