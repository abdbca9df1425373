"""LLM tokens are booked to the space of the call that spent them, whatever other threads
are doing through the same GraphMemory (issue 17: a shared "current space" attribute let two
threads serving different spaces book each other's tokens)."""

from __future__ import annotations

import threading
from typing import TypeVar

from pydantic import BaseModel

from graphmem_neo4j.errors import LLMError
from graphmem_neo4j.experience.models import Step, Trajectory
from graphmem_neo4j.llm import TokenUsage
from graphmem_neo4j.memory import GraphMemory

T = TypeVar("T", bound=BaseModel)


class MeetingLLM:
    """Every call spends 100 + 10 tokens, but only once the other thread is inside a call
    too, so both calls are in flight at the same time; then the answer is unusable and the
    layer takes its offline path."""

    model = "meeting"

    def __init__(self, parties: int) -> None:
        self.usage = TokenUsage()
        self._meet = threading.Barrier(parties)
        self._lock = threading.Lock()

    def complete_json(self, *, system: str, user: str, schema: type[T]) -> T:
        self._meet.wait(timeout=60)
        with self._lock:
            self.usage.add(100, 10)
        raise LLMError("no usable answer")


def run(task: str) -> Trajectory:
    steps = (Step("go to fridge 1", "You arrive at fridge 1."), Step("open fridge 1", "Done."))
    return Trajectory(id=task, task=task, kind="expert", reward=1.0, steps=steps)


def test_two_threads_book_their_own_spaces_tokens(memory: GraphMemory, space: str) -> None:
    llm = MeetingLLM(2)
    shared = GraphMemory(memory.settings, embedder=memory.embedder, llm=llm)
    spaces = (f"{space}-a", f"{space}-b")
    errors: list[BaseException] = []

    def serve(name: str, task: str) -> None:
        try:
            shared.add_trajectory(run(task), space=name)
        except BaseException as e:  # reported below: a thread's failure must fail the test
            errors.append(e)

    threads = [
        threading.Thread(target=serve, args=(spaces[0], "put a cool egg in the fridge")),
        threading.Thread(target=serve, args=(spaces[1], "put a hot mug on the desk")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert llm.usage.calls == 2  # both calls happened, each in its own thread
    for name in spaces:
        totals = shared.token_usage(name)
        assert (totals.llm.calls, totals.llm.total_tokens) == (1, 110), name
        assert totals.llm_by_layer == {"experience": 110}, name
    shared.close()
