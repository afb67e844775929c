"""A minimal client of the OpenAI chat-completions API, for the `openai` reader.

    POST {base_url}/chat/completions  {"model", "messages", "temperature", "max_tokens"}
    -> {"model", "choices": [{"message": {"content": ...}}], ...}

Any server that speaks this API works: Ollama, llama.cpp's server, vLLM, a hosted API, or
`minirag serve` itself. Transient failures (connection refused, timeouts, HTTP 429 and 5xx)
are retried `retries` times, waiting `backoff_s · 2^attempt` between tries; anything else
(a 4xx, a redirect, a reply that is not a chat completion) fails at once. Every failure is a
`ModelServerError` whose message names the URL, so a stage fails with one line.

A server is trusted with nothing: `timeout_s` bounds each whole attempt (connect, headers and
body, however slowly they drip), `max_response_bytes` the reply (read block by block, refused
past it), and the reply must be a chat completion whose content is text (a string, or parts
whose text is a string; no control character or lone surrogate).

The API key is read from the environment variable the config names, never from the config.

What it leaves out: streaming, tools, every other endpoint of the API, redirects and proxies
(`base_url` names the server itself).
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import unicodedata
import urllib.parse
from dataclasses import dataclass

RETRY_STATUS = {408, 429, 500, 502, 503, 504}
BLOCK = 1 << 16  # bytes read at a time: a reply is never held past max_response_bytes


class ModelServerError(RuntimeError):
    """The model server could not give a chat completion; the message names its URL."""


class Expired(Exception):
    """The request ran past its deadline."""


class TooLarge(Exception):
    """The reply ran past max_response_bytes."""


@dataclass(frozen=True)
class ChatClient:
    base_url: str
    model: str
    api_key: str = ""
    timeout_s: float = 30.0
    retries: int = 2
    backoff_s: float = 0.5
    max_response_bytes: int = 8_000_000

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
            failure = self._try(body, headers)
            if isinstance(failure, dict):
                return failure
            retry, reason = failure
            if not retry or attempt == attempts - 1:
                tries = f" (after {attempts} attempts)" if retry and attempts > 1 else ""
                raise ModelServerError(f"model server {self.url}: {reason}{tries}")
            time.sleep(self.backoff_s * 2 ** attempt)
        raise AssertionError("unreachable")

    def _try(self, body: bytes, headers: dict) -> dict | tuple[bool, str]:
        """The parsed reply, or (worth retrying, why not)."""
        try:
            status, reason, location, raw = post(self.url, body, headers, self.timeout_s, self.max_response_bytes)
        except Expired:
            return True, f"no complete reply within timeout_s = {self.timeout_s:g} s"
        except TooLarge:
            return False, f"the reply is larger than max_response_bytes = {self.max_response_bytes}"
        except ConnectionRefusedError as exc:
            return True, f"cannot connect ({exc.strerror or exc})"
        except (OSError, http.client.HTTPException) as exc:
            return True, f"connection failed ({type(exc).__name__}: {exc})"
        if 300 <= status < 400:
            return False, (f"HTTP {status} {reason}: redirected to {location}; set base_url to the API root "
                           "it names (redirects are not followed)")
        if status >= 400:
            detail = raw[:300].decode("utf-8", "replace").strip()
            return status in RETRY_STATUS, f"HTTP {status} {reason}" + (f": {detail}" if detail else "")
        try:
            reply = json.loads(raw)
        except (ValueError, RecursionError):
            return False, f"the reply is not a chat completion: {raw[:200]!r}"
        problem = reply_problem(reply)
        return reply if problem is None else (False, f"the reply is not a chat completion: {problem}")


def post(url: str, body: bytes, headers: dict, timeout_s: float, max_bytes: int) -> tuple[int, str, str, bytes]:
    """(status, reason, Location, body) of a POST, all of it within `timeout_s` seconds (a watchdog
    shuts the socket at the deadline, however slowly the server sends) and `max_bytes` bytes."""
    parts = urllib.parse.urlsplit(url)
    cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = cls(parts.hostname, parts.port, timeout=timeout_s)
    expired = threading.Event()
    held: list[socket.socket] = []  # the connected socket (the response keeps reading it after conn lets go)

    def expire():
        expired.set()
        for sock in held:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes a blocked read at once
            except OSError:
                pass
    watchdog = threading.Timer(timeout_s, expire)
    watchdog.daemon = True
    watchdog.start()
    resp = None
    try:
        conn.connect()
        held.append(conn.sock)
        if expired.is_set():
            raise Expired
        conn.request("POST", parts.path + (f"?{parts.query}" if parts.query else ""), body, headers)
        resp = conn.getresponse()
        declared = resp.getheader("Content-Length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise TooLarge
        data, size = [], 0
        while block := resp.read(BLOCK):
            size += len(block)
            if size > max_bytes:
                raise TooLarge
            data.append(block)
        if expired.is_set():
            raise Expired
        return resp.status, resp.reason, resp.getheader("Location", ""), b"".join(data)
    except (OSError, http.client.HTTPException) as exc:
        if expired.is_set() or isinstance(exc, TimeoutError):  # socket.timeout is TimeoutError
            raise Expired from None
        raise
    finally:
        watchdog.cancel()
        if resp is not None:
            resp.close()
        conn.close()


def reply_problem(reply) -> str | None:
    """Why a parsed reply is not a chat completion whose first choice's content is text, or None."""
    from ..text.corpus import text_problem
    choices = reply.get("choices") if isinstance(reply, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict) \
            or not isinstance(choices[0].get("message"), dict):
        return "no choices[0].message"
    content = choices[0]["message"].get("content")
    if isinstance(content, list):
        for i, part in enumerate(content):
            if not isinstance(part, dict):
                return f"content part {i} is a {type(part).__name__}, not an object"
            if part.get("type", "text") == "text" and not isinstance(part.get("text"), str):
                return f"content part {i}'s text is {type(part.get('text')).__name__}, not a string"
        content = reply_text(reply)
    elif content is not None and not isinstance(content, str):
        return f"content is {type(content).__name__}, not text"
    problem = text_problem(content or "")
    return f"content holds {problem}" if problem else model_problem(reply.get("model"))


MAX_MODEL_CHARS = 256  # the reply's `model` is stored in every answer line: a name, not a payload


def model_problem(model) -> str | None:
    """Why the reply's `model` (absent or null: the configured one is recorded) cannot be recorded, or None."""
    from ..text.corpus import text_problem
    if model is None:
        return None
    if not isinstance(model, str):
        return f"model is {type(model).__name__}, not a string"
    if len(model) > MAX_MODEL_CHARS:
        return f"model is {len(model)} characters, at most {MAX_MODEL_CHARS}"
    problem = text_problem(model)
    if problem:
        return f"model holds {problem}"
    # a name is one line of visible text: text_problem lets tab and line breaks through (they belong
    # in an answer), and format characters (U+200B, the bidi overrides) and U+2028/U+2029 would hide
    # or reorder what a reader of the answer lines sees
    for i, ch in enumerate(model):
        if ch in "\t\n\r" or unicodedata.category(ch) in ("Cf", "Zl", "Zp"):
            return f"model holds U+{ord(ch):04X} ({unicodedata.name(ch, 'a control character')}) at character {i}, " \
                   "not one line of visible text"
    return None


def reply_text(reply: dict) -> str:
    """The first choice's message content (a string, or the text parts of a list), once reply_problem passed."""
    content = reply["choices"][0]["message"]["content"]
    if isinstance(content, list):
        return "".join(part["text"] for part in content if part.get("type", "text") == "text")
    return content or ""
