"""The LLM extraction path wired through ingestion, and export/import of a conversation."""

from __future__ import annotations

import json
from pathlib import Path

from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.llm import OpenAICompatibleLLM
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import export_space, import_dump, space_digest
from tests.fakes.openai_server import FakeOpenAI


def test_ingestion_stores_what_the_llm_extracted(
    memory: GraphMemory, space: str, fake_openai: FakeOpenAI
) -> None:
    answer = {
        "turns": [
            {
                "turn_id": "t1",
                "entities": [
                    {"name": "Maya", "type": "person"},
                    {"name": "Biscuit", "type": "dog"},
                ],
                "relations": [
                    {
                        "source": "Maya",
                        "target": "Biscuit",
                        "type": "adopted",
                        "fact": "Maya adopted Biscuit.",
                    }
                ],
            },
            {"turn_id": "t2", "entities": [{"name": "Porto", "type": "city"}], "relations": []},
        ]
    }
    fake_openai.queue(json.dumps(answer))
    llm = OpenAICompatibleLLM(model="fake", base_url=fake_openai.base_url, api_key="k")
    with GraphMemory(memory.settings, store=memory.store, embedder=memory.embedder, llm=llm) as m:
        report = m.conversation.add_turns(
            [
                TurnInput("s1", "t1", "Maya", "I adopted Biscuit!", None),
                TurnInput("s1", "t2", "Tom", "I am off to Porto.", None),
            ],
            space=space,
            forget_every=0,
        )
        assert report.extractor == "llm" and report.relations == 1
        assert report.entities_created == 3
        result = m.conversation.search("Biscuit", space=space, mode="sf")
        assert {e.type for e in result.edges} == {"adopted"}
        assert result.edges[0].turn_id == "t1"
        assert {n.type for n in result.nodes} >= {"dog"}
    assert len(fake_openai.requests) == 1


def test_export_and_import_round_trip(
    memory: GraphMemory, space: str, example_turns: list[TurnInput], tmp_path: Path
) -> None:
    memory.conversation.add_turns(example_turns, space=space, forget_every=0)
    memory.conversation.search("Biscuit", space=space)
    path = tmp_path / "dump.jsonl"
    with path.open("w", encoding="utf-8") as out:
        exported = export_space(memory, space, out)
    imported = import_dump(memory, path, space=f"{space}-copy")
    assert (imported.nodes, imported.relationships) == (exported.nodes, exported.relationships)
    assert imported.sha256 == exported.sha256
    copy = memory.conversation.search("What did Maya adopt?", space=f"{space}-copy", k=3)
    original = memory.conversation.search("What did Maya adopt?", space=space, k=3)
    assert [h.turn_id for h in copy.hits] == [h.turn_id for h in original.hits]
    assert space_digest(memory, f"{space}-copy").nodes == exported.nodes
