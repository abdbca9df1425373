"""The embedded FalkorDB server: loopback only, password file 0600, AOF, lock, port errors."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from graphmem_neo4j.errors import AuthenticationFailed, EngineUnavailable, PortInUse
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store import open_store
from graphmem_neo4j.store.embedded import EmbeddedServer
from tests.conftest import free_port


@pytest.fixture
def server(tmp_path: Path) -> EmbeddedServer:
    srv = EmbeddedServer(tmp_path / "home", free_port())
    yield srv
    srv.stop()


def listening_addresses(pid: int) -> set[str]:
    out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True).stdout
    return {line.split()[3] for line in out.splitlines() if f"pid={pid}," in line}


def test_start_status_stop(server: EmbeddedServer) -> None:
    assert not server.status().running
    status = server.ensure_running()
    assert status.running and status.pid
    mode = stat.S_IMODE(os.stat(server.password_file).st_mode)
    assert mode == 0o600
    assert stat.S_IMODE(os.stat(server.config_file).st_mode) == 0o600
    # the password never appears on the command line
    cmdline = Path(f"/proc/{status.pid}/cmdline").read_bytes()
    assert server.password().encode() not in cmdline
    assert listening_addresses(status.pid) == {f"127.0.0.1:{server.port}"}
    assert server.ensure_running().pid == status.pid  # idempotent
    assert server.stop() is True
    assert not server.status().running
    assert server.stop() is False


def test_wrong_password_is_refused(server: EmbeddedServer) -> None:
    server.ensure_running()
    settings = Settings(uri=f"falkordb://:wrong@127.0.0.1:{server.port}")
    with pytest.raises(AuthenticationFailed, match="refused the password"):
        open_store(settings)
    no_password = Settings(uri=f"falkordb://127.0.0.1:{server.port}")
    with pytest.raises(AuthenticationFailed):
        open_store(no_password).read("core/list_spaces")


def test_engine_down_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EngineUnavailable, match="cannot reach FalkorDB"):
        open_store(Settings(uri=f"falkordb://127.0.0.1:{free_port()}"))


def test_port_taken_by_a_stranger(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        srv = EmbeddedServer(tmp_path / "h", port)
        with pytest.raises(PortInUse, match=f"port {port}"):
            srv.ensure_running()


def test_port_taken_by_another_homes_server(server: EmbeddedServer, tmp_path: Path) -> None:
    server.ensure_running()
    other = EmbeddedServer(tmp_path / "other-home", server.port)
    with pytest.raises(PortInUse, match="GRAPHMEM_EMBEDDED_PORT"):
        other.ensure_running()


def test_two_processes_start_one_server(server: EmbeddedServer) -> None:
    code = (
        "import sys; from pathlib import Path\n"
        "from graphmem_neo4j.store.embedded import EmbeddedServer\n"
        "print(EmbeddedServer(Path(sys.argv[1]), int(sys.argv[2])).ensure_running().pid)\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(server.home), str(server.port)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    pids = {int(p.communicate(timeout=60)[0].strip()) for p in procs}
    assert len(pids) == 1
    out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True).stdout
    owners = {
        line.split("pid=")[1].split(",")[0]
        for line in out.splitlines()
        if f":{server.port} " in line and "pid=" in line
    }
    assert owners == {str(pids.pop())}


def test_data_survives_kill_9(server: EmbeddedServer) -> None:
    status = server.ensure_running()
    settings = Settings(home=server.home, embedded_port=server.port)
    store = open_store(settings)
    for i in range(50):
        store.write("core/ensure_space", {"space": f"s{i}", "now": i})
    store.close()
    os.kill(status.pid, 9)
    store = open_store(settings)  # auto-restarts, replays the AOF before answering
    assert len(store.read("core/list_spaces")) == 50
    store.close()
