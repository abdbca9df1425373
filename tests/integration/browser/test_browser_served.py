"""The local Neo4j serves Neo4j Browser from its own web server, the way a Neo4j server does:
the Browser app on its HTTP port, the discovery document Browser reads to prefill its connect
form, and graphmem's style as `browser.post_connect_cmd` (no Chromium needed here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from graphmem_neo4j.browse import post_connect_command
from graphmem_neo4j.store.local_neo4j import LocalNeo4j

pytestmark = pytest.mark.neo4j


def fetch(url: str, accept: str) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, response.read().decode("utf-8")


def test_the_local_neo4j_serves_browser_and_discovery(local_neo4j_server: LocalNeo4j) -> None:
    status = local_neo4j_server.status()
    assert status.running
    assert status.browser_url == f"http://127.0.0.1:{local_neo4j_server.http_port}/browser/"
    code, page = fetch(status.browser_url, "text/html")
    assert code == 200 and "<title>Neo4j Browser</title>" in page
    code, body = fetch(status.browser_url.removesuffix("browser/"), "application/json")
    discovery = json.loads(body)
    assert code == 200
    assert discovery["bolt_direct"] == local_neo4j_server.uri  # the port Bolt really has
    assert discovery["neo4j_version"].startswith("5.")


def test_browser_gets_graphmem_style_as_its_post_connect_command(
    local_neo4j_server: LocalNeo4j,
) -> None:
    import neo4j

    server = local_neo4j_server
    with neo4j.GraphDatabase.driver(server.uri, auth=("neo4j", server.password())) as driver:
        records = driver.execute_query("CALL dbms.clientConfig()").records
    config = {r["name"]: r["value"] for r in records}
    assert config["browser.post_connect_cmd"] == post_connect_command()


def test_neo4j_status_names_the_local_browser(local_neo4j_server: LocalNeo4j) -> None:
    server = local_neo4j_server
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env.update(GRAPHMEM_HOME=str(server.folder.parent), GRAPHMEM_URI=server.uri)
    graphmem = str(Path(sys.executable).with_name("graphmem"))
    done = subprocess.run(
        [graphmem, "neo4j", "status", "--port", str(server.port), "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout)["browser_url"] == server.status().browser_url
