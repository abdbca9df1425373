"""Re-embed a space's stored vectors with the configured model (`graphmem reembed`).

A graph records the model its vectors come from (GraphMemMeta) and refuses another one. To
move a graph to a new model, each space's turns and entities get new vectors, a batch at a
time; every rewritten node carries `embedded_with`, the model's name, so an interrupted run
resumes where it stopped. When no node of any space holds a vector from another model, the
graph records the new model and the refusal lifts. The vector dimension stays: the vector
indexes are built for it. Turns stored by a graphmem whose turn vectors did not read the
turn before (no `context_embedded`) are re-embedded too, with the model they have.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .conversation.ingest import embedding_text
from .deps import Parts
from .errors import InputError, SchemaMismatch
from .schema import now_ms, read_state
from .spaces import validate_space

CONVERSATION = ("Turn", "Entity")
"""The labels `reembed` rewrites: their embedded text is stored beside the vector."""


@dataclass
class ReembedReport:
    space: str
    model: str
    recorded: str
    turns: int = 0
    entities: int = 0
    graph_switched: bool = False
    spaces_left: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return {
            "space": self.space,
            "model": self.model,
            "recorded_model_before": self.recorded,
            "turns": self.turns,
            "entities": self.entities,
            "graph_model": self.model if self.graph_switched else self.recorded,
            "spaces_left": self.spaces_left,
        }


def pending(parts: Parts, space: str) -> dict[str, int]:
    """Embedded nodes of `space` not on the configured model, by label."""
    recorded, model = _models(parts)
    rows = parts.store.read(
        "conversation/reembed_count", {"space": space, "model": model, "recorded": recorded}
    )
    return {str(r["label"]): int(r["nodes"]) for r in rows}


def reembed_space(
    parts: Parts,
    space: str,
    *,
    batch_size: int = 64,
    on_progress: Callable[[int], None] | None = None,
) -> ReembedReport:
    """Give the space's turns and entities vectors from the configured model, then record the
    model in the graph if no space holds vectors from another one. Idempotent, resumable."""
    validate_space(space)
    if batch_size < 1:
        raise InputError(f"--batch-size must be at least 1, not {batch_size}")
    recorded, model = _models(parts)
    report = ReembedReport(space=space, model=model, recorded=recorded)
    others = {k: v for k, v in pending(parts, space).items() if k not in CONVERSATION}
    if others:
        listed = ", ".join(f"{n} {label}" for label, n in sorted(others.items()))
        raise InputError(
            f"space {space!r} holds embedded nodes graphmem reembed does not rewrite ({listed}): "
            "it rewrites conversation turns and entities; export the space, rebuild its facts, "
            "insights and experience with the new model, or keep the recorded model"
        )
    params = {"space": space, "model": model, "recorded": recorded, "limit": batch_size}
    for label, todo, write in (
        ("Turn", "conversation/reembed_turns_todo", "conversation/reembed_turns"),
        ("Entity", "conversation/reembed_entities_todo", "conversation/reembed_entities"),
    ):
        while rows := parts.store.read(todo, params):
            texts = [
                embedding_text(str(r["speaker"]), str(r["text"]), _previous(r))
                if label == "Turn"
                else str(r["text"])
                for r in rows
            ]
            vectors = parts.embedder.embed(texts)
            batch = [{"id": r["id"], "embedding": v} for r, v in zip(rows, vectors, strict=True)]
            parts.store.write(write, {"space": space, "model": model, "rows": batch})
            if label == "Turn":
                report.turns += len(batch)
            else:
                report.entities += len(batch)
            if on_progress is not None:
                on_progress(len(batch))
    left = parts.store.read("core/embedded_not_on", {"model": model, "recorded": recorded})
    report.spaces_left = {str(r["space"]): int(r["nodes"]) for r in left}
    if not report.spaces_left and recorded != model:
        parts.store.write(
            "core/set_embedding_model",
            {
                "embedding_model": model,
                "embedding_dimension": parts.embedder.dimension,
                "now": now_ms(),
            },
        )
        report.graph_switched = True
    return report


def _previous(row: Mapping[str, Any]) -> tuple[str, str] | None:
    """The speaker and text of the turn before a turn in its session, if it has one."""
    if row.get("previous_text") is None:
        return None
    return str(row["previous_speaker"]), str(row["previous_text"])


def _models(parts: Parts) -> tuple[str, str]:
    """The graph's recorded model and the configured one; a graph never initialised, or a
    model of another dimension, is refused."""
    state = read_state(parts.store)
    model = parts.embedder.name
    if state.embedding_model is None:
        raise InputError("this graph has no recorded embedding model yet: nothing to re-embed")
    if state.embedding_dimension != parts.embedder.dimension:
        raise SchemaMismatch(
            f"this graph's vector indexes are {state.embedding_dimension}-d and "
            f"'{model}' is {parts.embedder.dimension}-d: graphmem reembed keeps the dimension; "
            "use another database for the new model"
        )
    return state.embedding_model, model
