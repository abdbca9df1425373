"""State that is right across processes.

Each test runs two GraphMemory instances on one graph, each with its own connection, standing
in for two processes: one ("this process") warms whatever it keeps between calls, the other
("another process") changes the graph, then the first acts again. Every test compares what
the long-lived instance did with what a fresh instance does in its place, so a per-process
cache that goes stale shows as a difference. The last test uses a real second process (the
`graphmem` CLI).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from graphmem_neo4j.conversation.models import ConversationConfig, ForgettingConfig, TurnInput
from graphmem_neo4j.conversation.service import ConversationService
from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.store.embedded import EmbeddedServer
from tests.integration.reliability.helpers import cli_env, graphmem, settings_for, snapshot

EVERYTHING = ForgettingConfig(min_age_turns=0, threshold=1.0)  # every turn and entity goes


def turn(session: str, index: int, speaker: str, text: str, day: int = 1) -> TurnInput:
    return TurnInput(
        session=session,
        turn_id=f"{session}-t{index}",
        speaker=speaker,
        text=text,
        timestamp=1_700_000_000_000 + day * 86_400_000 + index * 60_000,
    )


FIRST = [
    turn("s1", 1, "Maya", "Biscuit is my beagle, I adopted him at the Riverside shelter."),
    turn("s1", 2, "Tom", "A beagle! Does Biscuit like the garden?"),
]
SECOND = [
    turn("s2", 1, "Tom", "I bought a kayak and paddled down the Tagus river.", day=2),
    turn("s2", 2, "Maya", "The Tagus is cold in March, brave of you.", day=2),
    turn("s2", 3, "Tom", "The kayak is bright orange, you cannot miss it.", day=2),
]
THIRD = [
    turn("s3", 1, "Maya", "This morning Biscuit chewed the kayak paddle.", day=3),
    turn("s3", 2, "Tom", "Then Biscuit owes me a paddle.", day=3),
]
NEWCOMER = [
    turn("s4", 1, "Ines", "I am Ines, Maya's sister; I teach violin in Porto.", day=4),
    turn("s4", 2, "Maya", "Ines plays the violin better than anyone I know.", day=4),
    turn("s4", 3, "Ines", "I started lessons for kids at the conservatory.", day=4),
]


@pytest.fixture
def other(memory: GraphMemory) -> Iterator[GraphMemory]:
    """Another process: same graph, its own connection and its own service state."""
    with GraphMemory(memory.settings, embedder=memory.embedder) as mem:
        yield mem


def fresh(memory: GraphMemory) -> GraphMemory:
    """A process that starts now: nothing kept from earlier calls."""
    return GraphMemory(memory.settings, embedder=memory.embedder)


def node_props(memory: GraphMemory, space: str, label: str) -> dict[str, dict[str, Any]]:
    return snapshot(memory, space).of(label)


def test_an_entity_forgotten_by_another_process_is_stored_whole_when_mentioned_again(
    memory: GraphMemory, other: GraphMemory, space: str
) -> None:
    memory.conversation.add_turns(FIRST, space=space, forget_every=0)  # knows "Biscuit" now
    other.conversation.forget(space=space, config=EVERYTHING)
    assert "Entity" not in memory.stats(space)["nodes"]
    memory.conversation.add_turns(THIRD, space=space, forget_every=0)

    reference = f"{space}-ref"
    with fresh(memory) as a:
        a.conversation.add_turns(FIRST, space=reference, forget_every=0)
    with fresh(memory) as b:
        b.conversation.forget(space=reference, config=EVERYTHING)
    with fresh(memory) as c:
        c.conversation.add_turns(THIRD, space=reference, forget_every=0)

    got, want = snapshot(memory, space), snapshot(memory, reference)
    biscuit = next(p for p in got.of("Entity").values() if p["name"] == "Biscuit")
    assert biscuit.get("embedding"), "the re-created entity lost its embedding"
    assert got.edges("MENTIONS") == want.edges("MENTIONS")
    assert got.of("Entity").keys() == want.of("Entity").keys()


def test_turn_indexes_continue_after_another_process_ingested(
    memory: GraphMemory, other: GraphMemory, space: str
) -> None:
    memory.conversation.add_turns(FIRST, space=space, forget_every=0)
    other.conversation.add_turns(SECOND, space=space, forget_every=0)
    memory.conversation.add_turns(THIRD, space=space, forget_every=0)
    turns = node_props(memory, space, "Turn")
    order = [t.turn_id for t in FIRST + SECOND + THIRD]
    assert [turns[tid]["created_turn"] for tid in order] == list(range(len(order)))
    assert memory.conversation.clock(space) == len(order)


def test_search_counts_the_turns_another_process_added(
    memory: GraphMemory, other: GraphMemory, space: str
) -> None:
    memory.conversation.add_turns(FIRST, space=space, forget_every=0)
    query = "Who owns the beagle from the shelter?"
    memory.conversation.search(query, space=space, touch=False)  # statistics read once
    other.conversation.add_turns(SECOND + NEWCOMER, space=space, forget_every=0)
    got = memory.conversation.search(query, space=space, touch=False)
    with fresh(memory) as now:
        want = now.conversation.search(query, space=space, touch=False)
    assert [(h.turn_id, round(h.score, 6)) for h in got.hits] == [
        (h.turn_id, round(h.score, 6)) for h in want.hits
    ]


def test_a_speaker_another_process_added_is_known(
    memory: GraphMemory, other: GraphMemory, space: str
) -> None:
    memory.conversation.add_turns(FIRST + SECOND, space=space, forget_every=0)
    query = "What does Ines teach?"
    memory.conversation.search(query, space=space, touch=False)  # participants read once
    other.conversation.add_turns(NEWCOMER, space=space, forget_every=0)
    assert "Ines" in memory.conversation.speakers(space)
    got = memory.conversation.search(query, space=space, touch=False)
    with fresh(memory) as now:
        want = now.conversation.search(query, space=space, touch=False)
    assert [(h.turn_id, round(h.score, 6)) for h in got.hits] == [
        (h.turn_id, round(h.score, 6)) for h in want.hits
    ]


def test_a_search_after_another_process_ingested_records_the_current_turn_age(
    memory: GraphMemory, other: GraphMemory, space: str
) -> None:
    memory.conversation.add_turns(FIRST, space=space, forget_every=0)
    memory.conversation.search("beagle", space=space)  # the clock is read once here
    other.conversation.add_turns(SECOND, space=space, forget_every=0)
    hit = memory.conversation.search("Biscuit beagle garden", space=space, k=1).hits[0]
    memory.conversation.settle()  # the access is written after the answer
    stats = memory.store.read("conversation/forget_turn_stats", {"space": space})
    touched = next(r for r in stats if r["id"] == hit.turn_id)
    assert touched["last_turn"] == len(FIRST + SECOND)


def test_sf_mode_plans_by_the_current_entity_count(
    memory: GraphMemory, other: GraphMemory, space: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Small spaces are scanned exactly; past the limit the entity index is used. The limit
    must be judged on the graph as it is, not as it was at this process's first search."""
    service = ConversationService(memory, replace(ConversationConfig(), exact_scan_turns=3))
    service.add_turns(FIRST, space=space, forget_every=0)
    service.search("Biscuit", space=space, mode="sf", touch=False)
    other.conversation.add_turns(SECOND + THIRD + NEWCOMER, space=space, forget_every=0)
    assert len(node_props(memory, space, "Entity")) > 2 * 3
    used: list[str] = []
    read = memory.store.read

    def spy(query: str, params: Any = None) -> Any:
        used.append(query)
        return read(query, params)

    monkeypatch.setattr(memory.store, "read", spy)
    service.search("Biscuit", space=space, mode="sf", touch=False)
    assert "conversation/sf_roots" in used  # the index is asked (a stale count skipped it)


