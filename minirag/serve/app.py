"""The HTTP service over a built corpus: FastAPI routes on a `LiveCorpus`.

    POST /search       {"query", "retriever"?, "k"?}             -> what `minirag search --json` prints
    POST /answer       {"query", "retriever"?, "reader"?, "k"?}  -> what `minirag answer --json` prints
    GET  /retrievers   the retrievers and readers built, with descriptions and the defaults
    GET  /chunks/{id}  one chunk: document, section, text (what a citation link opens)
    GET  /healthz      corpus, the sha256 of every artifact served (as results/manifest.json
                       records them), uptime, reloads
    GET  /             the page (page.html)
    /v1/...            the OpenAI-compatible API (openai_api.py)
    /docs              OpenAPI docs

Errors are JSON and never carry a traceback: 422 names the field and the reason (FastAPI's
`{"detail": [{"loc", "msg", "type"}]}`), 413 an oversized body or query, 404 an unknown
retriever, reader or chunk with the known names. The /v1 routes answer errors in the
OpenAI shape, `{"error": {"message", "type", "param", "code"}}`, which its clients parse.

Handlers return JSONResponse themselves: FastAPI's response-model pass over a hundred rows
costs more than the search. The work runs on the event loop, one request at a time: it is CPU-bound numpy
under the GIL, so threads would only interleave it; answers wait their turn in a queue fair to
connections (fair.py: a newcomer is not kept waiting behind clients that loop), and an `openai`
reader's remote call runs in a thread.

What it leaves out: TLS, authentication and rate limits (put a proxy in front).
"""

from __future__ import annotations

import logging
import time
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..query.built_corpus import MAX_QUERY_CHARS, QueryTooLong, UnknownName, UsageError
from .fair import FairQueue
from .models import AnswerRequest, RequestFailed, SearchRequest
from .openai_api import add_routes
from .state import LiveCorpus

MAX_BODY_BYTES = 64 * 1024
ENV_ARGS = "MINIRAG_SERVE_ARGS"  # [configfile, corpus, results, max_query_chars] for worker processes
log = logging.getLogger("minirag.serve")


def failure_of(exc: UsageError) -> RequestFailed:
    if isinstance(exc, UnknownName):
        return RequestFailed(404, exc.field, exc.reason, "unknown_name")
    if isinstance(exc, QueryTooLong):
        return RequestFailed(413, exc.field, exc.reason, "too_long")
    return RequestFailed(422, exc.field, exc.reason, "value_error")


def error_response(request: Request, status: int, field: str | None, reason: str, kind: str,
                   extra: dict | None = None) -> JSONResponse:
    if request.url.path.startswith("/v1/"):
        return JSONResponse({"error": {"message": f"{field}: {reason}" if field else reason,
                                       "type": "invalid_request_error" if status < 500 else "server_error",
                                       "param": field, "code": kind}}, status_code=status)
    loc = ["body", field] if field else []
    return JSONResponse({"detail": [{"loc": loc, "msg": reason, "type": kind}], **(extra or {})}, status_code=status)


def run(fn, *args):
    """`fn(*args)`, a usage error (an unknown name, a query too long) raised as the error answer it is."""
    try:
        return fn(*args)
    except UsageError as exc:
        raise failure_of(exc) from None


def create_app(live: LiveCorpus, max_query_chars: int = MAX_QUERY_CHARS) -> FastAPI:
    app = FastAPI(title="minirag", version="1", description="Search and answer over a built minirag corpus, "
                  "with citations; OpenAI-compatible at /v1.")
    app.state.live = live
    turns = FairQueue()

    async def answer(req: AnswerRequest, connection: Any = None) -> dict:
        """Answer `req` from the current snapshot, in the turn fair to its `connection` (a remote reader's
        call in a thread)."""
        snapshot = live.current
        args = (req.query, req.retriever, req.reader, req.k, max_query_chars)
        if snapshot.built.is_remote(req.reader):
            return await run_in_threadpool(run, snapshot.built.answer, *args)
        return await turns.run(connection, run, snapshot.built.answer, *args)

    app.state.answer = answer  # the /v1 routes answer through the same path

    add_error_handlers(app)

    @app.post("/search", summary="Rank chunks with a retriever (as its run file ranks them)")
    async def search(req: SearchRequest) -> JSONResponse:
        snapshot = live.current
        return JSONResponse(run(snapshot.built.search, req.query, req.retriever, req.k, max_query_chars))

    @app.post("/answer", summary="Retrieve, build the prompt and let a reader answer, with citations")
    async def answer_route(req: AnswerRequest, request: Request) -> JSONResponse:
        return JSONResponse(await answer(req, request.client))

    @app.get("/retrievers", summary="The retrievers and readers built, with descriptions")
    async def retrievers() -> dict[str, Any]:
        built = live.current.built
        return {"corpus": built.corpus, "depth": built.depth, "default": built.default_retriever,
                "default_why": built.served[1], "placeholder": built.placeholder,
                "retrievers": built.describe_retrievers(), "readers": built.describe_readers()}

    @app.get("/chunks/{chunk_id}", summary="One chunk: its document, section and text")
    async def chunk(chunk_id: str) -> dict[str, Any]:
        c = live.current.built.by_id.get(chunk_id)
        if c is None:
            raise RequestFailed(404, "chunk_id", f"no chunk {chunk_id!r} in corpus {live.corpus!r}", "unknown_name")
        return {"chunk_id": c.id, "doc_id": c.doc_id, "section": c.section, "title": c.title, "text": c.text}

    @app.get("/healthz", summary="Corpus, the artifacts served with their sha256, uptime")
    async def healthz() -> dict[str, Any]:
        snapshot = live.current
        return {"status": "ok", "corpus": live.corpus, "uptime_s": round(time.time() - live.started, 3),
                "loaded_at": snapshot.loaded_at, "reloads": live.reloads, "failed_reloads": live.failed_reloads,
                "last_reload_error": live.last_error,
                # in a thread: the event loop never waits on a file (a manifest on a slow disk, or a FIFO)
                "manifest": await run_in_threadpool(manifest_check, live, snapshot.artifacts),
                "artifacts": snapshot.artifacts}

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def page() -> HTMLResponse:
        return HTMLResponse(PAGE)

    add_routes(app)
    app.add_middleware(BodyLimit, limit=MAX_BODY_BYTES)
    return app


