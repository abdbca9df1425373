"""Optional domain packs: a world's own vocabulary for reading task structure from goal text.

A pack is off unless a user turns it on (`GRAPHMEM_DOMAIN_PACK=<name>`); the default
similarity never imports one (docs/insights.md, "Task structure"). A pack module provides
`goal_key(text) -> str | None` and `trajectory_key(actions) -> str | None`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

PACKS = ("alfworld",)


def load_pack(name: str) -> ModuleType | None:
    """The pack of that name; None for "" (no pack). An unknown name is an error."""
    if not name:
        return None
    if name not in PACKS:
        raise ValueError(f"unknown domain pack {name!r}; known: {', '.join(PACKS)}")
    return importlib.import_module(f"{__name__}.{name}")
