"""Ingestion: the graph it builds, idempotence, resuming after a crash, refusing bad input."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from graphmem_neo4j.conversation.ingest import embedding_text
from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.conversation.state import SpaceState
from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.errors import InputError, UnknownSpace
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.nearest import Probe, nearest
from graphmem_neo4j.portability import dump_records, space_digest
from tests.fakes.embedders import CountingEmbedder


def count(memory: GraphMemory, space: str) -> dict[str, Any]:
    stats = memory.stats(space)
    return {**stats["nodes"], **stats["relationships"]}


def test_ingest_builds_sessions_turns_and_links(
    memory: GraphMemory, space: str, example_turns: list[TurnInput]
) -> None:
    report = memory.conversation.add_turns(example_turns, space=space, forget_every=0)
    assert (report.turns_read, report.turns_written, report.turns_skipped) == (61, 61, 0)
    assert report.sessions == 5 and report.extractor == "offline"
    counts = count(memory, space)
    assert counts["Session"] == 5 and counts["Turn"] == 61
    assert counts["HAS_TURN"] == 61
    assert counts["NEXT"] == 61 - 5  # a chain per session
    assert counts["MENTIONS"] == report.mentions > 61
    assert counts["RELATES"] == report.relations > 0
    assert counts["Entity"] == report.entities_created
    turns = memory.store.read("conversation/get_turns", {"space": space, "ids": ["s1-t03"]})
    assert turns[0]["speaker"] == "Maya" and turns[0]["seq"] == 2
    assert turns[0]["time"] == 1709374680000
    assert memory.conversation.space_stats(space).turns == 61
    assert memory.conversation.speakers(space) == {"Maya", "Tom"}


def test_ingesting_twice_stores_once(
    memory: GraphMemory, space: str, example_turns: list[TurnInput]
) -> None:
    memory.conversation.add_turns(example_turns, space=space, forget_every=0)
    before = space_digest(memory, space)
    again = memory.conversation.add_turns(example_turns, space=space, forget_every=0)
    assert (again.turns_written, again.turns_skipped) == (0, 61)
    assert space_digest(memory, space).sha256 == before.sha256


def test_changed_text_is_updated_in_place(
    memory: GraphMemory, space: str, example_turns: list[TurnInput]
) -> None:
    service = memory.conversation
    service.add_turns(example_turns[:5], space=space, forget_every=0)
    edited = [
        TurnInput(t.session, t.turn_id, t.speaker, t.text + " (edited)", t.timestamp)
        if t.turn_id == "s1-t03"
        else t
        for t in example_turns[:5]
    ]
    report = service.add_turns(edited, space=space, forget_every=0)
    assert (report.turns_written, report.turns_skipped) == (1, 4)
    (row,) = memory.store.read("conversation/get_turns", {"space": space, "ids": ["s1-t03"]})
    assert row["text"].endswith("(edited)") and row["seq"] == 2
    assert count(memory, space)["Turn"] == 5


def test_appending_a_later_file_continues_the_session_chain(
    memory: GraphMemory, space: str, example_turns: list[TurnInput]
) -> None:
    service = memory.conversation
    service.add_turns(example_turns[:6], space=space, forget_every=0)
    service.add_turns(example_turns[6:12], space=space, forget_every=0)
    counts = count(memory, space)
    assert counts["Turn"] == 12 and counts["NEXT"] == 11
    rows = memory.store.read(
        "conversation/get_turns", {"space": space, "ids": [t.turn_id for t in example_turns[:12]]}
    )
    assert sorted(r["seq"] for r in rows) == list(range(12))


def test_a_turn_is_embedded_with_the_turn_before_it_in_its_session(
    memory: GraphMemory, space: str
) -> None:
    """Its vector is that of "speaker: text", then the previous turn's: from the same call,
    or the session's stored last turn when a later call continues the session; a session's
    first turn has its own text only."""
    first = [
        TurnInput("s1", "a", "Ann", "Who helps you when things go wrong?"),
        TurnInput("s2", "x", "Cy", "The lake froze early."),
        TurnInput("s1", "b", "Bob", "My sister and my old coach."),
    ]
    later = [TurnInput("s1", "c", "Ann", "That is good to hear.")]
    service = memory.conversation
    service.add_turns(first, space=space, forget_every=0)
    service.add_turns(later, space=space, forget_every=0)
    expected = {
        "a": embedding_text("Ann", first[0].text),
        "x": embedding_text("Cy", first[1].text),
        "b": embedding_text("Bob", first[2].text, ("Ann", first[0].text)),
        "c": embedding_text("Ann", later[0].text, ("Bob", first[2].text)),
    }
    assert expected["b"] == f"Bob: {first[2].text}\nAnn: {first[0].text}"
    for turn_id, text in expected.items():
        hits = service.search(text, space=space, k=1, mode="vector", touch=False).hits
        assert (hits[0].turn_id, round(hits[0].score, 5)) == (turn_id, 1.0), text


class Crash(Exception):
    pass


def crash_in_the_second_batch(
    memory: GraphMemory, monkeypatch: pytest.MonkeyPatch, *, after: str
) -> Any:
    """Batches of 20 turns; the first `after` write of the second batch raises Crash once it
    is written. Returns the store's real `write`, to put back."""

    service = memory.conversation
    service.config = replace(service.config, batch_size=20)
    real_write = memory.store.write
    finished = {"batches": 0}

    def failing_write(query: str, params: Any = None) -> Any:
        result = real_write(query, params)
        if query == "conversation/finish_turns":
            finished["batches"] += 1
        if query == after and finished["batches"] == 1:
            raise Crash
        return result

    monkeypatch.setattr(memory.store, "write", failing_write)
    return real_write


