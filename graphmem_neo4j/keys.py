"""API keys of `graphmem serve`: who may use which spaces, and whether they may write.

A key is `gmk_<id>_<secret>`. The graph keeps a `GraphMemKey` node per key with its id, the
sha256 of the whole key, its spaces, `read_only`, and created / last-used / revoked times; the
key itself is shown once, when it is made, and stored nowhere. Keys live outside every space
(like the schema bookkeeping): a space's export never carries them.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from dataclasses import asdict, dataclass
from typing import Any

from .errors import InputError, NotFound
from .schema import now_ms
from .spaces import validate_space
from .store.base import GraphStore

PREFIX = "gmk_"
TOUCH_EVERY_MS = 60_000
"""`last_used_at` is written at most this often per key, not on every request."""


@dataclass(frozen=True)
class ApiKey:
    id: str
    spaces: tuple[str, ...]
    read_only: bool
    name: str | None
    created_at: int
    last_used_at: int | None
    revoked_at: int | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> ApiKey:
        return cls(
            id=str(row["id"]),
            spaces=tuple(str(s) for s in row["spaces"] or ()),
            read_only=bool(row["read_only"]),
            name=row.get("name"),
            created_at=int(row["created_at"]),
            last_used_at=None if row.get("last_used_at") is None else int(row["last_used_at"]),
            revoked_at=None if row.get("revoked_at") is None else int(row["revoked_at"]),
        )

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["spaces"] = list(self.spaces)
        data["revoked"] = self.revoked_at is not None
        return data


def digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def ensure_schema(store: GraphStore) -> None:
    store.write("core/schema_key_hash")


class KeyRing:
    """Creates, lists, revokes and checks keys against the graph. `check` reads the graph on
    every call, so a key revoked by another process is refused on its next request."""

    def __init__(self, store: GraphStore) -> None:
        self._store = store
        self._touched: dict[str, int] = {}
        self._lock = threading.Lock()

    def create(
        self, spaces: list[str], *, read_only: bool = False, name: str | None = None
    ) -> tuple[str, ApiKey]:
        """A new key for `spaces`; returns (the key, shown only now; its record)."""
        if not spaces:
            raise InputError("a key needs at least one space (--space)", field="space")
        wanted = list(dict.fromkeys(validate_space(s) for s in spaces))
        key_id = secrets.token_hex(6)
        key = f"{PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        ensure_schema(self._store)
        self._store.write(
            "keys/create",
            {
                "hash": digest(key),
                "id": key_id,
                "spaces": wanted,
                "read_only": read_only,
                "now": now_ms(),
                "name": name,
            },
        )
        rows = self._store.read("keys/by_hash", {"hash": digest(key)})
        if not rows:  # pragma: no cover - the write above just made it
            raise NotFound("the new key was not stored")
        return key, ApiKey.from_row(rows[0])

    def list(self) -> list[ApiKey]:
        return [ApiKey.from_row(row) for row in self._store.read("keys/list")]

    def revoke(self, key_id: str) -> ApiKey:
        rows = self._store.write("keys/revoke", {"id": key_id, "now": now_ms()})
        if not rows:
            raise NotFound(f"no key with id {key_id!r} (see `graphmem keys list`)")
        return next(k for k in self.list() if k.id == key_id)

    def check(self, key: str) -> ApiKey | None:
        """The key's record when `key` is a live key, else None (unknown or revoked)."""
        if not key.startswith(PREFIX) or len(key) > 200:
            return None
        hashed = digest(key)
        rows = self._store.read("keys/by_hash", {"hash": hashed})
        if not rows:
            return None
        record = ApiKey.from_row(rows[0])
        if record.revoked_at is not None:
            return None
        now = now_ms()
        with self._lock:
            due = now - self._touched.get(hashed, 0) >= TOUCH_EVERY_MS
            if due:
                self._touched[hashed] = now
        if due:
            self._store.write("keys/touch", {"hash": hashed, "now": now})
        return record
