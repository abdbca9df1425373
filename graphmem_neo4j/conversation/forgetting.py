"""Selective forgetting: which nodes to prune (paper Fig. 1, retention stage; Table 3).

The paper scores each node by recency, access frequency, degree centrality and turn age and
prunes those below a threshold, every 400 turns. It gives no closed form, so ours is:

    importance = w_r · exp(−Δ_last / τ_r)          recency: turns since last mentioned/retrieved
               + w_f · (1 − exp(−accesses / κ))    access frequency, saturating
               + w_d · min(1, ln(1+deg) / ln(1+d₀)) degree centrality, log-scaled
               + w_a · exp(−age / τ_a)             age: young nodes get a grace period

Every term is in [0, 1] and the weights sum to 1, so importance is in [0, 1]. Time is counted
in turns of the space (the "turn age" of the paper), not wall-clock time.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from .models import ForgettingConfig


@dataclass(frozen=True)
class NodeStats:
    id: str
    label: str
    created_turn: int
    last_turn: int
    """The later of: last mentioned, last retrieved."""
    access_count: int
    degree: int


def importance(node: NodeStats, clock: int, cfg: ForgettingConfig) -> float:
    since_last = max(0, clock - node.last_turn)
    age = max(0, clock - node.created_turn)
    recency = math.exp(-since_last / cfg.recency_turns)
    frequency = 1.0 - math.exp(-node.access_count / cfg.frequency_scale)
    degree = min(1.0, math.log1p(node.degree) / math.log1p(cfg.degree_ref))
    youth = math.exp(-age / cfg.age_turns)
    total = cfg.w_recency + cfg.w_frequency + cfg.w_degree + cfg.w_age
    score = (
        cfg.w_recency * recency
        + cfg.w_frequency * frequency
        + cfg.w_degree * degree
        + cfg.w_age * youth
    )
    return score / total if total > 0 else 0.0


def select(
    nodes: Iterable[NodeStats], clock: int, cfg: ForgettingConfig
) -> list[tuple[NodeStats, float]]:
    """Nodes to prune, least important first: below the threshold and past the grace age."""
    chosen = []
    for node in nodes:
        if clock - node.created_turn < cfg.min_age_turns:
            continue
        score = importance(node, clock, cfg)
        if score < cfg.threshold:
            chosen.append((node, score))
    chosen.sort(key=lambda pair: (pair[1], pair[0].label, pair[0].id))
    return chosen


def due(turns_now: int, last_run_at: int | None, every: int) -> bool:
    """Whether a run is due after ingestion: `every` turns since the last run (0 = never)."""
    if every <= 0:
        return False
    return turns_now - (last_run_at or 0) >= every