def test_a_crashed_ingestion_resumes_without_duplicates(
    memory: GraphMemory, space: str, example_turns: list[TurnInput], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kill the run right after the second batch's turns are written (before their edges and
    the `complete` mark): no turn exists without its session, and a re-run completes it."""
    service = memory.conversation
    store = memory.store
    real_write = crash_in_the_second_batch(memory, monkeypatch, after="conversation/upsert_turns")
    with pytest.raises(Crash):
        service.add_turns(example_turns, space=space, forget_every=0)
    monkeypatch.setattr(store, "write", real_write)
    orphans = store.read(
        "conversation/get_turns", {"space": space, "ids": [t.turn_id for t in example_turns]}
    )
    assert len(orphans) == 40  # two batches of 20 reached the graph
    counts = count(memory, space)
    assert counts["HAS_TURN"] == 40  # each stored turn hangs off its session
    assert counts.get("NEXT", 0) < 40
    report = service.add_turns(example_turns, space=space, forget_every=0)
    assert report.turns_skipped == 20  # the first batch was complete
    assert report.turns_written == 41
    fresh = GraphMemory(memory.settings, store=store, embedder=memory.embedder)
    fresh.conversation.add_turns(example_turns, space=f"{space}-ref", forget_every=0)
    assert count(memory, space) == count(fresh, f"{space}-ref")
    assert space_digest(memory, space).nodes == space_digest(fresh, f"{space}-ref").nodes


def _clock_marks(memory: GraphMemory, space: str) -> dict[tuple[str, str], tuple[Any, ...]]:
    """Every turn's and entity's position on the space's clock (turn indexes)."""
    marks = {}
    for record in dump_records(memory, space):
        props = record.get("props", {})
        if record["kind"] == "node" and record["label"] in ("Turn", "Entity"):
            marks[(record["label"], str(props.get("name") or record["id"]))] = (
                props.get("created_turn"),
                props.get("last_turn"),
            )
    return marks