def add_error_handlers(app: FastAPI) -> None:
    """Every error as JSON in the shape its route family uses, never with a traceback."""
    @app.exception_handler(RequestFailed)
    async def on_failed(request: Request, exc: RequestFailed):
        return error_response(request, exc.status, exc.field, exc.reason, exc.kind, exc.extra)

    @app.exception_handler(RequestValidationError)
    async def on_invalid(request: Request, exc: RequestValidationError):
        errors = jsonable_encoder(exc.errors(), exclude={"input", "ctx", "url"})
        if errors and errors[0].get("type") == "json_invalid":  # loc ["body", offset]: not a field
            return invalid_json(request, exc.errors()[0])
        if request.url.path.startswith("/v1/"):
            first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
            field = ".".join(str(x) for x in first["loc"][1:]) or None
            return error_response(request, 422, field, first["msg"], "invalid_value")
        return JSONResponse({"detail": [{k: e[k] for k in ("loc", "msg", "type") if k in e} for e in errors]},
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, exc: StarletteHTTPException):
        return error_response(request, exc.status_code, None, str(exc.detail), "http_error")

    @app.exception_handler(Exception)
    async def on_crash(request: Request, exc: Exception):
        # The traceback goes to the server's log, never to the client.
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        name = type(exc).__name__
        return error_response(request, 500, None, f"internal error ({name}); the server log has the details",
                              "internal_error")


class BodyLimit:
    """413 for a request body over `limit` bytes, whether it declares its length or streams it
    chunked: the body is read, up to the limit, before the app sees the request."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length", b"")
        too_big = declared.isdigit() and int(declared) > self.limit
        chunks, size, more = [], 0, not too_big
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            too_big = size > self.limit
            if too_big:
                break
        if too_big:
            request = Request(scope)
            shown = declared.decode() if declared.isdigit() else f"over {self.limit}"
            response = error_response(request, 413, None, f"request body of {shown} bytes, at most {self.limit}",
                                      "too_large")
            return await response(scope, receive, send)
        body, replayed = b"".join(chunks), False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: a disconnect, as the server reports it
        return await self.app(scope, replay, send)


def invalid_json(request: Request, error: dict) -> JSONResponse:
    """FastAPI's json_invalid error (loc ["body", offset]) as a 422 whose message names the character
    where the body breaks; no field (the /v1 shape's param is null)."""
    at = error["loc"][1] if len(error["loc"]) > 1 else None
    reason = (error.get("ctx") or {}).get("error", "")
    message = f"the body is not valid JSON{f' at character {at}' if isinstance(at, int) else ''}" + \
        (f": {reason}" if reason else "")
    if request.url.path.startswith("/v1/"):
        return error_response(request, 422, None, message, "invalid_json")
    return JSONResponse({"detail": [{"loc": ["body"], "msg": message, "type": "json_invalid"}]}, status_code=422)


def app_from_env() -> FastAPI:
    """The app of one worker process of `minirag serve --workers N` (uvicorn calls it in each)."""
    import json
    import os
    configfile, corpus, results, max_query_chars = json.loads(os.environ[ENV_ARGS])
    return create_app(LiveCorpus(configfile, corpus, results, log=log.warning).start(), max_query_chars)


PAGE = resources.files(__package__).joinpath("page.html").read_text(encoding="utf-8")


MAX_MANIFEST_BYTES = 64 << 20


def manifest_check(live: LiveCorpus, artifacts: dict[str, str]) -> dict:
    """Whether the report's manifest records the served artifacts with the hashes they have; a manifest
    that is not a regular file (a FIFO would block, /dev/zero never end) or too big is not read."""
    from ..artifacts.io import read_json, regular
    path = live.manifest
    try:
        if regular(path).stat().st_size > MAX_MANIFEST_BYTES:
            raise ValueError(f"{path}: over {MAX_MANIFEST_BYTES >> 20} MB")
        recorded = read_json(path)["files"][live.corpus]["outputs"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return {"path": str(path), "matches": False, "differs": sorted(artifacts), "error": str(exc)[:200]}
    differs = sorted(p for p, h in artifacts.items() if recorded.get(p) != h)
    return {"path": str(path), "matches": not differs, "differs": differs}
