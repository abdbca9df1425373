"""The local Neo4j starts with graphmem's server settings (local_neo4j.SERVER_SETTINGS): they
reach the server through the launcher's neo4j.conf file."""

from __future__ import annotations

import neo4j
import pytest

from graphmem_neo4j.store.local_neo4j import SERVER_SETTINGS, LocalNeo4j

pytestmark = pytest.mark.neo4j


def test_the_local_server_runs_with_graphmems_settings(local_neo4j_server: LocalNeo4j) -> None:
    written = dict(
        line.split("=", 1)
        for line in local_neo4j_server.config_file.read_text(encoding="utf-8").splitlines()
    )
    assert written == SERVER_SETTINGS
    assert written["internal.dbms.index.vector.standard_merge_factor"] == "4"
    # Internal settings are not listed by the server; a public one from the same file is, and
    # with strict validation off a server also starts on a release without the internal one.
    auth = ("neo4j", local_neo4j_server.password())
    with neo4j.GraphDatabase.driver(local_neo4j_server.uri, auth=auth) as driver:
        records = driver.execute_query(
            "SHOW SETTINGS YIELD name, value WHERE name = $name RETURN value",
            name="server.config.strict_validation.enabled",
        ).records
    assert [r["value"] for r in records] == ["false"]
