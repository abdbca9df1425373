"""One migration: plan from the source, then (unless a dry run) write each space."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any, Literal

from .plan import MigrationPlan
from .source import SourceConfig, SourceGraph
from .writer import PlanWriter

Kind = Literal["mem0", "graphiti"]
ProgressFactory = Callable[[str, int], AbstractContextManager[Callable[[int], None]]]


def make_plan(
    source: SourceGraph, kind: Kind, *, key: str | None, space: str | None
) -> MigrationPlan:
    if kind == "mem0":
        from .mem0 import plan_mem0

        return plan_mem0(source, user_id=key, space=space)
    from .graphiti import plan_graphiti

    return plan_graphiti(source, group_id=key, space=space)


def migrate(
    memory: Any,
    config: SourceConfig,
    kind: Kind,
    *,
    key: str | None = None,
    space: str | None = None,
    dry_run: bool = False,
    progress: ProgressFactory | None = None,
) -> dict[str, Any]:
    """Migrate the source into `memory`; returns the summary (`--json`). The source's node
    and relationship counts are read before and after: `source_unchanged` says they match."""
    source = SourceGraph(config)
    try:
        before = source.counts()
        plan = make_plan(source, kind, key=key, space=space)
        summary = plan.as_dict()
        summary["dry_run"] = dry_run
        summary["source_counts"] = before
        if dry_run:
            return summary
        total = sum(len(p.entities) + len(p.facts) + len(p.turns) for p in plan.spaces.values())
        results = {}
        with _progress(progress, f"migrating {kind}", total) as advance:
            writer = PlanWriter(memory, on_progress=advance)
            for name in sorted(plan.spaces):
                results[name] = writer.write(plan.spaces[name]).as_dict()
        for name, result in results.items():
            summary["spaces"][name]["written"] = result
        summary["stored"] = sum(r["stored"] for r in results.values())
        summary["source_unchanged"] = source.counts() == before
        return summary
    finally:
        source.close()


def _progress(
    factory: ProgressFactory | None, label: str, total: int
) -> AbstractContextManager[Callable[[int], None]]:
    if factory is not None:
        return factory(label, total)
    from contextlib import contextmanager

    @contextmanager
    def silent() -> Iterator[Callable[[int], None]]:
        yield lambda n: None

    return silent()
