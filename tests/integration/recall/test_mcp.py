"""`graphmem mcp` spoken to by the real MCP client library, over stdio, in a child process."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from mcp import Client, StdioServerParameters

from .conftest import EXAMPLES

SERVER = "from graphmem_neo4j.cli.main import run; run()"


def params(env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-c", SERVER, "mcp", "--space", "agent"], env=env
    )


def payload(result: Any) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def test_an_agent_remembers_recalls_and_learns_over_stdio(cli_env: dict[str, str]) -> None:
    run = json.loads((EXAMPLES / "experience" / "one_expert.jsonl").read_text().splitlines()[0])

    async def session() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with Client(params(cli_env), read_timeout_seconds=120) as client:
            tools = await client.list_tools()
            out["tools"] = {t.name: t for t in tools.tools}
            out["turns"] = payload(
                await client.call_tool(
                    "add_turns",
                    {
                        "turns": [
                            {"role": "user", "content": "I adopted a grey kitten named Pixel."},
                            {"role": "assistant", "content": "Pixel is a lovely name!"},
                        ]
                    },
                )
            )
            out["facts"] = payload(
                await client.call_tool(
                    "add_facts",
                    {
                        "facts": [
                            {
                                "subject": "user",
                                "relation": "owns",
                                "object": "Pixel",
                                "category": "possession",
                            }
                        ]
                    },
                )
            )
            out["task"] = payload(
                await client.call_tool(
                    "record_task",
                    {
                        "task": {
                            "id": "name-pet-1",
                            "query": "suggest a name for a grey kitten",
                            "status": "resolved",
                            "steps": [{"action": "suggest Pixel", "observation": "accepted"}],
                        },
                        "learn": False,
                    },
                )
            )
            out["trajectory"] = payload(
                await client.call_tool("add_trajectory", {"trajectory": run, "kind": "expert"})
            )
            out["recall"] = payload(
                await client.call_tool(
                    "recall", {"query": "What is the kitten called?", "budget_tokens": 300}
                )
            )
            out["feedback"] = payload(await client.call_tool("feedback", {"task_id": "name-pet-1"}))
            out["usage"] = payload(await client.call_tool("token_usage", {}))
            out["bad"] = await client.call_tool("add_turns", {"turns": [{"role": "user"}]})
            out["unknown"] = await client.call_tool("recall", {"query": "x", "space": "nobody"})
        return out

    out = asyncio.run(session())
    assert set(out["tools"]) == {
        "recall",
        "add_turns",
        "add_facts",
        "record_task",
        "add_trajectory",
        "feedback",
        "token_usage",
    }
    recall_schema = out["tools"]["recall"].input_schema
    assert recall_schema["required"] == ["query"]
    assert "budget_tokens" in recall_schema["properties"]
    assert out["turns"]["turns_written"] == 2 and out["turns"]["space"] == "agent"
    assert out["facts"]["counts"]["created"] == 1
    assert out["task"]["outcome"] == "recorded"
    assert out["trajectory"]["added"] == 1
    recalled = out["recall"]
    assert recalled["space"] == "agent" and recalled["tokens_used"] <= 300
    assert any("Pixel" in item["text"] for item in recalled["items"])
    assert "Pixel" in recalled["context"]
    assert out["feedback"]["applied"] and out["feedback"]["created"]
    assert out["usage"]["recall"]["calls"] == 1
    assert out["usage"]["recall"]["context_tokens"] == recalled["tokens_used"]
    assert out["bad"].is_error and "text" in out["bad"].content[0].text
    assert out["unknown"].is_error and "unknown space" in out["unknown"].content[0].text
