"""GraphMemory: the facade that opens the store and hands it to the layer services."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Mapping
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .embedder import Embedder, make_embedder
from .errors import ConfigError, GraphMemError, UnknownSpace
from .llm import LLMClient, make_llm
from .recall_cache import QueryMemo
from .schema import SYSTEM_LABELS, apply_migrations, check_embedding, now_ms, read_state
from .schema_types import Migration
from .settings import Settings
from .spaces import validate_space
from .store import GraphStore, open_store
from .tokens import LLMUsage, MeteredLLM, TokenTotals, UsageLedger, read_totals, write_usage

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
    from .recall_models import RecallResult


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
        self._store = store
        self._embedder = embedder
        self._llm = llm
        self._llm_built = llm is not None
        self._schema_ready = False
        self._embedding_checked = False
        self._lock = threading.RLock()
        self._ledger = UsageLedger()
        self._usage_space: str | None = None

    # --- parts -----------------------------------------------------------------------------
    @property
    def store(self) -> GraphStore:
        with self._lock:
            if self._store is None:
                self._store = open_store(self.settings)
            return self._store

    @property
    def embedder(self) -> Embedder:
        """The configured model behind a small memo of recent query texts (a recall asks all
        four layers about one query; the model embeds it once)."""
        with self._lock:
            if self._embedder is None:
                self._embedder = make_embedder(self.settings)
            if not isinstance(self._embedder, QueryMemo):
                self._embedder = QueryMemo(self._embedder)
            return self._embedder

    @property
    def llm(self) -> LLMClient | None:
        """None when no LLM is configured: callers take their offline path. Every call's
        prompt and completion tokens are counted for the space being written
        (`token_usage`)."""
        with self._lock:
            if not self._llm_built:
                self._llm = make_llm(self.settings)
                self._llm_built = True
            if self._llm is not None and not isinstance(self._llm, MeteredLLM):
                self._llm = MeteredLLM(self._llm, self._count_llm)
            return self._llm

    def _count_llm(self, layer: str, usage: LLMUsage) -> None:
        # "" = not known yet: a layer may ask the LLM before it writes (and names) its space
        self._ledger.add_llm(self._usage_space or "", layer, usage)

    # --- schema and spaces -----------------------------------------------------------------
    def init(self) -> list[Migration]:
        """Apply pending migrations (what `graphmem init` does); returns those applied."""
        with self._lock:
            applied = apply_migrations(
                self.store,
                embedding_model=self.embedder.name,
                dimension=self.embedder.dimension,
            )
            self._schema_ready = True
            self._embedding_checked = True
            return applied

    def ensure_schema(self) -> None:
        """Before a write: the schema is current and the embedder matches the graph's.

        When nothing is pending and the graph names the configured model, the model is not
        loaded just to read its dimension (a name fixes the dimension)."""
        if self._schema_ready:
            return
        with self._lock:
            state = read_state(self.store)
            if not state.pending and state.embedding_model == self.embedder.name:
                self._schema_ready = True
                self._embedding_checked = True
                return
            self.init()

    def ensure_embedder_matches(self) -> None:
        """Before a vector read: refuse an embedder other than the one the graph was built with."""
        with self._lock:
            if self._embedding_checked:
                return
            check_embedding(read_state(self.store), self.embedder.name, self.embedder.dimension)
            self._embedding_checked = True

    def ensure_space(self, space: str) -> str:
        """Validate the name and create the space if it is new (writes only)."""
        validate_space(space)
        self.ensure_schema()
        self.store.write("core/ensure_space", {"space": space, "now": now_ms()})
        self._usage_space = space  # LLM tokens spent from now on are this space's
        return space

    def require_space(self, space: str) -> str:
        """Validate the name and refuse a space that holds no memory (reads)."""
        validate_space(space)
        if not self.store.read("core/get_space", {"space": space}):
            known = [row["id"] for row in self.store.read("core/list_spaces")]
            hint = f"; known spaces: {', '.join(known)}" if known else "; no space exists yet"
            raise UnknownSpace(f"unknown space {space!r}{hint}")
        return space

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

        return FactService(self)

    @cached_property
    def insights(self) -> InsightService:
        from .insights.service import InsightService

        return InsightService(self)

    @cached_property
    def experience(self) -> ExperienceService:
        from .experience.service import ExperienceService

        return ExperienceService(self)

    @cached_property
    def recaller(self) -> RecallService:
        from .recall import RecallService

        return RecallService(self)

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
        self._ledger.add_recall(name, result.tokens_by_layer)
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
            plan = chatlog.prepare(self, parsed, plan_outcome)
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
        llm, recall = self._ledger.drain()
        if not llm and not recall:
            return
        if any(space == "" for space, _ in llm):
            owner = self._usage_space or self.settings.space
            resolved: dict[tuple[str, str], LLMUsage] = {}
            for (space, layer), usage in llm.items():
                key = (space or owner, layer)
                resolved[key] = resolved.get(key, LLMUsage()) + usage
            llm = resolved
        try:
            write_usage(self.store, llm, recall)
        except GraphMemError:
            self._ledger.restore(llm, recall)
            raise

    def _metered(self, space: str) -> _Metered:
        return _Metered(self, space)

    # --- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        if "recaller" in self.__dict__:
            # before taking the lock: the writes recalls left behind need the store
            self.recaller.close()
        with self._lock:
            if self._store is not None:
                # counting must not stop a close: the tokens are lost, not the data
                with contextlib.suppress(GraphMemError):
                    self.flush_usage()
            if "conversation" in self.__dict__:
                self.conversation.close()
            if self._store is not None:
                self._store.close()
                self._store = None

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
    """Around one API call for `space`: LLM tokens count for that space, `usage` is what the
    LLM spent during the call, and the counts are written to the graph when it ends."""

    def __init__(self, memory: GraphMemory, space: str) -> None:
        self.memory = memory
        self.space = space
        self.usage = LLMUsage()
        self._before = LLMUsage()

    def _now(self) -> LLMUsage:
        llm = self.memory.llm
        return LLMUsage.of(llm.usage) if llm is not None else LLMUsage()

    def __enter__(self) -> _Metered:
        self.memory._usage_space = self.space
        self._before = self._now()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.usage = self._now() - self._before
        try:
            self.memory.flush_usage()
        except GraphMemError:
            if exc is None:
                raise  # otherwise the call's own error is the one to report
