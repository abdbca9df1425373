"""One transcript updates every layer (`graphmem chat-log FILE`, `GraphMemory.add_chat_log`).

A chat log is JSONL; each line is one of

    a turn     {"speaker"|"role": str, "text"|"content": str, "timestamp"?: ISO-8601,
                "turn_id"?: str, "session"?: str, ...other keys kept as turn metadata}
    a step     {"action": str, "observation": str}            (an agent's tool call)
    an outcome {"outcome": "resolved"|"failed", "task_id"?: str, "query"?: str,
                "reward"?: 0..1, "answer"?: str, "feedback"?: str,
                "task_type"?: str}   (at most one; task_type: the kind of task, when known)

and it becomes
    conversation  every turn (turn ids default to `<session>#<n>`, n = the turn's position)
    facts         statements read from the people's turns: the LLM when one is configured,
                  else the offline patterns after rewriting first person ("I moved to Lisbon",
                  said by Maya → "Maya moved to Lisbon"); each fact's source is its turn
    insights      with an outcome: a task record (the query defaults to the first turn; the
                  steps are the agent steps, or else the replies), judged by the controller
    experience    with an outcome and agent steps: a trajectory of the task (resolved →
                  expert run, failed → exploration run)

Everything is read and checked before anything is written; each layer's write is
idempotent, so running the same log twice stores it once.

Modules: parsing.py (the file), heuristics.py (the English rules of the offline path),
workflow.py (plan, then ingest), adapters.py (dicts from the API and the MCP server).
"""

from .adapters import task_from, trajectory_from, turns_from
from .heuristics import (
    NO_FACTS_FROM,
    dialogue_steps,
    offline_facts,
    statements_of,
    task_id_for,
    third_person,
    transcript,
)
from .parsing import (
    ChatLog,
    ChatOutcome,
    ChatStep,
    check_reward,
    merge_outcome,
    parse_chat_log,
    parse_turn,
    read_chat_log,
    session_name,
)
from .workflow import ChatLogReport, ChatPlan, ingest, plan_task, prepare

__all__ = [
    "NO_FACTS_FROM",
    "ChatLog",
    "ChatLogReport",
    "ChatOutcome",
    "ChatPlan",
    "ChatStep",
    "check_reward",
    "dialogue_steps",
    "ingest",
    "merge_outcome",
    "offline_facts",
    "parse_chat_log",
    "parse_turn",
    "plan_task",
    "prepare",
    "read_chat_log",
    "session_name",
    "statements_of",
    "task_from",
    "task_id_for",
    "third_person",
    "trajectory_from",
    "transcript",
    "turns_from",
]
