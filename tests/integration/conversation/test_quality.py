"""With the real default model: the example questions find their turns (what `make demo` and
docs/conversation.md promise)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.embedder import SentenceTransformerEmbedder
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings


@pytest.fixture(params=["auto", "fusion"])
def real(
    request: pytest.FixtureRequest,
    engine_settings: Settings,
    minilm: SentenceTransformerEmbedder,
    example_turns: list[TurnInput],
    space: str,
) -> Iterator[GraphMemory]:
    """The demo conversation, searched with the learned ranker (the default) or the fusion."""
    with GraphMemory(engine_settings, embedder=minilm) as memory:
        service = memory.conversation
        service.config = replace(service.config, ranking=request.param)
        service.add_turns(example_turns, space=space, forget_every=0)
        yield memory


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What did Maya adopt, and when?", {"s1-t03", "s4-t12"}),
        ("Which vet treated Biscuit's paw?", {"s3-t03"}),
        ("When does the lighthouse book go to print?", {"s4-t06"}),
        ("What is Maya's new job?", {"s2-t06"}),
        ("Where did Tom go hiking?", {"s4-t01", "s4-t03"}),
    ],
)
def test_example_questions(
    real: GraphMemory, space: str, question: str, expected: set[str]
) -> None:
    service = real.conversation
    hits = service.search(question, space=space, k=5).hits
    assert expected <= {h.turn_id for h in hits}, [h.turn_id for h in hits]
    if service.config.ranking == "auto":  # the learned ranker: places in [0, 1], best 1
        assert hits[0].score == 1.0 and all(0.0 <= h.score <= 1.0 for h in hits)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_a_search_names_what_ordered_its_hits(real: GraphMemory, space: str) -> None:
    """The demo's two-person chat goes to LoCoMo's ranker; a user who writes a paragraph to
    an assistant that answers at length goes to the ranker fitted on LongMemEval."""
    service = real.conversation
    result = service.search("What is Maya's new job?", space=space)
    auto = service.config.ranking == "auto"
    assert result.ranked_by == ("all-MiniLM-L6-v2" if auto else "fusion")
    assert result.as_dict()["ranked_by"] == result.ranked_by
    answer = (
        "Here are a few ideas for a weekend in Lisbon. Start in Alfama, where the streets "
        "climb to the castle and the trams rattle past tiled houses; in the afternoon cross "
        "to Belém for the tower and the monastery, and leave time for the custard tarts. "
    ) * 4
    request = (
        "I like walking more than museums, I would rather eat where locals eat, and my partner "
        "wants one day at the beach. We arrive on Friday evening and leave on Monday morning. "
        "What would you plan for us, and which neighbourhood should we stay in?"
    )
    turns = [
        TurnInput(session=f"trip-{n}", turn_id=f"trip-{n}-{i}", speaker=who, text=text)
        for n in range(3)
        for i, (who, text) in enumerate(
            [
                ("user", f"Trip {n}: I will be in Lisbon for a weekend in May. {request}"),
                ("assistant", answer),
            ]
        )
    ]
    service.add_turns(turns, space=f"{space}-assistant", forget_every=0)
    long_chat = service.search("What did I plan in Lisbon?", space=f"{space}-assistant")
    assert long_chat.ranked_by == ("all-MiniLM-L6-v2+longmemeval" if auto else "fusion")
