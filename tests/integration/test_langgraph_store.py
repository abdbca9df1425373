"""GraphMemStore as LangGraph uses it: a compiled StateGraph whose nodes write and read
memories through the injected store, with a scripted chat model; and the BaseStore contract
(get, put, delete, search with a query and filters, namespaces, async), on both engines."""

from __future__ import annotations

import asyncio
import io
import uuid
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.store.base import BaseStore

from graphmem_neo4j.integrations.langgraph import GraphMemStore
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import export_space, import_dump


class State(MessagesState):
    recalled: list[str]


def build_graph(store: BaseStore, replies: list[str]) -> Any:
    """What a LangGraph user writes: one node stores what the user said, the next recalls
    the memories nearest the question and hands them to the model as a system message."""
    model = GenericFakeChatModel(messages=iter(AIMessage(r) for r in replies))

    def remember(state: State, config: RunnableConfig, *, store: BaseStore) -> dict[str, Any]:
        user = config["configurable"]["user_id"]
        said = state["messages"][-1].content
        if str(said).lower().startswith("remember"):
            store.put((user, "memories"), uuid.uuid4().hex, {"content": said, "kind": "note"})
        return {}

    def respond(state: State, config: RunnableConfig, *, store: BaseStore) -> dict[str, Any]:
        user = config["configurable"]["user_id"]
        question = str(state["messages"][-1].content)
        found = store.search((user, "memories"), query=question, limit=2)
        notes = [str(item.value["content"]) for item in found]
        system = SystemMessage("What you know about the user:\n" + "\n".join(notes))
        answer = model.invoke([system, *state["messages"]])
        return {"messages": [answer], "recalled": notes}

    graph = StateGraph(State)
    graph.add_node("remember", remember)
    graph.add_node("respond", respond)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", "respond")
    return graph.compile(store=store)


def test_a_compiled_graph_writes_and_reads_memories(memory: GraphMemory, space: str) -> None:
    store = GraphMemStore(memory, space=space)
    app = build_graph(store, ["Noted.", "Noted.", "Noted.", "You like hiking in the alps."])
    alice = {"configurable": {"user_id": "alice", "thread_id": "1"}}
    bob = {"configurable": {"user_id": "bob", "thread_id": "2"}}
    for text, config in (
        ("Remember: my favourite sport is hiking in the alps", alice),
        ("Remember: my cat is called Tom and sleeps all day", alice),
        ("Remember: my favourite sport is chess boxing", bob),
    ):
        app.invoke({"messages": [HumanMessage(text)], "recalled": []}, config)
    out = app.invoke(
        {"messages": [HumanMessage("Which sport is my favourite?")], "recalled": []}, alice
    )
    assert out["messages"][-1].content == "You like hiking in the alps."
    assert out["recalled"][0] == "Remember: my favourite sport is hiking in the alps"
    assert not any("chess" in note for note in out["recalled"])  # bob's namespace
    # the memories are in the graph, under the store's space, and outlive the graph object
    again = GraphMemStore(memory, space=space)
    assert len(again.search(("alice", "memories"))) == 2
    assert sorted(again.list_namespaces()) == [("alice", "memories"), ("bob", "memories")]


def test_async_graph_run(memory: GraphMemory, space: str) -> None:
    store = GraphMemStore(memory, space=space)

    async def run() -> list[Any]:
        await store.aput(("u", "prefs"), "lang", {"content": "answers in French", "n": 1})
        await store.aput(("u", "prefs"), "tone", {"content": "likes short replies", "n": 2})
        got = await store.aget(("u", "prefs"), "lang")
        found = await store.asearch(("u",), query="which language for answers", limit=1)
        spaces = await store.alist_namespaces(prefix=("u",))
        await store.adelete(("u", "prefs"), "lang")
        gone = await store.aget(("u", "prefs"), "lang")
        return [got, found, spaces, gone]

    got, found, spaces, gone = asyncio.run(run())
    assert got is not None and got.value == {"content": "answers in French", "n": 1}
    assert [item.key for item in found] == ["lang"] and found[0].score is not None
    assert spaces == [("u", "prefs")]
    assert gone is None


