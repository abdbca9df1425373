"""What `appendfsync always` costs the embedded engine against Redis's default `everysec`.

    python benchmarks/aof_fsync.py [--data ../shared/data/locomo_dev] [--rounds 4]
                                   [--embedder numpy|hash]

One embedded FalkorDB server; each round sets each policy in turn (`CONFIG SET appendfsync`,
the order alternating between rounds) and, into a fresh graph:

- ingests the LoCoMo dev conversations (turns/s; the default runtime embeds them, `--embedder
  hash` leaves the store and the extractor as the work);
- writes 20,000 nodes in UNWIND batches of 1,000 (nodes/s);
- runs 300 single-row write statements (ms each): where a per-statement fsync shows most.

Printed: each policy's median over the rounds and the ratio always/everysec. graphmem runs the
server with `always` (store/embedded.py): every acknowledged write is on disk.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from figures import Figures, add_json_out  # noqa: E402

from graphmem_neo4j.conversation.readers import read_locomo  # noqa: E402
from graphmem_neo4j.embedder import HashEmbedder, make_embedder  # noqa: E402
from graphmem_neo4j.memory import GraphMemory  # noqa: E402
from graphmem_neo4j.settings import Settings  # noqa: E402
from graphmem_neo4j.store.embedded import EmbeddedServer  # noqa: E402

POLICIES = ("always", "everysec")
FIGURES = (
    ("ingest", "LoCoMo dev ingestion", "turns/s"),
    ("batched", "batched node writes", "nodes/s"),
    ("single", "single-row write statement", "ms"),
)


def one_round(memory: GraphMemory, data: Path) -> dict[str, float]:
    memory.init()
    conversations = list(read_locomo(data / "locomo_dev.json"))
    turns = sum(len(t) for _, t in conversations)
    started = time.perf_counter()
    for space, conversation in conversations:
        memory.conversation.add_turns(conversation, space=space, forget_every=0)
    ingest = turns / (time.perf_counter() - started)

    nodes = [{"id": f"n{i}", "props": {"note": f"node {i}"}} for i in range(20_000)]
    started = time.perf_counter()
    memory.store.write_batches(
        "portability/node_session", nodes, batch_size=1000, params={"space": "bench-writes"}
    )
    batched = len(nodes) / (time.perf_counter() - started)

    started = time.perf_counter()
    for i in range(300):
        memory.store.write("core/ensure_space", {"space": f"single-{i}", "now": i})
    single = (time.perf_counter() - started) * 1000 / 300
    return {"ingest": ingest, "batched": batched, "single": single}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/locomo_dev")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--embedder", choices=("numpy", "hash"), default="numpy")
    add_json_out(parser)
    args = parser.parse_args()
    if not (args.data / "locomo_dev.json").is_file():
        raise SystemExit(f"no locomo_dev.json in {args.data}: pass --data DIR")
    figures = Figures("aof_fsync")
    results: dict[str, list[dict[str, float]]] = {p: [] for p in POLICIES}
    with tempfile.TemporaryDirectory(prefix="graphmem-fsync-") as tmp:
        server = EmbeddedServer(Path(tmp) / "home")
        server.ensure_running()
        try:
            settings = Settings(home=server.home)
            embedder = HashEmbedder(384) if args.embedder == "hash" else make_embedder(settings)
            embedder.embed(["warm up"])  # the model loads outside the timing
            for round_ in range(args.rounds):
                order = POLICIES if round_ % 2 == 0 else POLICIES[::-1]
                for policy in order:
                    client = server.client()
                    client.execute("CONFIG", "SET", "appendfsync", policy)
                    client.close()
                    graph = Settings(home=server.home, database=f"fsync_{policy}_{round_}")
                    with GraphMemory(graph, embedder=embedder) as memory:
                        results[policy].append(one_round(memory, args.data))
                    print(f"round {round_ + 1} {policy}: {results[policy][-1]}", flush=True)
        finally:
            server.stop()
    print(f"\nmedian of {args.rounds} rounds, embedder {args.embedder}")
    print(f"{'':30} {'always':>10} {'everysec':>10} {'ratio':>7}")
    for key, label, unit in FIGURES:
        always, everysec = (statistics.median(r[key] for r in results[p]) for p in POLICIES)
        print(f"{label + ', ' + unit:30} {always:10.1f} {everysec:10.1f} {always / everysec:7.2f}")
        for policy, value in zip(POLICIES, (always, everysec), strict=True):
            figures.add(f"{label}, appendfsync {policy}", value, unit)
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
