"""recall end to end: candidates from every layer, one ranking, a context within the budget
whose every line leads back to a node of the space."""

from __future__ import annotations

from dataclasses import replace

import pytest

from graphmem_neo4j.errors import InputError, UnknownSpace
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.recall import RecallService
from graphmem_neo4j.recall.models import SECTION_TITLES, RecallConfig
from graphmem_neo4j.tokens import estimate_tokens

from .conftest import nodes, relationships

QUESTION = (
    "Where does Alice live, what did Maya adopt, and how do I heat some egg and put it in the "
    "countertop?"
)


def test_every_layer_contributes_and_every_line_leads_to_its_node(
    filled: GraphMemory, space: str
) -> None:
    result = filled.recall(QUESTION, space=space, budget_tokens=3000)
    assert {i.layer for i in result.items} == {"conversation", "facts", "insights", "experience"}
    stored = nodes(filled, space)
    edges = relationships(filled, space)
    lines = result.context.splitlines()
    for item in result.items:
        assert item.line in lines
        assert f"[{item.layer} {item.label} {item.id} |" in item.line
        if item.label == "SIMILAR_TASK":  # an edge: source>target
            source, target = item.id.split(">")
            assert ("SIMILAR_TASK", source, target) in edges
        else:
            assert (item.label, item.id) in stored, item.line
    for layer in {i.layer for i in result.items}:
        assert SECTION_TITLES[layer] in lines


def test_the_answers_are_in_the_context(filled: GraphMemory, space: str) -> None:
    facts = filled.recall("Where does Alice live?", space=space, budget_tokens=500)
    ids = {(i.layer, i.id) for i in facts.items}
    assert ("facts", "alice-home-2023") in ids  # Lisbon, the current value
    assert ("facts", "alice-home-2019") not in ids  # superseded: never recalled
    turns = filled.recall("What did Maya adopt?", space=space, budget_tokens=500)
    assert any(i.layer == "conversation" and "adopted" in i.text for i in turns.items)
    task = filled.recall("heat some egg and put it in the countertop", space=space)
    assert any(i.layer == "insights" and "heat some egg" in i.text for i in task.items)
    assert any(i.layer == "experience" for i in task.items)


def test_the_budget_is_kept_and_tokens_are_counted_per_layer(
    filled: GraphMemory, space: str
) -> None:
    for budget in (60, 300, 1500):
        result = filled.recall(QUESTION, space=space, budget_tokens=budget)
        assert 0 < result.tokens_used <= budget
        assert estimate_tokens(result.context) == result.tokens_used
        assert sum(result.tokens_by_layer.values()) == result.tokens_used
        for report in result.layers:
            assert report.tokens == result.tokens_by_layer[report.layer]
            assert report.packed == sum(1 for i in result.items if i.layer == report.layer)
    small = filled.recall(QUESTION, space=space, budget_tokens=60)
    large = filled.recall(QUESTION, space=space, budget_tokens=1500)
    assert len(small.items) < len(large.items)
    assert small.over_budget > 0


def test_items_come_best_first_with_their_reasons(filled: GraphMemory, space: str) -> None:
    result = filled.recall(QUESTION, space=space, budget_tokens=3000)
    scores = [i.score for i in result.items]
    assert scores == sorted(scores, reverse=True)
    assert all(i.why for i in result.items)
    turn = next(i for i in result.items if i.layer == "conversation")
    assert "cos" in turn.why and turn.details["via"]


def test_layers_can_be_chosen(filled: GraphMemory, space: str) -> None:
    result = filled.recall(QUESTION, space=space, layers=["facts", "insights"])
    assert {i.layer for i in result.items} <= {"facts", "insights"}
    assert [r.layer for r in result.layers] == ["facts", "insights"]
    assert set(result.tokens_by_layer) == {"facts", "insights"}
    only = filled.recall(QUESTION, space=space, layers="conversation")
    assert {i.layer for i in only.items} == {"conversation"}


def accesses(memory: GraphMemory, space: str) -> dict[str, int]:
    """Each turn's access count, as forgetting reads it."""
    rows = memory.store.read("conversation/forget_turn_stats", {"space": space})
    return {r["id"]: int(r["access_count"]) for r in rows}


def test_packed_turns_count_as_accessed(filled: GraphMemory, space: str) -> None:
    before = accesses(filled, space)
    result = filled.recall("What did Maya adopt?", space=space, budget_tokens=200)
    filled.recaller.settle()  # the access counts are written after the answer
    after = accesses(filled, space)
    packed = {i.id for i in result.items if i.layer == "conversation"}
    assert packed and set(after) == set(before)
    for ident, now in after.items():
        assert now == before[ident] + (1 if ident in packed else 0), ident


def test_an_unrelated_query_brings_little(filled: GraphMemory, space: str) -> None:
    result = filled.recall("quantum chromodynamics lattice gauge", space=space)
    related = filled.recall(QUESTION, space=space)
    assert result.tokens_used < related.tokens_used / 2


def test_a_space_with_one_layer_only(memory: GraphMemory, space: str) -> None:
    memory.add_facts(
        [{"subject": "Ann", "relation": "lives_in", "object": "Oslo", "category": "location"}],
        space=space,
    )
    result = memory.recall("Where does Ann live?", space=space)
    assert [(i.layer, i.text.split(" (since")[0]) for i in result.items] == [
        ("facts", "Ann lives in Oslo")
    ]
    assert result.tokens_by_layer["conversation"] == 0


