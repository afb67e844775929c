"""Hostile input never reaches a traceback, a hang, unbounded memory or a silently wrong result.

One test per failure a hostile or careless user found, each run the way the user ran it (a
stage's command line, the CLI, the HTTP service, the `openai` reader against a misbehaving
server), in a child process with a memory and time limit where the failure was a hang or a
blow-up, so that a regression fails the test instead of the machine. The workflow-level
rows (config files given to Snakemake, artifacts edited with their receipts rewritten, a
killed Snakemake) are in test_hostile_workflow.py.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CURATE = {"format": "markdown", "fields": {"title": "title", "lang": "lang", "tags": "tags"},
          "default_lang": "", "langs": ["en", "es"]}


def limited(mem_mb: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (mem_mb << 20, mem_mb << 20))
    return apply


def stage(cwd: Path, name: str, *args: str, mem_mb: int = 2048, timeout: float = 120) -> subprocess.CompletedProcess:
    """A stage's command line, as a rule runs it, with at most `mem_mb` of address space."""
    return subprocess.run([sys.executable, "-m", f"minirag.stages.{name}", *args], cwd=cwd, capture_output=True,
                          text=True, errors="replace", timeout=timeout, preexec_fn=limited(mem_mb),
                          env={**os.environ, "PYTHONPATH": str(REPO)})


def one_line_error(proc: subprocess.CompletedProcess, *needles: str) -> str:
    """The stage failed with one line on stderr naming every needle, and no traceback."""
    err = proc.stderr.strip()
    assert proc.returncode != 0, f"accepted:\n{proc.stderr[-2000:]}"
    assert "Traceback" not in err and len(err.splitlines()) == 1, err[-3000:]
    for needle in needles:
        assert needle in err, err
    return err


ALIAS_BOMB = "\n".join(["a0: &a0 [x, x, x, x, x, x, x, x, x]"] + [
    f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)])


def corpus(tmp_path: Path, front: str, body: str = "# T\n\nText.\n", name: str = "bad.md") -> Path:
    docs = tmp_path / "docs"
    (docs / "en").mkdir(parents=True, exist_ok=True)
    (docs / "en" / "good.md").write_text("---\ntitle: Good\nlang: en\n---\n# Good\n\nA good page.\n")
    (docs / "en" / name).write_text(f"---\n{front}\n---\n{body}")
    return docs


