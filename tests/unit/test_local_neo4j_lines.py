"""The local Neo4j's release lines: which line a name means, and which JVM runs it."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from graphmem_neo4j.errors import EngineUnavailable
from graphmem_neo4j.store import local_neo4j
from graphmem_neo4j.store.local_neo4j import LINES, find_java, line_named, unavailable_reason

REPO = Path(__file__).resolve().parents[2]


def jdk(root: Path, name: str, version: str) -> Path:
    """A fake JDK folder: a `release` file and an executable bin/java."""
    home = root / name
    (home / "bin").mkdir(parents=True)
    (home / "release").write_text(f'JAVA_VERSION="{version}"\n', encoding="utf-8")
    java = home / "bin" / "java"
    java.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    java.chmod(java.stat().st_mode | stat.S_IXUSR)
    return java


@pytest.fixture
def no_system_java(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No JAVA_HOME, no java on PATH, and the JDK folders are one empty folder of ours."""
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-path"))
    folder = tmp_path / "jvm"
    folder.mkdir()
    monkeypatch.setattr(local_neo4j, "JDK_FOLDERS", (str(folder),))
    return folder


@pytest.mark.parametrize(
    ("name", "line"),
    [
        (None, "5.26"),
        ("5.26", "5.26"),
        ("5.26.30", "5.26"),
        ("2026", "2026"),
        ("2026.08.1", "2026"),
        ("2026.08", "2026"),
    ],
)
def test_a_line_or_a_version_names_its_line(name: str | None, line: str) -> None:
    assert line_named(name).name == line


def test_an_unknown_line_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(EngineUnavailable, match=r"unknown Neo4j line '4\.4'.*5\.26.*2026"):
        line_named("4.4")


def test_each_line_keeps_its_own_data_and_build_folder() -> None:
    assert len({line.folder for line in LINES.values()}) == len(LINES)
    assert len({line.build_dir for line in LINES.values()}) == len(LINES)


def test_the_pom_builds_the_versions_the_lines_name() -> None:
    pom = (REPO / "neo4j-local" / "pom.xml").read_text(encoding="utf-8")
    assert f"<neo4j.version>{LINES['5.26'].version}</neo4j.version>" in pom
    assert f"<neo4j.version>{LINES['2026'].version}</neo4j.version>" in pom
    assert f"<id>{LINES['2026'].profile}</id>" in pom
    assert f"<build.dir>{LINES['2026'].build_dir}</build.dir>" in pom


def test_2026_takes_the_newest_jdk_of_its_range_from_the_jdk_folders(
    no_system_java: Path,
) -> None:
    jdk(no_system_java, "java-17", "17.0.15")
    newer = jdk(no_system_java, "temurin-25", "25.0.1")
    assert find_java(LINES["2026"]) == newer


def test_5_26_skips_a_jdk_newer_than_it_runs_on(no_system_java: Path) -> None:
    jdk(no_system_java, "temurin-25", "25.0.1")
    java17 = jdk(no_system_java, "java-17", "17.0.15")
    assert find_java(LINES["5.26"]) == java17


def test_java_home_comes_first(
    no_system_java: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    jdk(no_system_java, "temurin-25", "25.0.1")
    chosen = jdk(tmp_path / "elsewhere", "jdk-21", "21.0.4")
    monkeypatch.setenv("JAVA_HOME", str(chosen.parent.parent))
    assert find_java(LINES["2026"]) == chosen


def test_without_a_suitable_java_the_reason_is_one_line_naming_what_to_do(
    no_system_java: Path,
) -> None:
    jdk(no_system_java, "java-17", "17.0.15")
    reason = unavailable_reason(REPO / "neo4j-local", LINES["2026"])
    assert reason is not None and "\n" not in reason
    assert "no Java 21 or newer found for Neo4j 2026.08.1" in reason
    assert "set JAVA_HOME" in reason


def test_starting_without_a_suitable_java_fails_clearly(
    no_system_java: Path, tmp_path: Path
) -> None:
    server = local_neo4j.LocalNeo4j(
        tmp_path / "neo4j-2026", 1, module=REPO / "neo4j-local", line=LINES["2026"]
    )
    with pytest.raises(EngineUnavailable, match="no Java 21 or newer"):
        server.start()
