"""`graphmem mcp`: the memory as Model Context Protocol tools over stdio, for coding agents and
chat clients (Claude Desktop, Cursor, any MCP client).

Tools: recall, add_turns, add_facts, record_task, add_trajectory, feedback, token_usage. Each
takes an optional `space` (default: the one the server was started with) and returns JSON.
Bad input comes back as a tool error naming the field; calls run one at a time, because one
GraphMemory serves them all.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, TypeVar

from .errors import GraphMemError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from .memory import GraphMemory

P = ParamSpec("P")
R = TypeVar("R")

INSTRUCTIONS = (
    "Long-term graph memory. Call `recall` with what you are about to do to get the best "
    "context (conversation turns, current facts, insights from similar tasks, experience) "
    "within a token budget; every line names its layer, node id and why it was chosen. "
    "Record what happened with add_turns / add_facts / record_task / add_trajectory, and "
    "call `feedback` on a finished task so the insights that helped are kept and those that "
    "misled are archived."
)


Gate = Callable[[str | None, bool], str]
"""(the `space` a tool was given, whether the call writes) -> the space to use. Raises
Forbidden when the caller may not (serve.py checks API keys there)."""


def build_server(
    memory: GraphMemory,
    *,
    space: str,
    gate: Gate | None = None,
    lock: threading.Lock | None = None,
) -> MCPServer[Any]:
    """The tools on `memory`. `gate` decides each call's space (default: the given one, else
    `space`); `lock` serialises the calls (one GraphMemory serves them all)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    lock = lock or threading.Lock()
    server: MCPServer[Any] = MCPServer(
        name="graphmem", instructions=INSTRUCTIONS, log_level="WARNING"
    )

    def tool(fn: Callable[P, R]) -> Callable[P, R]:
        """One call at a time; graphmem's own errors become tool errors with their message."""

        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            with lock:
                try:
                    return fn(*args, **kwargs)
                except GraphMemError as e:
                    raise ToolError(f"{type(e).__name__}: {e}") from e

        server.add_tool(wrapper)
        return wrapper

    def target(given: str | None, writes: bool = False) -> str:
        if gate is not None:
            return gate(given, writes)
        return given if given is not None else space

    @tool
    def recall(
        query: str,
        budget_tokens: int = 2000,
        layers: list[str] | None = None,
        space: str | None = None,
    ) -> dict[str, Any]:
        """The best context for `query` from the memory, packed into `budget_tokens`
        (estimated); `layers` limits it to some of conversation, facts, insights, experience.
        Returns the prompt-ready `context`, its `items` (layer, label, id, score, why) and the
        tokens used per layer."""
        result = memory.recall(
            query, space=target(space), budget_tokens=budget_tokens, layers=layers
        )
        return result.as_dict()

    @tool
    def add_turns(
        turns: list[dict[str, Any]], session: str = "mcp", space: str | None = None
    ) -> dict[str, Any]:
        """Remember conversation turns: [{"speaker" (or "role"), "text" (or "content"),
        "timestamp"?: ISO-8601, "turn_id"?, "session"?}]. Sending a turn again stores it once."""
        return memory.add_turns(turns, space=target(space, True), session=session).as_dict()

    @tool
    def add_facts(facts: list[dict[str, Any]], space: str | None = None) -> dict[str, Any]:
        """Add structured facts: [{"subject", "relation", "object", "category", "context"?,
        "valid_from"?: ISO-8601, "confidence"?: 0..1, "depends_on"?: [unit ids], "id"?,
        "source"?}]. A new value supersedes the old one; what depended on it is outdated."""
        return memory.add_facts(facts, space=target(space, True)).as_dict()

    @tool
    def record_task(
        task: dict[str, Any], learn: bool = True, space: str | None = None
    ) -> dict[str, Any]:
        """Record a finished task: {"id", "query", "status": "resolved"|"failed", "steps":
        [{"action", "observation", "role"?}], "answer"?, "feedback"?, "task_type"?}
        (`task_type`: the kind of task, when known; else it is read from the steps and
        learnt from the space's resolved tasks). With `learn` the insights it was given are
        judged at once (otherwise call `feedback` later)."""
        return memory.record_task(task, space=target(space, True), learn=learn).as_dict()

    @tool
    def add_trajectory(
        trajectory: dict[str, Any],
        kind: Literal["expert", "exploration"],
        space: str | None = None,
    ) -> dict[str, Any]:
        """Store one run of a task as an action decision graph: {"id", "task", "reward":
        0..1, "steps": [{"action", "observation"}], "initial_observation"?}. Exploration runs
        are compared with the task's expert run; the differences become its lessons."""
        return memory.add_trajectory(trajectory, kind=kind, space=target(space, True)).as_dict()

    @tool
    def feedback(task_id: str, dry_run: bool = False, space: str | None = None) -> dict[str, Any]:
        """Run the insight controller on a recorded task: keep, archive or revise each insight
        it was given, and maybe add one. `dry_run` only reports the decisions."""
        return memory.feedback(task_id, space=target(space, not dry_run), dry_run=dry_run).as_dict()

    @tool
    def token_usage(space: str | None = None) -> dict[str, Any]:
        """What the memory has cost in this space: LLM prompt and completion tokens (per
        layer) and the context tokens recall returned (per layer)."""
        name = target(space)
        return {"space": name, **memory.token_usage(name).as_dict()}

    return server


def serve(memory: GraphMemory, *, space: str) -> None:
    """Run the server on stdin/stdout until the client closes the connection."""
    build_server(memory, space=space).run("stdio")
