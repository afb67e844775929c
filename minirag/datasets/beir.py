"""BEIR datasets: read a BEIR folder in place, and fetch one when a user asks.

A BEIR folder holds `corpus.jsonl` (`_id`, `title`, `text`), `queries.jsonl` (`_id`,
`text`) and `qrels/<split>.tsv` (`query-id  corpus-id  score`, a header line). This module
is the one place that reads them: documents for the curate stage, judged queries of the
evaluation split for the questions stage, and (query, relevant document) pairs of a
training split for the bi-encoder. `refuse_training_on` is the one guard that keeps the
evaluation split out of training; the config check and the pair miner both call it.

`download_beir` fetches a dataset zip, checks its md5 and unpacks it atomically. It is
used only by the explicit `download_beir` rule (a user asks for it by naming its output);
nothing else in minirag touches the network.

What it leaves out: BEIR's other files (dev splits are just other split names), retries
and mirrors for the download, and datasets without a published checksum.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterator

from ..artifacts.io import iter_jsonl, read_jsonl, sha256_text
from ..text.corpus import CONTROL_RE, CorpusError, id_problem, normalise, text_problem

# name -> (url, md5) as published by the BEIR benchmark (Thakur et al., NeurIPS 2021).
BEIR_DATASETS = {
    "scifact": ("https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/scifact.zip",
                "5f7d1de60b170fc8027bb7898e2efca1"),
}


def qrels_path(folder: str | Path, split: str) -> Path:
    return Path(folder) / "qrels" / f"{split}.tsv"


def refuse_training_on(train_split: str, eval_split: str, where: str) -> None:
    """Training on the split a retriever is scored on would score it on what it memorised."""
    if train_split and train_split == eval_split:
        raise ValueError(f"{where}: {train_split!r} is the evaluation split; training on it would "
                         "score the model on what it was trained on")


def curate_beir(folder: str | Path, default_lang: str = "en", warn=None) -> list[dict]:
    """`iter_beir_documents` as a list."""
    return list(iter_beir_documents(folder, default_lang, warn))


def iter_beir_documents(folder: str | Path, default_lang: str = "en", warn=None, keep=None) -> Iterator[dict]:
    """Document records (doc_id, title, lang, tags, text, sha256) of corpus.jsonl, in file order,
    one at a time (`keep(doc_id)`: only those it accepts, e.g. one shard's).

    A third-party collection may hold control characters: they are removed, with one warning
    naming the file and how many documents had them. An id with whitespace is refused (it
    could not stand in a TREC line), and so is an id seen before (naming both lines)."""
    path = Path(folder) / "corpus.jsonl"
    if not path.exists():
        raise CorpusError(f"{path}: BEIR corpus file not found")
    cleaned, seen = 0, {}
    for lineno, rec in enumerate(iter_jsonl(path), start=1):
        if not isinstance(rec, dict) or not isinstance(rec.get("_id"), (str, int)) or isinstance(rec.get("_id"), bool):
            raise CorpusError(f"{path}:{lineno}: record has no string '_id'")
        doc_id = str(rec["_id"])
        if not doc_id or any(c.isspace() for c in doc_id) or CONTROL_RE.search(doc_id):
            raise CorpusError(f"{path}:{lineno}: _id {doc_id!r} is empty or holds whitespace, which a TREC line "
                              "cannot carry")
        if keep is not None and not keep(doc_id):
            continue
        if doc_id in seen:
            raise CorpusError(f"{path}:{lineno}: duplicate doc id {doc_id!r}, also the id of {path}:{seen[doc_id]}")
        seen[doc_id] = lineno
        fields = []
        for key in ("text", "title"):
            value = rec.get(key) or ""
            if not isinstance(value, str):
                raise CorpusError(f"{path}:{lineno}: {key} must be a string, got {value!r}")
            fields.append(normalise(value))
        text, title = fields
        if CONTROL_RE.search(text + title):
            cleaned += 1
            text, title = CONTROL_RE.sub("", text), CONTROL_RE.sub("", title)
        if not text.strip() and not title.strip():
            raise CorpusError(f"{path}:{lineno}: document {doc_id!r} has neither title nor text")
        yield {"doc_id": doc_id, "title": title, "lang": default_lang or "en",
               "tags": [], "text": text, "sha256": sha256_text(text)}
    if cleaned and warn:
        warn(f"warning: {path}: control characters removed from {cleaned} document(s)")


def qrels_rows(path: str | Path) -> Iterator[tuple[int, str, str, int]]:
    """(line number, query id, corpus id, grade) of a qrels TSV in file order; the header is skipped."""
    path = Path(path)
    if not path.exists():
        raise CorpusError(f"{path}: qrels file not found")
    import csv  # here, as the download's modules below: the config reads this module for refuse_training_on
    with open(path, encoding="utf-8", newline="") as fh:
        for lineno, row in enumerate(csv.reader(fh, delimiter="\t"), start=1):
            if not row:
                continue
            if lineno == 1 and not row[-1].strip().lstrip("-").isdigit():
                continue  # header: query-id corpus-id score
            if len(row) < 3 or not row[2].strip().lstrip("-").isdigit():
                raise CorpusError(f"{path}:{lineno}: expected query-id, corpus-id, integer score")
            problem = id_problem(row[0])
            if problem:
                raise CorpusError(f"{path}:{lineno}: query-id: {problem}")
            yield lineno, row[0], row[1], int(row[2])


def read_qrels(path: str | Path) -> dict[str, dict[str, int]]:
    """{qid: {doc_id: grade}} of a qrels TSV."""
    qrels: dict[str, dict[str, int]] = {}
    for _, qid, doc_id, grade in qrels_rows(path):
        qrels.setdefault(qid, {})[doc_id] = grade
    return qrels


def read_queries(folder: str | Path) -> dict[str, str]:
    """{query id: text} of queries.jsonl; a record without a string or integer `_id` and a string
    `text` is refused naming its line."""
    path = Path(folder) / "queries.jsonl"
    out = {}
    for lineno, r in enumerate(iter_jsonl(path), start=1):
        qid = r.get("_id") if isinstance(r, dict) else None
        if not isinstance(qid, (str, int)) or isinstance(qid, bool) or not isinstance(r.get("text"), str):
            raise CorpusError(f"{path}:{lineno}: a query needs a string '_id' and a string 'text'")
        out[str(qid)] = r["text"]
    return out


def load_beir_questions(folder: str | Path, split: str, docs: list[dict], lang: str = "en",
                        strict: bool = False, warn=None) -> list[dict]:
    """Judged queries of one split as question records; relevance is per document.

    A published collection may judge more than it ships (ARCD's qrels name 702 queries and
    queries.jsonl holds 50): judged queries absent from queries.jsonl are left out, and
    judged documents absent from corpus.jsonl stay in the gold, so a query judged only on
    them scores 0, as trec_eval scores it. Either is one warning with the counts, or with
    `strict` an error."""
    path = qrels_path(folder, split)
    qrels = read_qrels(path)
    doc_ids = {d["doc_id"] for d in docs}
    queries = read_queries(folder)
    check_dangling(path, qrels, queries, doc_ids, strict, warn)
    out = []
    for qid in sorted((q for q in qrels if q in queries), key=lambda x: (len(x), x)):
        if text_problem(queries[qid]):
            raise CorpusError(f"{Path(folder) / 'queries.jsonl'}: query {qid!r}: holds {text_problem(queries[qid])}")
        gold = [{"doc_id": d, "evidence": None, "char_start": None, "char_end": None, "grade": g}
                for d, g in sorted(qrels[qid].items()) if g > 0]
        out.append({"qid": qid, "query": normalise(queries[qid]), "lang": lang,
                    "difficulty": "unlabelled", "tags": [], "answerable": bool(gold),
                    "answer": None, "gold": gold})
    return out


def check_dangling(path: Path, qrels: dict, queries: dict, doc_ids: set, strict: bool, warn) -> None:
    """Judged queries absent from queries.jsonl and judged documents absent from corpus.jsonl:
    one line each with the counts; an error with `strict` (source.strict_qrels)."""
    absent = [q for q in qrels if q not in queries]
    lost = sorted({(q, d) for q in qrels if q in queries for d, g in qrels[q].items() if g > 0 and d not in doc_ids})
    lines = []
    if absent:
        lines.append(f"{path}: {len(absent)} of {len(qrels)} judged queries are not in queries.jsonl (first: "
                     f"{absent[0]!r}); evaluating on the {len(qrels) - len(absent)} present")
    if lost:
        lines.append(f"{path}: {len(lost)} relevance judgement(s) of {len({q for q, _ in lost})} query(ies) name "
                     f"documents absent from corpus.jsonl (first: {lost[0][1]!r} for {lost[0][0]!r}); "
                     "they stay in the gold and score 0, as trec_eval scores them")
    if lines and strict:
        raise CorpusError(lines[0].split("; ")[0] + " (source.strict_qrels is true)")
    for line in lines:
        if warn:
            warn(f"warning: {line}")


def beir_train_pairs(folder: str | Path, train_split: str, eval_split: str) -> list[tuple[str, str, str]]:
    """("qrels_train", query, title + " " + text) for every judged-relevant (score > 0) row of
    the training split's qrels, in file order; the evaluation split is refused."""
    refuse_training_on(train_split, eval_split, f"{qrels_path(folder, train_split)}")
    queries = read_queries(folder)
    corpus = {str(r["_id"]): f"{r.get('title', '')} {r['text']}".strip()
              for r in read_jsonl(Path(folder) / "corpus.jsonl")}
    out = []
    for lineno, qid, doc_id, grade in qrels_rows(qrels_path(folder, train_split)):
        if grade <= 0:
            continue
        if qid not in queries or doc_id not in corpus:
            raise CorpusError(f"{qrels_path(folder, train_split)}:{lineno}: unknown query {qid!r} or document {doc_id!r}")
        out.append(("qrels_train", queries[qid], corpus[doc_id]))
    return out


def beir_train_queries(folder: str | Path, train_split: str, eval_split: str) -> list[tuple[str, str, set[str]]]:
    """(qid, query, relevant doc ids) for every query of the training split with a judged-relevant
    document, in qrels order; the evaluation split is refused."""
    refuse_training_on(train_split, eval_split, f"{qrels_path(folder, train_split)}")
    queries = read_queries(folder)
    relevant: dict[str, set[str]] = {}
    for lineno, qid, doc_id, grade in qrels_rows(qrels_path(folder, train_split)):
        if qid not in queries:
            raise CorpusError(f"{qrels_path(folder, train_split)}:{lineno}: unknown query {qid!r}")
        if grade > 0:
            relevant.setdefault(qid, set()).add(doc_id)
    return [(qid, queries[qid], docs) for qid, docs in relevant.items()]


def md5_file(path: Path) -> str:
    h = hashlib.md5()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def download_beir(url: str, md5: str, out_dir: str | Path, progress=print) -> Path:
    """Download `url`, check `md5`, unpack the dataset's folder to `out_dir`."""
    import shutil
    import tempfile
    import zipfile
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir.parent, prefix=f".{out_dir.name}.") as tmp:
        zip_path = Path(tmp) / "dataset.zip"
        progress(f"downloading {url}")
        import urllib.request  # here: only a download needs it (and it costs a CLI's start 30 ms)
        with urllib.request.urlopen(url) as resp, open(zip_path, "wb") as fh:
            shutil.copyfileobj(resp, fh)
        got = md5_file(zip_path)
        if got != md5:
            raise ValueError(f"{url}: md5 {got} does not match the published {md5}; nothing was unpacked")
        with zipfile.ZipFile(zip_path) as zf:
            zf.extractall(Path(tmp) / "x")
        found = sorted(Path(tmp, "x").rglob("corpus.jsonl"))
        if not found:
            raise ValueError(f"{url}: the archive holds no corpus.jsonl")
        if out_dir.exists():
            shutil.rmtree(out_dir)
        shutil.move(str(found[0].parent), out_dir)
    progress(f"unpacked to {out_dir}")
    return out_dir