@pytest.mark.parametrize(
    "crash_after", ["conversation/upsert_sessions", "conversation/upsert_entities"]
)
def test_a_crash_before_the_turns_are_written_leaves_the_clock_where_it_was(
    memory: GraphMemory,
    space: str,
    example_turns: list[TurnInput],
    monkeypatch: pytest.MonkeyPatch,
    crash_after: str,
) -> None:
    """The clock moves with the turns that carry its indexes: a run killed after a batch's
    sessions or entities are written, but before its turns, re-runs to the very turn indexes
    (and entity first/last turns) of a run that was never interrupted."""
    service = memory.conversation
    store = memory.store
    real_write = crash_in_the_second_batch(memory, monkeypatch, after=crash_after)
    with pytest.raises(Crash):
        service.add_turns(example_turns, space=space, forget_every=0)
    monkeypatch.setattr(store, "write", real_write)
    assert SpaceState(memory.parts).facts(space).clock == 20  # the first batch's, no more
    service.add_turns(example_turns, space=space, forget_every=0)

    fresh = GraphMemory(memory.settings, store=store, embedder=memory.embedder)
    fresh.conversation.add_turns(example_turns, space=f"{space}-ref", forget_every=0)
    marks = _clock_marks(memory, space)
    assert sorted(created for (label, _), (created, _) in marks.items() if label == "Turn") == (
        list(range(len(example_turns)))
    )
    assert marks == _clock_marks(fresh, f"{space}-ref")


