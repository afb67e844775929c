"""The OpenAI-compatible API: a configured minirag pipeline as a chat "model" any OpenAI client can call.

    GET  /v1/models             "minirag" (the served retriever and the first reader) and
                                "<retriever>+<reader>" for every retriever and reader built
    POST /v1/chat/completions   {"model", "messages", "stream"?} -> a chat.completion

The last user message is the query; the reply's content is the answer with its `[#n]`
markers, and the extra top-level field `citations` lists what they cite:

    "citations": [{"n": 1, "chunk_id": "...", "doc_id": "...", "section": "...", "text": "..."}]

`usage` counts words, not tokens (minirag's readers have no shared tokenizer). With
`"stream": true` the same reply comes as server-sent events: a role chunk, the content in
one chunk, a final chunk with `finish_reason` and `citations`, then `data: [DONE]`.
`temperature` and `max_tokens` (at least 1) are accepted and ignored: the readers are deterministic.

What it leaves out: every other endpoint of the API (embeddings, tools, function calls).
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Annotated, Any

from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse
from pydantic import AfterValidator, ConfigDict, Field

from .models import AnswerRequest, RequestFailed, StrictRequest, Text, no_lone_surrogate

DEFAULT_MODEL = "minirag"


def checked_content(content: Any) -> Any:
    """A message's content: a string, null, or a list of parts whose text parts carry a string."""
    if content is None or isinstance(content, str):
        return no_lone_surrogate(content) if content else content
    if not isinstance(content, list):
        raise ValueError(f"expected a string or a list of parts, got {type(content).__name__}")
    for i, part in enumerate(content):
        if not isinstance(part, dict) or not isinstance(part.get("type", "text"), str):
            raise ValueError(f"part {i}: expected an object with a string 'type'")
        if part.get("type", "text") == "text":
            if not isinstance(part.get("text"), str):
                raise ValueError(f"part {i}: a text part's 'text' must be a string, got {type(part.get('text')).__name__}")
            no_lone_surrogate(part["text"])
    return content


class ChatMessage(StrictRequest):
    model_config = ConfigDict(extra="allow", strict=True)
    role: Text
    content: Annotated[Any, AfterValidator(checked_content)] = None


class ChatRequest(StrictRequest):
    model_config = ConfigDict(extra="allow", strict=True)
    model: Text = DEFAULT_MODEL
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    temperature: float | None = None
    # ignored, but a client asking for no tokens or fewer than none has a bug worth naming
    max_tokens: int | None = Field(default=None, ge=1)


def text_of(content: str | list[dict] | None) -> str:
    if isinstance(content, list):
        return "".join(part["text"] for part in content if part.get("type", "text") == "text")
    return content or ""


def pipeline_of(model: str, built) -> tuple[str | None, str | None]:
    """(retriever, reader) a model name asks for; None: the default."""
    if model == DEFAULT_MODEL:
        return None, None
    retriever, _, reader = model.partition("+")
    if retriever not in built.settings.retrievers or (reader and reader not in built.settings.readers):
        raise RequestFailed(404, "model", f"no model {model!r}: use {DEFAULT_MODEL!r} or '<retriever>+<reader>' "
                            "(GET /v1/models lists them)", "model_not_found")
    return retriever, reader or None


def add_routes(app: FastAPI) -> None:
    live = app.state.live

    @app.get("/v1/models", summary="The pipelines served, as OpenAI models")
    async def models() -> dict[str, Any]:
        built = live.current.built
        created = int(live.current.loaded_at)
        names = [DEFAULT_MODEL] + [f"{r}+{rd}" for r in built.settings.retrievers for rd in built.settings.readers]
        return {"object": "list", "data": [{"id": n, "object": "model", "created": created, "owned_by": "minirag"}
                                           for n in names]}

    @app.post("/v1/chat/completions", summary="Answer the last user message, with citations")
    async def chat(req: ChatRequest, request: Request):
        users = [m for m in req.messages if m.role == "user"]
        if not users:
            raise RequestFailed(422, "messages", "no message with role 'user': its content is the question",
                                "invalid_value")
        retriever, reader = pipeline_of(req.model, live.current.built)
        out = await app.state.answer(AnswerRequest(query=text_of(users[-1].content), retriever=retriever,
                                                   reader=reader), request.client)
        reply_id, created = f"chatcmpl-{uuid.uuid4().hex[:24]}", int(time.time())
        usage = {"prompt_tokens": len(out["prompt"].split()), "completion_tokens": len(out["answer"].split())}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        if req.stream:
            return StreamingResponse(stream(reply_id, created, req.model, out), media_type="text/event-stream")
        return {"id": reply_id, "object": "chat.completion", "created": created, "model": req.model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": out["answer"]},
                             "finish_reason": "stop"}],
                "usage": usage, "citations": out["citations"]}


def stream(reply_id: str, created: int, model: str, out: dict):
    head = {"id": reply_id, "object": "chat.completion.chunk", "created": created, "model": model}
    deltas = [({"role": "assistant"}, None, {}), ({"content": out["answer"]}, None, {}),
              ({}, "stop", {"citations": out["citations"]})]
    for delta, finish, extra in deltas:
        chunk = {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
        yield f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n"
    yield "data: [DONE]\n\n"
