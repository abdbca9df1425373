"""Token counters under concurrent writers: six processes' stores adding to one space's
counters at once lose no update (each counter is one `SET x = coalesce(x, 0) + n`, which
Neo4j locks before it reads and FalkorDB runs one statement at a time)."""

from __future__ import annotations

import threading

from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.token_ledger import RecallUsage, read_totals, write_usage
from graphmem_neo4j.tokens import LLMUsage

WRITERS = 6
ROUNDS = 25


def test_concurrent_counter_updates_lose_nothing(memory: GraphMemory, space: str) -> None:
    memory.ensure_space(space)
    others = [GraphMemory(memory.settings, embedder=HashEmbedder(64)) for _ in range(WRITERS)]
    start = threading.Barrier(WRITERS)

    def add(other: GraphMemory) -> None:
        start.wait()
        for _ in range(ROUNDS):
            usage = {(space, "facts"): LLMUsage(calls=1, prompt_tokens=3, completion_tokens=2)}
            recall = {space: RecallUsage(calls=1, tokens={"conversation": 7})}
            write_usage(other.store, usage, recall)

    threads = [threading.Thread(target=add, args=(other,)) for other in others]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for other in others:
        other.close()
    totals = read_totals(memory.store, space)
    writes = WRITERS * ROUNDS
    assert (totals.llm.calls, totals.llm.prompt_tokens, totals.llm.completion_tokens) == (
        writes,
        3 * writes,
        2 * writes,
    )
    assert (totals.recall.calls, totals.recall.tokens["conversation"]) == (writes, 7 * writes)
