"""Writes a Graphiti graph with graphiti-core's own `add_episode` (run by the graphiti-core
virtual environment, not graphmem's): `python graphiti_driver.py SCRIPT.json`.

Each step is one episode with what the LLM answers for it: its entities, its facts
(source, RELATION, target, sentence, valid_at) and the earlier facts it contradicts. The
project's fake OpenAI server (tests/fakes/openai_server.py) answers every structured-output
request: the scripted parts for the step whose text the request carries, and a minimal valid
object built from the request's JSON schema for the rest (summaries, resolutions, ...).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

DIMENSION = 64
_IDX_FACT = re.compile(r"""idx['"]?\s*[:=]\s*(\d+)\s*,\s*['"]?fact['"]?\s*[:=]\s*['"]([^'"]*)""")


def load_fake() -> Any:
    path = Path(__file__).resolve().parents[2] / "fakes" / "openai_server.py"
    spec = importlib.util.spec_from_file_location("openai_server", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def minimal(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """The smallest value a JSON schema accepts (empty lists, empty strings, -1)."""
    if "$ref" in schema:
        return minimal(defs[schema["$ref"].split("/")[-1]], defs)
    if "anyOf" in schema:
        return None
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {k: minimal(v, defs) for k, v in props.items() if k in schema.get("required", [])}
    if kind == "array":
        return []
    if kind == "integer":
        return -1
    if kind == "number":
        return 0.0
    if kind == "boolean":
        return False
    return "unspecified"


def responder_for(steps: list[dict[str, Any]]) -> Any:
    def respond(body: dict[str, Any]) -> Any:
        fmt = body.get("response_format") or {}
        spec = fmt.get("json_schema") or {}
        name = spec.get("name", "")
        schema = spec.get("schema") or {}
        answer = minimal(schema, schema.get("$defs", {})) if schema else {}
        prompt = "\n".join(str(m.get("content") or "") for m in body.get("messages", []))
        step = next((s for s in reversed(steps) if s["text"] in prompt), None)
        if step is not None:
            if name in ("ExtractedEntities", "CombinedExtraction"):
                answer["extracted_entities"] = [
                    {"name": e, "entity_type_id": 0, "episode_indices": [0]}
                    for e in step["entities"]
                ]
            if name in ("ExtractedEdges", "CombinedExtraction"):
                answer["edges"] = [
                    {
                        "source_entity_name": s,
                        "target_entity_name": t,
                        "relation_type": r,
                        "fact": f,
                        "valid_at": v,
                        "invalid_at": None,
                        "episode_indices": [0],
                    }
                    for s, r, t, f, v in step["facts"]
                ]
        if name == "EdgeDuplicate":
            if os.environ.get("DRIVER_DEBUG"):
                Path(os.environ["DRIVER_DEBUG"]).write_text(prompt)
            answer["contradicted_facts"] = contradicted(steps, prompt)
        return json.dumps(answer)

    return respond


def contradicted(steps: list[dict[str, Any]], prompt: str) -> list[int]:
    """The idx of the listed facts that the new fact of this request contradicts."""
    listed = _IDX_FACT.findall(prompt)
    listed_facts = {fact for _, fact in listed}
    for step in steps:
        news = [f[3] for f in step["facts"] if f[3] in prompt and f[3] not in listed_facts]
        if news and step.get("contradicts"):
            return [int(idx) for idx, fact in listed if any(c in fact for c in step["contradicts"])]
    return []


async def run(script: dict[str, Any]) -> dict[str, Any]:
    fake = load_fake().FakeOpenAI()
    fake.embedding_dimension = DIMENSION
    fake.responder = responder_for(script["steps"])
    from graphiti_core import Graphiti
    from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient
    from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig
    from graphiti_core.llm_client.config import LLMConfig
    from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient
    from graphiti_core.nodes import EpisodeType

    llm_config = LLMConfig(api_key="fake", model="fake", small_model="fake", base_url=fake.base_url)
    graphiti = Graphiti(
        script["neo4j"]["uri"],
        script["neo4j"]["user"],
        script["neo4j"]["password"],
        llm_client=OpenAIGenericClient(config=llm_config),
        embedder=OpenAIEmbedder(
            OpenAIEmbedderConfig(api_key="fake", base_url=fake.base_url, embedding_dim=DIMENSION)
        ),
        cross_encoder=OpenAIRerankerClient(config=llm_config),
    )
    try:
        await graphiti.build_indices_and_constraints()
        for step in script["steps"]:
            await graphiti.add_episode(
                name=step["name"],
                episode_body=step["text"],
                source_description=step.get("speaker", "chat"),
                reference_time=datetime.fromisoformat(step["time"]),
                source=EpisodeType.message,
                group_id=step["group_id"],
                saga=step.get("saga"),
            )
        dump = (Path(__file__).parent / "graphiti_dump.cypher").read_text()
        records, _, _ = await graphiti.driver.execute_query(dump)
        return {"relationships": [dict(r) for r in records]}
    finally:
        await graphiti.close()
        fake.close()


def main() -> None:
    import logging

    logging.disable(logging.WARNING)  # Graphiti logs every index it finds already there
    os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"  # no analytics calls from a test
    script = json.loads(Path(sys.argv[1]).read_text())
    print(json.dumps(asyncio.run(run(script)), default=str))


if __name__ == "__main__":
    main()
