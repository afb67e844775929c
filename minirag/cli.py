"""`python -m minirag <command>`: query the built artifacts, or check a corpus's assertions.

    search QUERY   rank chunks with a configured retriever (as its run file ranks them)
    answer QUERY   retrieve, build the prompt, let the reader answer, with citations
    assert         check a corpus's assertions file; exit 1 when one fails
    verify         check every artifact of a built corpus against its job's receipt; exit 1 on a problem

Nothing here builds anything: a missing artifact is reported with the command that builds
it. The stages the graph runs are modules of their own (`python -m minirag.stages.<stage>`).
Every known failure is one line on stderr and a non-zero exit; `--debug` shows the traceback.

What it leaves out: the stages (minirag/stages/) and HTTP serving.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

EXIT_USAGE, EXIT_FAILED = 2, 1


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


class UsageError(ValueError):
    """A request that cannot be served as asked (an empty query, an unknown retriever)."""


def open_corpus(a):
    """(corpus config, chunks by id, retriever name, live retriever) of the built artifacts."""
    from .config.load import load_corpus
    from .live import open_corpus as open_built
    from .live import open_retriever
    cc = load_corpus(a.configfile, a.corpus)
    name = a.retriever or default_retriever(cc)
    if name not in cc["retrievers"]:
        raise UsageError(f"--retriever: no retriever named {name!r} (have: {', '.join(cc['retrievers'])})")
    if a.k is not None and a.k > cc["depth"]:
        raise UsageError(f"-k: at most the run depth, {cc['depth']} (corpora.{a.corpus}.depth), got {a.k}")
    _, chunks, sources = open_built(a.results, a.corpus, cc)
    return cc, {c.id: c for c in chunks}, name, open_retriever(sources, cc, name)


def default_retriever(cc: dict) -> str:
    """The config's `serve` retriever, else its first fusion, else its first retriever."""
    from .config.corpus import family, main_retrievers
    if cc["serve"]:
        return cc["serve"]
    main = main_retrievers(cc)
    return next((r for r in main if family(cc, r) == "fusion"), main[0])


def query_of(a) -> str:
    if not a.query.strip():
        raise UsageError("the query is empty: ask a question, e.g. \"past tense of eat\"")
    return a.query


def print_json(value) -> None:
    # errors="surrogateescape" arguments become \udcxx: escape them so the output stays valid UTF-8
    print(json.dumps(value, ensure_ascii=False, indent=2).encode("utf-8", "backslashreplace").decode("utf-8"))


def cmd_search(a) -> int:
    query = query_of(a)
    _, by_id, name, retriever = open_corpus(a)
    ranked = retriever.search(query, k=a.k)
    rows = [{"rank": i, "chunk_id": cid, "score": round(score, 6), "doc_id": by_id[cid].doc_id,
             "section": by_id[cid].section, "text": by_id[cid].text} for i, (cid, score) in enumerate(ranked, 1)]
    if a.json:
        print_json({"query": query, "retriever": name, "results": rows})
    else:
        for r in rows:
            snippet = " ".join(r["text"].split())[:160]
            print(f"{r['rank']:>2}. {r['score']:.4f}  {r['chunk_id']}  {r['doc_id']} § {r['section']}\n    {snippet}")
    return 0


def open_reader(a, cc: dict):
    """The reader `--reader` names (default: the config's first), a trained one from its weights."""
    from .answer.readers import make_reader, reader_kind
    from .integrity import require
    from .layout import CorpusLayout
    name = a.reader or next(iter(cc["readers"]))
    if name not in cc["readers"]:
        raise UsageError(f"--reader: no reader named {name!r} (have: {', '.join(cc['readers'])})")
    model = None
    if reader_kind(cc, name).trained:
        model = require(CorpusLayout.of(a.results, a.corpus).reader_model(name), f"weights of reader {name!r}")
    return make_reader(cc["readers"][name], model)


