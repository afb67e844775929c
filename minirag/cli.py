"""`python -m minirag <command>`: query the built artifacts, or check a corpus's assertions.

    search QUERY   rank chunks with a configured retriever (as its run file ranks them)
    answer QUERY   retrieve, build the prompt, let the reader answer, with citations
    assert         check a corpus's assertions file; exit 1 when one fails
    verify         check every artifact of a built corpus against its job's receipt; exit 1 on a problem
    clean          remove what an earlier config built and this one does not (verify lists them as leftovers)
    history        the report builds recorded in results/history.jsonl
    diff [A] [B]   two builds (default: the last two) or two runs compared: settings, metrics, flipped questions
    serve          the built corpus over HTTP: /search, /answer, an OpenAI-compatible /v1, a page at /
                   (needs the `serve` extra: pip install -e ".[serve]")

Nothing here builds anything: a missing artifact is reported with the command that builds
it. The stages the graph runs are modules of their own (`python -m minirag.stages.<stage>`).
Every known failure is one line on stderr and a non-zero exit; `--debug` shows the traceback.

What it leaves out: the stages (minirag/stages/) and the HTTP routes (minirag/serve/).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from .history.cli import add_commands as add_history_commands
from .query.built_corpus import MAX_QUERY_CHARS, UsageError

EXIT_USAGE, EXIT_FAILED = 2, 1
EXIT_PIPE_CLOSED = 128 + 13  # what a shell reports for a program SIGPIPE ended (`grep ... | head`)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def port_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port is a number from 1 to 65535, got {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a number from 1 to 65535, got {value}")
    return value


def open_built(a):
    from .query.built_corpus import BuiltCorpus
    return BuiltCorpus.open(a.configfile, a.corpus, a.results)


def cmd_search(a) -> int:
    out = open_built(a).search(a.query, a.retriever, a.k, max_chars=a.max_query_chars)
    if a.json:
        print_json(out)
    else:
        for r in out["results"]:
            score = "" if r["score"] is None else f"{r['score']:.4f}  "  # a reorder's scores are positions
            print(f"{r['rank']:>2}. {score}{r['chunk_id']}  {r['doc_id']} § {r['section']}\n    {r['snippet']}")
    return 0



def cmd_answer(a) -> int:
    out = open_built(a).answer(a.query, a.retriever, a.reader, a.k, max_chars=a.max_query_chars)
    if a.json:
        print_json(out)
    else:
        print(out["answer"])
        if out.get("why"):
            print(f"  (why: {out['why']})")
        for c in out["citations"]:
            rank = f"rank {c['rank']}" if c["rank"] else "not ranked"
            print(f"  cites [#{c['n']}] {c['doc_id']}:{c['line']} § {c['section']} (chunk {c['chunk_id']}, {rank})")
        print(f"  [{out['latency_ms']:.1f} ms end to end; retriever {out['retriever']} ({out['retriever_why']}), "
              f"reader {out['reader']}]")
    return 0


def print_json(value) -> None:
    # errors="surrogateescape" arguments become \udcxx: escape them so the output stays valid UTF-8
    print(json.dumps(value, ensure_ascii=False, indent=2).encode("utf-8", "backslashreplace").decode("utf-8"))


def cmd_assert(a) -> int:
    from .artifacts.layout import CorpusLayout
    from .artifacts.missing import require
    from .config.load import load_checked
    from .evaluation.assertions import format_markdown
    from .stages.assertions import check_runs
    corpus = load_checked(a.configfile, a.corpus)
    if not corpus.assertions:
        raise UsageError(f"corpora.{a.corpus}.assertions", "no assertions file configured")
    layout = CorpusLayout.of(a.results, a.corpus)
    runs = [require(layout.run(r), f"run of {r!r}") for r in corpus.retrievers]
    results = check_runs(corpus.assertions, layout.questions, layout.docs, layout.chunks, runs, corpus.inputs_of())
    print(format_markdown(results), end="")
    failed = [r for r in results if r.gate and not r.passed]
    log(f"assert: {sum(r.passed for r in results if r.gate)} of {sum(r.gate for r in results)} passed")
    return EXIT_FAILED if failed else 0


def corpus_graph(a):
    """The built corpus's folder and the graph of its config's jobs (a usage error when it was never built)."""
    from .artifacts.layout import CorpusLayout
    from .config.load import load_checked
    from .pipeline.graph import CorpusGraph
    layout = CorpusLayout.of(a.results, a.corpus)
    if not (layout.root / "receipts").is_dir():
        raise UsageError(str(layout.root), "no receipts: the corpus has not been built (snakemake -c1 results/report.md)")
    return layout.root, CorpusGraph(load_checked(a.configfile, a.corpus), layout)


def cmd_verify(a) -> int:
    from .artifacts.integrity import incomplete, leftovers, verify_corpus
    root, graph = corpus_graph(a)
    required, receipts = graph.artifacts(), graph.receipts()
    problems = verify_corpus(root, receipts)
    problems += incomplete(required, problems)
    for line in problems:
        print(line)
    left = leftovers(root, required)
    if left:
        log(f"verify: warning: {len(left)} file(s) no job of this config writes (an earlier config's; "
            f"`minirag clean` removes them), e.g. {left[0]}")
    log(f"verify: {len(receipts)} receipts, {len(required)} artifacts the config's jobs write, {len(problems)} "
        "problem(s)" + ("" if problems else ": every one is there and is what its job wrote"))
    return EXIT_FAILED if problems else 0


def cmd_clean(a) -> int:
    from .artifacts.integrity import leftovers
    root, graph = corpus_graph(a)
    left = leftovers(root, graph.artifacts())
    for path in left:
        print(path)
        if not a.dry_run:
            path.unlink()
    log(f"clean: {len(left)} file(s) no job of this config writes" + (" (nothing removed: --dry-run)" if a.dry_run
                                                                       else " removed"))
    return 0


def cmd_serve(a) -> int:
    import gc
    gc.enable()  # a server runs for days: it collects its garbage (python -m minirag runs with it off)
    try:
        import uvicorn

        from .serve.app import ENV_ARGS, create_app
        from .serve.state import LiveCorpus, check_loads
    except ImportError as exc:
        raise UsageError("serve", f"needs the serve extra ({exc.name} is not installed): pip install -e \".[serve]\"")
    from .serve.process import bind
    sock = bind(a.host, a.port)  # a port in use is refused now, not after loading the corpus
    t0 = time.perf_counter()
    options = {"host": a.host, "port": a.port, "log_level": a.log_level, "access_log": a.log_level == "debug"}
    where = f"http://{a.host}:{a.port}/ (docs at /docs)"
    if a.workers > 1:  # each worker process loads and watches its own snapshot; a child checks it loads first
        n = check_loads(a.configfile, a.corpus, a.results)
        log(f"serve: {a.corpus}: {n['chunks']} chunks, {n['retrievers']} retrievers, {n['readers']} readers load "
            f"({time.perf_counter() - t0:.1f} s); {where}, {a.workers} workers")
        os.environ[ENV_ARGS] = json.dumps([a.configfile, a.corpus, a.results, a.max_query_chars])
        sock.close()  # the workers bind it themselves
        uvicorn.run("minirag.serve.app:app_from_env", factory=True, workers=a.workers, **options)
        return 0
    live = LiveCorpus(a.configfile, a.corpus, a.results, log=log)  # refuses to start on missing or stale artifacts
    built = live.current.built
    log(f"serve: {a.corpus}: {len(built.by_id)} chunks, {len(built.retriever_names())} retrievers, "
        f"{len(built.reader_names())} readers loaded in {time.perf_counter() - t0:.1f} s; {where}")
    live.start()
    try:
        uvicorn.Server(uvicorn.Config(create_app(live, a.max_query_chars), **options)).run(sockets=[sock])
    finally:
        live.stop()
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m minirag", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp):
        sp.add_argument("--corpus", default=None, help="a corpus of the config (default: its first built one)")
        sp.add_argument("--configfile", default="workflow/config.yaml")
        sp.add_argument("--results", default="results", help="the results folder the graph built")
        sp.add_argument("--debug", action="store_true", help="show the traceback of a failure")

    for name, fn, k_default in (("search", cmd_search, 5), ("answer", cmd_answer, None)):
        sp = sub.add_parser(name, help=f"{name} over built artifacts (no rebuild)")
        sp.add_argument("query")
        sp.add_argument("--retriever", default=None, help="a retriever of the config (default: its `serve`, else the best on the dev split)")
        sp.add_argument("-k", type=positive_int, default=k_default,
                        help="chunks to return" if name == "search" else "chunks in the prompt (default: prompt.k)")
        sp.add_argument("--json", action="store_true")
        sp.add_argument("--max-query-chars", type=positive_int, default=MAX_QUERY_CHARS,
                        help=f"longer queries are refused, as the server refuses them (default: {MAX_QUERY_CHARS})")
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
    sp = sub.add_parser("clean", help="remove the receipts and artifacts of jobs this config no longer has")
    sp.add_argument("--dry-run", action="store_true", help="list them, remove nothing")
    common(sp)
    sp.set_defaults(fn=cmd_clean)
    sp = sub.add_parser("serve", help="serve the built corpus over HTTP (the serve extra)")
    sp.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    sp.add_argument("--port", type=port_number, default=8000)
    sp.add_argument("--max-query-chars", type=positive_int, default=MAX_QUERY_CHARS, help="longer queries get HTTP 413")
    sp.add_argument("--workers", type=positive_int, default=1, help="server processes (each holds its own copy)")
    sp.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    common(sp)
    sp.set_defaults(fn=cmd_serve)
    add_history_commands(sub, positive_int)
    return p


def main(argv: list[str] | None = None) -> int:
    # An argument that is not UTF-8 arrives as surrogates (surrogateescape): print it escaped, never crash.
    sys.stdout.reconfigure(errors="backslashreplace")
    sys.stderr.reconfigure(errors="backslashreplace")
    args = build_parser().parse_args(argv)
    try:
        if getattr(args, "configfile", None) and args.corpus is None and args.fn not in (cmd_search, cmd_answer):
            from .query.defaults import default_corpus
            args.corpus = default_corpus(args.configfile)
        code = args.fn(args) or 0
        sys.stdout.flush()  # here, where a closed pipe is caught, not in the interpreter's exit
        return code
    except BrokenPipeError:
        # The reader went away (`search ... | head -1`): nothing left to say to it, and no error
        # line either. Point stdout at /dev/null so the interpreter's last flush is quiet too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE_CLOSED
    except UsageError as exc:
        if args.debug:
            raise
        log(f"error: {exc}")
        return EXIT_USAGE
    except (ValueError, RuntimeError, OSError, KeyError) as exc:
        # Bad input or misaligned artifacts: one clear line naming the file, non-zero exit.
        if args.debug:
            raise
        from .artifacts.missing import MissingArtifact
        if isinstance(exc, MissingArtifact) and getattr(args, "configfile", None):
            from .query.defaults import build_command  # the command that builds this config, not one file
            log(f"error: {str(exc).split('; build it with:')[0]}; build it with: {build_command(args.configfile)}")
            return EXIT_USAGE
        log(f"error: {exc.args[0] if isinstance(exc, KeyError) and exc.args else exc}")
        return EXIT_USAGE if isinstance(exc, MissingArtifact) else EXIT_FAILED
