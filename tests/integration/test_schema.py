import pytest

from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.errors import SchemaMismatch, UnknownSpace
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.schema import labels, migrations, read_state


def test_init_applies_every_migration_once(memory: GraphMemory) -> None:
    applied = memory.init()
    assert [m.number for m in applied] == [m.number for m in migrations()]
    assert memory.init() == []
    state = read_state(memory.store)
    assert state.pending == []
    assert [int(r["id"]) for r in state.applied] == [m.number for m in migrations()]
    assert (state.embedding_model, state.embedding_dimension) == ("hash-64", 64)


def test_a_different_embedder_is_refused(memory: GraphMemory) -> None:
    memory.init()
    other = GraphMemory(memory.settings, store=memory.store, embedder=HashEmbedder(32))
    with pytest.raises(SchemaMismatch, match="64-d embeddings from 'hash-64'"):
        other.init()
    with pytest.raises(SchemaMismatch):
        other.ensure_embedder_matches()


def test_spaces_are_created_on_write_and_required_on_read(memory: GraphMemory, space: str) -> None:
    with pytest.raises(UnknownSpace, match=space):
        memory.stats(space)
    memory.ensure_space(space)
    memory.ensure_space(space)
    assert [r["id"] for r in memory.spaces()].count(space) == 1
    assert memory.stats(space)["nodes"] == {"Space": 1}


def test_every_keyed_label_has_a_space_id_constraint(memory: GraphMemory) -> None:
    memory.init()
    rows = memory.store.read("core/list_constraints")
    constrained = {r["label"] for r in rows if sorted(r["properties"]) == ["id", "space"]}
    keyed = {name for name, label in labels().items() if label.keyed}
    assert keyed <= constrained, keyed - constrained
