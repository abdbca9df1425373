"""The only writer of StoreItem nodes: values of key-value namespaces, stored as JSON with
their text embedded, found again by key, by namespace prefix, or by meaning (nearest.py).

Nothing here knows LangGraph; integrations/langgraph.py maps its store operations onto this.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InputError, UnknownSpace
from ..nearest import Probe, nearest
from ..schema import now_ms

if TYPE_CHECKING:
    from ..deps import Parts

SEP = "\x1f"
"""Ends every namespace part in `ns_path`, so ("a",) is a prefix of ("a", "b") but not of
("ab",)."""


def item_id(namespace: Sequence[str], key: str) -> str:
    return json.dumps([*namespace, key], ensure_ascii=False)


def ns_path(namespace: Sequence[str]) -> str:
    for part in namespace:
        if not isinstance(part, str) or not part or SEP in part:
            raise InputError(
                f"bad namespace {tuple(namespace)!r}: each part a non-empty string",
                field="namespace",
            )
    return "".join(f"{part}{SEP}" for part in namespace)


@dataclass(frozen=True)
class StoredItem:
    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    created_at: int
    updated_at: int
    score: float | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> StoredItem:
        return cls(
            namespace=tuple(row["namespace"]),
            key=str(row["key"]),
            value=json.loads(row["value_json"]),
            created_at=int(row["created_at"]),
            updated_at=int(row["updated_at"]),
            score=None if row.get("similarity") is None else float(row["similarity"]),
        )


@dataclass(frozen=True)
class Write:
    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any] | None
    """None deletes the item."""
    text: str | None
    """What to embed; None stores the item without a vector (not found by meaning)."""


class ItemService:
    def __init__(self, parts: Parts) -> None:
        self.parts = parts

    def _exists(self, space: str) -> bool:
        try:
            self.parts.require_space(space)
        except UnknownSpace:
            return False
        return True

    def write(self, space: str, writes: Sequence[Write]) -> None:
        """Puts and deletes in order given; the last write of an (namespace, key) wins."""
        last: dict[str, Write] = {}
        for w in writes:
            ns_path(w.namespace)
            if not isinstance(w.key, str) or not w.key:
                raise InputError(f"bad key {w.key!r}: a non-empty string", field="key")
            last[item_id(w.namespace, w.key)] = w
        deletes = [i for i, w in last.items() if w.value is None]
        puts = {i: w for i, w in last.items() if w.value is not None}
        rows: list[dict[str, Any]] = []
        for i, w in puts.items():
            try:
                value_json = json.dumps(w.value, ensure_ascii=False, allow_nan=False)
            except (TypeError, ValueError) as e:
                raise InputError(f"value of {w.key!r} is not JSON: {e}", field="value") from e
            rows.append(
                {
                    "id": i,
                    "namespace": list(w.namespace),
                    "ns_path": ns_path(w.namespace),
                    "depth": len(w.namespace),
                    "key": w.key,
                    "value_json": value_json,
                    "text": w.text,
                }
            )
        if rows:
            self.parts.ensure_space(space)
            self.parts.ensure_embedder_matches()
            texts = [str(r["text"]) for r in rows if r["text"]]
            vectors = iter(self.parts.embedder.embed(texts) if texts else [])
            for r in rows:
                r["embedding"] = next(vectors) if r["text"] else None
            self.parts.store.write_batches(
                "items/put", rows, batch_size=200, params={"space": space, "now": now_ms()}
            )
        if deletes and self._exists(space):
            self.parts.store.write("items/delete", {"space": space, "ids": deletes})

    def get(self, space: str, keys: Sequence[tuple[tuple[str, ...], str]]) -> dict[str, Any]:
        """item id → StoredItem for the keys that exist."""
        if not keys or not self._exists(space):
            return {}
        ids = [item_id(ns, key) for ns, key in keys]
        rows = self.parts.store.read("items/get", {"space": space, "ids": ids})
        return {row["id"]: StoredItem.from_row(row) for row in rows}

    def under(self, space: str, prefix: Sequence[str]) -> list[StoredItem]:
        """Every item whose namespace starts with `prefix`, most recently updated first."""
        if not self._exists(space):
            return []
        rows = self.parts.store.read("items/list", {"space": space, "prefix": ns_path(prefix)})
        return [StoredItem.from_row(row) for row in rows]

    def search(self, space: str, prefix: Sequence[str], query: str, *, k: int) -> list[StoredItem]:
        """The k items under `prefix` whose embedded text is nearest `query`, best first."""
        if k < 1 or not self._exists(space):
            return []
        self.parts.ensure_embedder_matches()
        vector = self.parts.embedder.embed([query])[0]
        hits = nearest(
            self.parts.store,
            "items/search_vector",
            [Probe("q", vector)],
            space=space,
            k=k,
            params={"prefix": ns_path(prefix)},
        )["q"]
        return [StoredItem.from_row(hit) for hit in hits]

    def namespaces(self, space: str) -> list[tuple[str, ...]]:
        if not self._exists(space):
            return []
        rows = self.parts.store.read("items/namespaces", {"space": space})
        return sorted({tuple(row["namespace"]) for row in rows})
