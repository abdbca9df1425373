"""Recall: the best context for an agent's next step, from all four layers, within a token
budget (docs/recall.md).

service.py  the request: check it, ask the layers in parallel, score, de-duplicate, pack
gather.py   each layer's candidates on one relevance scale
rank.py     scoring, de-duplication and packing (pure functions)
models.py   configuration and results
cache.py    the query memo (one embedding per query across the layers)
"""

from .models import Candidate, LayerReport, RecallConfig, RecallResult
from .service import RecallService, check_layers, check_request

__all__ = [
    "Candidate",
    "LayerReport",
    "RecallConfig",
    "RecallResult",
    "RecallService",
    "check_layers",
    "check_request",
]
