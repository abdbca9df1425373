"""A local OpenAI-compatible chat-completions server for testing the LLM wiring.

Answers come from a queue the test fills: a string is returned as the message content, an int
as an HTTP error status, a float as a delay in seconds before the next queued answer.
`refused_formats` names the response_format forms the fake refuses with HTTP 500, as llama.cpp's
server does with "json_schema" ("json_schema", "json_object_schema" for json_object with a
schema); with `report_usage` False the answers carry no token usage.

A `responder` (request body → answer) answers instead of the queue when set: an answer that is
a dict is the whole assistant message (e.g. with `tool_calls`). `/embeddings` requests get
deterministic vectors of `embedding_dimension` floats (or the request's `dimensions`) derived
from each input's hash: equal texts get equal vectors. The module uses the standard library
only, so a test can start it inside another project's virtual environment.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def format_kind(response_format: Any) -> str:
    """ "json_schema", "json_object_schema", "json_object" or "none"."""
    if not isinstance(response_format, dict):
        return "none"
    kind = str(response_format.get("type"))
    return f"{kind}_schema" if kind == "json_object" and "schema" in response_format else kind


class FakeOpenAI:
    def __init__(self) -> None:
        self.answers: deque[str | int | float] = deque()
        self.requests: list[dict[str, Any]] = []
        self.prompt_tokens = 11
        self.completion_tokens = 7
        self.refused_formats: set[str] = set()
        self.report_usage = True
        self.responder: Callable[[dict[str, Any]], str | int | dict[str, Any]] | None = None
        self.embedding_dimension = 8
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
                if format_kind(body.get("response_format")) in fake.refused_formats:
                    self.send_response(500)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    self.wfile.write(json.dumps({"error": {"message": "bad format"}}).encode())
                    return
                if self.path.rstrip("/").endswith("/embeddings"):
                    self._send(200, fake.embeddings(body))
                    return
                answer: str | int | float | dict[str, Any]
                if fake.responder is not None:
                    answer = fake.responder(body)
                else:
                    answer = fake.answers.popleft() if fake.answers else "{}"
                while isinstance(answer, float):
                    time.sleep(answer)
                    answer = fake.answers.popleft() if fake.answers else "{}"
                if isinstance(answer, int):
                    self.send_response(answer)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    self.wfile.write(json.dumps({"error": {"message": "fake failure"}}).encode())
                    return
                payload = {
                    "id": f"chatcmpl-{len(fake.requests)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", "fake"),
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": answer
                            if isinstance(answer, dict)
                            else {"role": "assistant", "content": answer},
                        }
                    ],
                    "usage": {
                        "prompt_tokens": fake.prompt_tokens,
                        "completion_tokens": fake.completion_tokens,
                        "total_tokens": fake.prompt_tokens + fake.completion_tokens,
                    }
                    if fake.report_usage
                    else None,
                }
                self._send(200, payload)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        inputs = body.get("input")
        texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
        size = int(body.get("dimensions") or self.embedding_dimension)
        data = [
            {"object": "embedding", "index": i, "embedding": hashed_vector(str(t), size)}
            for i, t in enumerate(texts)
        ]
        return {
            "object": "list",
            "data": data,
            "model": body.get("model", "fake"),
            "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
        }

    def queue(self, *answers: str | int | float) -> None:
        self.answers.extend(answers)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def hashed_vector(text: str, size: int) -> list[float]:
    """A unit vector from the text's hash: equal texts, equal vectors; others nearly orthogonal."""
    digest = hashlib.sha256(text.encode()).digest()
    while len(digest) < 2 * size:
        digest += hashlib.sha256(digest).digest()
    raw = [(digest[2 * i] * 256 + digest[2 * i + 1]) / 65535.0 - 0.5 for i in range(size)]
    norm = math.sqrt(sum(x * x for x in raw)) or 1.0
    return [x / norm for x in raw]
