"""Entity de-duplication (paper § update stage, Table 3: τ_dedup = 0.92).

Two steps, as the paper: an exact-title hash (the normalised name is the key, looked up in an
index), then embeddings: a name whose vector has cosine ≥ τ with a stored entity, or with
another new name of the same batch, is folded into it and kept as an alias.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .text import stable_id


def entity_id(key: str) -> str:
    """Entities are keyed by their normalised title, so the same name always maps to the same
    node, in every run (idempotent ingestion)."""
    return stable_id(key, prefix="e")


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine of two vectors (unit vectors in practice, but not assumed)."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = sum(x * x for x in a) ** 0.5
    nb = sum(y * y for y in b) ** 0.5
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(dot / (na * nb))


@dataclass(frozen=True)
class Cluster:
    key: str
    """The representative: the first name seen."""
    members: tuple[str, ...]


def cluster_new_names(
    keys: Sequence[str], vectors: Sequence[Sequence[float]], threshold: float
) -> list[Cluster]:
    """Group the batch's new names whose embeddings are within `threshold` of a cluster's
    representative (greedy, in first-seen order, so the result is deterministic)."""
    if len(keys) != len(vectors):
        raise ValueError("one vector per key")
    reps: list[tuple[str, Sequence[float], list[str]]] = []
    for key, vec in zip(keys, vectors, strict=True):
        for _, rep_vec, members in reps:
            if cosine(vec, rep_vec) >= threshold:
                members.append(key)
                break
        else:
            reps.append((key, vec, [key]))
    return [Cluster(rep, tuple(members)) for rep, _, members in reps]
