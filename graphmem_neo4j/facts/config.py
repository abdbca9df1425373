"""Knobs of the facts layer (HiGram's defaults: Kg = 12, Kp = 24, h = 3)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .localise import LocaliseConfig
from .models import UpdatePolicy
from .parsing import DEFAULT_CONFIDENCE
from .rewrite import DEFAULT_ACCEPT, DEFAULT_MARGIN


@dataclass(frozen=True)
class FactConfig:
    localise: LocaliseConfig = field(default_factory=LocaliseConfig)
    accept: float = DEFAULT_ACCEPT
    """Static-conflict rule (rewrite.py): a claim with this much support always replaces the
    value in force..."""
    margin: float = DEFAULT_MARGIN
    """...a weaker one only when support(claim) >= support(value in force) - margin."""
    default_confidence: float = DEFAULT_CONFIDENCE
    policy: UpdatePolicy = UpdatePolicy.COORDINATED
    max_cascade: int = 16
    """Levels of dependents followed when support changes."""
    vector_anchor_weight: float = 0.8
    """Anchors found through unit similarity count this much of their cosine."""
    min_answer_attribute: float = 0.45
    """`ask` names an answer only when the best path's head matches the question at least
    this well (the subject alone gives 0.35); the path is returned either way."""
