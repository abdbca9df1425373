"""`GraphMemStore`: graphmem as a LangGraph `BaseStore` (`pip install 'graphmem-neo4j[langgraph]'`).

One store serves one graphmem space; LangGraph namespaces and keys live inside it (a StoreItem
node per (namespace, key): items/schema.py). Values are stored as JSON; the text of the fields
the store indexes (default: every string in the value) is embedded with graphmem's embedder,
and `search(query=...)` ranks by it through graphmem's vector lookup (nearest.py). Filters
match the value's top-level fields (`{"field": v}` or `{"field": {"$eq"|"$ne"|"$gt"|"$gte"|
"$lt"|"$lte": v}}`). TTL is not supported (`supports_ttl = False`: a put with `ttl` raises).
"""

from __future__ import annotations

import asyncio
import operator
import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from langgraph.store.base.embed import get_text_at_path

from ..items.service import ItemService, StoredItem, Write, item_id
from ..spaces import validate_space

if TYPE_CHECKING:
    from ..memory import GraphMemory

FILTERED_DEPTH = 8
"""A filtered semantic search asks the vector lookup for this many times the page it returns
(at least 64), then filters; a filter that few items pass may return a short page."""


def _time(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": operator.eq,
    "$ne": operator.ne,
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}


def _holds(have: Any, op: str, target: Any) -> bool:
    compare = _OPERATORS.get(op)
    if compare is None:
        raise ValueError(f"unknown filter operator {op!r} (use {', '.join(_OPERATORS)})")
    if op not in ("$eq", "$ne") and have is None:
        return False
    try:
        return bool(compare(have, target))
    except TypeError:
        return False


def _matches(value: dict[str, Any], wanted: dict[str, Any] | None) -> bool:
    for field, condition in (wanted or {}).items():
        have = value.get(field)
        if isinstance(condition, dict) and condition and all(k.startswith("$") for k in condition):
            if not all(_holds(have, op, target) for op, target in condition.items()):
                return False
        elif have != condition:
            return False
    return True


def _namespace_matches(namespace: tuple[str, ...], op: ListNamespacesOp) -> bool:
    for condition in op.match_conditions or ():
        path = tuple(condition.path)
        if len(path) > len(namespace):
            return False
        part = (
            namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
        )
        if path and any(p != "*" and p != n for p, n in zip(path, part, strict=True)):
            return False
    return True


class GraphMemStore(BaseStore):
    """A LangGraph store on a GraphMemory, confined to one space.

    `index={"fields": [...]}` names the value paths embedded by default (LangGraph's path
    syntax; `["$"]` embeds the whole value as JSON); a put's own `index=` overrides it and
    `index=False` stores the item without a vector (found by get and filters, not by query).
    Sync calls run one at a time; the async ones run them on a worker thread."""

    supports_ttl = False

    def __init__(
        self, memory: GraphMemory, *, space: str = "default", index: dict[str, Any] | None = None
    ) -> None:
        self.memory = memory
        self.space = validate_space(space)
        self.fields: list[str] | None = list((index or {}).get("fields") or []) or None
        self.items = ItemService(memory.parts)
        self._lock = threading.Lock()

    # --- the two methods a BaseStore implements -------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        with self._lock:
            results: list[Result] = []
            pending: list[Write] = []
            for op in ops:
                if isinstance(op, PutOp):
                    pending.append(self._write(op))
                    results.append(None)
                    continue
                self._flush(pending)
                results.append(self._run(op))
            self._flush(pending)
            return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # --- the operations ----------------------------------------------------------------------
    def _flush(self, pending: list[Write]) -> None:
        if pending:
            self.items.write(self.space, pending)
            pending.clear()

    def _text(self, op: PutOp) -> str | None:
        if op.value is None or op.index is False:
            return None
        fields = op.index if isinstance(op.index, list) else self.fields
        if fields is None:
            texts = _strings(op.value)
        else:
            texts = [t for path in fields for t in get_text_at_path(op.value, path)]
        text = "\n".join(t for t in texts if t)
        return text or None

    def _write(self, op: PutOp) -> Write:
        if op.value is not None and not isinstance(op.value, dict):
            raise ValueError(f"a store value is a dict, got {type(op.value).__name__}")
        return Write(tuple(op.namespace), op.key, op.value, self._text(op))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            found = self.items.get(self.space, [(tuple(op.namespace), op.key)])
            got = found.get(item_id(op.namespace, op.key))
            return None if got is None else self._item(got)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise ValueError(f"unknown store operation {type(op).__name__}")

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        page = op.offset + op.limit
        if op.query:
            depth = max(FILTERED_DEPTH * page, 64) if op.filter else page
            found = self.items.search(self.space, prefix, op.query, k=depth)
        else:
            found = self.items.under(self.space, prefix)
        kept = [item for item in found if _matches(item.value, op.filter)]
        return [self._search_item(item) for item in kept[op.offset : page]]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        names = [ns for ns in self.items.namespaces(self.space) if _namespace_matches(ns, op)]
        if op.max_depth is not None:
            names = sorted({ns[: op.max_depth] for ns in names})
        return names[op.offset : op.offset + op.limit]

    @staticmethod
    def _item(got: StoredItem) -> Item:
        return Item(
            value=got.value,
            key=got.key,
            namespace=got.namespace,
            created_at=_time(got.created_at),
            updated_at=_time(got.updated_at),
        )

    @staticmethod
    def _search_item(got: StoredItem) -> SearchItem:
        return SearchItem(
            namespace=got.namespace,
            key=got.key,
            value=got.value,
            created_at=_time(got.created_at),
            updated_at=_time(got.updated_at),
            score=got.score,
        )
