"""Questions: evaluation questions whose every field, id and line is misused, given to the
questions stage as a rule runs it (minirag and gold_docs formats, and a BEIR folder)."""

from __future__ import annotations

import json
from pathlib import Path

from fault_harness import Case, Edit, questions_stage, refused


def first(project: Path) -> dict:
    return json.loads((project / "fixture/questions.jsonl").read_text().splitlines()[0])


def question(change: dict | bytes | str, needle: str = "questions.jsonl:", *more: str, settings: dict | None = None,
             replace: bool = False):
    """One more line in the fixture's questions: a changed copy of the first (qid zz-1 unless the
    change sets one), raw bytes, or (replace) the whole file."""
    def check(project: Path) -> tuple[bool, str]:
        path = project / "fixture/questions.jsonl"
        with Edit(path) as p:
            if isinstance(change, bytes):
                p.write_bytes(change if replace else p.read_bytes() + change)
            elif isinstance(change, str):
                p.write_text(p.read_text() + change + "\n")
            else:
                line = json.dumps({**first(project), "qid": "zz-1", **change}, ensure_ascii=False)
                p.write_text(p.read_text() + line + "\n")
            proc = questions_stage(project, "fixture/questions.jsonl", settings, mem_mb=2048, timeout=120)
        return refused(proc, needle, *more)
    return check


def nfc_nfd_lines() -> str:
    import unicodedata

    from fault_harness import FIXTURE
    base = json.loads((FIXTURE / "questions.jsonl").read_text().splitlines()[0])
    return "\n".join(json.dumps({**base, "qid": unicodedata.normalize(form, "café-1")}, ensure_ascii=False)
                     for form in ("NFC", "NFD"))


def gold_docs_twins(project: Path) -> tuple[bool, str]:
    import unicodedata
    path = project / "scratch/gold.jsonl"
    path.write_text("".join(json.dumps({"qid": unicodedata.normalize(form, "café-1"), "query": "x",
                                        "gold_docs": ["en/index.md"]}, ensure_ascii=False) + "\n"
                            for form in ("NFC", "NFD")))
    return refused(questions_stage(project, "scratch/gold.jsonl", {"questions_format": "gold_docs"}),
                   "gold.jsonl:2", "duplicate qid", "first on line 1")


def gold_docs(line: dict, needle: str = "questions.jsonl:1"):
    def check(project: Path) -> tuple[bool, str]:
        path = project / "scratch/gold.jsonl"
        path.write_text(json.dumps(line, ensure_ascii=False) + "\n")
        return refused(questions_stage(project, "scratch/gold.jsonl", {"questions_format": "gold_docs"}),
                       needle.replace("questions.jsonl", "gold.jsonl"))
    return check


