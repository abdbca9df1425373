"""`pip install` gives the whole product: the wheel, built from this checkout and installed into
a fresh venv outside it, copies the example files out of it (`graphmem examples`), runs the
README guide's ingest and its quick-start search (the embedded engine and the default model)
and builds, starts and checks a local Neo4j from the Maven module it carries (`graphmem neo4j
start` builds it into GRAPHMEM_HOME on first use).

The venv gets the wheel alone (`--no-deps`, no index); its dependencies come from the test
venv's site-packages through a path line in a `.pth` file. Such a line does not run that
folder's own `.pth` files, so the checkout's editable install is not importable from the new
venv: the test asserts the package it runs is the wheel's."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from graphmem_neo4j.store import local_neo4j
from tests.conftest import REPO, free_port, skip_for_want_of
from tests.readme_guide import STEPS

SOURCE_ENTRIES = (
    "pyproject.toml",
    "README.md",
    "graphmem_neo4j",
    "cli",
    "cypher",
    "examples",
    "neo4j-local",
)
"""What pyproject.toml builds the wheel from."""
README = REPO / "README.md"


def _guide_ingest() -> list[str]:
    """The README guide's first line, the embedded engine's ingest, as argv."""
    for step in STEPS:
        if step.needs is None:
            argv = shlex.split(step.text, comments=True)
            assert argv[:2] == ["graphmem", "ingest"], step
            return argv
    raise AssertionError("the README guide has no runnable line")


def _readme_search() -> list[str]:
    """The README's quick-start search on the demo space, as argv."""
    found = re.search(r'graphmem search "[^"\n]+" --space demo[^`\n#]*', README.read_text())
    assert found is not None, "README.md has no `graphmem search ... --space demo` command"
    return shlex.split(found.group(0))


def _run(argv: list[str], env: dict[str, str], cwd: Path, timeout: float = 600) -> str:
    done = subprocess.run(
        argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv outside the checkout with the wheel of this checkout installed; its bin folder."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"  # a copy: setuptools writes build/ and egg-info next to the source
    source.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "target", "*.egg-info")
    for name in SOURCE_ENTRIES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=skip)
        else:
            shutil.copy(REPO / name, source / name)
    dist = root / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "-w", str(dist), str(source)],
        cwd=root, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    (wheel,) = dist.glob("graphmem_neo4j-*.whl")
    venv = root / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
         "--no-deps", "--no-index", "--disable-pip-version-check", str(wheel)],
        cwd=root, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    site = Path(
        _run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()"
              "['purelib'])"], dict(os.environ), root).strip()
    )  # fmt: skip
    (site / "zz-test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv / "bin"


@pytest.mark.neo4j
def test_the_installed_wheel_runs_the_guide_and_a_local_neo4j(
    installed: Path, tmp_path: Path
) -> None:
    if shutil.which("java") is None or shutil.which("mvn") is None:
        skip_for_want_of("the wheel builds its local Neo4j with `java` and `mvn`")
    work = tmp_path / "user"
    work.mkdir()
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "PYTHON"))}
    env |= {"GRAPHMEM_HOME": str(home), "PATH": f"{installed}{os.pathsep}{env['PATH']}"}
    python = str(installed / "python")

    where = _run([python, "-c", "import graphmem_neo4j; print(graphmem_neo4j.__file__)"], env, work)
    assert Path(where.strip()).is_relative_to(installed.parent), where
    assert not Path(where.strip()).is_relative_to(REPO)

    graphmem = str(installed / "graphmem")
    # the files the guide reads, from the wheel: what README.md tells a pip user to run first
    copied = json.loads(_run([graphmem, "examples", "--json"], env, work))["files"]
    ingest = _guide_ingest()
    assert {f["status"] for f in copied} == {"written"}
    assert ingest[2].removeprefix("examples/") in {f["path"] for f in copied}
    checkout = REPO / "examples"
    assert {f["path"] for f in copied} == {
        p.relative_to(checkout).as_posix()
        for p in checkout.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }
    for f in copied:
        assert (work / "examples" / f["path"]).read_bytes() == (
            REPO / "examples" / f["path"]
        ).read_bytes()
    assert "graphmem examples" in README.read_text()
    _run([graphmem, *ingest[1:]], env, work)
    found = json.loads(_run([graphmem, *_readme_search()[1:], "--json"], env, work))
    assert found, "search found nothing in the ingested conversation"
    _run([graphmem, "server", "stop"], env, work)

    port, http_port = free_port(), free_port()
    start = [graphmem, "neo4j", "start", "--port", str(port), "--http-port", str(http_port)]
    try:
        started = subprocess.run(start, env=env, cwd=work, capture_output=True, text=True,
                                 timeout=900, check=False)  # fmt: skip
        assert started.returncode == 0, started.stderr
        assert "building the local Neo4j in" in started.stderr  # the first start builds it
        module = next((home / "neo4j-local").iterdir())
        assert local_neo4j.is_built(module)
        assert (module / "pom.xml").read_bytes() == (REPO / "neo4j-local" / "pom.xml").read_bytes()
        assert f"bolt://127.0.0.1:{port}" in started.stdout
        password = (home / "neo4j" / "password").read_text().strip()
        neo4j_env = env | {"GRAPHMEM_URI": f"bolt://127.0.0.1:{port}",
                           "GRAPHMEM_PASSWORD": password}  # fmt: skip
        report = json.loads(_run([graphmem, "doctor", "--json"], neo4j_env, work))
        assert report["healthy"], report["problems"]
        assert report["engine"] == "neo4j"
        again = _run([graphmem, "neo4j", "install"], env, work)
        assert f"already built in {module}" in again
    finally:
        _run([graphmem, "neo4j", "stop", "--port", str(port)], env, work)


def test_a_missing_maven_is_one_clear_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the module is not built and there is no `mvn`, install says so in one line."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    java = shutil.which("java")
    if java is not None:
        (bin_dir / "java").symlink_to(java)
    monkeypatch.setenv("PATH", str(bin_dir))
    module = tmp_path / "neo4j-local"
    module.mkdir()
    shutil.copy(REPO / "neo4j-local" / "pom.xml", module)  # a module, not built
    reason = local_neo4j.unavailable_reason(module)
    assert reason is not None and "\n" not in reason
    if java is None:
        assert "no `java` on PATH" in reason
    else:
        assert reason.startswith("no `mvn` on PATH") and "graphmem neo4j install" in reason
    with pytest.raises(local_neo4j.EngineUnavailable, match="cannot install the local Neo4j"):
        local_neo4j.install(module)
    assert not (module / "target").exists()  # nothing half-built


def test_a_missing_java_is_one_clear_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No Java in JAVA_HOME, on PATH or in the JDK folders: one line saying where it looked."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr(local_neo4j, "JDK_FOLDERS", (str(tmp_path / "jvm"),))
    reason = local_neo4j.unavailable_reason(tmp_path / "neo4j-local")
    assert reason is not None and "\n" not in reason
    assert reason.startswith("no Java 17 ") and "set JAVA_HOME" in reason, reason
