"""The LLM seam: JSON answers from any OpenAI-compatible endpoint, validated with pydantic.

`GRAPHMEM_LLM=none` (the default) means no client at all; every layer then takes its
deterministic offline path.

Structured outputs: each request carries the answer model's JSON schema. Endpoints differ in
what they accept, so a client walks down `FORMATS` once: OpenAI's `json_schema` form (strict
when the schema allows it), then `json_object` with the schema beside it (llama.cpp's server
turns that into a grammar, and answers HTTP 500 to `json_schema`), then plain `json_object`.
The first form an endpoint answers is kept for the client's life.
"""

from __future__ import annotations

import copy
import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel

from .errors import ConfigError, LLMError
from .settings import Settings
from .store.params import text_problem

T = TypeVar("T", bound=BaseModel)

Format = Literal["json_schema", "json_object_schema", "json_object"]
FORMATS: tuple[Format, ...] = ("json_schema", "json_object_schema", "json_object")
# What an endpoint answers when it does not take a response_format: 400/422 (OpenAI, vLLM and
# most servers), 500 (llama.cpp's server, which fails while reading the request), 501.
REFUSED_STATUS = frozenset({400, 422, 500, 501})
# Keywords OpenAI's strict mode rejects; pydantic still checks them on the answer, and a
# failure there is retried like any invalid answer.
_NOT_STRICT = (
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "uniqueItems",
    "default",
)
# Keywords left out of the schema a grammar is built from (llama.cpp): a bounded repetition
# such as maxLength 400 unrolls into hundreds of grammar rules, which made one request take
# 45 s instead of 8 on the bundled model. pydantic still checks them on the answer.
_NOT_IN_GRAMMAR = ("maxLength",)
MESSAGE_OVERHEAD_TOKENS = 4  # role and separators per chat message (OpenAI's cookbook count)