def test_duplicate_texts_across_layers_are_folded(memory: GraphMemory, space: str) -> None:
    said = "Ann lives in Oslo near the old harbour with her two cats"
    memory.add_turns([{"speaker": "Ann", "text": said, "turn_id": "t1"}], space=space)
    memory.add_turns([{"speaker": "Ann", "text": said, "turn_id": "t2"}], space=space)
    result = memory.recall("Where does Ann live with her cats?", space=space)
    turns = [i for i in result.items if i.layer == "conversation"]
    assert len(turns) == 1 and result.duplicates >= 1
    assert turns[0].duplicates and turns[0].duplicates[0].startswith("Turn:")


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"query": "  "}, "query"),
        ({"query": "x" * 2001}, "query"),
        ({"query": "ok", "budget_tokens": 5}, "budget_tokens"),
        ({"query": "ok", "budget_tokens": "2000"}, "budget_tokens"),
        ({"query": "ok", "layers": ["facts", "dreams"]}, "layers"),
        ({"query": "ok", "layers": []}, "layers"),
    ],
)
def test_bad_requests_name_the_field(
    filled: GraphMemory, space: str, kwargs: dict[str, object], field: str
) -> None:
    with pytest.raises(InputError) as caught:
        filled.recall(space=space, **kwargs)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_unknown_and_malicious_spaces(memory: GraphMemory) -> None:
    with pytest.raises(UnknownSpace):
        memory.recall("anything", space="nobody-here")
    with pytest.raises(InputError):
        memory.recall("anything", space="x}) DETACH DELETE n //")


def test_cypher_in_the_query_is_only_text(filled: GraphMemory, space: str) -> None:
    before = nodes(filled, space)
    filled.recall("'}) MATCH (n) DETACH DELETE n // Alice", space=space, layers=["facts"])
    assert set(nodes(filled, space)) == set(before)


def test_weights_move_a_layer_out(filled: GraphMemory, space: str) -> None:
    config = RecallConfig(
        weights={"conversation": 0.0, "facts": 1.0, "insights": 1.0, "experience": 1.0}
    )
    service = RecallService(filled.parts, filled, config)
    result = service.recall(QUESTION, space=space, budget_tokens=3000)
    assert "conversation" not in {i.layer for i in result.items}
    assert result.below_min_score > 0


@pytest.fixture
def model_calls(filled: GraphMemory, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The texts of each call that reaches the model behind the query memo."""
    inner = filled.embedder.inner  # type: ignore[attr-defined]
    calls: list[list[str]] = []
    real = inner.embed

    def counting(texts: list[str]) -> list[list[float]]:
        calls.append(list(texts))
        return real(texts)  # type: ignore[no-any-return]

    monkeypatch.setattr(inner, "embed", counting)
    return calls


def test_a_recall_embeds_the_query_first_then_the_rest_in_one_call(
    filled: GraphMemory, space: str, model_calls: list[list[str]]
) -> None:
    """The query goes to the model alone, then the experience layer's task texts in one more
    call; every layer that needs a vector gets it from the memo, and no text is embedded
    twice."""
    query = "How should I warm a potato before putting it on the table?"
    filled.recall(query, space=space)
    assert model_calls[0] == [query], model_calls
    assert len(model_calls) == 2, model_calls
    assert len(model_calls[1]) == 2 and query not in model_calls[1]  # task, skeleton


def test_the_concept_probes_share_the_second_model_call(
    filled: GraphMemory, space: str, model_calls: list[list[str]]
) -> None:
    """A question asking for several facts also embeds its concept probes (the conversation
    layer's entity lookups): in recall's second call, with the task texts, not a call of
    their own."""
    question = "What activities has Alice done with her family and which places did they visit?"
    config = filled.conversation.config
    filled.conversation.config = replace(config, weights=replace(config.weights, concept=0.6))
    probes = filled.conversation.query_texts(question)[1:]
    assert probes  # the concept source is on for this question
    filled.recall(question, space=space)
    assert len(model_calls) == 2, model_calls
    assert set(probes) <= set(model_calls[1])


def test_a_recall_checks_its_space_once_and_the_next_call_checks_again(
    filled: GraphMemory, space: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The four layers each guard their reads with the space check; inside one recall the
    space is read once. The check is not remembered after the recall returns: a search
    checks the space again, in the facts read it makes (`known`), not with a read of its own."""
    store = filled.store
    checks: list[str] = []
    facts: list[str] = []
    real = store.read

    def counting(query: str, params: object = None, **kw: object) -> object:
        if query == "core/get_space":
            checks.append(str(params))
        if query == "conversation/space_facts":
            facts.append(str(params))
        return real(query, params, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "read", counting)
    filled.recall(QUESTION, space=space)
    assert len(checks) == 1 and len(facts) == 1
    filled.conversation.search("Maya", space=space)
    assert len(checks) == 1 and len(facts) == 2
    with pytest.raises(UnknownSpace):
        filled.conversation.search("Maya", space="not-" + space)
    with pytest.raises(UnknownSpace):
        filled.recall(QUESTION, space="not-" + space)