def curate(tmp_path: Path, docs: Path, settings: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return stage(tmp_path, "curate", "--settings", json.dumps({**CURATE, **(settings or {})}), "--source",
                 str(docs), "--glob", "**/*.md", "--out", str(tmp_path / "docs.jsonl"), **kw)


# ------------------------------------------------------------------ documents


@pytest.mark.parametrize("field", ["tags", "title", "lang", "extra"])
def test_an_alias_bomb_in_front_matter_is_refused_before_it_is_built(tmp_path, field):
    front = "title: T\nlang: en\n" + ALIAS_BOMB + f"\n{field}: *a8"
    proc = curate(tmp_path, corpus(tmp_path, front), mem_mb=1500, timeout=60)
    one_line_error(proc, "bad.md:", "alias bomb")
    assert not (tmp_path / "docs.jsonl").exists()


def test_front_matter_nested_twenty_thousand_deep_names_the_file_and_line(tmp_path):
    proc = curate(tmp_path, corpus(tmp_path, "title: T\nlang: en\ntags: " + "[" * 20000 + "]" * 20000))
    one_line_error(proc, "bad.md:4:", "nested")


def test_a_symlink_leading_out_of_the_corpus_is_refused_naming_it(tmp_path):
    docs = corpus(tmp_path, "title: T\nlang: en")
    secret = tmp_path / "secret.md"
    secret.write_text("---\ntitle: Secret\nlang: en\n---\n# Secret\n\nOutside the corpus.\n")
    (docs / "en" / "link.md").symlink_to(secret)
    proc = curate(tmp_path, docs)
    one_line_error(proc, "link.md", "symlink", "source.outside_links")
    assert not (tmp_path / "docs.jsonl").exists()


def test_a_symlink_leading_out_is_followed_when_the_setting_allows_it(tmp_path):
    docs = corpus(tmp_path, "title: T\nlang: en")
    secret = tmp_path / "secret.md"
    secret.write_text("---\ntitle: Secret\nlang: en\n---\n# Secret\n\nOutside the corpus.\n")
    (docs / "en" / "link.md").symlink_to(secret)
    proc = curate(tmp_path, docs, {"outside_links": "follow"})
    assert proc.returncode == 0, proc.stderr
    ids = [json.loads(line)["doc_id"] for line in (tmp_path / "docs.jsonl").read_text().splitlines()]
    assert ids == ["en/bad.md", "en/good.md", "en/link.md"]


def test_a_symlink_within_the_corpus_is_a_document_and_a_dangling_one_is_named(tmp_path):
    docs = corpus(tmp_path, "title: T\nlang: en")
    (docs / "en" / "alias.md").symlink_to(docs / "en" / "good.md")
    (docs / "en" / "gone.md").symlink_to(tmp_path / "nowhere.md")
    proc = curate(tmp_path, docs)
    assert proc.returncode == 0, proc.stderr
    assert "gone.md" in proc.stderr and "dangling" in proc.stderr and "Traceback" not in proc.stderr
    ids = [json.loads(line)["doc_id"] for line in (tmp_path / "docs.jsonl").read_text().splitlines()]
    assert ids == ["en/alias.md", "en/bad.md", "en/good.md"]


# ------------------------------------------------------------------ questions

FIXTURE = REPO / "tests" / "fixtures" / "minikb"
QUESTIONS = {"format": "markdown", "split": "test", "questions_format": "minirag",
             "question_langs": ["en", "es", "cross"]}


@pytest.fixture(scope="module")
def docs_built(tmp_path_factory) -> Path:
    """results/mini/docs.jsonl of the fixture corpus, with its receipt (what the questions stage reads)."""
    root = tmp_path_factory.mktemp("questions")
    proc = stage(root, "curate", "--settings", json.dumps(CURATE), "--source", str(FIXTURE / "docs"), "--glob",
                 "**/*.md", "--out", "results/mini/docs.jsonl", "--receipt", "results/mini/receipts/curate.json")
    assert proc.returncode == 0, proc.stderr
    return root


def questions(root: Path, lines: list[str], settings: dict | None = None, **kw) -> subprocess.CompletedProcess:
    src = root / "q.jsonl"
    src.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    out = root / "out.jsonl"
    out.unlink(missing_ok=True)
    return stage(root, "questions", "--settings", json.dumps({**QUESTIONS, **(settings or {})}), "--source",
                 str(src), "--docs", "results/mini/docs.jsonl", "--out", str(out), **kw)


def good_question(**over) -> str:
    q = json.loads((FIXTURE / "questions.jsonl").read_text().splitlines()[0])
    return json.dumps({**q, **over}, ensure_ascii=False)


def test_a_questions_line_nested_a_hundred_thousand_deep_names_the_file_and_line(docs_built):
    proc = questions(docs_built, [good_question(), "[" * 100_000])
    one_line_error(proc, "q.jsonl:2:", "nested")


@pytest.mark.parametrize("qid", ["f 01", "f\n01", "f\t01", "f\x0001", "", " "])
@pytest.mark.parametrize("fmt", ["minirag", "gold_docs"])
def test_a_question_id_follows_the_doc_id_rule(docs_built, qid, fmt):
    line = good_question(qid=qid)
    if fmt == "gold_docs":
        line = json.dumps({"qid": qid, "query": "past of eat", "gold_docs": ["en/irregular-verbs.md"]})
    proc = questions(docs_built, [line], {"questions_format": fmt})
    one_line_error(proc, "q.jsonl:1:", "qid")


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x7f", "\x85"])
def test_a_query_holding_a_control_character_is_refused(docs_built, char):
    proc = questions(docs_built, [good_question(query=f"What is the past{char} of eat?")])
    one_line_error(proc, "q.jsonl:1:", "query", "control character")


@pytest.mark.parametrize("query", ["", " \n ", "\u200b\u200b", "\u200b \ufeff\u2060\u202e"])
def test_a_query_that_shows_nothing_is_empty_for_every_entry_point(query):
    from minirag.query.built_corpus import UsageError, check_query  # the CLI's, the server's, the API's
    with pytest.raises(UsageError, match="query: the query is empty"):
        check_query(query)
    assert check_query("eat\u200b") == "eat\u200b"  # a format character beside text is the user's


def test_an_empty_query_is_shown_an_example_of_the_corpus_s_own_or_none():
    from minirag.query.built_corpus import UsageError, check_query
    with pytest.raises(UsageError, match='ask a question, e.g. "How heavy is the frame\\?"$'):
        check_query(" ", example=lambda: "How heavy is the frame?")
    with pytest.raises(UsageError, match="ask a question$"):  # a corpus without questions: no grammar example
        check_query(" ")


@pytest.mark.parametrize("qid, text, message", [
    ("q 1", "past of go", r"qrels/test\.tsv:2: query-id: 'q 1' holds whitespace"),
    ("q1", "past\x00 of go", r"queries\.jsonl: query 'q1': holds a control character U\+0000"),
    ("q1", "past \ud800 of go", r"queries\.jsonl: query 'q1': holds a lone surrogate U\+D800"),
])
def test_beir_query_ids_and_texts_follow_the_same_rules(tmp_path, qid, text, message):
    from minirag.datasets.beir import load_beir_questions
    from minirag.text.corpus import CorpusError
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "test.tsv").write_text(f"query-id\tcorpus-id\tscore\n{qid}\td1\t1\n")
    (tmp_path / "queries.jsonl").write_text(json.dumps({"_id": qid, "text": text}) + "\n")
    with pytest.raises(CorpusError, match=message):
        load_beir_questions(tmp_path, "test", [{"doc_id": "d1", "lang": "en"}])


