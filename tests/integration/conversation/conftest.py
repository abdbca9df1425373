"""Helpers for the conversation layer's integration tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.conversation.readers import read_jsonl

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "conversation.jsonl"


@pytest.fixture
def example_turns() -> list[TurnInput]:
    """The shipped example conversation: Maya and Tom, five sessions, 61 turns."""
    return read_jsonl(EXAMPLE)
