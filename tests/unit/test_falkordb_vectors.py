"""Which FalkorDB vector indexes the store rebuilds (store/falkordb_vectors.py), without a
server: the index statistics and probe answers are given."""

from __future__ import annotations

import pytest

from graphmem_neo4j.errors import QueryNotFound
from graphmem_neo4j.queries import (
    falkordb_vector_index_drop,
    falkordb_vector_indexes,
    load_query,
    uses_vector_index,
)
from graphmem_neo4j.store import falkordb_vectors as fv

LABELS = {
    "Category",
    "Entity",
    "Insight",
    "MemoryUnit",
    "Query",
    "StoreItem",
    "Subject",
    "Task",
    "Turn",
}


def stats(label: str, documents: int, built: bool = True, dimension: int = 8) -> dict[str, object]:
    return {"label": label, "dimension": dimension, "documents": documents, "built": built}


class Fake:
    def __init__(self, rows: list[dict[str, object]], answers: dict[str, int]) -> None:
        self.rows, self.answers = rows, answers
        self.rebuilt: list[tuple[str | None, str, int]] = []
        self.asked: list[int] = []

    def read(self, query: str, params: dict[str, object]) -> list[dict[str, object]]:
        if query == "core/vector_index_stats":
            return self.rows
        assert query == "core/vector_index_probe"
        assert len(params["probe"]) == params_dimension(self.rows, str(params["label"]))  # type: ignore[arg-type]
        asked = int(params["candidates"])  # type: ignore[call-overload]
        self.asked.append(asked)
        return [{"answered": min(asked, self.answers[str(params["label"])])}]

    def rebuild(self, drop: str | None, create: str, dimension: int) -> None:
        self.rebuilt.append((drop, create, dimension))


def params_dimension(rows: list[dict[str, object]], label: str) -> int:
    return next(int(str(r["dimension"])) for r in rows if r["label"] == label)


def every(documents: int = 0) -> list[dict[str, object]]:
    return [stats(label, documents) for label in sorted(LABELS)]


def test_every_label_with_a_vector_index_has_its_creating_query() -> None:
    creates = falkordb_vector_indexes()
    assert set(creates) == LABELS
    assert creates["Entity"] == "conversation/schema_entity_vector"


def test_the_drop_names_the_label_of_the_file() -> None:
    text = load_query("conversation/schema_turn_vector", "falkordb")
    assert falkordb_vector_index_drop(text) == "DROP VECTOR INDEX FOR (n:Turn) ON (n.embedding)"
    with pytest.raises(QueryNotFound):
        falkordb_vector_index_drop("MATCH (n) RETURN n")


def test_an_index_giving_under_the_healthy_share_is_rebuilt_and_others_are_not() -> None:
    rows = every(1000)
    fake = Fake(rows, {label: 1000 for label in LABELS} | {"Entity": 899, "Turn": 900})
    assert fv.repair(fake.read, fake.rebuild) == ["Entity"]
    [(drop, create, dimension)] = fake.rebuilt
    assert drop == "DROP VECTOR INDEX FOR (n:Entity) ON (n.embedding)"
    assert (create, dimension) == ("conversation/schema_entity_vector", 8)


def test_a_stricter_share_rebuilds_an_index_with_any_orphan() -> None:
    """What an ingestion asks between batches: any orphan sends de-duplication to scans."""
    fake = Fake(every(1000), {label: 1000 for label in LABELS} | {"Entity": 999})
    assert fv.repair(fake.read, fake.rebuild) == []
    assert fv.repair(fake.read, fake.rebuild, healthy=1.0) == ["Entity"]


def test_small_unbuilt_and_foreign_indexes_are_left_alone() -> None:
    rows = [*every(fv.MIN_DOCUMENTS - 1), stats("Other", 5000)]
    rows = [r if r["label"] != "Turn" else stats("Turn", 5000, built=False) for r in rows]
    fake = Fake(rows, {label: 0 for label in [*LABELS, "Other"]})
    assert fv.repair(fake.read, fake.rebuild) == []
    assert fake.rebuilt == [] and fake.asked == []


def test_a_small_index_asks_at_most_what_it_holds() -> None:
    fake = Fake(every(10), {label: 10 for label in LABELS})
    assert fv.repair(fake.read, fake.rebuild, min_documents=1) == []
    assert set(fake.asked) == {10}
    fake = Fake(every(5000), {label: 5000 for label in LABELS})
    assert fv.repair(fake.read, fake.rebuild) == []
    assert set(fake.asked) == {fv.PROBE_CANDIDATES}
    fake = Fake(every(10), {label: 8 for label in LABELS} | {"Task": 9})
    assert fv.repair(fake.read, fake.rebuild, min_documents=1) == sorted(LABELS - {"Task"})


def test_a_label_listed_twice_is_mid_rebuild_and_waits() -> None:
    rows = [*every(1000), stats("Entity", 10, built=False)]
    fake = Fake(rows, {label: 0 for label in LABELS})
    repaired = fv.repair(fake.read, fake.rebuild)
    assert "Entity" not in repaired and len(repaired) == len(LABELS) - 1


def test_a_missing_index_is_created_with_the_others_dimension() -> None:
    rows = [r for r in every(1000) if r["label"] != "Turn"]
    fake = Fake(rows, {label: 1000 for label in LABELS})
    assert fv.repair(fake.read, fake.rebuild) == ["Turn"]
    assert fake.rebuilt == [(None, "conversation/schema_turn_vector", 8)]


def test_no_index_is_created_when_the_dimension_is_unclear() -> None:
    rows = [stats("Entity", 1000, dimension=8), stats("Insight", 1000, dimension=16)]
    fake = Fake(rows, {"Entity": 1000, "Insight": 1000})
    assert fv.repair(fake.read, fake.rebuild) == []
    assert fake.rebuilt == []


def test_the_probe_has_no_zero_coordinate() -> None:
    vector = fv.probe(384)
    assert len(vector) == 384 and all(abs(x) > 1e-6 for x in vector)


def test_the_lookups_that_wait_for_a_refill_are_those_asking_a_vector_index() -> None:
    assert uses_vector_index("conversation/sf_roots", "falkordb")
    assert uses_vector_index("conversation/search_vector", "neo4j")
    assert not uses_vector_index("conversation/sf_roots_exact", "falkordb")
    assert not uses_vector_index("core/vector_index_stats", "falkordb")
