"""lexicon: docs.jsonl -> lexicon.json, the corpus's own English↔Spanish term map, form -> lemma map and
lemma -> tense -> person -> forms map: the grammar domain's stage."""

from __future__ import annotations

from pathlib import Path

from minirag.artifacts.integrity import load_records
from minirag.stages.common import log, run_stage

from ..language.lexicon import extract_lexicon, save_lexicon
from ..language.verb_forms import extract_verb_forms


def lexicon(docs: Path, out: Path) -> list[Path]:
    """Mine the documents' bilingual tables and lines and their conjugation tables (language/lexicon.py)."""
    documents = load_records(docs, "documents")
    terms, (forms, paradigms) = extract_lexicon(documents), extract_verb_forms(documents)
    save_lexicon(out, terms, forms, paradigms)
    log(f"lexicon: {len(terms)} terms with translations, {len(forms)} forms with lemmas, "
        f"{len(paradigms)} verbs with forms by tense -> {out}")
    return [out]


if __name__ == "__main__":
    run_stage(lexicon)
