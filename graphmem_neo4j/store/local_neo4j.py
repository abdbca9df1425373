"""A local Neo4j Community server without Docker: the `neo4j-local/` Maven module (Neo4j
embedded in a JVM with its Bolt connector on 127.0.0.1), started with plain `java`.

Two release lines build from the one module (`LINES`): 5.26 LTS (the default; Java 17 or 21)
and 2026 (Maven profile `neo4j-2026`, built into `target-2026/`; Java 21 or newer, which
`find_java` looks for in JAVA_HOME, on PATH and in the usual JDK folders).

A source checkout builds the module in place (`make setup`). An installed wheel carries the
module's pom and Java source as package data (`graphmem_neo4j.neo4j_local`); `install()` (run by
`graphmem neo4j install`, or by the first start) copies them into GRAPHMEM_HOME/neo4j-local/
and builds them there. Building resolves the jars once into the local Maven repository
(~/.m2) and writes `target/classpath.txt`; starting a server afterwards needs Java only, never
the network. With an `http_port`, Neo4j's own web server runs too: Neo4j Browser (the
`org.neo4j.client:neo4j-browser` jar on the classpath) at http://127.0.0.1:<http_port>/browser/,
which runs `post_connect` (e.g. graphmem's `style {...}`) every time it connects.
`graphmem neo4j start` (and `make neo4j`) runs one in the background for a user; the test
suite starts its own, tied to the pytest process.

One module because building, starting, adopting and stopping the server share one folder
layout and one pid/port protocol; split apart, each part would re-derive them.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

from ..errors import EngineUnavailable, PortInUse
from ..settings import default_home

HOST = "127.0.0.1"
DEFAULT_PORT = 7687
MAIN_CLASS = "io.graphmem.neo4j.LocalNeo4j"
SOURCE_MODULE = Path(__file__).resolve().parents[2] / "neo4j-local"
MAVEN_JVM_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
SERVER_SETTINGS = {
    # Lucene's merge factor for vector indexes (Neo4j's default is 50): a vector index written
    # in many small transactions keeps up to 49 segments per level, and every search walks
    # each segment's HNSW graph. At 10,000 turns ingested 2,000 at a time, a lookup of 220
    # candidates took 9.1 ms of server time at 50 and 2.9 ms at 4 (docs/neo4j.md, "Few index
    # segments").
    "internal.dbms.index.vector.standard_merge_factor": "4",
    # An internal setting may be gone from a later release; with strict validation a server
    # refuses to start on a setting it does not know, without it the setting is ignored.
    "server.config.strict_validation.enabled": "false",
}
"""neo4j.conf settings every local server starts with (the launcher's `--config-file`)."""
PACKAGED_MODULE = "graphmem_neo4j.neo4j_local"
"""The module's pom and source as package data (an installed wheel's copy)."""


@dataclass(frozen=True)
class Line:
    """One Neo4j release line the module builds: its Maven profile, build folder, the Java
    releases it runs on and the data folder name under GRAPHMEM_HOME (a store written by a
    newer line cannot be opened by an older one, so each line keeps its own)."""

    name: str
    version: str
    profile: str | None
    build_dir: str
    java_min: int
    java_max: int | None
    folder: str


LINES = {
    "5.26": Line("5.26", "5.26.30", None, "target", 17, 21, "neo4j"),
    "2026": Line("2026", "2026.08.1", "neo4j-2026", "target-2026", 21, None, "neo4j-2026"),
}
DEFAULT_LINE = "5.26"
JDK_FOLDERS = ("/usr/lib/jvm", "/usr/java", "/opt/java", "/Library/Java/JavaVirtualMachines")
"""Where JDKs are installed when neither JAVA_HOME nor PATH gives a suitable one."""


def line_named(name: str | None) -> Line:
    """The line for `name`: a line ("5.26", "2026") or a version of one ("2026.08.1")."""
    name = (name or DEFAULT_LINE).strip()
    for line in LINES.values():
        if name in (line.name, line.version) or name.startswith(line.name + "."):
            return line
    known = ", ".join(f"{n} ({line.version})" for n, line in LINES.items())
    raise EngineUnavailable(f"unknown Neo4j line {name!r}: choose one of {known}")


def _java_release(java: Path) -> int | None:
    """The major Java release of the `java` binary at `java`: from its JDK's `release` file,
    else from `java -version`."""
    home = java.resolve().parent.parent
    with contextlib.suppress(OSError):
        for text in (home / "release").read_text(encoding="utf-8").splitlines():
            if text.startswith("JAVA_VERSION="):
                return _major(text.split("=", 1)[1].strip('"'))
    try:
        done = subprocess.run(
            [str(java), "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    for word in done.stderr.split():
        if word.startswith('"') and word.endswith('"'):
            return _major(word.strip('"'))
    return None


def _major(version: str) -> int | None:
    head = version.split(".")
    with contextlib.suppress(ValueError):
        major = int(head[0])
        return int(head[1]) if major == 1 and len(head) > 1 else major
    return None


def _java_candidates() -> list[Path]:
    found: list[Path] = []
    if os.environ.get("JAVA_HOME"):
        found.append(Path(os.environ["JAVA_HOME"]) / "bin" / "java")
    on_path = shutil.which("java")
    if on_path:
        found.append(Path(on_path))
    for folder in JDK_FOLDERS:
        with contextlib.suppress(OSError):
            for home in sorted(Path(folder).iterdir(), reverse=True):
                for java in (home / "bin" / "java", home / "Contents/Home/bin/java"):
                    if java.is_file():
                        found.append(java)
    return found


def find_java(line: Line) -> Path | None:
    """A `java` whose release `line` runs on: JAVA_HOME's first, then PATH's, then the
    newest suitable one in JDK_FOLDERS; None when there is none."""
    for java in _java_candidates():
        release = _java_release(java) if os.access(java, os.X_OK) else None
        if release is None or release < line.java_min:
            continue
        if line.java_max is None or release <= line.java_max:
            return java
    return None


def _java_wanted(line: Line) -> str:
    most = f" to {line.java_max}" if line.java_max else " or newer"
    return (
        f"no Java {line.java_min}{most} found for Neo4j {line.version} (looked in JAVA_HOME, "
        f"PATH and {', '.join(JDK_FOLDERS)}): install one or set JAVA_HOME to it"
    )


def packaged_module() -> Traversable | None:
    """The module's files shipped inside the package, or None when absent."""
    try:
        files = resources.files(PACKAGED_MODULE)
    except ModuleNotFoundError:
        return None
    return files if files.joinpath("pom.xml").is_file() else None


def _home() -> Path:
    return Path(os.environ.get("GRAPHMEM_HOME") or default_home()).expanduser()


def module_dir(home: Path | None = None) -> Path:
    """Where the Maven module is built: GRAPHMEM_NEO4J_LOCAL_DIR when set, else a source
    checkout's `neo4j-local/`, else the build cache under GRAPHMEM_HOME/neo4j-local/ (one folder
    per version of the packaged module, filled by `install()`)."""
    override = os.environ.get("GRAPHMEM_NEO4J_LOCAL_DIR")
    if override:
        return Path(override)
    if (SOURCE_MODULE / "pom.xml").is_file():
        return SOURCE_MODULE
    packaged = packaged_module()
    version = _packaged_digest(packaged) if packaged is not None else "missing"
    return (home or _home()) / "neo4j-local" / version


def _packaged_files(root: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    """(relative path, file) for the pom and every Java source under `root`."""
    found: list[tuple[str, Traversable]] = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        name = f"{prefix}{entry.name}"
        if entry.is_dir() and (prefix or entry.name == "src"):
            found += _packaged_files(entry, f"{name}/")
        elif entry.is_file() and (name == "pom.xml" or name.endswith(".java")):
            found.append((name, entry))
    return found


def _packaged_digest(root: Traversable) -> str:
    import hashlib

    digest = hashlib.sha256()
    for name, entry in _packaged_files(root):
        digest.update(name.encode() + b"\0" + entry.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def _classpath(module: Path, line: Line) -> str | None:
    jars = sorted((module / line.build_dir).glob("graphmem-local-neo4j-*.jar"))
    listing = module / line.build_dir / "classpath.txt"
    if not jars or not listing.is_file():
        return None
    return os.pathsep.join([str(jars[-1]), listing.read_text(encoding="utf-8").strip()])


def is_built(module: Path | None = None, line: Line | None = None) -> bool:
    """Whether the module is built for `line` (starting needs only Java)."""
    return _classpath(module or module_dir(), line or LINES[DEFAULT_LINE]) is not None


def unavailable_reason(module: Path | None = None, line: Line | None = None) -> str | None:
    """None when a local Neo4j of `line` can start here (perhaps after building it), else
    why not, in one line."""
    module = module or module_dir()
    line = line or LINES[DEFAULT_LINE]
    if find_java(line) is None:
        return _java_wanted(line)
    if not (module / "pom.xml").is_file() and packaged_module() is None:
        return f"no Maven module at {module} and none packaged with graphmem (reinstall it)"
    if _classpath(module, line) is None and shutil.which("mvn") is None:
        return (
            "no `mvn` on PATH to build the local Neo4j (install Maven 3, then run "
            "`graphmem neo4j install`)"
        )
    return None


def _materialise(module: Path) -> None:
    """Copy the packaged pom and source into `module` (the build cache), when not there."""
    if (module / "pom.xml").is_file():
        return
    packaged = packaged_module()
    if packaged is None:
        raise EngineUnavailable(f"no Maven module at {module} and none packaged with graphmem")
    staging = module.with_name(module.name + f".tmp{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    for name, entry in _packaged_files(packaged):
        target = staging / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(entry.read_bytes())
    try:
        staging.rename(module)
    except OSError:  # another process copied it first
        shutil.rmtree(staging, ignore_errors=True)


def install(module: Path | None = None, line: Line | None = None) -> Path:
    """Make the module ready to start `line`: copy the packaged source into the build cache
    when needed and build it with Maven (jars resolved into ~/.m2). Idempotent; returns the
    module."""
    module = module or module_dir()
    line = line or LINES[DEFAULT_LINE]
    reason = unavailable_reason(module, line)
    if reason is not None:
        raise EngineUnavailable(f"cannot install the local Neo4j: {reason}")
    if _classpath(module, line) is None:
        module.parent.mkdir(parents=True, exist_ok=True)
        _materialise(module)
        build(module, line)
    return module


def build(module: Path | None = None, line: Line | None = None) -> None:
    """`mvn package` for `line`: compile the launcher and list its classpath (jars resolved
    into ~/.m2), with that line's Java as Maven's JAVA_HOME."""
    module = module or module_dir()
    line = line or LINES[DEFAULT_LINE]
    java = find_java(line)
    if java is None:
        raise EngineUnavailable(_java_wanted(line))
    # Maven's own JVM: the C1 compiler and one GC thread start it about 3x faster on two
    # cores (a build is seconds of work); the user's MAVEN_OPTS come last and win.
    maven_opts = f"{MAVEN_JVM_OPTS} {os.environ.get('MAVEN_OPTS', '')}".strip()
    profile = [f"-P{line.profile}"] if line.profile else []
    java_home = str(java.resolve().parent.parent)
    try:
        done = subprocess.run(
            ["mvn", "-q", "-B", *profile, "package", "-DskipTests"],
            cwd=module,
            env={**os.environ, "MAVEN_OPTS": maven_opts, "JAVA_HOME": java_home},
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError:
        raise EngineUnavailable(
            "no `mvn` on PATH to build the local Neo4j (install Maven 3)"
        ) from None
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise EngineUnavailable(f"building the local Neo4j in {module} failed:\n{tail}")


def _secret_file(path: Path, value: str | None) -> str:
    """The password in `path` (0600): `value` when given, else the file's, else generated."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if value is not None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(value)
        return value
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text(encoding="utf-8").strip()
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(secrets.token_urlsafe(24))
    return path.read_text(encoding="utf-8").strip()


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((HOST, port)) == 0


@dataclass(frozen=True)
class LocalStatus:
    running: bool
    pid: int | None
    uri: str
    port: int
    data_dir: str
    password_file: str
    log_file: str
    browser_url: str | None = None
    """Neo4j Browser, when the server runs its web server."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def browser_address(http_port: int) -> str:
    return f"http://{HOST}:{http_port}/browser/"


class LocalNeo4j:
    """One local Neo4j: data, password, pid and log under `folder`, Bolt on 127.0.0.1:`port`,
    and with `http_port` Neo4j Browser on 127.0.0.1:`http_port` running `post_connect` (a
    Browser command without its leading colon) each time it connects."""

    def __init__(
        self,
        folder: Path,
        port: int = DEFAULT_PORT,
        *,
        http_port: int | None = None,
        post_connect: str | None = None,
        heap: str = "1g",
        pagecache_mb: int = 256,
        module: Path | None = None,
        line: Line | None = None,
        settings: Mapping[str, str] | None = None,
    ) -> None:
        self.folder = Path(folder).expanduser()
        self.port = port
        self.http_port = http_port
        self.post_connect = post_connect
        self.heap = heap
        self.pagecache_mb = pagecache_mb
        self.module = module or module_dir()
        self.line = line or LINES[DEFAULT_LINE]
        self.data_dir = self.folder / "data"
        self.password_file = self.folder / "password"
        self.state_file = self.folder / "server.json"
        self.log_file = self.folder / "neo4j.log"
        self.post_connect_file = self.folder / "browser-post-connect.txt"
        self.config_file = self.folder / "neo4j.conf"
        self.settings = {**SERVER_SETTINGS, **(settings or {})}
        """neo4j.conf settings of this server: SERVER_SETTINGS, overridden by `settings`."""
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def uri(self) -> str:
        return f"bolt://{HOST}:{self.port}"

    def password(self, value: str | None = None) -> str:
        """The server's password; `value` replaces it (applied on the next start)."""
        return _secret_file(self.password_file, value)

    # --- lifecycle -------------------------------------------------------------------------
    def start(self, *, detach: bool = False, timeout: float = 180.0) -> LocalStatus:
        """Start the server and return once Bolt accepts connections. Attached (the default),
        it stops when this process exits; detached, it runs until `stop()`."""
        current = self.status()
        if current.running:
            return current
        reason = unavailable_reason(self.module, self.line)
        if reason is not None:
            raise EngineUnavailable(f"cannot start a local Neo4j: {reason}")
        java = find_java(self.line)
        assert java is not None
        for port, option in ((self.port, "--port"), (self.http_port, "--http-port")):
            if port is not None and _port_open(port):
                raise PortInUse(
                    f"port {port} on {HOST} is taken by another process; "
                    f"choose another with {option}"
                )
        self.password()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        classpath = _classpath(self.module, self.line)
        if classpath is None:
            install(self.module, self.line)
            classpath = _classpath(self.module, self.line)
            assert classpath is not None
        command = [
            str(java),
            f"-Xmx{self.heap}",
            "-XX:+UseSerialGC",  # two cores: no parallel GC threads competing with the caller
            "-cp",
            classpath,
            MAIN_CLASS,
            "--data",
            str(self.data_dir),
            "--port",
            str(self.port),
            "--password-file",
            str(self.password_file),
            "--pagecache",
            str(self.pagecache_mb),
            "--config-file",
            str(self._write_config()),
        ]
        if self.http_port is not None:
            command += ["--http-port", str(self.http_port)]
            if self.post_connect is not None:
                # a file, not argv: the command is long and would show in `ps`
                self.post_connect_file.write_text(self.post_connect, encoding="utf-8")
                command += ["--post-connect-file", str(self.post_connect_file)]
        if not detach:
            command += ["--parent-pid", str(os.getpid())]
        offset = self.log_file.stat().st_size if self.log_file.exists() else 0
        with open(self.log_file, "ab") as log:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C in the caller's terminal is not the JVM's
            )
        self.state_file.write_text(
            json.dumps({"pid": self._process.pid, "port": self.port, "http_port": self.http_port}),
            encoding="utf-8",
        )
        self._wait_ready(offset, timeout)
        return self.status()

    def _write_config(self) -> Path:
        lines = [f"{key}={value}" for key, value in self.settings.items()]
        self.config_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return self.config_file

    def _wait_ready(self, offset: int, timeout: float) -> None:
        assert self._process is not None
        deadline = time.monotonic() + timeout
        marker = f"READY {self.uri}".encode()
        while True:
            with open(self.log_file, "rb") as log:
                log.seek(offset)
                if marker in log.read():
                    return
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise EngineUnavailable(
                    f"the local Neo4j on port {self.port} did not start; the end of "
                    f"{self.log_file}:\n{self._log_tail(offset)}"
                )
            time.sleep(0.1)

    def _log_tail(self, offset: int = 0, lines: int = 15) -> str:
        with contextlib.suppress(FileNotFoundError), open(self.log_file, "rb") as log:
            log.seek(offset)
            text = log.read().decode("utf-8", errors="replace")
            return "\n".join(text.strip().splitlines()[-lines:])
        return ""

    def _recorded(self) -> tuple[int | None, int, int | None]:
        """(pid, Bolt port, HTTP port) of the server last started from this folder."""
        try:
            state = json.loads(self.state_file.read_text(encoding="utf-8"))
            http = state.get("http_port")
            return int(state["pid"]), int(state["port"]), None if http is None else int(http)
        except (FileNotFoundError, ValueError, KeyError, TypeError):
            return None, self.port, self.http_port

    def _alive_pid(self) -> int | None:
        if self._process is not None and self._process.poll() is None:
            return self._process.pid
        pid = self._recorded()[0]
        if pid is None:
            return None
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return None
        return pid if MAIN_CLASS.encode() in cmdline and bytes(self.data_dir) in cmdline else None

    def status(self) -> LocalStatus:
        pid = self._alive_pid()
        port, http_port = self.port, self.http_port
        if pid is not None and self._process is None:
            _, port, http_port = self._recorded()
        return LocalStatus(
            running=pid is not None and _port_open(port),
            pid=pid,
            uri=f"bolt://{HOST}:{port}",
            port=port,
            data_dir=str(self.data_dir),
            password_file=str(self.password_file),
            log_file=str(self.log_file),
            browser_url=None if http_port is None else browser_address(http_port),
        )

    def stop(self, timeout: float = 60.0) -> bool:
        """SIGTERM (Neo4j checkpoints and closes its store), SIGKILL after `timeout`.
        Returns whether a server was running."""
        pid = self._alive_pid()
        process, self._process = self._process, None
        if pid is None:
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process is not None:
                if process.poll() is not None:
                    break
            elif not Path(f"/proc/{pid}").exists():
                break
            time.sleep(0.1)
        else:
            os.kill(pid, signal.SIGKILL)
        if process is not None:
            process.wait()
        self.state_file.unlink(missing_ok=True)
        return True
