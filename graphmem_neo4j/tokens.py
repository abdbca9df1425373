"""Token accounting: a deterministic token estimate for packing recall contexts, and what
memory costs in tokens, per space: LLM prompt and completion tokens (as the endpoint reports
them) and the context tokens recall hands out.

The totals live as counters on the space's (:Space) node (`cypher/tokens/`), so `graphmem
stats` shows them and they survive restarts; exports skip the Space node, so a content hash
never depends on them.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel

from .llm import LLMClient, TokenUsage

if TYPE_CHECKING:
    from .store.base import GraphStore

T = TypeVar("T", bound=BaseModel)

Layer = Literal["conversation", "facts", "insights", "experience"]
LAYERS: tuple[Layer, ...] = ("conversation", "facts", "insights", "experience")

# --- the estimate ------------------------------------------------------------------------------
_PIECE = re.compile(r"[^\W\d_]+|\d+|[^\w\s]|_", re.UNICODE)


def estimate_tokens(text: str) -> int:
    """Tokens a BPE tokenizer (GPT-style) spends on `text`, estimated without one.

    Rule (deterministic, no download): each run of letters costs 1 token plus 1 per further 7
    letters (an ASCII word; most English words are one token), a non-ASCII letter run 1 per 2
    characters (accents and other scripts split finely); each run of digits 1 per 3 digits;
    each other non-space character 1. Whitespace is free, so the estimate is additive: the
    estimate of lines joined by newlines is the sum of the lines' estimates, which is what
    lets recall pack a context to an exact budget. docs/recall.md compares it with a real
    tokenizer.
    """
    total = 0
    for piece in _PIECE.findall(text):
        first = piece[0]
        if first.isdigit():
            total += (len(piece) + 2) // 3
        elif first.isalpha():
            total += 1 + (len(piece) - 1) // 7 if piece.isascii() else (len(piece) + 1) // 2
        else:
            total += 1
    return total


TokenCounter = Callable[[str], int]


# --- LLM usage ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class LLMUsage:
    """LLM tokens as the endpoint reported them (estimated for `estimated_calls` of the calls:
    those whose endpoint reported no usage)."""

    calls: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated_calls: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: LLMUsage) -> LLMUsage:
        return LLMUsage(
            self.calls + other.calls,
            self.failures + other.failures,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.estimated_calls + other.estimated_calls,
        )

    def __sub__(self, other: LLMUsage) -> LLMUsage:
        return LLMUsage(
            self.calls - other.calls,
            self.failures - other.failures,
            self.prompt_tokens - other.prompt_tokens,
            self.completion_tokens - other.completion_tokens,
            self.estimated_calls - other.estimated_calls,
        )

    @classmethod
    def of(cls, usage: TokenUsage) -> LLMUsage:
        return cls(
            usage.calls,
            usage.failures,
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.estimated_calls,
        )

    def as_dict(self) -> dict[str, int]:
        return {
            "calls": self.calls,
            "failures": self.failures,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "estimated_calls": self.estimated_calls,
        }


def layer_of(schema: type[BaseModel]) -> str:
    """Which layer asked: the package of the answer schema (graphmem_neo4j.<layer>.…)."""
    parts = schema.__module__.split(".")
    if len(parts) > 1 and parts[0] == "graphmem_neo4j" and parts[1] in LAYERS:
        return parts[1]
    return "other"


class _Tap(TokenUsage):
    """The client's TokenUsage, also telling the meter about every call it counts."""

    def __init__(
        self,
        base: TokenUsage,
        on_add: Callable[[int, int, bool], None],
        on_fail: Callable[[], None],
    ) -> None:
        super().__init__(
            base.prompt_tokens,
            base.completion_tokens,
            base.calls,
            base.failures,
            base.estimated_calls,
        )
        self._on_add = on_add
        self._on_fail = on_fail

    def add(self, prompt: int, completion: int, *, estimated: bool = False) -> None:
        super().add(prompt, completion, estimated=estimated)
        self._on_add(prompt, completion, estimated)

    def failed(self) -> None:
        super().failed()
        self._on_fail()