@dataclass
class TokenUsage:
    """Tokens spent, as the endpoint reported them; thread-safe. `estimated_calls` counts the
    calls whose endpoint reported no usage, whose tokens were estimated (tokens.estimate_tokens)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    failures: int = 0
    estimated_calls: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, prompt: int, completion: int, *, estimated: bool = False) -> None:
        with self._lock:
            self.prompt_tokens += prompt
            self.completion_tokens += completion
            self.calls += 1
            self.estimated_calls += int(estimated)

    def failed(self) -> None:
        with self._lock:
            self.failures += 1

    def as_dict(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "calls": self.calls,
            "failures": self.failures,
            "estimated_calls": self.estimated_calls,
        }


class LLMClient(Protocol):
    model: str
    usage: TokenUsage

    def complete_json(
        self,
        *,
        system: str,
        user: str,
        schema: type[T],
        json_schema: dict[str, Any] | None = None,
    ) -> T:
        """Ask for a JSON object matching `schema`; retried on invalid output; LLMError after.
        `json_schema`, when given, is the schema sent to the endpoint instead of `schema`'s own:
        a narrower one for this request (e.g. the ids the answer may name as an enum)."""
        ...


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


def parse_json_answer(text: str, schema: type[T]) -> T:
    """Validate an answer, tolerating a ```json fence around it. Text no engine can store (a
    NUL, a lone surrogate) makes the answer invalid, like a schema error: retried, not
    written."""
    body = _FENCE.sub("", text.strip()).strip()
    data = json.loads(body)
    _check_storable(data, "answer")
    return schema.model_validate(data)


def _check_storable(value: Any, where: str) -> None:
    if isinstance(value, str):
        problem = text_problem(value)
        if problem is not None:
            raise ValueError(f"{where}: {problem}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_storable(item, f"{where}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_storable(key, f"{where} key")
            _check_storable(item, f"{where}.{key}")


# --- structured outputs ------------------------------------------------------------------------
def _objects(node: Any) -> list[dict[str, Any]]:
    """Every sub-schema of `node` (itself included) that is a dict."""
    found: list[dict[str, Any]] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def strict_schema(schema: type[BaseModel] | dict[str, Any]) -> dict[str, Any] | None:
    """The schema in the form OpenAI's strict mode takes, or None when the model does not allow
    it: strict mode needs every property of every object required (a field with a default is
    optional, which strict mode cannot say). Keywords strict mode rejects are dropped (pydantic
    still checks them), and every object closed with additionalProperties false."""
    body = copy.deepcopy(schema if isinstance(schema, dict) else schema.model_json_schema())
    for node in _objects(body):
        props = node.get("properties")
        if isinstance(props, dict) and node.get("type") == "object":
            if set(node.get("required", [])) != set(props):
                return None
            if node.get("additionalProperties") not in (None, False):
                return None
            node["additionalProperties"] = False
    _drop_unsupported(body)
    return body


def _drop_unsupported(
    node: Any, names: bool = False, keywords: tuple[str, ...] = _NOT_STRICT
) -> None:
    """Remove `keywords` from every sub-schema; `names` marks a map of names to schemas
    (`properties`, `$defs`), whose keys are field names, not keywords."""
    if isinstance(node, list):
        for item in node:
            _drop_unsupported(item, keywords=keywords)
    elif isinstance(node, dict):
        if not names:
            for key in keywords:
                node.pop(key, None)
        for key, value in node.items():
            _drop_unsupported(
                value, names=not names and key in ("properties", "$defs"), keywords=keywords
            )


def response_format(
    mode: Format, schema: type[BaseModel], json_schema: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The `response_format` of one request in the given form (`json_schema` replaces the
    schema of the `schema` model)."""
    if mode == "json_object":
        return {"type": "json_object"}
    body = json_schema if json_schema is not None else schema.model_json_schema()
    if mode == "json_object_schema":
        grammar = copy.deepcopy(body)
        _drop_unsupported(grammar, keywords=_NOT_IN_GRAMMAR)
        return {"type": "json_object", "schema": grammar}
    strict = strict_schema(body)
    return {
        "type": "json_schema",
        "json_schema": {
            "name": re.sub(r"[^A-Za-z0-9_-]", "_", schema.__name__)[:64],
            "schema": strict if strict is not None else body,
            "strict": strict is not None,
        },
    }


def estimated_usage(messages: list[dict[str, Any]], content: str) -> tuple[int, int]:
    """Prompt and completion tokens by the offline estimate, for endpoints reporting none."""
    from .tokens import estimate_tokens

    prompt = sum(
        estimate_tokens(str(m.get("content") or "")) + MESSAGE_OVERHEAD_TOKENS for m in messages
    )
    return prompt, estimate_tokens(content)


class OpenAICompatibleLLM:
    def __init__(
        self,
        *,
        model: str,
        base_url: str | None,
        api_key: str | None,
        timeout: float = 30.0,
        max_retries: int = 2,
        max_tokens: int | None = 1024,
        response_format: Format | Literal["auto"] = "auto",
    ) -> None:
        import openai

        self.model = model
        self.max_retries = max_retries
        self.max_tokens = max_tokens
        self.usage = TokenUsage()
        self._openai = openai
        # Our own loop retries (it also retries invalid JSON), so the SDK's is off.
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=0
        )
        pinned = response_format != "auto"
        self._formats: tuple[Format, ...] = (response_format,) if pinned else FORMATS  # type: ignore[assignment]
        self._level = 0
        self._confirmed = pinned
        self._format_lock = threading.Lock()

    @property
    def format(self) -> Format:
        """The response_format form this client sends (the one that worked, once one did)."""
        return self._formats[self._level]

    def _create(
        self,
        messages: list[dict[str, Any]],
        schema: type[BaseModel],
        json_schema: dict[str, Any] | None,
    ) -> Any:
        """One request; an endpoint refusing the form makes the client step down to the next
        form and ask again, until one is answered (then the client keeps it)."""
        while True:
            level = self._level
            mode = self._formats[level]
            extra: dict[str, Any] = {}
            if self.max_tokens is not None:
                extra["max_tokens"] = self.max_tokens
            try:
                response = self._client.chat.completions.create(  # type: ignore[call-overload]
                    model=self.model,
                    messages=messages,
                    response_format=response_format(mode, schema, json_schema),
                    temperature=0,
                    **extra,
                )
            except self._openai.APIStatusError as e:
                with self._format_lock:
                    if (
                        not self._confirmed
                        and e.status_code in REFUSED_STATUS
                        and level + 1 < len(self._formats)
                    ):
                        self._level = max(self._level, level + 1)
                        continue
                raise
            with self._format_lock:
                if not self._confirmed and self._level == level:
                    self._confirmed = True
            return response

    def complete_json(
        self,
        *,
        system: str,
        user: str,
        schema: type[T],
        json_schema: dict[str, Any] | None = None,
    ) -> T:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        last_error = "no attempt made"
        for _ in range(self.max_retries + 1):
            try:
                response = self._create(messages, schema, json_schema)
            except self._openai.OpenAIError as e:
                self.usage.failed()
                last_error = f"{type(e).__name__}: {e}"
                continue
            choice = response.choices[0] if response.choices else None
            content = (choice.message.content if choice is not None else None) or ""
            reported = response.usage
            if reported is not None and (reported.prompt_tokens or reported.completion_tokens):
                self.usage.add(reported.prompt_tokens, reported.completion_tokens)
            else:
                self.usage.add(*estimated_usage(messages, content), estimated=True)
            try:
                return parse_json_answer(content, schema)
            except ValueError as e:  # JSONDecodeError, ValidationError, unstorable text
                self.usage.failed()
                cut = choice is not None and choice.finish_reason == "length"
                why = f"{'cut at max_tokens; ' if cut else ''}{str(e)[:500]}"
                last_error = f"invalid answer: {why[:300]}"
                messages += [
                    {"role": "assistant", "content": content},
                    {
                        "role": "user",
                        "content": f"That answer did not validate: {why}\n"
                        "Reply with only the corrected JSON object"
                        + (", shorter." if cut else "."),
                    },
                ]
        raise LLMError(
            f"LLM {self.model} gave no valid answer in {self.max_retries + 1} attempts: "
            f"{last_error}"
        )


def make_llm(settings: Settings) -> LLMClient | None:
    if settings.llm == "none":
        return None
    if not settings.llm_base_url and not settings.llm_api_key:
        raise ConfigError("GRAPHMEM_LLM=openai needs GRAPHMEM_LLM_BASE_URL or GRAPHMEM_LLM_API_KEY")
    return OpenAICompatibleLLM(
        model=settings.llm_model,
        base_url=settings.llm_base_url,
        api_key=settings.llm_api_key.get_secret_value() if settings.llm_api_key else None,
        timeout=settings.llm_timeout,
        max_retries=settings.llm_max_retries,
        max_tokens=settings.llm_max_tokens,
        response_format=settings.llm_response_format,
    )