# ------------------------------------------------------------------ round three: bounded by design

def peak_rss_mb(code: str, mem_mb: int = 2048, timeout: float = 120) -> tuple[subprocess.CompletedProcess, float]:
    """`code` run in a child Python under `mem_mb` of address space: (its result, its peak RSS in MB, measured)."""
    wrapper = ("import resource, subprocess, sys\n"
               "p = subprocess.run([sys.executable, '-c', sys.argv[1]], capture_output=True, text=True,\n"
               f"                   timeout={timeout - 10})\n"
               "sys.stdout.write(p.stdout); sys.stderr.write(p.stderr)\n"
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
               "sys.exit(p.returncode)\n")
    proc = subprocess.run([sys.executable, "-c", wrapper, code], capture_output=True, text=True, timeout=timeout,
                          preexec_fn=limited(mem_mb), env={**os.environ, "PYTHONPATH": str(REPO)})
    head, _, last = proc.stderr.rstrip("\n").rpartition("\n")
    proc.stderr = head
    return proc, int(last) / 1024


def test_a_questions_phrases_hold_every_run_of_its_words_in_memory_flat_in_its_length():
    from itertools import combinations

    from minirag.domains.grammar.select.features import ngrams
    words = "how do you say the past of eat".split()
    grams = ngrams(" ".join(words))
    for i, j in combinations(range(len(words) + 1), 2):
        assert " ".join(words[i:j]) in grams
    assert "past eat" not in grams and "" not in grams and "pas" not in grams
    code = ("from minirag.domains.grammar.select.features import ngrams\n"
            "g = ngrams(' '.join(f'w{{i}}' for i in range({n})))\n"
            "assert 'w1 w2 w3' in g and 'w3 w1' not in g\n")
    rss = []
    for n in (200, 2000):  # 1 KB and 10 KB of words: every run of 2,000 words is 1.3 billion characters
        proc, peak = peak_rss_mb(code.format(n=n))
        assert proc.returncode == 0, proc.stderr
        rss.append(peak)
    assert rss[1] - rss[0] < 50 and rss[1] < 300, rss


