"""`graphmem reembed`: a graph built with one model moves to another, space by space,
resumably; until every space is done the graph keeps refusing the new model."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.errors import SchemaMismatch
from graphmem_neo4j.memory import GraphMemory
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
