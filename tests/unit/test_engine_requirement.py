"""In CI every engine is installed: a test that cannot get one must fail, not skip."""

from __future__ import annotations

import pytest

from tests.conftest import skip_for_want_of


def test_a_missing_engine_skips_where_engines_are_optional(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GRAPHMEM_TEST_REQUIRE_ENGINES", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no local Neo4j"):
        skip_for_want_of("no local Neo4j: java not found")


def test_a_missing_engine_fails_where_engines_are_required(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GRAPHMEM_TEST_REQUIRE_ENGINES", "1")
    with pytest.raises(pytest.fail.Exception, match="REQUIRE_ENGINES=1 but no local Neo4j"):
        skip_for_want_of("no local Neo4j: java not found")