def test_a_real_second_process_forgetting_does_not_lose_later_mentions(
    falkordb_server: EmbeddedServer, space: str, tmp_path: Any
) -> None:
    """The issue's case with two processes: this one has ingested "Biscuit", `graphmem
    forget` in another process removes the entity, and this process mentions it again."""
    database = f"xproc_{space.replace('-', '_')}"
    settings = settings_for(falkordb_server, database)
    with GraphMemory(settings, embedder=HashEmbedder()) as mine:
        mine.conversation.add_turns(FIRST, space=space, forget_every=0)
        result = graphmem(
            ["forget", "--space", space, "--threshold", "1", "--min-age", "0", "--json"],
            cli_env(falkordb_server, database),
        )
        assert result.returncode == 0, result.stderr
        mine.conversation.add_turns(THIRD, space=space, forget_every=0)
        graph = snapshot(mine, space)
    biscuit = [i for i, p in graph.of("Entity").items() if p["name"] == "Biscuit"]
    assert len(biscuit) == 1 and graph.props("Entity", biscuit[0]).get("embedding")
    assert {(t.turn_id, biscuit[0]) for t in THIRD} <= set(graph.edges("MENTIONS"))


def test_a_space_from_before_sessions_kept_their_clock_reads_it_from_its_turns(
    memory: GraphMemory, space: str, tmp_path: Any
) -> None:
    """A dump made before sessions carried `last_turn` imports with the right clock (read
    from the turns), and migration 103 stamps the sessions so later reads need no scan."""
    import json

    from graphmem_neo4j.portability import export_space, import_dump

    memory.conversation.add_turns(FIRST + SECOND, space=space, forget_every=0)
    dump = tmp_path / "old.jsonl"
    with dump.open("w", encoding="utf-8") as out:
        export_space(memory, space, out)
    lines = []
    for line in dump.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("label") == "Session":
            record["props"].pop("last_turn")
        lines.append(json.dumps(record))
    dump.write_text("\n".join(lines) + "\n", encoding="utf-8")
    old = f"{space}-old"
    import_dump(memory, dump, space=old)
    assert all("last_turn" not in p for p in node_props(memory, old, "Session").values())

    assert memory.conversation.clock(old) == len(FIRST + SECOND)
    memory.store.write("conversation/schema_session_clock")
    sessions = node_props(memory, old, "Session")
    assert {sid: p["last_turn"] for sid, p in sessions.items()} == {"s1": 1, "s2": 4}
    memory.conversation.add_turns(THIRD, space=old, forget_every=0)
    turns = node_props(memory, old, "Turn")
    assert [turns[t.turn_id]["created_turn"] for t in THIRD] == [5, 6]