def test_a_chunk_without_candidates_is_read_and_every_chunk_size_of_the_fixture_builds_features():
    from minirag.answer.select.selector import AnswerSelector
    from minirag.domains.grammar.select.features import FEATURES
    from minirag.domains.grammar.select.terms import GrammarTerms
    from minirag.domains.grammar.select.vocabulary import Vocabulary
    from minirag.text.chunker import chunk_chars
    terms = GrammarTerms.load()
    docs = [{"doc_id": p.relative_to(FIXTURE_DOCS).as_posix(), "text": p.read_text(encoding="utf-8"), "title": ""}
            for p in sorted(FIXTURE_DOCS.rglob("*.md"))]
    langs = {d["doc_id"]: d["doc_id"].split("/")[0] for d in docs}
    header = dict(docs[0], text="| Infinitive | Past simple | Past participle |\n|---|---|---|\n")
    for size in (24, 40, 64, 120, 300):
        chunks = [c for d in docs + [header] for c in chunk_chars(d, size, size // 3)]
        selector = AnswerSelector(Vocabulary.from_chunks(chunks, {}, terms, langs), None, depth=len(chunks))
        for question in ("past of eat", "¿pretérito de comer?", "x"):
            read = selector.read(question, chunks, langs)
            assert read.X.shape[1] == len(FEATURES) and read.X.shape[0] == len(read.keys)
    only_header = chunk_chars(header, 200, 0)
    read = AnswerSelector(Vocabulary.from_chunks(only_header, {}, terms, langs), None).read("past of eat", only_header,
                                                                                             langs)
    assert read.X.shape == (0, len(FEATURES))


FIXTURE_DOCS = REPO / "tests" / "fixtures" / "minikb" / "docs"


def test_question_ids_equal_once_nfc_normalised_are_one_id_twice(tmp_path):
    import unicodedata

    from minirag.text.corpus import CorpusError
    from minirag.text.questions import load_questions
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps({"qid": unicodedata.normalize(f, "café-1"), "query": "x",
                                        "gold_docs": ["d.md"]}, ensure_ascii=False) + "\n" for f in ("NFC", "NFD")))
    with pytest.raises(CorpusError, match=r"q\.jsonl:2: café-1: duplicate qid \(first on line 1; .*NFC"):
        load_questions(path, [{"doc_id": "d.md", "text": "x"}], "gold_docs")


@pytest.mark.parametrize("text, message", [
    ("chunk: 1\nx: 2\nchunk: 3\n", r"f\.yaml:3: duplicate key 'chunk' \(first on line 1\)"),
    ("a:\n  lang: en\n  lang: es\n", r"f\.yaml:3: duplicate key 'lang' \(first on line 2\)"),
    ("a: [{k: 1, k: 2}]\n", r"f\.yaml:1: duplicate key 'k'"),
])
def test_a_key_twice_in_yaml_is_refused_naming_the_key_and_both_lines(text, message):
    from minirag.artifacts.safe_yaml import load_yaml
    with pytest.raises(ValueError, match=message):
        load_yaml(text, "f.yaml")
    assert load_yaml("a: &x {b: 1}\nc:\n  <<: *x\n  d: 2\ne: [1, 1]\n", "f.yaml") == {
        "a": {"b": 1}, "c": {"b": 1, "d": 2}, "e": [1, 1]}


def test_a_receipt_with_a_key_twice_is_refused_naming_both_lines(tmp_path):
    from minirag.artifacts.io import read_json
    path = tmp_path / "r.json"
    path.write_text('{\n  "outputs": {\n    "a": 1,\n    "a": 2\n  }\n}\n')
    assert read_json(path) == {"outputs": {"a": 2}}
    with pytest.raises(ValueError, match=r"r\.json:4: duplicate key 'a' \(first on line 3\)"):
        read_json(path, unique_keys=True)


def test_a_write_through_a_folder_linked_out_of_results_is_refused_naming_the_link(tmp_path, monkeypatch):
    from minirag.artifacts.io import atomic_write_text
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "project/results/kb").mkdir(parents=True)
    (tmp_path / "project/results/kb/runs").symlink_to(outside)
    (tmp_path / "project/results/kb/eval").symlink_to(tmp_path / "project/results/kb")  # inside: allowed
    monkeypatch.chdir(tmp_path / "project")
    with pytest.raises(ValueError, match=r"results/kb/runs: a symlink to .*outside, outside results/"):
        atomic_write_text("results/kb/runs/bm25.trec", "x\n")
    assert list(outside.iterdir()) == []
    atomic_write_text("results/kb/eval/m.json", "{}\n")
    assert (tmp_path / "project/results/kb/m.json").read_text() == "{}\n"


def sealed_line(n: int) -> bytes:
    from minirag.history.blobs import encode
    from minirag.history.log import sealed
    return encode(sealed({"key": f"k{n}", "time": "t", "report": "r", "corpora": {}}))


