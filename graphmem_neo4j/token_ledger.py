"""What memory costs in tokens, per space: LLM prompt and completion tokens and the context
tokens recall hands out, gathered in memory and written as counters on the space's (:Space)
node (`cypher/tokens/`), so `graphmem stats` shows them and they survive restarts; exports
skip the Space node, so a content hash never depends on them.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .tokens import LAYERS, LLMUsage

if TYPE_CHECKING:
    from .store.base import GraphStore


@dataclass
class UsageLedger:
    """Usage not yet added to the graph, per (space, layer). `drain()` hands it over once."""

    _llm: dict[tuple[str, str], LLMUsage] = field(default_factory=dict)
    _recall: dict[str, RecallUsage] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add_llm(self, space: str, layer: str, usage: LLMUsage) -> None:
        with self._lock:
            key = (space, layer)
            self._llm[key] = self._llm.get(key, LLMUsage()) + usage

    def add_recall(self, space: str, tokens: Mapping[str, int]) -> None:
        with self._lock:
            before = self._recall.get(space, RecallUsage())
            self._recall[space] = before.plus(1, tokens)

    def drain(self) -> tuple[dict[tuple[str, str], LLMUsage], dict[str, RecallUsage]]:
        with self._lock:
            llm, recall = self._llm, self._recall
            self._llm, self._recall = {}, {}
            return llm, recall

    def restore(
        self, llm: Mapping[tuple[str, str], LLMUsage], recall: Mapping[str, RecallUsage]
    ) -> None:
        """Put back what a failed flush could not write (it is retried by the next flush)."""
        for (space, layer), usage in llm.items():
            self.add_llm(space, layer, usage)
        with self._lock:
            for space, spent in recall.items():
                self._recall[space] = self._recall.get(space, RecallUsage()).merged(spent)


@dataclass(frozen=True)
class RecallUsage:
    """Recall calls and the context tokens they returned, per layer."""

    calls: int = 0
    tokens: Mapping[str, int] = field(default_factory=dict)

    @property
    def total_tokens(self) -> int:
        return sum(self.tokens.values())

    def plus(self, calls: int, tokens: Mapping[str, int]) -> RecallUsage:
        merged = dict(self.tokens)
        for layer, n in tokens.items():
            merged[layer] = merged.get(layer, 0) + n
        return RecallUsage(self.calls + calls, merged)

    def merged(self, other: RecallUsage) -> RecallUsage:
        return self.plus(other.calls, other.tokens)


def usage_rows(
    llm: Mapping[tuple[str, str], LLMUsage], recall: Mapping[str, RecallUsage]
) -> dict[str, dict[str, Any]]:
    """One counter row per space for `tokens/add_usage` (layers as fixed properties)."""
    rows: dict[str, dict[str, Any]] = {}

    def row(space: str) -> dict[str, Any]:
        return rows.setdefault(
            space,
            {
                "space": space,
                "llm_calls": 0,
                "llm_failures": 0,
                "llm_prompt_tokens": 0,
                "llm_completion_tokens": 0,
                "llm_estimated_calls": 0,
                "recall_calls": 0,
                **{f"llm_tokens_{layer}": 0 for layer in (*LAYERS, "other")},
                **{f"recall_tokens_{layer}": 0 for layer in LAYERS},
            },
        )

    for (space, layer), usage in llm.items():
        r = row(space)
        r["llm_calls"] += usage.calls
        r["llm_failures"] += usage.failures
        r["llm_prompt_tokens"] += usage.prompt_tokens
        r["llm_completion_tokens"] += usage.completion_tokens
        r["llm_estimated_calls"] += usage.estimated_calls
        key = f"llm_tokens_{layer if layer in LAYERS else 'other'}"
        r[key] += usage.total_tokens
    for space, spent in recall.items():
        r = row(space)
        r["recall_calls"] += spent.calls
        for layer, n in spent.tokens.items():
            if layer in LAYERS:
                r[f"recall_tokens_{layer}"] += n
    return rows


def write_usage(
    store: GraphStore,
    llm: Mapping[tuple[str, str], LLMUsage],
    recall: Mapping[str, RecallUsage],
) -> int:
    """Add drained usage to each space's counters (one statement per space; a space that no
    longer exists is skipped). Returns how many spaces were updated."""
    updated = 0
    for _, params in sorted(usage_rows(llm, recall).items()):
        if any(v for k, v in params.items() if k != "space"):
            written = store.write("tokens/add_usage", params)
            updated += int(written[0]["updated"]) if written else 0
    return updated


@dataclass(frozen=True)
class TokenTotals:
    """What one space has cost so far (`graphmem stats`)."""

    space: str
    llm: LLMUsage
    llm_by_layer: dict[str, int]
    """Prompt + completion tokens per layer that called the LLM."""
    recall: RecallUsage

    def as_dict(self) -> dict[str, Any]:
        return {
            "llm": {**self.llm.as_dict(), "by_layer": dict(self.llm_by_layer)},
            "recall": {
                "calls": self.recall.calls,
                "context_tokens": self.recall.total_tokens,
                "by_layer": dict(self.recall.tokens),
            },
        }


def read_totals(store: GraphStore, space: str) -> TokenTotals:
    rows = store.read("tokens/get_usage", {"space": space})
    row: dict[str, Any] = rows[0] if rows else {}

    def n(key: str) -> int:
        value = row.get(key)
        return int(value) if value is not None else 0

    llm = LLMUsage(
        n("llm_calls"),
        n("llm_failures"),
        n("llm_prompt_tokens"),
        n("llm_completion_tokens"),
        n("llm_estimated_calls"),
    )
    by_layer = {
        layer: n(f"llm_tokens_{layer}") for layer in (*LAYERS, "other") if n(f"llm_tokens_{layer}")
    }
    recall = RecallUsage(
        n("recall_calls"), {layer: n(f"recall_tokens_{layer}") for layer in LAYERS}
    )
    return TokenTotals(space, llm, by_layer, recall)
