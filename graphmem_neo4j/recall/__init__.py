"""Recall: the best context for an agent's next step, from all four layers, within a token
budget (docs/recall.md).

service.py  the request: check it, ask the layers in parallel, score, de-duplicate, pack
gather.py   each layer's candidates on one relevance scale
rank.py     scoring, de-duplication and packing (pure functions)
models.py   configuration and results
cache.py    the query memo (one embedding per query across the layers)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .models import Candidate, LayerReport, RecallConfig, RecallResult
    from .service import RecallService, check_layers, check_request

# Loaded on first use: opening a memory imports only the query memo (cache.py).
_WHERE = {
    "Candidate": "models",
    "LayerReport": "models",
    "RecallConfig": "models",
    "RecallResult": "models",
    "RecallService": "service",
    "check_layers": "service",
    "check_request": "service",
}
__all__ = [
    "Candidate",
    "LayerReport",
    "RecallConfig",
    "RecallResult",
    "RecallService",
    "check_layers",
    "check_request",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{_WHERE[name]}", __name__), name)