def test_store_contract(memory: GraphMemory, space: str) -> None:
    store = GraphMemStore(memory, space=space)
    assert store.get(("a",), "missing") is None
    assert store.search(("a",), query="anything") == []
    store.put(("a", "b"), "k1", {"content": "the red kettle", "rank": 3, "tag": "x"})
    store.put(("a", "b"), "k2", {"content": "a blue teapot", "rank": 7, "tag": "y"})
    store.put(("a", "c"), "k3", {"content": "green tea leaves", "rank": 5, "tag": "x"})
    store.put(("ab",), "k4", {"content": "the red kettle again", "rank": 1, "tag": "x"})
    first = store.get(("a", "b"), "k1")
    assert first is not None and first.namespace == ("a", "b")
    store.put(("a", "b"), "k1", {"content": "the red kettle, descaled", "rank": 4, "tag": "x"})
    updated = store.get(("a", "b"), "k1")
    assert updated is not None and updated.value["rank"] == 4
    assert updated.created_at == first.created_at and updated.updated_at >= first.updated_at

    # ("a",) is a prefix of ("a", "b") but not of ("ab",)
    assert {i.key for i in store.search(("a",))} == {"k1", "k2", "k3"}
    assert {i.key for i in store.search(("a",), filter={"tag": "x"})} == {"k1", "k3"}
    assert {i.key for i in store.search(("a",), filter={"rank": {"$gte": 5}})} == {"k2", "k3"}
    assert {i.key for i in store.search(("a",), filter={"rank": {"$lt": 5, "$ne": 3}})} == {"k1"}
    ranked = store.search(("a",), query="red kettle descaled", limit=3)
    assert ranked[0].key == "k1"
    assert [i.score for i in ranked] == sorted([i.score or 0 for i in ranked], reverse=True)
    assert [i.key for i in store.search(("a",), query="red kettle", filter={"tag": "y"})] == ["k2"]
    page = store.search(("a",), limit=2, offset=1)
    assert len(page) == 2 and page[0].key != store.search(("a",), limit=1)[0].key
    with pytest.raises(ValueError, match="unknown filter operator"):
        store.search(("a",), filter={"rank": {"$near": 1}})

    assert store.list_namespaces() == [("a", "b"), ("a", "c"), ("ab",)]
    assert store.list_namespaces(prefix=("a",)) == [("a", "b"), ("a", "c")]
    assert store.list_namespaces(suffix=("c",)) == [("a", "c")]
    assert store.list_namespaces(prefix=("a", "*")) == [("a", "b"), ("a", "c")]
    assert store.list_namespaces(max_depth=1) == [("a",), ("ab",)]
    assert store.list_namespaces(limit=1, offset=1) == [("a", "c")]

    # index=False: stored and found by key, not by meaning
    store.put(("a", "d"), "k5", {"content": "red kettle"}, index=False)
    assert store.get(("a", "d"), "k5") is not None
    assert "k5" not in {i.key for i in store.search(("a",), query="red kettle", limit=10)}

    store.delete(("a", "b"), "k2")
    assert store.get(("a", "b"), "k2") is None
    results = store.batch([])
    assert results == []
    with pytest.raises(NotImplementedError):
        store.put(("a",), "t", {"content": "x"}, ttl=5)
    with pytest.raises(ValueError, match="dict"):
        store.put(("a",), "bad", "not a dict")  # type: ignore[arg-type]
    assert store.get(("a",), "bad") is None

    # another space sees none of it
    other = GraphMemStore(memory, space=f"{space}-other")
    assert other.search(("a",)) == [] and other.list_namespaces() == []


def test_store_items_round_trip_through_export(
    memory: GraphMemory, space: str, tmp_path: Path
) -> None:
    store = GraphMemStore(memory, space=space)
    store.put(("u", "notes"), "n1", {"content": "the spare key is under the blue pot"})
    store.put(("u", "notes"), "n2", {"content": "the wifi password is on the fridge"})
    buffer = io.StringIO()
    original = export_space(memory, space, buffer)
    dump = tmp_path / "items.jsonl"
    dump.write_text(buffer.getvalue())
    copy = f"{space}-copy"
    restored = import_dump(memory, dump, space=copy)
    assert restored.sha256 == original.sha256 and restored.nodes == original.nodes
    found = GraphMemStore(memory, space=copy).search(("u",), query="spare key blue pot", limit=1)
    assert [(i.key, i.value["content"]) for i in found] == [
        ("n1", "the spare key is under the blue pot")
    ]
