"""`graphmem serve`: the MCP tools over streamable HTTP, each request authenticated by an API
key (keys.py) and each tool call confined to the key's spaces and rights.

The app is the `mcp` SDK's streamable HTTP transport (stateless, JSON responses) behind one
ASGI layer of our own that answers 401 to a request without a live key (missing, unknown or
revoked: the graph is read on every request) and 413 to a body over the limit, and hands the
key to the tools. A tool call reaches the store only after the gate has checked its space
against the key: another space is refused with the same message whether it exists or not,
and a read-only key cannot write.
"""

from __future__ import annotations

import contextvars
import json
import logging
import threading
from typing import TYPE_CHECKING

from .errors import Forbidden, InputError
from .keys import ApiKey, KeyRing
from .spaces import validate_space

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from .memory import GraphMemory

MAX_BODY_BYTES = 1_048_576
"""Largest request body accepted (1 MiB); larger gets 413 before it is parsed."""
PATH = "/mcp"

_CALLER: contextvars.ContextVar[ApiKey | None] = contextvars.ContextVar(
    "graphmem_caller", default=None
)
log = logging.getLogger("graphmem.serve")


def space_for(key: ApiKey | None, given: str | None, writes: bool) -> str:
    """The space a call with `key` may use, or Forbidden. Checked before any store access."""
    if key is None:
        raise Forbidden("no API key")
    if given is None:
        if len(key.spaces) != 1:
            raise InputError(
                f"this key is for several spaces ({', '.join(key.spaces)}): name one in `space`",
                field="space",
            )
        given = key.spaces[0]
    if not isinstance(given, str) or given not in key.spaces:
        raise Forbidden(f"this key may not use space {given!r}")
    if writes and key.read_only:
        raise Forbidden("this key is read-only: it cannot write")
    return validate_space(given)


def _gate(given: str | None, writes: bool) -> str:
    return space_for(_CALLER.get(), given, writes)


async def _reply(send: Send, status: int, error: str, message: str) -> None:
    body = json.dumps({"error": error, "message": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="graphmem"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class KeyAuth:
    """ASGI layer: a live bearer key or 401; a body within MAX_BODY_BYTES or 413."""

    def __init__(
        self, app: ASGIApp, keys: KeyRing, lock: threading.Lock, max_body: int = MAX_BODY_BYTES
    ) -> None:
        # `lock` is the one tool calls run under. The key check does not wait for it (the
        # store's driver or connection pool serves threads side by side), so a long call
        # delays no other client's authentication.
        self.app, self.keys, self.lock, self.max_body = app, keys, lock, max_body

    def _check(self, token: str) -> ApiKey | None:
        return self.keys.check(token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        import anyio.to_thread

        headers = dict(scope.get("headers") or [])
        auth = headers.get(b"authorization", b"").decode("latin-1")
        scheme, _, token = auth.partition(" ")
        key = None
        if scheme.lower() == "bearer" and token.strip():
            key = await anyio.to_thread.run_sync(self._check, token.strip())
        if key is None:
            log.warning("refused %s %s: no live API key", scope.get("method"), scope.get("path"))
            await _reply(
                send,
                401,
                "unauthorized",
                "a live API key is required: Authorization: Bearer <key> (graphmem keys create)",
            )
            return
        length = headers.get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_body:
            await _reply(send, 413, "too_large", f"request body over {self.max_body} bytes")
            return
        reset = _CALLER.set(key)
        try:
            await self.app(scope, receive, send)
        finally:
            _CALLER.reset(reset)


def build_app(
    memory: GraphMemory, *, host: str = "127.0.0.1", max_body: int = MAX_BODY_BYTES
) -> KeyAuth:
    """The ASGI app `graphmem serve` runs: the SDK's Starlette app behind KeyAuth (which
    passes the lifespan through, so the SDK's session manager starts with the server)."""
    from .mcp_server import build_server

    memory.ensure_schema()
    lock = threading.Lock()
    server = build_server(memory, space="", gate=_gate, lock=lock)
    inner = server.streamable_http_app(
        streamable_http_path=PATH,
        json_response=True,
        stateless_http=True,
        max_request_body_size=max_body,
        host=host,  # on a loopback address the SDK also refuses other Host headers
    )
    return KeyAuth(inner, KeyRing(memory.store), lock, max_body)


def run(memory: GraphMemory, *, host: str, port: int) -> None:
    """Serve until interrupted."""
    import uvicorn

    uvicorn.run(
        build_app(memory, host=host), host=host, port=port, log_level="warning", lifespan="on"
    )


class Background:
    """A server on a thread of this process (tests and benchmarks/serve_load.py)."""

    def __init__(self, memory: GraphMemory, *, host: str = "127.0.0.1", port: int = 0) -> None:
        import socket

        import uvicorn

        if port == 0:
            with socket.socket() as probe:
                probe.bind((host, 0))
                port = probe.getsockname()[1]
        self.app = build_app(memory, host=host)
        self.url = f"http://{host}:{port}{PATH}"
        config = uvicorn.Config(self.app, host=host, port=port, log_level="warning", lifespan="on")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def __enter__(self) -> Background:
        import time

        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("graphmem serve did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=30)
