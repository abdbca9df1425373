"""LangMem's memory tools (create_manage_memory_tool, create_search_memory_tool) against
GraphMemStore: create, search by meaning, update and delete, each user in its namespace."""

from __future__ import annotations

import json

from langmem import create_manage_memory_tool, create_search_memory_tool

from graphmem_neo4j.integrations.langgraph import GraphMemStore
from graphmem_neo4j.memory import GraphMemory


def test_langmem_tools_on_graphmem_store(memory: GraphMemory, space: str) -> None:
    store = GraphMemStore(memory, space=space)
    namespace = ("memories", "{langgraph_user_id}")
    manage = create_manage_memory_tool(namespace=namespace, store=store)
    search = create_search_memory_tool(namespace=namespace, store=store)
    ann = {"configurable": {"langgraph_user_id": "ann"}}
    ben = {"configurable": {"langgraph_user_id": "ben"}}

    manage.invoke({"content": "Ann prefers golang for backend work", "action": "create"}, ann)
    manage.invoke({"content": "Ann's dog is called Rex", "action": "create"}, ann)
    manage.invoke({"content": "Ben prefers python for backend work", "action": "create"}, ben)

    found = json.loads(search.invoke({"query": "which language for backend work"}, ann))
    assert found[0]["value"]["content"] == "Ann prefers golang for backend work"
    assert all("Ben" not in hit["value"]["content"] for hit in found)
    assert found[0]["namespace"] == ["memories", "ann"]

    memory_id = found[0]["key"]
    manage.invoke(
        {"content": "Ann now prefers rust for backend work", "action": "update", "id": memory_id},
        ann,
    )
    item = store.get(("memories", "ann"), memory_id)
    assert item is not None and item.value["content"] == "Ann now prefers rust for backend work"
    manage.invoke({"action": "delete", "id": memory_id}, ann)
    assert store.get(("memories", "ann"), memory_id) is None
    left = json.loads(search.invoke({"query": "backend work"}, ann))
    assert [hit["value"]["content"] for hit in left] == ["Ann's dog is called Rex"]
