"""`graphmem reembed`: a graph built with one model moves to another, space by space,
resumably; until every space is done the graph keeps refusing the new model."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from graphmem_neo4j.conversation.ingest import embedding_text
from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.errors import SchemaMismatch
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import export_space, import_dump
from graphmem_neo4j.reembed import pending, reembed_space
from graphmem_neo4j.schema import read_state
from graphmem_neo4j.settings import Settings


class Rolled(HashEmbedder):
    """Another model of the same dimension: the hash vectors rotated by one slot, so a vector
    from the first model never equals this one's."""

    def __init__(self) -> None:
        super().__init__(64)
        self.name = "hash-64-rolled"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [v[1:] + v[:1] for v in super().embed(texts)]


class Interrupted(Exception):
    pass


def top_turn(memory: GraphMemory, space: str, query: str) -> str:
    hits = memory.conversation.search(query, space=space, k=1, mode="vector", touch=False).hits
    return hits[0].turn_id


def test_reembed_moves_a_graph_to_a_new_model(
    engine_settings: Settings, space: str, example_turns: list[TurnInput]
) -> None:
    other = space + "-b"
    with GraphMemory(engine_settings, embedder=HashEmbedder(64)) as old:
        old.conversation.add_turns(example_turns[:20], space=space, forget_every=0)
        old.conversation.add_turns(example_turns[20:30], space=other, forget_every=0)
    turn = example_turns[7]
    query = f"{turn.speaker}: {turn.text}"
    with GraphMemory(engine_settings, embedder=Rolled()) as new:
        with pytest.raises(SchemaMismatch, match="graphmem reembed"):
            new.conversation.search(query, space=space, k=1, mode="vector")
        todo = pending(new.parts, space)
        assert todo["Turn"] == 20 and todo["Entity"] > 0

        # Interrupted after its first batch: what was written stays, the rest resumes.
        def stop(n: int) -> None:
            raise Interrupted

        with pytest.raises(Interrupted):
            reembed_space(new.parts, space, batch_size=8, on_progress=stop)
        assert pending(new.parts, space)["Turn"] == 12
        first = reembed_space(new.parts, space, batch_size=8)
        assert first.turns == 12 and first.entities == todo["Entity"]
        assert pending(new.parts, space) == {}
        # One space done, one left: the graph still records the old model and refuses.
        assert not first.graph_switched and set(first.spaces_left) == {other}
        assert read_state(new.store).embedding_model == "hash-64"
        second = reembed_space(new.parts, other)
        assert second.turns == 10 and second.graph_switched and second.spaces_left == {}
        assert read_state(new.store).embedding_model == "hash-64-rolled"
        # Again: nothing to do.
        again = reembed_space(new.parts, space)
        assert (again.turns, again.entities) == (0, 0)
    with GraphMemory(engine_settings, embedder=Rolled()) as reopened:
        assert top_turn(reopened, space, query) == turn.turn_id
    with (
        GraphMemory(engine_settings, embedder=HashEmbedder(64)) as back,
        pytest.raises(SchemaMismatch, match="hash-64-rolled"),
    ):
        back.conversation.search(query, space=space, k=1, mode="vector")


def test_reembed_refuses_another_dimension(
    engine_settings: Settings, space: str, example_turns: list[TurnInput]
) -> None:
    with GraphMemory(engine_settings, embedder=HashEmbedder(64)) as old:
        old.conversation.add_turns(example_turns[:5], space=space, forget_every=0)
    with GraphMemory(engine_settings, embedder=HashEmbedder(32)) as new:
        with pytest.raises(SchemaMismatch, match="keeps the dimension"):
            reembed_space(new.parts, space)
        assert read_state(new.store).embedding_model == "hash-64"


def test_reembed_gives_turns_stored_without_their_context_the_vectors_ingestion_makes(
    engine_settings: Settings, space: str, tmp_path: Path
) -> None:
    """A turn stored by an older graphmem holds the vector of its own text only and no
    `context_embedded`; reembed, with the same model, gives it the vector of its text and the
    turn before it, which a search for that text then finds at similarity 1."""
    turns = [
        TurnInput("s1", "a", "Ann", "Who helps you when things go wrong?"),
        TurnInput("s1", "b", "Bob", "My sister and my old coach, always."),
        TurnInput("s2", "c", "Ann", "The lake froze early this year."),
    ]
    embedder = HashEmbedder(64)
    with GraphMemory(engine_settings, embedder=embedder) as memory:
        memory.conversation.add_turns(turns, space=space, forget_every=0)
        assert pending(memory.parts, space) == {}
        path = tmp_path / "old.jsonl"
        with path.open("w", encoding="utf-8") as out:
            export_space(memory, space, out)
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        for record in records:
            if record.get("label") == "Turn":
                props = record["props"]
                assert props.pop("context_embedded") is True
                props["embedding"] = embedder.embed([f"{props['speaker']}: {props['text']}"])[0]
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        old = f"{space}-old"
        import_dump(memory, path, space=old)
        assert pending(memory.parts, old) == {"Turn": 3}
        with_context = embedding_text("Bob", turns[1].text, ("Ann", turns[0].text))

        def similarity(text: str) -> float:
            found = memory.conversation.search(text, space=old, k=3, mode="vector", touch=False)
            return next(h.score for h in found.hits if h.turn_id == "b")

        assert similarity(with_context) < 0.999
        report = reembed_space(memory.parts, old)
        assert (report.turns, report.graph_switched) == (3, False)
        assert pending(memory.parts, old) == {}
        assert similarity(with_context) == pytest.approx(1.0, abs=1e-5)

        # Ingesting the same turns again upgrades them too (and only once).
        again = f"{space}-again"
        import_dump(memory, path, space=again)
        first = memory.conversation.add_turns(turns, space=again, forget_every=0)
        assert (first.turns_written, first.turns_skipped) == (3, 0)
        assert pending(memory.parts, again) == {}
        found = memory.conversation.search(
            with_context, space=again, k=1, mode="vector", touch=False
        ).hits[0]
        assert (found.turn_id, round(found.score, 5)) == ("b", 1.0)
        second = memory.conversation.add_turns(turns, space=again, forget_every=0)
        assert (second.turns_written, second.turns_skipped) == (0, 3)