def beir(qrels: str, queries: list[dict], needle: str, strict: bool = False, warned: bool = False):
    """A BEIR folder's judged queries (its corpus is the fixture's documents by id): refused naming
    `needle`, or with `warned` accepted with a warning naming it (a published collection may
    judge queries it does not ship; `source.strict_qrels` makes that an error)."""
    def check(project: Path) -> tuple[bool, str]:
        folder = project / "scratch/beir"
        (folder / "qrels").mkdir(parents=True, exist_ok=True)
        (folder / "qrels/test.tsv").write_text("query-id\tcorpus-id\tscore\n" + qrels)
        (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
        proc = questions_stage(project, "scratch/beir", {"format": "beir", "strict_qrels": strict})
        if warned:
            said = next((ln for ln in proc.stderr.splitlines() if "warning" in ln), "")
            return proc.returncode == 0 and needle in said and "Traceback" not in proc.stderr, \
                said[:160] or f"exit {proc.returncode}, no warning"
        return refused(proc, needle)
    return check


def cases() -> list[Case]:
    g = "questions"
    q1 = {"_id": "b1", "text": "past of eat"}
    c = [Case(name, g, check) for name, check in [
        ("tags: 5", question({"tags": 5})),
        ("evidence: 5", question({"gold": [{"doc_id": "en/past-simple.md", "evidence": 5}]})),
        ("doc_id: [..]", question({"gold": [{"doc_id": ["x"], "evidence": "x"}]})),
        ("unknown doc id", question({"gold": [{"doc_id": "en/nowhere.md", "evidence": "x"}]}, "unknown doc id")),
        ("evidence not in its document", question({"gold": [{"doc_id": "en/irregular-verbs.md",
                                                             "evidence": "never written"}]}, "not found")),
        ("answer not in its evidence", question({"answer": "xyzzy"}, "not in its evidence")),
        ("answerable: 1", question({"answerable": 1}, "answerable")),
        ("lang: fr", question({"lang": "fr"}, "lang")),
        ("difficulty: hard", question({"difficulty": "hard"}, "difficulty")),
        ("missing fields", question('{"qid": "zz-1", "query": "x"}', "missing field")),
        ("a line that is a list", question("[1, 2]", "JSON object")),
        ("a line that is null", question("null", "JSON object")),
        ("a line that is not JSON", question("{qid: 1}", "not valid JSON")),
        ("invalid UTF-8", question(b'{"qid": "\xff"}\n', "UTF-8")),
        ("a line nested 100,000 deep", question("[" * 100_000, "nested too deeply")),
        ("duplicate qid", question({"qid": first_qid()}, "duplicate qid")),
        ("qid café-1 in NFC and in NFD", question(nfc_nfd_lines(), "duplicate qid", "first on line")),
        ("gold_docs: qid in NFC and in NFD", gold_docs_twins),
        ("qid with a space", question({"qid": "zz 1"}, "whitespace")),
        ("qid with a newline", question({"qid": "zz\n1"}, "whitespace")),
        ("qid with a tab", question({"qid": "zz\t1"}, "whitespace")),
        ("qid with a NUL", question({"qid": "zz\x001"}, "control character")),
        ("qid empty", question({"qid": ""}, "qid")),
        ("qid a number", question({"qid": 7}, "qid")),
        ("qid a bool", question({"qid": True}, "qid")),
        ("query with a NUL", question({"query": "past\x00 of eat"}, "control character")),
        ("query with an ESC", question({"query": "past\x1b[2J of eat"}, "control character")),
        ("query with a DEL", question({"query": "past\x7f of eat"}, "control character")),
        ("query with a C1 control", question({"query": "past\x9b of eat"}, "control character")),
        ("query with a lone surrogate", question('{"qid": "zz-1", "query": "past \\ud800 of eat", "lang": "en", '
                                                 '"difficulty": "verbatim", "gold": [], "answer": null, '
                                                 '"answerable": false}', "surrogate")),
        ("query blank", question({"query": "   "}, "query")),
        ("gold_docs: qid with a space", gold_docs({"qid": "a b", "query": "x", "gold_docs": ["en/index.md"]})),
        ("gold_docs: unknown doc", gold_docs({"qid": "a", "query": "x", "gold_docs": ["nope.md"]}, "unknown doc")),
        ("gold_docs: query with a NUL", gold_docs({"qid": "a", "query": "x\x00", "gold_docs": ["en/index.md"]},
                                                  "control character")),
        ("beir: query id with a space", beir("b 1\ten/index.md\t1\n", [{"_id": "b 1", "text": "x"}], "whitespace")),
        ("beir: query with a NUL", beir("b1\ten/index.md\t1\n", [{**q1, "text": "x\x00"}], "control character")),
        ("beir: query without text", beir("b1\ten/index.md\t1\n", [{"_id": "b1"}], "queries.jsonl:1")),
        ("beir: qrels score not a number", beir("b1\ten/index.md\thigh\n", [q1], "test.tsv:2")),
        ("beir: judged query not in queries.jsonl", beir("b1\ten/index.md\t1\nb2\ten/index.md\t1\n", [q1],
                                                          "1 of 2 judged queries", warned=True)),
        ("beir: judged query not in queries.jsonl, strict", beir("b2\ten/index.md\t1\n", [q1], "'b2'", strict=True)),
    ]]
    return c


def first_qid() -> str:
    from fault_harness import FIXTURE
    return json.loads((FIXTURE / "questions.jsonl").read_text().splitlines()[0])["qid"]
