"""The embedded FalkorDB server: a Unix socket in the home (TCP only when asked), password file
0600, AOF, lock, port errors, two homes side by side."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem_neo4j.errors import (
    AuthenticationFailed,
    ConfigError,
    EngineUnavailable,
    PortInUse,
)
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store import open_store
from graphmem_neo4j.store.embedded import EmbeddedServer
from tests.conftest import free_port


@pytest.fixture
def server(tmp_path: Path) -> Iterator[EmbeddedServer]:
    srv = EmbeddedServer(tmp_path / "home")
    yield srv
    srv.stop()


@pytest.fixture
def tcp_server(tmp_path: Path) -> Iterator[EmbeddedServer]:
    srv = EmbeddedServer(tmp_path / "tcp-home", free_port())
    yield srv
    srv.stop()


def listening_tcp(pid: int) -> set[str]:
    out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True).stdout
    return {line.split()[3] for line in out.splitlines() if f"pid={pid}," in line}


def listening_unix(pid: int) -> set[str]:
    out = subprocess.run(["ss", "-lxpH"], capture_output=True, text=True).stdout
    return {line.split()[4] for line in out.splitlines() if f"pid={pid}," in line}


def test_start_status_stop_on_a_private_socket_and_no_port(server: EmbeddedServer) -> None:
    assert not server.status().running
    status = server.ensure_running()
    assert status.running and status.pid
    assert status.socket == str(server.socket_path) and status.port is None
    assert stat.S_IMODE(os.stat(server.password_file).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(server.config_file).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(server.data_dir).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(server.socket_path).st_mode) == 0o700
    assert stat.S_ISSOCK(os.stat(server.socket_path).st_mode)
    # the password never appears on the command line
    cmdline = Path(f"/proc/{status.pid}/cmdline").read_bytes()
    assert server.password().encode() not in cmdline
    assert listening_tcp(status.pid) == set()
    assert listening_unix(status.pid) == {str(server.socket_path)}
    assert server.ensure_running().pid == status.pid  # idempotent
    assert server.stop() is True
    assert not server.status().running
    assert server.stop() is False


def test_two_homes_run_side_by_side(tmp_path: Path) -> None:
    first, second = EmbeddedServer(tmp_path / "alice"), EmbeddedServer(tmp_path / "bob")
    try:
        pids = {first.ensure_running().pid, second.ensure_running().pid}
        assert len(pids) == 2 and None not in pids
        stores = [open_store(Settings(home=s.home)) for s in (first, second)]
        stores[0].write("core/ensure_space", {"space": "alices", "now": 1})
        stores[1].write("core/ensure_space", {"space": "bobs", "now": 2})
        assert [r["id"] for r in stores[0].read("core/list_spaces")] == ["alices"]
        assert [r["id"] for r in stores[1].read("core/list_spaces")] == ["bobs"]
        for store in stores:
            store.close()
    finally:
        first.stop()
        second.stop()


def test_tcp_only_when_asked_and_on_loopback(tcp_server: EmbeddedServer) -> None:
    status = tcp_server.ensure_running()
    assert status.port == tcp_server.port and status.host == "127.0.0.1"
    assert listening_tcp(status.pid) == {f"127.0.0.1:{tcp_server.port}"}
    assert listening_unix(status.pid) == {str(tcp_server.socket_path)}
    # graphmem itself still talks over the socket; other tools may use the port
    store = open_store(Settings(home=tcp_server.home, embedded_port=tcp_server.port))
    store.write("core/ensure_space", {"space": "s", "now": 1})
    password = tcp_server.password()
    over_tcp = open_store(Settings(uri=f"falkordb://:{password}@127.0.0.1:{tcp_server.port}"))
    assert [r["id"] for r in over_tcp.read("core/list_spaces")] == ["s"]
    store.close()
    over_tcp.close()


def test_a_home_too_long_for_a_socket_is_one_clear_error(tmp_path: Path) -> None:
    deep = tmp_path / ("h" * 90)
    with pytest.raises(ConfigError, match="too long for the embedded server's Unix socket"):
        EmbeddedServer(deep).ensure_running()
    with pytest.raises(ConfigError, match="GRAPHMEM_HOME"):
        open_store(Settings(home=deep))
    assert not (deep / "falkordb").exists()  # nothing was started or half-created


def test_a_server_from_before_the_socket_is_replaced(server: EmbeddedServer) -> None:
    """A server an older graphmem started (TCP only, no socket) is stopped and started anew
    with its data."""
    status = server.ensure_running()
    store = open_store(Settings(home=server.home))
    store.write("core/ensure_space", {"space": "kept", "now": 1})
    store.close()
    server.socket_path.unlink()  # as if it had been started without one
    replaced = server.ensure_running()
    assert replaced.running and replaced.pid != status.pid
    store = open_store(Settings(home=server.home))
    assert [r["id"] for r in store.read("core/list_spaces")] == ["kept"]
    store.close()


def test_wrong_password_is_refused(tcp_server: EmbeddedServer) -> None:
    tcp_server.ensure_running()
    settings = Settings(uri=f"falkordb://:wrong@127.0.0.1:{tcp_server.port}")
    with pytest.raises(AuthenticationFailed, match="refused the password"):
        open_store(settings)
    no_password = Settings(uri=f"falkordb://127.0.0.1:{tcp_server.port}")
    with pytest.raises(AuthenticationFailed):
        open_store(no_password).read("core/list_spaces")


def test_a_replaced_password_file_is_one_clear_error(server: EmbeddedServer) -> None:
    server.ensure_running()
    server.password_file.write_text("not-the-one-the-server-has")
    with pytest.raises(AuthenticationFailed, match="refused the password"):
        open_store(Settings(home=server.home))
    with pytest.raises(AuthenticationFailed, match=r"falkordb\.password"):
        server.ensure_running()


def test_engine_down_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EngineUnavailable, match="cannot reach FalkorDB"):
        open_store(Settings(uri=f"falkordb://127.0.0.1:{free_port()}"))
    with pytest.raises(EngineUnavailable, match="cannot reach FalkorDB"):
        open_store(Settings(home=tmp_path / "never-started"), autostart=False)


def test_port_taken_by_a_stranger(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        srv = EmbeddedServer(tmp_path / "h", port)
        with pytest.raises(PortInUse, match=f"port {port}"):
            srv.ensure_running()


def test_port_taken_by_another_homes_server(tcp_server: EmbeddedServer, tmp_path: Path) -> None:
    tcp_server.ensure_running()
    other = EmbeddedServer(tmp_path / "other-home", tcp_server.port)
    with pytest.raises(PortInUse, match="GRAPHMEM_EMBEDDED_PORT") as caught:
        other.ensure_running()
    assert "rejects this home's password" in str(caught.value)
    # without the port the other home simply runs its own server
    alone = EmbeddedServer(tmp_path / "other-home")
    try:
        assert alone.ensure_running().running
    finally:
        alone.stop()


def test_two_processes_start_one_server(server: EmbeddedServer) -> None:
    code = (
        "import sys; from pathlib import Path\n"
        "from graphmem_neo4j.store.embedded import EmbeddedServer\n"
        "print(EmbeddedServer(Path(sys.argv[1])).ensure_running().pid)\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(server.home)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    pids = {int(p.communicate(timeout=60)[0].strip()) for p in procs}
    assert len(pids) == 1
    out = subprocess.run(["ss", "-lxpH"], capture_output=True, text=True).stdout
    owners = {
        line.split("pid=")[1].split(",")[0]
        for line in out.splitlines()
        if str(server.socket_path) in line and "pid=" in line
    }
    assert owners == {str(pids.pop())}


def test_data_survives_kill_9(server: EmbeddedServer) -> None:
    status = server.ensure_running()
    settings = Settings(home=server.home)
    store = open_store(settings)
    for i in range(50):
        store.write("core/ensure_space", {"space": f"s{i}", "now": i})
    store.close()
    assert status.pid is not None
    os.kill(status.pid, 9)
    store = open_store(settings)  # auto-restarts, replays the AOF before answering
    assert len(store.read("core/list_spaces")) == 50
    store.close()


def test_the_server_fsyncs_its_append_only_file_before_it_replies(
    server: EmbeddedServer,
) -> None:
    """`appendfsync always`: under `everysec` Redis may postpone the AOF write by up to 2 s
    behind a slow background fsync and reply anyway, so an acknowledged write could be lost to
    `kill -9` (test_crash.py's guarantee)."""
    server.ensure_running()
    client = server.client()
    try:
        pairs = client.execute("CONFIG", "GET", "append*")
    finally:
        client.close()
    settings = dict(zip(pairs[::2], pairs[1::2], strict=True))
    assert (settings["appendonly"], settings["appendfsync"]) == ("yes", "always")
