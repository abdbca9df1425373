"""graphmem's Python API in one file: remember, recall the best context, learn from feedback.

    python examples/api_quickstart.py [--space demo-api]

Runs on the embedded FalkorDB (or wherever GRAPHMEM_URI points) with the bundled
all-MiniLM-L6-v2 and no LLM. Running it twice stores everything once.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from graphmem_neo4j import GraphMemory

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--space", default="demo-api")
    space = parser.parse_args().space

    with GraphMemory.open() as memory:  # Settings from GRAPHMEM_* (or pass uri=..., etc.)
        # 1. Remember: one call per kind of memory. Dicts or the layers' typed inputs.
        memory.add_turns(
            [
                {"speaker": "Maya", "text": "We adopted a beagle called Biscuit last week!"},
                {"speaker": "Tom", "text": "Congrats! Is Biscuit house-trained yet?"},
            ],
            space=space,
            session="2024-03-02",
        )
        memory.add_facts(
            [
                {"subject": "Maya", "relation": "lives_in", "object": "Lisbon",
                 "category": "location", "valid_from": "2023-03-01"},
                {"subject": "Maya", "relation": "lives_in", "object": "Porto",
                 "category": "location", "valid_from": "2024-06-01"},
            ],
            space=space,
        )  # fmt: skip
        memory.record_task(
            {
                "id": "heat-egg-1",
                "query": "heat some egg and put it in the countertop",
                "status": "resolved",
                "steps": [
                    {"action": "take egg 1 from fridge 1", "observation": "You pick up the egg 1."},
                    {"action": "heat egg 1 with microwave 1", "observation": "You heat the egg 1."},
                    {"action": "put egg 1 in/on countertop 1", "observation": "Done."},
                ],
            },
            space=space,
        )
        memory.add_trajectory(
            {
                "id": "heat-egg-1",
                "task": "heat some egg and put it in the countertop",
                "reward": 1.0,
                "steps": [
                    {"action": "go to fridge 1", "observation": "The fridge 1 is closed."},
                    {"action": "open fridge 1", "observation": "In it, you see a egg 1."},
                    {"action": "take egg 1 from fridge 1", "observation": "You pick up the egg 1."},
                    {"action": "go to microwave 1", "observation": "The microwave 1 is closed."},
                    {"action": "heat egg 1 with microwave 1", "observation": "You heat the egg 1."},
                    {"action": "go to countertop 1", "observation": "You see a knife 1."},
                    {"action": "put egg 1 in/on countertop 1", "observation": "You put the egg 1."},
                ],
            },
            kind="expert",
            space=space,
        )
        # ... or a whole session transcript, which updates every layer at once.
        memory.add_chat_log(HERE / "chat_log.jsonl", space=space)

        # 2. Learn: the controller keeps, archives or revises the insights the task was given.
        verdict = memory.feedback("heat-egg-1", space=space)
        print(f"feedback on heat-egg-1: created {list(verdict.created)}")

        # 3. Recall: the best context for the next step, within a token budget.
        result = memory.recall(
            "Where does Maya live, and how do I heat an egg?", space=space, budget_tokens=500
        )
        print(result.context)
        print(f"\n{result.tokens_used}/{result.budget_tokens} tokens: {result.tokens_by_layer}")
        # Where the first items live, as Neo4j Browser parameters for the query
        # `MATCH (n {space: $space, id: $id}) RETURN n` (values as JSON: nothing to escape).
        for item in result.items[:3]:
            print(f"{item.label}: :param {json.dumps({'space': space, 'id': item.id})}")

        # 4. What it cost so far in this space.
        usage = memory.token_usage(space)
        print(f"recall calls: {usage.recall.calls}, LLM tokens: {usage.llm.total_tokens}")


if __name__ == "__main__":
    main()
