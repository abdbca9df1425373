"""GraphMemory: the facade that composes the parts and the layer services (docs/architecture.md)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .deps import Defaults
from .embedder import Embedder
from .errors import ConfigError, GraphMemError
from .heap import freeze_startup_heap
from .llm import LLMClient
from .parts import MemoryParts
from .schema import SYSTEM_LABELS
from .schema_types import Migration
from .settings import Settings
from .store import GraphStore
from .task_similarity import KeyReader
from .token_ledger import TokenTotals, read_totals
from .tokens import LLMUsage, Tally, tally

if TYPE_CHECKING:
    from .chatlog import ChatLogReport
    from .conversation.models import IngestReport as TurnReport
    from .conversation.models import TurnInput
    from .conversation.service import ConversationService
    from .experience.models import AddReport, Kind, Trajectory
    from .experience.service import ExperienceService
    from .facts.models import FactInput
    from .facts.models import IngestReport as FactReport
    from .facts.service import FactService
    from .insights.models import FeedbackResult, RecordedTask, TaskRecord
    from .insights.service import InsightService
    from .recall import RecallService
    from .recall.models import RecallResult


class GraphMemory:
    """One memory: a store, an embedder, an optional LLM, and the four layers over them.

    Everything is opened lazily, so building a GraphMemory is cheap and `close()` is safe.
    The methods under "Python API" are the one-call-per-user-action surface (docs/recall.md);
    the layer services (`conversation`, `facts`, `insights`, `experience`) offer the rest.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: GraphStore | None = None,
        embedder: Embedder | None = None,
        llm: LLMClient | None = None,
    ) -> None:
        self.settings = settings if settings is not None else Settings()
        self.parts = MemoryParts(self.settings, store=store, embedder=embedder, llm=llm)
        if self.settings.freeze_heap:
            freeze_startup_heap()

    # --- parts (deps.Parts: what the services are given) -------------------------------------
    @property
    def store(self) -> GraphStore:
        return self.parts.store

    @property
    def embedder(self) -> Embedder:
        return self.parts.embedder

    @property
    def defaults(self) -> Defaults:
        return self.parts.defaults

    @property
    def llm(self) -> LLMClient | None:
        """None when no LLM is configured: callers take their offline path. Tokens of calls
        made through this client count for the default space; `llm_for(space)` books them
        to `space` (`token_usage`)."""
        return self.parts.meter

    def llm_for(self, space: str) -> LLMClient | None:
        return self.parts.llm_for(space)

    # --- schema and spaces -----------------------------------------------------------------
    def init(self) -> list[Migration]:
        """Apply pending migrations (what `graphmem init` does); returns those applied."""
        return self.parts.init()

    def ensure_schema(self) -> None:
        self.parts.ensure_schema()

    def structures(self, space: str, layer: str, *, fresh: bool = False) -> KeyReader:
        """How goal texts are read into task structures in a space (task_similarity)."""
        return self.parts.structures(space, layer, fresh=fresh)

    def ensure_embedder_matches(self) -> None:
        self.parts.ensure_embedder_matches()

    def ensure_space(self, space: str) -> str:
        return self.parts.ensure_space(space)

    def require_space(self, space: str) -> str:
        return self.parts.require_space(space)

    def space_checked(self, space: str) -> contextlib.AbstractContextManager[str]:
        return self.parts.space_checked(space)

    def spaces(self) -> list[dict[str, Any]]:
        return self.store.read("core/list_spaces")

    def stats(self, space: str) -> dict[str, Any]:
        """Node counts per label and relationship counts per type in one space."""
        self.require_space(space)
        nodes = {
            row["label"]: int(row["count"])
            for row in self.store.read("core/count_labels", {"space": space})
            if row["label"] not in SYSTEM_LABELS
        }
        rels = {
            row["type"]: int(row["count"])
            for row in self.store.read("core/count_relationships", {"space": space})
        }
        return {
            "space": space,
            "nodes": nodes,
            "relationships": rels,
            "total_nodes": sum(nodes.values()),
            "total_relationships": sum(rels.values()),
        }

    # --- layers ----------------------------------------------------------------------------
    @cached_property
    def conversation(self) -> ConversationService:
        from .conversation.service import ConversationService

        return ConversationService(self)

    @cached_property
    def facts(self) -> FactService:
        from .facts.service import FactService

        return FactService(self.parts)

    @cached_property
    def insights(self) -> InsightService:
        from .insights.service import InsightService

        return InsightService(self)

    @cached_property
    def experience(self) -> ExperienceService:
        from .experience.service import ExperienceService

        return ExperienceService(self.parts)

    @cached_property
    def recaller(self) -> RecallService:
        from .recall import RecallService

        return RecallService(self.parts, self)

    # --- Python API --------------------------------------------------------------------------
    @classmethod
    def open(cls, settings: Settings | None = None, **options: Any) -> GraphMemory:
        """A memory from Settings, or from explicit options with the Settings field names
        (`uri`, `user`, `password`, `database`, `home`, `embedder`, `llm`, `space`, ...);
        unset options fall back to GRAPHMEM_* variables. A context manager:
        `with GraphMemory.open(uri="neo4j://localhost:7687", password="...") as memory:`."""
        if settings is not None and not options:
            return cls(settings)
        from pydantic import ValidationError

        base = settings.model_dump() if settings is not None else {}
        try:
            return cls(Settings(**{**base, **options}))
        except ValidationError as e:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors()
            )
            raise ConfigError(f"bad setting: {problems}") from e

    def _space(self, space: str | None) -> str:
        return space if space is not None else self.settings.space

    def add_turns(
        self,
        turns: Iterable[TurnInput | Mapping[str, Any]],
        *,
        space: str | None = None,
        session: str = "default",
    ) -> TurnReport:
        """Remember conversation turns (TurnInput or dicts with speaker/role and text/content;
        `session` is the default for dicts without one). Idempotent on turn ids."""
        from .chatlog import turns_from

        checked = turns_from(turns, session=session)
        name = self._space(space)
        with self._metered(name):
            return self.conversation.add_turns(checked, space=name)

    def add_facts(
        self, facts: Iterable[FactInput | Mapping[str, Any]], *, space: str | None = None
    ) -> FactReport:
        """Add structured facts (FactInput or dicts of its fields); see docs/facts.md."""
        name = self._space(space)
        with self._metered(name):
            return self.facts.add_facts(facts, space=name)

    def record_task(
        self,
        task: TaskRecord | Mapping[str, Any],
        *,
        space: str | None = None,
        learn: bool = False,
    ) -> RecordedTask:
        """Record a finished task (TaskRecord or a dict of its fields: id, query, status,
        steps, answer, feedback); with `learn` the controller judges it at once."""
        from .chatlog import task_from

        checked = task_from(task)
        name = self._space(space)
        with self._metered(name):
            return self.insights.record_task(checked, space=name, learn=learn)

    def add_trajectory(
        self,
        trajectory: Trajectory | Mapping[str, Any],
        *,
        kind: Kind | None = None,
        space: str | None = None,
    ) -> AddReport:
        """Store one run of a task (Trajectory, or a dict with id, task, reward, steps and a
        `kind` of expert or exploration) and rebuild its task's insights."""
        from .chatlog import trajectory_from

        checked = trajectory_from(trajectory, kind=kind)
        name = self._space(space)
        with self._metered(name):
            return self.experience.add([checked], space=name)

    def feedback(
        self, task_id: str, *, space: str | None = None, dry_run: bool = False
    ) -> FeedbackResult:
        """Let the controller keep, archive or revise the insights a recorded task was given
        (and maybe add one)."""
        name = self._space(space)
        with self._metered(name):
            return self.insights.feedback(task_id, space=name, dry_run=dry_run)

    def recall(
        self,
        query: str,
        *,
        space: str | None = None,
        budget_tokens: int = 2000,
        layers: Iterable[str] | None = None,
    ) -> RecallResult:
        """The best context for `query` from every layer (or `layers`), packed into
        `budget_tokens`; each item says its layer, node and why it was chosen."""
        name = self._space(space)
        result = self.recaller.recall(query, space=name, budget_tokens=budget_tokens, layers=layers)
        self.parts.ledger.add_recall(name, result.tokens_by_layer)
        self.recaller.after(self.flush_usage)  # the counters need not hold up the answer
        return result

    def add_chat_log(
        self,
        log: Path | str,
        *,
        space: str | None = None,
        session: str | None = None,
        outcome: Mapping[str, Any] | None = None,
        learn: bool = True,
    ) -> ChatLogReport:
        """Update every layer from one transcript file (docs/recall.md, "Session workflow");
        `outcome` (outcome, task_id, query, reward, answer, feedback) overrides the file's
        outcome line. Everything is checked before anything is written."""
        from dataclasses import replace

        from . import chatlog

        parsed = chatlog.read_chat_log(Path(log), session=session)
        plan_outcome = chatlog.merge_outcome(parsed.outcome, outcome or {})
        name = self._space(space)
        with self._metered(name) as spent:
            plan = chatlog.prepare(self.parts, parsed, plan_outcome, space=name)
            report = chatlog.ingest(self, plan, space=name, learn=learn)
        return replace(report, llm=spent.usage)

    def token_usage(self, space: str | None = None) -> TokenTotals:
        """LLM and recall tokens this space has cost so far (`graphmem stats`)."""
        if "recaller" in self.__dict__:
            self.recaller.settle()
        self.flush_usage()
        return read_totals(self.store, self.require_space(self._space(space)))

    def flush_usage(self) -> None:
        """Add the tokens counted since the last flush to the spaces' totals in the graph
        (after each API call and on close; kept for the next flush if the write fails)."""
        self.parts.flush_usage()

    def _metered(self, space: str) -> _Metered:
        return _Metered(self, space)

    # --- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        if "recaller" in self.__dict__:
            # before anything else: the writes recalls left behind need the store
            self.recaller.close()
        if self.parts.store_open:
            # counting must not stop a close: the tokens are lost, not the data
            with contextlib.suppress(GraphMemError):
                self.flush_usage()
        if "conversation" in self.__dict__:
            self.conversation.close()
        self.parts.close_store()

    def __enter__(self) -> GraphMemory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class _Metered:
    """Around one API call for `space`: `usage` is what the LLM spent for the call (the
    services bind their LLM inside it, so calls on their worker threads count too), and the
    counts are written to the graph when it ends. Which space the tokens count for is said
    by the services, which ask for an LLM bound to the space they write."""

    def __init__(self, memory: GraphMemory, space: str) -> None:
        self.memory = memory
        self.space = space
        self.usage = LLMUsage()
        self._tally = tally()
        self._counted = Tally()

    def __enter__(self) -> _Metered:
        self._counted = self._tally.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._tally.__exit__(exc_type, exc, tb)
        self.usage = self._counted.usage
        try:
            self.memory.flush_usage()
        except GraphMemError:
            if exc is None:
                raise  # otherwise the call's own error is the one to report
