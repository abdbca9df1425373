"""`graphmem serve`: the official `mcp` client over HTTP with API keys, on both engines.

Each key is confined to its spaces and rights; no key, a wrong key or a revoked key gets 401;
bad requests get clear errors and change nothing; secrets never reach the logs."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from graphmem_neo4j.keys import KeyRing
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.serve import MAX_BODY_BYTES, Background

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@asynccontextmanager
async def connect(
    url: str, key: str, statuses: list[int] | None = None
) -> AsyncIterator[ClientSession]:
    """A session of the official client; `statuses` collects each HTTP response's status."""
    auth = {"Authorization": f"Bearer {key}"}

    async def seen(response: httpx2.Response) -> None:
        if statuses is not None:
            statuses.append(response.status_code)

    async with (
        httpx2.AsyncClient(headers=auth, timeout=60, event_hooks={"response": [seen]}) as http,
        streamable_http_client(url, http_client=http) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, args: dict[str, Any]) -> tuple[bool, str]:
    result = await session.call_tool(tool, args)
    text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
    return bool(result.is_error), text


def turns(*texts: str) -> list[dict[str, str]]:
    return [{"speaker": "user", "text": t} for t in texts]


def count_turns(memory: GraphMemory, space: str) -> int:
    if space not in {s["id"] for s in memory.spaces()}:
        return 0
    return int(memory.stats(space)["nodes"].get("Turn", 0))


def post(url: str, body: bytes | str, key: str | None) -> httpx2.Response:
    headers = dict(HEADERS)
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    return httpx2.post(url, content=body, headers=headers, timeout=30)


@pytest.fixture
def served(memory: GraphMemory) -> Any:
    with Background(memory) as server:
        yield server


def test_two_keys_at_once_each_confined_to_its_space(
    memory: GraphMemory, served: Background, space: str
) -> None:
    keys = KeyRing(memory.store)
    a, b = f"{space}-a", f"{space}-b"
    key_a, _ = keys.create([a])
    key_b, _ = keys.create([b])

    async def client(key: str, own: str, other: str, word: str) -> list[tuple[bool, str]]:
        async with connect(served.url, key) as s:
            out = [await call(s, "add_turns", {"turns": turns(f"my secret word is {word}")})]
            for _ in range(3):
                out.append(await call(s, "recall", {"query": "secret word"}))
            out.append(await call(s, "recall", {"query": "secret word", "space": other}))
            out.append(await call(s, "recall", {"query": "x", "space": f"{space}-none"}))
            out.append(await call(s, "add_turns", {"turns": turns("intrude"), "space": other}))
            out.append(await call(s, "token_usage", {"space": other}))
            return out

    async def both() -> list[list[tuple[bool, str]]]:
        return list(
            await asyncio.gather(client(key_a, a, b, "aardvark"), client(key_b, b, a, "bumblebee"))
        )

    out_a, out_b = asyncio.run(both())
    for out, mine, theirs, other in (
        (out_a, "aardvark", "bumblebee", b),
        (out_b, "bumblebee", "aardvark", a),
    ):
        assert not out[0][0], out[0]
        for error, text in out[1:4]:
            assert not error and mine in text and theirs not in text
        # another key's space and a space that does not exist are refused alike
        assert out[4] == (True, out[4][1]) and f"may not use space '{other}'" in out[4][1]
        assert out[5][0] and "may not use space" in out[5][1]
        assert out[4][1].replace(other, "X") == out[5][1].replace(f"{space}-none", "X")
        assert out[6][0] and "may not use space" in out[6][1]
        assert out[7][0] and "may not use space" in out[7][1]
    assert count_turns(memory, a) == 1 and count_turns(memory, b) == 1
    assert f"{space}-none" not in {s["id"] for s in memory.spaces()}


def test_no_key_wrong_key_and_revoked_key_get_401(
    memory: GraphMemory, served: Background, space: str
) -> None:
    keys = KeyRing(memory.store)
    key, record = keys.create([space])
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert post(served.url, ping, None).status_code == 401
    assert post(served.url, ping, key[:-2] + "xx").status_code == 401
    assert post(served.url, ping, "not-even-a-key").status_code == 401
    refused = post(served.url, ping, None)
    assert refused.headers["www-authenticate"].startswith("Bearer")
    assert "API key" in refused.json()["message"]

    statuses: list[int] = []

    async def run() -> tuple[tuple[bool, str], BaseException | None]:
        async with connect(served.url, key, statuses) as s:
            first = await call(s, "add_turns", {"turns": turns("before revoking")})
            keys.revoke(record.id)  # mid-run, as `graphmem keys revoke` in another shell
            try:
                await call(s, "add_turns", {"turns": turns("after revoking")})
            except BaseException as e:  # the client surfaces the 401 as an error
                return first, e
            return first, None

    try:
        first, refused_error = asyncio.run(run())
    except BaseException as e:
        first, refused_error = (False, "before"), e
    assert not first[0]
    assert refused_error is not None
    assert statuses[0] == 200 and statuses[-1] == 401
    assert post(served.url, ping, key).status_code == 401
    assert count_turns(memory, space) == 1
    assert next(k for k in keys.list() if k.id == record.id).last_used_at is not None


