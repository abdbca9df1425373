"""Writes a Mem0 graph with Mem0's own code (run by the mem0ai==1.0.11 virtual environment,
not graphmem's): `python mem0_driver.py SCRIPT.json`.

The script names the Neo4j to write, and steps: each step is one `Memory.add` of a user's
message, with what the LLM answers for it (entities and their types, relations to add,
relations to delete). The project's fake OpenAI server (tests/fakes/openai_server.py, standard
library only) answers Mem0's tool calls from the step whose text the request carries, and its
embedding calls with hashed vectors.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

DIMENSION = 64


def load_fake() -> Any:
    path = Path(__file__).resolve().parents[2] / "fakes" / "openai_server.py"
    spec = importlib.util.spec_from_file_location("openai_server", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tool_message(calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for i, (name, args) in enumerate(calls)
        ],
    }


def responder_for(steps: list[dict[str, Any]]) -> Any:
    def respond(body: dict[str, Any]) -> Any:
        tools = [t["function"]["name"] for t in body.get("tools") or []]
        prompt = "\n".join(str(m.get("content") or "") for m in body.get("messages", []))
        step = next((s for s in reversed(steps) if s["text"] in prompt), None)
        if step is None or not tools:
            return json.dumps({"facts": []})
        if "extract_entities" in tools:
            entities = [{"entity": e, "entity_type": t} for e, t in step["entities"].items()]
            return tool_message([("extract_entities", {"entities": entities})])
        if "establish_relationships" in tools or "establish_relations" in tools:
            rels = [
                {"source": s, "relationship": r, "destination": d} for s, r, d in step["relations"]
            ]
            return tool_message([(tools[0], {"entities": rels})])
        if "delete_graph_memory" in tools:
            return tool_message(
                [
                    ("delete_graph_memory", {"source": s, "relationship": r, "destination": d})
                    for s, r, d in step.get("delete", [])
                ]
            )
        return json.dumps({"facts": []})

    return respond


def main() -> None:
    script = json.loads(Path(sys.argv[1]).read_text())
    fake_module = load_fake()
    fake = fake_module.FakeOpenAI()
    fake.embedding_dimension = DIMENSION
    fake.responder = responder_for(script["steps"])
    os.environ["MEM0_TELEMETRY"] = "False"  # no analytics calls from a test
    from mem0 import Memory

    config = {
        "llm": {
            "provider": "openai",
            "config": {"model": "gpt-4o-mini", "api_key": "fake", "openai_base_url": fake.base_url},
        },
        "embedder": {
            "provider": "openai",
            "config": {
                "model": "text-embedding-3-small",
                "api_key": "fake",
                "openai_base_url": fake.base_url,
                "embedding_dims": DIMENSION,
            },
        },
        "vector_store": {
            "provider": "qdrant",
            "config": {
                "path": script["qdrant_path"],
                "embedding_model_dims": DIMENSION,
                "collection_name": "mem0_test",
                "on_disk": True,
            },
        },
        "graph_store": {
            "provider": "neo4j",
            "config": {
                "url": script["neo4j"]["uri"],
                "username": script["neo4j"]["user"],
                "password": script["neo4j"]["password"],
                "base_label": bool(script.get("base_label", False)),
            },
        },
        "history_db_path": script["history_path"],
    }
    memory = Memory.from_config(config)
    for step in script["steps"]:
        kwargs = {"user_id": step["user_id"]}
        memory.add([{"role": "user", "content": step["text"]}], infer=False, **kwargs)
        time.sleep(float(step.get("pause", 0.01)))
    dump = (Path(__file__).parent / "mem0_dump.cypher").read_text()
    out = {
        "get_all": {u: memory.graph.get_all({"user_id": u}, limit=1000) for u in script["users"]},
        "relationships": memory.graph.graph.query(dump),
    }
    print(json.dumps(out))
    fake.close()


if __name__ == "__main__":
    main()
