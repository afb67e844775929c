"""A minimal client of the OpenAI chat-completions API, for the `openai` reader.

    POST {base_url}/chat/completions  {"model", "messages", "temperature", "max_tokens"}
    -> {"model", "choices": [{"message": {"content": ...}}], ...}

Any server that speaks this API works: Ollama, llama.cpp's server, vLLM, a hosted API, or
`minirag serve` itself. Transient failures (connection refused, timeouts, HTTP 429 and 5xx)
are retried `retries` times, waiting `backoff_s · 2^attempt` between tries; anything else
(a 4xx, a reply that is not a chat completion) fails at once. Every failure is a
`ModelServerError` whose message names the URL, so a stage fails with one line.

The API key is read from the environment variable the config names, never from the config.

What it leaves out: streaming, tools, and every other endpoint of the API.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

RETRY_STATUS = {408, 429, 500, 502, 503, 504}


class ModelServerError(RuntimeError):
    """The model server could not give a chat completion; the message names its URL."""


@dataclass(frozen=True)
class ChatClient:
    base_url: str
    model: str
    api_key: str = ""
    timeout_s: float = 30.0
    retries: int = 2
    backoff_s: float = 0.5

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def complete(self, messages: list[dict], temperature: float = 0.0, max_tokens: int = 256) -> dict:
        """The server's chat completion for `messages`, as parsed JSON, after at most `retries` retries."""
        body = json.dumps({"model": self.model, "messages": messages, "temperature": temperature,
                           "max_tokens": max_tokens, "stream": False}).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        attempts = self.retries + 1
        for attempt in range(attempts):
            failure = self._try(urllib.request.Request(self.url, data=body, headers=headers, method="POST"))
            if isinstance(failure, dict):
                return failure
            retry, reason = failure
            if not retry or attempt == attempts - 1:
                tries = f" (after {attempts} attempts)" if retry and attempts > 1 else ""
                raise ModelServerError(f"model server {self.url}: {reason}{tries}")
            time.sleep(self.backoff_s * 2 ** attempt)
        raise AssertionError("unreachable")

    def _try(self, request: urllib.request.Request) -> dict | tuple[bool, str]:
        """The parsed reply, or (worth retrying, why not)."""
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read(300).decode("utf-8", "replace").strip()
            return exc.code in RETRY_STATUS, f"HTTP {exc.code} {exc.reason}" + (f": {detail}" if detail else "")
        except (TimeoutError, socket.timeout):
            return True, f"no reply within timeout_s = {self.timeout_s:g} s"
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, (TimeoutError, socket.timeout)):
                return True, f"no reply within timeout_s = {self.timeout_s:g} s"
            return True, f"cannot connect ({exc.reason})"
        except (ConnectionError, OSError) as exc:
            return True, f"connection failed ({exc})"
        try:
            reply = json.loads(raw)
            reply["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return False, f"the reply is not a chat completion: {raw[:200]!r}"
        return reply


def reply_text(reply: dict) -> str:
    """The first choice's message content (a string, or the text parts of a list)."""
    content = reply["choices"][0]["message"]["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""
