"""Entity de-duplication (paper § update stage, Table 3: τ_dedup = 0.92).

Two steps, as the paper: an exact-title hash (the normalised name is the key, looked up in an
index), then embeddings: a name whose vector has cosine ≥ τ with a stored entity, or with
another new name of the same batch, is folded into it and kept as an alias.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .text import stable_id


def entity_id(key: str) -> str:
    """Entities are keyed by their normalised title, so the same name always maps to the same
    node, in every run (idempotent ingestion)."""
    return stable_id(key, prefix="e")


@dataclass(frozen=True)
class Cluster:
    key: str
    """The representative: the first name seen."""
    members: tuple[str, ...]


def cluster_new_names(
    keys: Sequence[str], vectors: Sequence[Sequence[float]], threshold: float
) -> list[Cluster]:
    """Group the batch's new names whose embeddings are within `threshold` (cosine) of a
    cluster's representative (greedy, in first-seen order, so the result is deterministic)."""
    if len(keys) != len(vectors):
        raise ValueError("one vector per key")
    if not keys:
        return []
    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    reps: list[int] = []  # positions of the representatives, in first-seen order
    members: dict[int, list[str]] = {}
    # The similarities to every other name, a block of rows at a time: a batch of a
    # conversation's turns names hundreds of new entities, too many pairs to compare one at
    # a time in Python.
    for start in range(0, len(keys), _ROWS):
        block = unit[start : start + _ROWS] @ unit.T
        for offset, similar in enumerate(block >= threshold):
            position = start + offset
            joined = np.flatnonzero(similar[reps])
            if joined.size:
                members[reps[int(joined[0])]].append(keys[position])
            else:
                reps.append(position)
                members[position] = [keys[position]]
    return [Cluster(keys[rep], tuple(members[rep])) for rep in reps]


_ROWS = 512
