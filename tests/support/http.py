"""One JSON request to a running server: (status, parsed body)."""

import json
import urllib.error
import urllib.request


def call(server, path, body=None, raw: bytes | None = None):
    """(status, parsed JSON or text) of a request; errors are answers too."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(server.url + path, data, {"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            status, text = r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        status, text = exc.code, exc.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text
