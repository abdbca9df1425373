"""The LLM seam: JSON answers from any OpenAI-compatible endpoint, validated with pydantic.

`GRAPHMEM_LLM=none` (the default) means no client at all; every layer then takes its
deterministic offline path.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from .errors import ConfigError, LLMError
from .settings import Settings
from .store.params import text_problem

T = TypeVar("T", bound=BaseModel)


@dataclass
class TokenUsage:
    """Tokens spent, as the endpoint reported them; thread-safe."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    failures: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, prompt: int, completion: int) -> None:
        with self._lock:
            self.prompt_tokens += prompt
            self.completion_tokens += completion
            self.calls += 1

    def failed(self) -> None:
        with self._lock:
            self.failures += 1

    def as_dict(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "calls": self.calls,
            "failures": self.failures,
        }


class LLMClient(Protocol):
    model: str
    usage: TokenUsage

    def complete_json(self, *, system: str, user: str, schema: type[T]) -> T:
        """Ask for a JSON object matching `schema`; retried on invalid output; LLMError after."""
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


class OpenAICompatibleLLM:
    def __init__(
        self,
        *,
        model: str,
        base_url: str | None,
        api_key: str | None,
        timeout: float = 30.0,
        max_retries: int = 2,
    ) -> None:
        import openai

        self.model = model
        self.max_retries = max_retries
        self.usage = TokenUsage()
        self._openai = openai
        # Our own loop retries (it also retries invalid JSON), so the SDK's is off.
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=0
        )

    def complete_json(self, *, system: str, user: str, schema: type[T]) -> T:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        last_error = "no attempt made"
        for _ in range(self.max_retries + 1):
            try:
                response = self._client.chat.completions.create(  # type: ignore[call-overload]
                    model=self.model,
                    messages=messages,
                    response_format={"type": "json_object"},
                    temperature=0,
                )
            except self._openai.OpenAIError as e:
                self.usage.failed()
                last_error = f"{type(e).__name__}: {e}"
                continue
            if response.usage is not None:
                self.usage.add(response.usage.prompt_tokens, response.usage.completion_tokens)
            content = response.choices[0].message.content or ""
            try:
                return parse_json_answer(content, schema)
            except ValueError as e:  # JSONDecodeError, ValidationError, unstorable text
                self.usage.failed()
                last_error = f"invalid answer: {str(e)[:300]}"
                messages += [
                    {"role": "assistant", "content": content},
                    {
                        "role": "user",
                        "content": "That answer did not validate: "
                        f"{str(e)[:500]}\nReply with only the corrected JSON object.",
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
    )