def test_read_only_key_reads_but_cannot_write(
    memory: GraphMemory, served: Background, space: str
) -> None:
    keys = KeyRing(memory.store)
    writer, _ = keys.create([space])
    reader, _ = keys.create([space], read_only=True)

    async def run() -> list[tuple[bool, str]]:
        async with connect(served.url, writer) as s:
            await call(s, "add_turns", {"turns": turns("the door code is 4711")})
        async with connect(served.url, reader) as s:
            fact = {"subject": "door", "relation": "code", "object": "1", "category": "c"}
            return [
                await call(s, "recall", {"query": "door code"}),
                await call(s, "add_turns", {"turns": turns("overwrite")}),
                await call(s, "add_facts", {"facts": [fact]}),
                await call(s, "feedback", {"task_id": "t1"}),
            ]

    out = asyncio.run(run())
    assert not out[0][0] and "4711" in out[0][1]
    for error, text in out[1:]:
        assert error and "read-only" in text
    assert count_turns(memory, space) == 1


def test_bad_requests_get_clear_errors_and_change_nothing(
    memory: GraphMemory, served: Background, space: str
) -> None:
    key, _ = KeyRing(memory.store).create([space])
    bad_json = post(served.url, b"{not json", key)
    assert bad_json.status_code == 400
    assert bad_json.json()["error"]["code"] == -32700  # JSON-RPC parse error
    not_rpc = post(served.url, json.dumps({"hello": "world"}), key)
    assert not_rpc.status_code == 400 and "error" in not_rpc.json()
    big = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "add_turns", "arguments": {"turns": turns("x" * MAX_BODY_BYTES)}},
        }
    )
    too_big = post(served.url, big, key)
    assert too_big.status_code == 413

    async def run() -> list[tuple[bool, str]]:
        async with connect(served.url, key) as s:
            return [
                await call(s, "no_such_tool", {}),
                await call(s, "add_turns", {"turns": "not a list"}),
                await call(s, "recall", {"query": "x", "budget_tokens": "lots"}),
                await call(s, "add_turns", {"turns": [{"speaker": "u"}]}),
            ]

    unknown, wrong_list, wrong_int, missing_text = asyncio.run(run())
    assert unknown[0] and "no_such_tool" in unknown[1]
    assert wrong_list[0] and "turns" in wrong_list[1]
    assert wrong_int[0] and "budget_tokens" in wrong_int[1]
    assert missing_text[0] and "text" in missing_text[1]
    assert count_turns(memory, space) == 0


def test_server_survives_a_client_that_disconnects_mid_call(
    memory: GraphMemory, served: Background, space: str
) -> None:
    key, _ = KeyRing(memory.store).create([space])
    served.app.lock.acquire()  # holds every call until released: the client gives up first
    call_body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "add_turns", "arguments": {"turns": turns("half way")}},
        }
    )
    headers = {**HEADERS, "Authorization": f"Bearer {key}"}
    try:
        with pytest.raises(httpx2.TimeoutException):
            httpx2.post(served.url, content=call_body, headers=headers, timeout=0.5)
    finally:
        served.app.lock.release()

    async def run() -> tuple[bool, str]:
        async with connect(served.url, key) as s:
            await call(s, "add_turns", {"turns": turns("after the disconnect")})
            return await call(s, "recall", {"query": "after the disconnect"})

    error, text = asyncio.run(run())
    assert not error and "after the disconnect" in text


def test_secrets_never_reach_the_logs(
    memory: GraphMemory,
    served: Background,
    space: str,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    keys = KeyRing(memory.store)
    key, record = keys.create([space])
    wrong = key[:-4] + "zzzz"
    caplog.set_level(logging.DEBUG)

    async def run() -> None:
        async with connect(served.url, key) as s:
            await call(s, "add_turns", {"turns": turns("hello")})
            await call(s, "recall", {"query": "hello", "space": "elsewhere"})

    asyncio.run(run())
    post(served.url, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}), wrong)
    keys.revoke(record.id)
    post(served.url, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}), key)
    out, err = capfd.readouterr()
    logged = caplog.text + out + err
    assert "refused POST /mcp" in logged  # the refusals are logged ...
    for secret in (key, wrong, key.split("_", 2)[-1], wrong.split("_", 2)[-1]):  # gmk_<id>_<secret>
        assert secret not in logged  # ... without the keys
    assert threading.active_count() >= 1


def test_one_plain_post_is_one_call(memory: GraphMemory, served: Background, space: str) -> None:
    """No MCP client needed: the server is stateless and answers JSON (docs/serve.md)."""
    key, _ = KeyRing(memory.store).create([space])
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "add_turns", "arguments": {"turns": turns("plain post")}},
    }
    reply = post(served.url, json.dumps(body), key)
    assert reply.status_code == 200 and reply.json()["result"]["isError"] is False
    listed = post(served.url, json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}), key)
    tools = {t["name"]: t for t in listed.json()["result"]["tools"]}
    assert "query" in tools["recall"]["inputSchema"]["properties"]
    assert count_turns(memory, space) == 1