def test_a_bad_row_writes_nothing(memory: GraphMemory, space: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = {"session": "s", "turn_id": "t1", "speaker": "A", "text": "fine"}
    path.write_text(
        json.dumps(good) + "\n" + json.dumps({**good, "turn_id": "t2", "text": ""}) + "\n"
    )
    with pytest.raises(InputError) as info:
        memory.conversation.ingest_file(path, space=space)
    assert (info.value.line, info.value.field) == (2, "text")
    with pytest.raises(UnknownSpace):
        memory.stats(space)


def test_cypher_and_redisearch_syntax_in_text_is_stored_verbatim(
    memory: GraphMemory, space: str
) -> None:
    evil = 'x\'}) MATCH (n) DETACH DELETE n // @field:{a|b} -excluded "quoted" *wild*'
    turns = [
        TurnInput("s1", "t1", "Eve`); DROP", evil, None),
        TurnInput("s1", "t2", "Bob", "An ordinary reply about gardens.", None),
    ]
    memory.conversation.add_turns(turns, space=space, forget_every=0)
    (row,) = memory.store.read("conversation/get_turns", {"space": space, "ids": ["t1"]})
    assert row["text"] == evil and row["speaker"] == "Eve`); DROP"
    assert count(memory, space)["Turn"] == 2
    for mode in ("hybrid", "fulltext", "vector", "sf"):
        memory.conversation.search(evil, space=space, mode=mode)  # type: ignore[arg-type]
    hits = memory.conversation.search("DETACH DELETE excluded", space=space, mode="fulltext").hits
    assert hits[0].turn_id == "t1"


def test_entities_are_deduplicated_by_title_and_keep_aliases(
    memory: GraphMemory, space: str
) -> None:
    turns = [
        TurnInput("s1", "t1", "Ann", "I visited the Riverside Shelter.", None),
        TurnInput("s1", "t2", "Bo", "The riverside shelter! Lovely place.", None),
        TurnInput("s2", "t3", "Ann", "Back at Riverside Shelter today.", None),
    ]
    service = memory.conversation
    report = service.add_turns(turns, space=space, forget_every=0)
    rows = memory.store.read(
        "conversation/entities_by_key", {"space": space, "keys": ["riverside shelter"]}
    )
    assert len(rows) == 1
    entity = rows[0]["id"]
    linked = memory.store.read(
        "conversation/sf_turns", {"space": space, "ids": [entity], "per_entity": 50}
    )
    assert {r["id"] for r in linked} == {"t1", "t2", "t3"}  # case and article do not matter
    assert report.entities_created == count(memory, space)["Entity"]


class SteeredEmbedder(HashEmbedder):
    """The test graph's hash embedder, with chosen vectors for some texts."""

    def __init__(self, steer: dict[str, list[float]]) -> None:
        super().__init__(64)
        self.steer = steer

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = super().embed(texts)
        return [self.steer.get(t, v) for t, v in zip(texts, out, strict=True)]


def unit(*head: float) -> list[float]:
    vec = [*head] + [0.0] * (64 - len(head))
    norm = sum(x * x for x in vec) ** 0.5
    return [x / norm for x in vec]


def test_embedding_dedup_merges_names_above_the_threshold(memory: GraphMemory, space: str) -> None:
    """Different titles, cosine 0.96 → one entity with an alias; cosine 0.6 → two entities."""
    steer = {"Biscuit": unit(1.0, 0.0), "Biskit": unit(0.96, 0.28), "Pixel": unit(0.6, 0.8)}
    steered = GraphMemory(memory.settings, store=memory.store, embedder=SteeredEmbedder(steer))
    service = steered.conversation
    service.add_turns(
        [TurnInput("s1", "t1", "Ann", "We met Biscuit today.", None)], space=space, forget_every=0
    )
    report = service.add_turns(
        [TurnInput("s1", "t2", "Bo", "Hello Biskit and Pixel.", None)], space=space, forget_every=0
    )
    assert report.entities_merged == 1
    entities = {
        r["props"]["name"]: r for r in dump_records(steered, space) if r.get("label") == "Entity"
    }
    assert {"Biscuit", "Pixel"} <= set(entities) and "Biskit" not in entities
    assert entities["Biscuit"]["props"]["aliases"] == ["Biskit"]
    linked = steered.store.read(
        "conversation/sf_turns",
        {"space": space, "ids": [entities["Biscuit"]["id"]], "per_entity": 50},
    )
    assert {r["id"] for r in linked} == {"t1", "t2"}  # provenance: both source turns


def test_a_batch_embeds_its_turns_and_new_names_in_one_model_call(
    memory: GraphMemory, space: str
) -> None:
    """Entity names go to the model with their batch's turns, so the batch's write never waits
    for the model while the next batch is embedded; the entities still carry their name's
    vector, and a name embedded once in a call is not embedded again."""
    counting = CountingEmbedder()
    service = GraphMemory(memory.settings, store=memory.store, embedder=counting).conversation
    service.config = replace(service.config, batch_size=2)
    turns = [
        TurnInput("s1", "t1", "Ann", "We met Biscuit in Lisbon.", None),
        TurnInput("s1", "t2", "Bo", "Biscuit is a beagle.", None),
        TurnInput("s1", "t3", "Ann", "Lisbon was sunny and Biscuit slept.", None),
    ]
    service.add_turns(turns, space=space, forget_every=0)
    assert len(counting.calls) == 2  # one per batch of two turns
    first, second = counting.calls
    assert first[:2] == [
        embedding_text("Ann", turns[0].text),
        embedding_text("Bo", turns[1].text, ("Ann", turns[0].text)),
    ]
    assert {"Biscuit", "Lisbon"} <= set(first[2:])
    assert second[0] == embedding_text("Ann", turns[2].text, ("Bo", turns[1].text))
    assert not {"Biscuit", "Lisbon"} & set(second[1:])
    probes = [Probe(name, counting.embed([name])[0]) for name in ("Biscuit", "Lisbon")]
    found = nearest(
        memory.store, "conversation/similar_entities", probes, space=space, k=1, min_similarity=0.0
    )
    for name in ("Biscuit", "Lisbon"):  # stored with its own name's vector
        assert (found[name][0]["name"], round(found[name][0]["similarity"], 5)) == (name, 1.0)


def test_locomo_import_creates_one_space_per_sample(
    memory: GraphMemory, tmp_path: Path, space: str
) -> None:
    record = {
        "sample_id": f"{space}-a",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a kitten yesterday."},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "What is its name?"},
            ],
        },
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([record, {**record, "sample_id": f"{space}-b"}]))
    reports = memory.conversation.ingest_file(path, fmt="locomo", forget_every=0)
    assert [r.space for r in reports] == [f"{space}-a", f"{space}-b"]
    hits = memory.conversation.search("kitten", space=f"{space}-b", k=1).hits
    assert hits[0].turn_id == "D1:1" and hits[0].time == 1683554160000