def test_a_history_record_cut_short_is_skipped_with_a_warning_and_cut_off_by_the_next_append(tmp_path, capsys):
    from minirag.history import log
    good = sealed_line(1)
    (tmp_path / "history.jsonl").write_bytes(good + sealed_line(2)[:30])
    assert [r["key"] for r in log.read(tmp_path)] == ["k1"]
    assert "history.jsonl:2: damaged last history record" in capsys.readouterr().err
    assert log.append(tmp_path, {"key": "k3", "time": "t", "report": "r", "corpora": {}})
    assert (tmp_path / "history.jsonl").read_bytes() == good + sealed_line(3)
    (tmp_path / "history.jsonl").write_bytes(b"[" * 100_000 + b"]" * 100_000 + b"\n" + good)
    with pytest.raises(ValueError, match=r"history\.jsonl:1: damaged history record \(JSON nested too deeply"):
        log.read(tmp_path)


def test_an_over_long_last_history_record_is_skipped_naming_its_line_and_size(tmp_path, capsys, monkeypatch):
    from minirag.history import log
    monkeypatch.setattr(log, "MAX_LINE", 1000)  # the same path as a 100 MB line under the 4 MB bound, in a test
    good, long = sealed_line(1), b'{"key": "' + b"x" * 5000 + b'"}\n'
    (tmp_path / "history.jsonl").write_bytes(good + long)
    assert [r["key"] for r in log.read(tmp_path)] == ["k1"]
    err = capsys.readouterr().err
    assert "history.jsonl:2: damaged last history record (5012 bytes, over the" in err and "skipped" in err
    assert log.append(tmp_path, {"key": "k3", "time": "t", "report": "r", "corpora": {}})
    assert (tmp_path / "history.jsonl").read_bytes() == good + sealed_line(3)  # cut off by the next append
    (tmp_path / "history.jsonl").write_bytes(long + good)  # not the last: refused, naming it
    with pytest.raises(ValueError, match=r"history\.jsonl:1: damaged history record \(5012 bytes"):
        log.read(tmp_path)


def test_an_append_the_disk_cannot_hold_leaves_the_history_as_it_was(tmp_path):
    (tmp_path / "history.jsonl").write_bytes(sealed_line(1))
    code = ("import resource, signal, sys\n"
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))\n"
            "from minirag.history import log\n"
            f"log.append({str(tmp_path)!r}, {{'key': 'k2', 'time': 't', 'report': 'r', 'corpora': {{}}, 'pad': 'x' * 500}})\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode != 0 and "could not append" in proc.stderr and "history.jsonl" in proc.stderr
    assert (tmp_path / "history.jsonl").read_bytes() == sealed_line(1)


@pytest.mark.parametrize("make", ["fifo", "zero", "sparse"])
def test_a_history_that_is_no_regular_file_of_sane_size_is_refused_in_bounded_memory(tmp_path, make):
    path = tmp_path / "history.jsonl"
    if make == "fifo":
        os.mkfifo(path)
    elif make == "zero":
        path.symlink_to("/dev/zero")
    else:
        with open(path, "wb") as fh:
            fh.truncate(1 << 30)
    proc, rss = peak_rss_mb(f"from minirag.history import log\nlog.read({str(tmp_path)!r})\n", timeout=60)
    assert proc.returncode != 0 and "history.jsonl: " in proc.stderr
    assert "not a regular file" in proc.stderr or "over the 256 MB" in proc.stderr
    assert rss < 200, rss


def test_diff_with_an_unknown_build_names_it_and_how_to_list_builds():
    from types import SimpleNamespace

    from minirag.history.blobs import HistoryError
    from minirag.history.cli import choose
    records = [{"key": "abcd1234", "report": "r", "git": None}]
    for build in ("../../etc", "nope"):
        with pytest.raises(HistoryError, match=r"--build .*no such build.*python -m minirag history"):
            choose(SimpleNamespace(a="bm25", b="rrf", build=build, results="results"), records)