UsageSink = Callable[[str, str, LLMUsage], None]
"""Where metered usage goes: `sink(space, layer, usage)`."""


class Tally:
    """What the LLM calls of one API call spent, from whichever thread they ran on."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._usage = LLMUsage()

    def add(self, usage: LLMUsage) -> None:
        with self._lock:
            self._usage = self._usage + usage

    @property
    def usage(self) -> LLMUsage:
        with self._lock:
            return self._usage


_TALLY: contextvars.ContextVar[Tally | None] = contextvars.ContextVar("tally", default=None)


@contextlib.contextmanager
def tally() -> Iterator[Tally]:
    """Count what the LLM spends for the calls made in this context: an LLM bound with
    `for_space` inside it counts into this tally, even when a worker thread makes the call."""
    current = Tally()
    token = _TALLY.set(current)
    try:
        yield current
    finally:
        _TALLY.reset(token)


class MeteredLLM:
    """Wraps an LLM client: every call's prompt and completion tokens go to `sink(space,
    layer, usage)` as the client counts them (retries included), attributed to the layer
    whose answer schema was asked for and to the space the caller bound with `for_space`.

    Nothing about a call is kept on the object: its space, layer and tally live in the
    calling thread's frame for the duration of the call, so two threads serving different
    spaces through one client book their own tokens. Calls made without a space
    (`complete_json` on this object) are booked to space "" (the host's default space)."""

    def __init__(self, inner: LLMClient, sink: UsageSink) -> None:
        self.inner = inner
        self.model = inner.model
        self._sink = sink
        self._local = threading.local()
        tap = _Tap(inner.usage, self._added, self._failed)
        inner.usage = tap
        self.usage: TokenUsage = tap

    def for_space(self, space: str) -> SpaceLLM:
        """The client with its tokens booked to `space` (and counted in the current tally)."""
        return SpaceLLM(self, space, _TALLY.get())

    def _book(self, usage: LLMUsage) -> None:
        call = getattr(self._local, "call", None)
        space, layer, counted = call if call is not None else ("", "other", _TALLY.get())
        if counted is not None:
            counted.add(usage)
        self._sink(space, layer, usage)

    def _added(self, prompt: int, completion: int, estimated: bool) -> None:
        self._book(LLMUsage(1, 0, prompt, completion, int(estimated)))

    def _failed(self) -> None:
        self._book(LLMUsage(0, 1, 0, 0))

    def call(
        self,
        space: str,
        counted: Tally | None,
        *,
        system: str,
        user: str,
        schema: type[T],
        json_schema: dict[str, Any] | None = None,
    ) -> T:
        previous = getattr(self._local, "call", None)
        self._local.call = (space, layer_of(schema), counted)
        try:
            if json_schema is None:  # clients written before the argument existed still work
                return self.inner.complete_json(system=system, user=user, schema=schema)
            return self.inner.complete_json(
                system=system, user=user, schema=schema, json_schema=json_schema
            )
        finally:
            self._local.call = previous

    def complete_json(
        self,
        *,
        system: str,
        user: str,
        schema: type[T],
        json_schema: dict[str, Any] | None = None,
    ) -> T:
        return self.call(
            "", _TALLY.get(), system=system, user=user, schema=schema, json_schema=json_schema
        )


class SpaceLLM:
    """The metered client with its tokens booked to one space (an LLMClient)."""

    def __init__(self, meter: MeteredLLM, space: str, counted: Tally | None) -> None:
        self.meter = meter
        self.space = space
        self.counted = counted
        self.model = meter.model
        self.usage = meter.usage

    def complete_json(
        self,
        *,
        system: str,
        user: str,
        schema: type[T],
        json_schema: dict[str, Any] | None = None,
    ) -> T:
        return self.meter.call(
            self.space,
            self.counted,
            system=system,
            user=user,
            schema=schema,
            json_schema=json_schema,
        )


# --- per-space ledger --------------------------------------------------------------------------
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
