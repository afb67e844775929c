"""The request bodies and the error answer the HTTP routes share: the /search and /answer routes
(app.py) and the OpenAI-compatible /v1 routes (openai_api.py) both read and raise these.

Bodies are read strictly (a bool is not an integer, a string not a number), and no text field may
hold a lone surrogate, which JSON can escape but UTF-8 cannot encode.

What it leaves out: the routes, and how an error becomes a response (app.py).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..text.corpus import text_problem


def no_lone_surrogate(value: str) -> str:
    """A string JSON escapes can hold but UTF-8 cannot ("\\ud800"): refused here, or echoing it
    back (a query, a model name) would fail when the answer is encoded."""
    problem = text_problem(value)
    if problem and "surrogate" in problem:
        raise ValueError(f"holds {problem}, which is not text")
    return value


Text = Annotated[str, AfterValidator(no_lone_surrogate)]


class StrictRequest(BaseModel):
    """A request body read strictly: a bool is not an integer, a string is not a number or a bool."""
    model_config = ConfigDict(strict=True)


class SearchRequest(StrictRequest):
    query: Text = Field(description="the question or keywords")
    retriever: Text | None = Field(None, description="a retriever of the config (GET /retrievers); default: the served one")
    k: int = Field(5, ge=1, description="results to return, at most the run depth")


class AnswerRequest(StrictRequest):
    query: Text = Field(description="the question")
    retriever: Text | None = Field(None, description="a retriever of the config; default: the served one")
    reader: Text | None = Field(None, description="a reader of the config; default: its first")
    k: int | None = Field(None, ge=1, description="chunks in the prompt; default: the config's prompt.k")


class RequestFailed(Exception):
    """An error answer: HTTP `status`, the request field `field` and the reason."""

    def __init__(self, status: int, field: str, reason: str, kind: str, extra: dict | None = None):
        super().__init__(reason)
        self.status, self.field, self.reason, self.kind, self.extra = status, field, reason, kind, extra or {}
