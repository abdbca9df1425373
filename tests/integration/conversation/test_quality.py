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
