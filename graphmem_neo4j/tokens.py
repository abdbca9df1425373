"""Token accounting: a deterministic token estimate for packing recall contexts, and the
metering of LLM calls (prompt and completion tokens as the endpoint reports them, estimated
where it reports none), booked to the space each call names. The per-space totals kept in the
graph are in token_ledger.py.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel

from .llm import LLMClient, TokenUsage

if TYPE_CHECKING:
    pass

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
