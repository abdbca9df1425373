"""A small Redis-protocol (RESP2) client: commands out, hiredis-parsed replies in, over a Unix
socket or TCP, with a pool of connections so threads run queries side by side.

graphmem needs a handful of commands (AUTH, PING, GRAPH.*, SET/GET/EVAL for its locks, INFO,
CONFIG GET, BGREWRITEAOF, MODULE LIST). redis-py and the falkordb client cost a `graphmem` call
about a third of its start-up in imports (asyncio, ssl, opentelemetry, dateutil) and several
round trips per connection (CLIENT SETINFO, INFO for cluster and sentinel detection); this
costs one import (hiredis, already what redis-py parsed with) and one AUTH.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

import hiredis


class ServerError(Exception):
    """An error reply from the server (e.g. `WRONGPASS ...`, `LOADING ...`, a query error)."""

    @property
    def code(self) -> str:
        return str(self).split(" ", 1)[0]


class ConnectionClosed(ConnectionError):
    """The server closed the connection (it stopped, or was killed)."""


def encode(args: tuple[Any, ...]) -> bytes:
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode("utf-8")
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


class Connection:
    """One socket; not thread-safe (the pool hands it to one thread at a time)."""

    def __init__(
        self,
        *,
        unix_socket: str | None,
        host: str | None,
        port: int | None,
        password: str | None,
        timeout: float,
        connect_timeout: float,
    ) -> None:
        if unix_socket is not None:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            address: Any = unix_socket
        else:
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            address = (host, port)
        try:
            self.sock.settimeout(connect_timeout)
            self.sock.connect(address)
            self.sock.settimeout(timeout)
        except OSError:
            self.sock.close()
            raise
        self.reader = hiredis.Reader(encoding="utf-8", errors="replace")
        if password is not None:
            try:
                self.execute("AUTH", password)
            except (ServerError, OSError):
                self.sock.close()
                raise

    def execute(self, *args: Any) -> Any:
        self.sock.sendall(encode(args))
        reply = self.reader.gets()
        while reply is False:
            data = self.sock.recv(1 << 16)
            if not data:
                raise ConnectionClosed("the server closed the connection")
            self.reader.feed(data)
            reply = self.reader.gets()
        if isinstance(reply, hiredis.ReplyError):
            raise ServerError(str(reply))
        return reply

    def close(self) -> None:
        self.sock.close()


class Client:
    """Connections made on demand and kept for reuse; any number of threads."""

    def __init__(
        self,
        *,
        unix_socket: str | None = None,
        host: str | None = None,
        port: int | None = None,
        password: str | None = None,
        timeout: float = 30.0,
        connect_timeout: float = 5.0,
    ) -> None:
        self._options: dict[str, Any] = {
            "unix_socket": unix_socket,
            "host": host,
            "port": port,
            "password": password,
            "timeout": timeout,
            "connect_timeout": connect_timeout,
        }
        self._idle: list[Connection] = []
        self._lock = threading.Lock()

    def _take(self) -> tuple[Connection, bool]:
        with self._lock:
            if self._idle:
                return self._idle.pop(), True
        return self._new(), False

    def _new(self) -> Connection:
        return Connection(**self._options)

    def _release(self, connection: Connection) -> None:
        with self._lock:
            self._idle.append(connection)

    def execute(self, *args: Any) -> Any:
        """Run one command. A kept connection the server has closed since (it was restarted)
        is replaced once; a failure on a new connection, or a timeout, is the caller's."""
        connection, reused = self._take()
        try:
            reply = connection.execute(*args)
        except ServerError:
            self._release(connection)
            raise
        except OSError as e:  # its state is unknown now: never reused
            connection.close()
            if not reused or isinstance(e, TimeoutError):
                raise
            connection = self._new()
            try:
                reply = connection.execute(*args)
            except ServerError:
                self._release(connection)
                raise
            except OSError:
                connection.close()
                raise
        self._release(connection)
        return reply

    def ping(self) -> None:
        self.execute("PING")

    def info(self, section: str) -> dict[str, str]:
        return parse_info(self.execute("INFO", section))

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()


def parse_info(text: str) -> dict[str, str]:
    """`INFO`'s `key:value` lines."""
    pairs = (line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {key: value for key, value in pairs if not key.startswith("#")}
