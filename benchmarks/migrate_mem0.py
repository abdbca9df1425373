"""Migration rate of `graphmem migrate mem0` from a source with 10,000 relationships.

    python benchmarks/migrate_mem0.py [--relationships 10000] [--users 20]
                                      [--embedder default|hash]

Starts a local Neo4j (neo4j-local/) as the source and fills it with a graph in the shape
Mem0 1.0.11's graph store writes (benchmarks/migrate_mem0_source.cypher; the integration tests
check that shape against Mem0's own code), 10% of the relationships soft-deleted. Then migrates
it into a fresh embedded FalkorDB graph, twice: the first run stores everything, the second
finds everything stored. Printed: per run the seconds and relationships/s, the first run with
the default embedding model (numpy MiniLM, what a user gets) and with the hash embedder (the
write path alone, the model's share being the difference).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from figures import Figures, add_json_out

from graphmem_neo4j.embedder import HashEmbedder, make_embedder
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.migrate.run import migrate
from graphmem_neo4j.migrate.source import SourceConfig
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store import local_neo4j
from graphmem_neo4j.store.embedded import EmbeddedServer

TYPES = ["person", "city", "organization", "hobby", "food"]
RELATIONS = ["lives_in", "works_at", "likes", "knows", "visited", "owns", "studies"]


def source_rows(relationships: int, users: int, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rows, seen = [], set()
    base = 1_700_000_000_000
    while len(rows) < relationships:
        user = f"user{rng.randrange(users)}"
        a, b = rng.randrange(300), rng.randrange(300)
        relation = rng.choice(RELATIONS)
        key = (user, a, relation, b)
        if a == b or key in seen:
            continue
        seen.add(key)
        rows.append(
            {
                "user_id": user,
                "source": f"entity_{a}",
                "source_type": TYPES[a % len(TYPES)],
                "target": f"entity_{b}",
                "target_type": TYPES[b % len(TYPES)],
                "relation": relation,
                "created": base + len(rows) * 1000,
                "deleted": rng.random() < 0.1,
            }
        )
    return rows


def fill(server: Any, rows: list[dict[str, Any]]) -> None:
    import neo4j

    text = (Path(__file__).parent / "migrate_mem0_source.cypher").read_text()
    with neo4j.GraphDatabase.driver(server.uri, auth=("neo4j", server.password())) as driver:
        for start in range(0, len(rows), 500):
            driver.execute_query(text, rows=rows[start : start + 500])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--relationships", type=int, default=10_000)
    parser.add_argument("--users", type=int, default=20)
    add_json_out(parser)
    args = parser.parse_args()
    figures = Figures("migrate_mem0")
    reason = local_neo4j.unavailable_reason()
    if reason is not None:
        raise SystemExit(f"no local Neo4j: {reason}")
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        source = local_neo4j.LocalNeo4j(home / "neo4j", _free_port())
        source.start()
        falkor = EmbeddedServer(home / "falkordb")
        falkor.ensure_running()
        try:
            rows = source_rows(args.relationships, args.users)
            fill(source, rows)
            config = SourceConfig(source.uri, "neo4j", source.password())
            print(
                f"source: {len(rows)} relationships of {args.users} users "
                f"({sum(r['deleted'] for r in rows)} soft-deleted)"
            )
            for label, embedder in (
                ("hash embedder (write path)", HashEmbedder(384)),
                ("default model", None),
            ):
                settings = Settings(home=falkor.home, database=f"bench_{uuid.uuid4().hex[:8]}")
                model = embedder if embedder is not None else make_embedder(settings)
                with GraphMemory(settings, embedder=model) as memory:
                    for run in ("first run", "second run"):
                        start = time.perf_counter()
                        summary = migrate(memory, config, "mem0")
                        seconds = time.perf_counter() - start
                        facts = sum(s["facts"] for s in summary["spaces"].values())
                        print(
                            f"{label}, {run}: {facts} facts in {seconds:.1f} s = "
                            f"{facts / seconds:.0f} relationships/s; stored {summary['stored']}"
                        )
                        figures.add(f"{label}, {run}", round(facts / seconds), "relationships/s")
        finally:
            falkor.stop()
            source.stop()
    figures.write(args.json_out)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


if __name__ == "__main__":
    main()