@pytest.mark.parametrize("make", ["list", "fifo", "zero", "junk"])
def test_an_imports_cache_that_is_no_sane_file_is_ignored_and_rebuilt_in_bounded_memory(tmp_path, make):
    cache = tmp_path / "imports.json"
    {"list": lambda: cache.write_text("[]"), "fifo": lambda: os.mkfifo(cache),
     "zero": lambda: cache.symlink_to("/dev/zero"),
     "junk": lambda: cache.write_text('{"x": [1, 2], "y": ["a", "b", "c", 5]}')}[make]()
    code = ("from minirag.pipeline.depends import module_closure\n"
            f"files = module_closure({str(REPO / 'minirag')!r}, ['stages.chunk'], cache={str(cache)!r})\n"
            "assert any(f.endswith('stages/chunk.py') for f in files)\n")
    proc, rss = peak_rss_mb(code, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert rss < 300, rss
    assert cache.is_file() and not cache.is_symlink() and cache.read_text().startswith("{")


def test_a_dry_run_reads_the_imports_cache_but_never_writes_it(tmp_path, monkeypatch):
    from minirag.pipeline import depends
    assert depends.reading_only(["-n"]) and depends.reading_only(["-pn", "-c1"]) and depends.reading_only(["--lint"])
    assert not depends.reading_only(["-c1", "--forcerun", "report"]) and not depends.reading_only(["-p"])
    monkeypatch.setattr(sys, "argv", ["/x/.venv/bin/snakemake", "-c1", "-n"])
    monkeypatch.setattr(depends, "_STORES", {})
    depends.module_closure(REPO / "minirag", ["stages.chunk"], cache=tmp_path / "imports.json")
    assert not (tmp_path / "imports.json").exists()
    monkeypatch.setattr(sys, "argv", ["/x/.venv/bin/snakemake", "-c1"])
    monkeypatch.setattr(depends, "_STORES", {})
    depends.module_closure(REPO / "minirag", ["stages.chunk"], cache=tmp_path / "imports.json")
    assert (tmp_path / "imports.json").exists()


def test_kept_files_that_are_no_regular_files_are_named_before_snakemake_copies_them(tmp_path):
    from minirag.artifacts.kept import special_kept
    (tmp_path / "cache").mkdir()
    (tmp_path / "receipts").mkdir()
    (tmp_path / "cache/a.npz").write_bytes(b"x")
    os.mkfifo(tmp_path / "cache/b.npz")
    (tmp_path / "cache/c.npz").symlink_to("/dev/zero")
    (tmp_path / "receipts/embed_cache.d.json").mkdir()
    found = special_kept(tmp_path)
    assert [line.split(":")[0].rsplit("/", 1)[1] for line in found] == ["b.npz", "c.npz", "embed_cache.d.json"]
    assert "a FIFO" in found[0] and "a device" in found[1] and "a folder" in found[2]


@pytest.mark.parametrize("change, message", [
    (lambda r: r["answers"][0].update(p="0.9"), r"c\.jsonl:1: answers\[0\]\.p: '0\.9' is not a finite number"),
    (lambda r: r.update(answers=None), r"c\.jsonl:1: answers: 'None' is not a list"),
    (lambda r: r["answers"][0].update(text=5), r"c\.jsonl:1: answers\[0\]\.text: '5' is not a string"),
    (lambda r: r["answers"][0].update(chunk_id="ffffffffffff"), r"chunk 'ffffffffffff' is not in chunks\.jsonl"),
    (lambda r: r.update(qid="zz"), r"c\.jsonl:1: qid: query 'zz' is not in questions\.jsonl"),
    (lambda r: r.update(p_none=float("nan")), r"p_none: 'nan' is not a finite number"),
    (lambda r: r["answers"][0]["features"].update(top1=[1]), r"answers\[0\]\.features\.top1"),
])
def test_a_candidates_record_is_checked_field_by_field(change, message):
    from minirag.artifacts.content_candidates import candidate_records
    rec = {"qid": "q1", "query": "x", "analysis": {}, "depth": 3, "candidates": 2, "p_none": 0.1, "keys": ["ate"],
           "answers": [{"text": "ate", "p": 0.9, "n": 1, "chunk_id": "c1", "kind": "cell", "key": "eat",
                        "column": "past", "caption": "", "line": "", "evidence": "eat: ate", "features": {"top1": 1}}]}
    candidate_records([(1, rec)], "c.jsonl", {"q1"}, {"c1"})
    change(rec)
    with pytest.raises(ValueError, match=message):
        candidate_records([(1, rec)], "c.jsonl", {"q1"}, {"c1"})


def test_verify_names_what_the_config_s_jobs_write_and_is_not_there(tmp_path):
    from minirag.artifacts.integrity import incomplete
    (tmp_path / "a.trec").write_text("x")
    lines = incomplete([tmp_path / "a.trec", tmp_path / "b.trec", tmp_path / "c.json"], [f"{tmp_path / 'c.json'}: x"])
    assert lines == [f"{tmp_path / 'b.trec'}: missing (the config's jobs write it; build it with: snakemake -c1 "
                     f"'{tmp_path / 'b.trec'}')"]


@pytest.mark.parametrize("make", ["fifo", "zero"])
def test_the_served_manifest_that_is_a_special_file_is_refused_without_reading_it(tmp_path, make):
    from types import SimpleNamespace

    from minirag.serve.app import manifest_check
    path = tmp_path / "manifest.json"
    os.mkfifo(path) if make == "fifo" else path.symlink_to("/dev/zero")
    out = manifest_check(SimpleNamespace(manifest=path, corpus="kb"), {"results/kb/chunks.jsonl": "x"})
    assert out["matches"] is False and "not a regular file" in out["error"]


@pytest.mark.parametrize("method", ["search", "answer"])
def test_the_python_api_caps_a_query_s_length_as_the_cli_and_the_server_do(method):
    from minirag.query.built_corpus import MAX_QUERY_CHARS, BuiltCorpus, QueryTooLong
    built = object.__new__(BuiltCorpus)  # the query is checked before anything of the corpus is read
    with pytest.raises(QueryTooLong, match=f"at most {MAX_QUERY_CHARS}"):
        getattr(built, method)("eat " * MAX_QUERY_CHARS)


def test_separators_after_a_run_of_spaces_split_as_before_the_runs_were_skipped():
    from minirag.answer.readers import CLAUSE_RE as READER_CLAUSES
    from minirag.answer.select.candidates import CLAUSE_RE
    from minirag.domains.grammar.language.lexicon import DASH_RE
    from minirag.evaluation.squad import CITATION_RE
    for rx in (CLAUSE_RE, READER_CLAUSES):
        assert rx.split("a , ,b") == ["a", "", "b"] and rx.split("a  -  b (c)") == ["a", "b", "c", ""]
        assert rx.split("a" + " " * 50_000 + "b") == ["a" + " " * 50_000 + "b"]
    assert CITATION_RE.sub("", "ate  [#1] [#2]   ") == "ate   "
    assert DASH_RE.match("  — x").groups() == (" ", "x") and DASH_RE.match("comer  —  to eat").groups() == (
        "comer", "to eat")


def test_a_write_error_names_the_file_being_written_and_leaves_nothing(tmp_path):
    import errno

    from minirag.artifacts.io import atomic_path
    target = tmp_path / "readers" / "minigpt.npz"
    with pytest.raises(OSError, match=r"\[Errno 28\] No space left on device: '.*readers/minigpt\.npz'"):
        with atomic_path(target):  # a full disk: the write's own error names no file
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert list(target.parent.iterdir()) == []


def test_a_full_tmpdir_is_named_with_what_to_do_and_a_missing_one_is_left_to_the_scheduler(tmp_path, monkeypatch):
    import errno
    import tempfile

    from minirag.artifacts.kept import scheduler_scratch_problem
    monkeypatch.delenv("TMP", raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert scheduler_scratch_problem() is None

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(tempfile, "TemporaryFile", full)
    problem = scheduler_scratch_problem()
    assert problem.startswith(f"TMPDIR ({tmp_path}) cannot hold a temporary file (No space left on device)")
    assert "TMPDIR=$PWD/.tmp" in problem
    monkeypatch.setenv("TMPDIR", str(tmp_path / "missing"))  # the scheduler writes in the working folder then
    assert scheduler_scratch_problem() is None


def test_memory_mapped_vectors_reserve_their_blocks_so_a_full_disk_is_an_error_naming_them(tmp_path, monkeypatch):
    import errno

    import numpy as np

    from minirag.index.vectors import save_vectors
    from minirag.text.chunks import Chunk

    def full(fd, offset, length):  # a full disk, as the reservation meets it (the map itself: SIGBUS)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "posix_fallocate", full)
    out = tmp_path / "vectors" / "hashing.npy"
    chunks = [Chunk(f"c{i}", f"text {i}", "d.md", i, {}) for i in range(3)]
    with pytest.raises(OSError, match=r"No space left on device: '.*vectors/hashing\.npy'"):
        save_vectors(out, np.ones((3, 4), np.float32), chunks, {"params": {}})
    assert list(out.parent.iterdir()) == []