def cmd_answer(a) -> int:
    from .answer.rag import rag_answer
    query = query_of(a)
    cc, by_id, name, retriever = open_corpus(a)
    t0 = time.perf_counter()
    reader = open_reader(a, cc)
    p = cc["prompt"]
    ranked, prompt, answer = rag_answer(query, retriever, reader, by_id, k=a.k or p["k"], template=p["template"],
                                        evidence_lines=p["evidence_lines"], evidence_chars=p["evidence_chars"])
    total_ms = (time.perf_counter() - t0) * 1000
    cited = [{"chunk_id": c, "doc_id": by_id[c].doc_id} for c in answer.citations]
    if a.json:
        print_json({"query": query, "retriever": name, "reader": reader.name, "answer": answer.text, "abstained": answer.abstained,
                    "citations": cited, "retrieved": [cid for cid, _ in ranked], "latency_ms": round(total_ms, 3),
                    "prompt": prompt.text})
    else:
        print(answer.text)
        for c in cited:
            print(f"  cites {c['chunk_id']} ({c['doc_id']})")
        print(f"  [{total_ms:.1f} ms end to end; retrieved {', '.join(cid for cid, _ in ranked)}]")
    return 0


def cmd_assert(a) -> int:
    from .config.corpus import upstream
    from .config.load import load_corpus
    from .evaluation.assertions import format_markdown
    from .integrity import require
    from .layout import CorpusLayout
    from .stages.assertions import check_runs
    cc = load_corpus(a.configfile, a.corpus)
    if not cc["assertions"]:
        raise UsageError(f"corpora.{a.corpus}.assertions: no assertions file configured")
    layout = CorpusLayout.of(a.results, a.corpus)
    runs = [require(layout.run(r), f"run of {r!r}") for r in cc["retrievers"]]
    results = check_runs(cc["assertions"], layout.questions, layout.docs, layout.chunks, runs,
                         {n: upstream(s) for n, s in cc["retrievers"].items()})
    print(format_markdown(results), end="")
    failed = [r for r in results if r.gate and not r.passed]
    log(f"assert: {sum(r.passed for r in results if r.gate)} of {sum(r.gate for r in results)} passed")
    return EXIT_FAILED if failed else 0


def cmd_verify(a) -> int:
    from .integrity import verify_corpus
    from .layout import CorpusLayout
    root = CorpusLayout.of(a.results, a.corpus).root
    if not (root / "receipts").is_dir():
        raise UsageError(f"{root}: no receipts: the corpus has not been built (snakemake -c1 results/report.md)")
    problems = verify_corpus(root)
    for line in problems:
        print(line)
    n = len(list((root / "receipts").glob("*.json")))
    log(f"verify: {n} receipts, {len(problems)} problem(s)" + ("" if problems else ": every artifact is what its job wrote"))
    return EXIT_FAILED if problems else 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m minirag", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp):
        sp.add_argument("--corpus", default="kb", help="a corpus of the config (default: kb)")
        sp.add_argument("--configfile", default="workflow/config.yaml")
        sp.add_argument("--results", default="results", help="the results folder the graph built")
        sp.add_argument("--debug", action="store_true", help="show the traceback of a failure")

    for name, fn, k_default in (("search", cmd_search, 5), ("answer", cmd_answer, None)):
        sp = sub.add_parser(name, help=f"{name} over built artifacts (no rebuild)")
        sp.add_argument("query")
        sp.add_argument("--retriever", default=None, help="a retriever of the config (default: its `serve`, else its first fusion)")
        sp.add_argument("-k", type=positive_int, default=k_default,
                        help="chunks to return" if name == "search" else "chunks in the prompt (default: prompt.k)")
        sp.add_argument("--json", action="store_true")
        if name == "answer":
            sp.add_argument("--reader", default=None, help="a reader of the config (default: its first)")
        common(sp)
        sp.set_defaults(fn=fn)
    sp = sub.add_parser("assert", help="check a corpus's assertions; exit 1 when one fails")
    common(sp)
    sp.set_defaults(fn=cmd_assert)
    sp = sub.add_parser("verify", help="check every artifact of a built corpus against its receipt")
    common(sp)
    sp.set_defaults(fn=cmd_verify)
    return p


def main(argv: list[str] | None = None) -> int:
    # An argument that is not UTF-8 arrives as surrogates (surrogateescape): print it escaped, never crash.
    sys.stdout.reconfigure(errors="backslashreplace")
    sys.stderr.reconfigure(errors="backslashreplace")
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args) or 0
    except UsageError as exc:
        if args.debug:
            raise
        log(f"error: {exc}")
        return EXIT_USAGE
    except (ValueError, RuntimeError, OSError, KeyError) as exc:
        # Bad input or misaligned artifacts: one clear line naming the file, non-zero exit.
        if args.debug:
            raise
        from .integrity import MissingArtifact
        log(f"error: {exc.args[0] if isinstance(exc, KeyError) and exc.args else exc}")
        return EXIT_USAGE if isinstance(exc, MissingArtifact) else EXIT_FAILED