def _kept_speakers(memory: GraphMemory, space: str) -> set[str] | None:
    props = memory.store.read("core/space_properties", {"space": space})[0]["props"]
    return None if props.get("speakers") is None else set(props["speakers"])


def _gathered_speakers(memory: GraphMemory, space: str) -> set[str]:
    return set(memory.store.read("conversation/space_speakers", {"space": space})[0]["speakers"])


def test_the_space_keeps_the_speakers_of_all_its_sessions(
    memory: GraphMemory, other: GraphMemory, space: str, tmp_path: Any
) -> None:
    """The participants every search reads from the Space node are what gathering them from
    every session gives: after new sessions, a new speaker in a stored session, another
    process's ingestion, and in a space imported from a dump."""
    from graphmem_neo4j.conversation.state import SpaceState
    from graphmem_neo4j.portability import export_space, import_dump

    memory.conversation.add_turns(FIRST, space=space, forget_every=0)
    assert _kept_speakers(memory, space) == {"Maya", "Tom"}
    other.conversation.add_turns(NEWCOMER, space=space, forget_every=0)
    memory.conversation.add_turns([turn("s1", 3, "Ravi", "Ravi here, Tom's cousin.")], space=space)
    kept = {"Maya", "Tom", "Ines", "Ravi"}
    assert _kept_speakers(memory, space) == _gathered_speakers(memory, space) == kept
    assert SpaceState(memory.parts).facts(space).speakers == kept

    dump = tmp_path / "space.jsonl"
    with dump.open("w", encoding="utf-8") as out:
        export_space(memory, space, out)
    import_dump(memory, dump, space=f"{space}-copy")
    assert _kept_speakers(memory, f"{space}-copy") == kept


def test_a_space_from_before_it_kept_its_speakers_gathers_them_until_migrated(
    memory: GraphMemory, space: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Space node written before migration 104 has no speaker list: searches gather the
    participants from the sessions, ingestion does not start a partial list, and the
    migration stamps the whole one."""
    import graphmem_neo4j.store.falkordb_store as falkordb_store
    import graphmem_neo4j.store.neo4j_store as neo4j_store
    from graphmem_neo4j.conversation.state import SpaceState

    before = (
        "MERGE (s:Space {space: $space, id: $space}) ON CREATE SET s.created_at = $now "
        "RETURN s.id AS id"
    )
    for module in (falkordb_store, neo4j_store):
        current = module.load_query
        monkeypatch.setattr(
            module,
            "load_query",
            lambda name, dialect, current=current, **options: (
                before if name == "core/ensure_space" else current(name, dialect, **options)
            ),
        )
    memory.conversation.add_turns(FIRST, space=space, forget_every=0)
    monkeypatch.undo()
    assert _kept_speakers(memory, space) is None
    assert SpaceState(memory.parts).facts(space).speakers == {"Maya", "Tom"}

    memory.conversation.add_turns(NEWCOMER, space=space, forget_every=0)
    assert _kept_speakers(memory, space) is None  # no partial list
    assert SpaceState(memory.parts).facts(space).speakers == {"Maya", "Tom", "Ines"}
    memory.store.write("conversation/schema_space_speakers")
    assert _kept_speakers(memory, space) == {"Maya", "Tom", "Ines"}
