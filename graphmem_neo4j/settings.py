"""Settings: one object, built by the caller (the CLI or a script) and passed down.

Nothing here runs at import time; `Settings()` reads `GRAPHMEM_*` variables when it is built.
It is a plain pydantic model that reads the environment itself: pydantic-settings did the same
for these scalar fields but cost every `graphmem` call about 0.1 s of imports (issue 14).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from .errors import ConfigError

NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
FALKORDB_SCHEMES = ("falkordb", "redis")


def default_home() -> Path:
    return Path.home() / ".graphmem"


ENV_PREFIX = "GRAPHMEM_"


class Settings(BaseModel):
    """Every knob graphmem has. Environment variables use the `GRAPHMEM_` prefix (any case);
    a value passed to the constructor wins over the environment."""

    model_config = ConfigDict(extra="ignore")

    def __init__(self, **values: Any) -> None:
        super().__init__(**{**environment_values(type(self).model_fields), **values})

    uri: str | None = Field(
        default=None,
        description="Unset: embedded FalkorDB. falkordb://host:port, or bolt:// neo4j:// neo4j+s://",
    )
    user: str = Field(default="neo4j", description="Neo4j user name")
    password: SecretStr | None = Field(default=None, description="Engine password")
    database: str | None = Field(
        default=None, description="Neo4j database, or FalkorDB graph name (default: graphmem)"
    )
    home: Path = Field(default_factory=default_home, description="Embedded server data and secrets")
    embedded_port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description="Also open this TCP port on 127.0.0.1 for other tools; unset: the embedded "
        "server listens on a Unix socket in the home only",
    )

    embedder: Literal["auto", "numpy", "sentence-transformers", "hash"] = Field(
        default="auto",
        description="auto: numpy for BERT models with mean pooling (the default model), "
        "sentence-transformers for the rest",
    )
    embedding_model: str = "all-MiniLM-L6-v2"
    embedding_batch_size: int = Field(default=64, ge=1)

    llm: Literal["none", "openai"] = "none"
    llm_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: SecretStr | None = None
    llm_timeout: float = Field(default=30.0, gt=0)
    llm_max_retries: int = Field(default=2, ge=0)
    llm_max_tokens: int = Field(
        default=1024, ge=1, description="Longest answer asked for (an answer cut there is retried)"
    )
    llm_response_format: Literal["auto", "json_schema", "json_object_schema", "json_object"] = (
        Field(
            default="auto",
            description="How answers are constrained: auto tries json_schema, then json_object "
            "with the schema, then plain json_object, and keeps the first the endpoint takes",
        )
    )
    domain_pack: str = Field(
        default="",
        description="A domain pack that reads task structure from a world's own words "
        "('alfworld'; off when empty: structure is learned from each space's history)",
    )
    llm_fallback: Literal["offline", "error"] = Field(
        default="offline",
        description="When the LLM keeps failing: use the offline path, or stop with an error",
    )

    freeze_heap: bool = Field(
        default=True,
        description="Freeze the objects alive when a GraphMemory is made, so the garbage "
        "collector's full passes skip them (graphmem_neo4j/heap.py)",
    )
    batch_size: int = Field(default=500, ge=1, le=100_000)
    space: str = "default"

    @field_validator("embedded_port", mode="before")
    @classmethod
    def _empty_port_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and value.strip() == "" else value

    def engine(self) -> EngineTarget:
        return parse_uri(self.uri)


def environment_values(fields: Iterable[str]) -> dict[str, str]:
    """`GRAPHMEM_<FIELD>` variables, matched without regard to case; pydantic parses the text."""
    wanted = {f"{ENV_PREFIX}{name}".upper(): name for name in fields}
    return {
        wanted[key.upper()]: value for key, value in os.environ.items() if key.upper() in wanted
    }


@dataclass(frozen=True)
class EngineTarget:
    """Where the graph lives, decoded from GRAPHMEM_URI."""

    engine: Literal["falkordb", "neo4j"]
    embedded: bool
    uri: str | None
    host: str | None = None
    port: int | None = None

    def redacted(self) -> str:
        if self.embedded:
            return "embedded"
        assert self.uri is not None
        return redact_uri(self.uri)


def redact_uri(uri: str) -> str:
    """Drop any user:password@ part so a URI can be printed."""
    parts = urlsplit(uri)
    if parts.password is None and parts.username is None:
        return uri
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return parts._replace(netloc=host).geturl()


def parse_uri(uri: str | None) -> EngineTarget:
    if uri is None or uri.strip() == "":
        return EngineTarget(engine="falkordb", embedded=True, uri=None)
    try:
        parts = urlsplit(uri.strip())
        port = parts.port
    except ValueError as e:
        raise ConfigError(f"GRAPHMEM_URI {redact_uri(uri)!r} is not a valid URI: {e}") from e
    scheme = parts.scheme.lower()
    if scheme in FALKORDB_SCHEMES:
        if not parts.hostname:
            raise ConfigError(f"GRAPHMEM_URI {redact_uri(uri)!r} has no host")
        return EngineTarget(
            engine="falkordb", embedded=False, uri=uri, host=parts.hostname, port=port or 6379
        )
    if scheme in NEO4J_SCHEMES:
        if not parts.hostname:
            raise ConfigError(f"GRAPHMEM_URI {redact_uri(uri)!r} has no host")
        return EngineTarget(engine="neo4j", embedded=False, uri=uri, host=parts.hostname, port=port)
    raise ConfigError(
        f"GRAPHMEM_URI {redact_uri(uri)!r}: unknown scheme {scheme!r}; use falkordb://host:port, "
        "bolt://, neo4j:// or neo4j+s://, or leave it unset for the embedded engine"
    )
