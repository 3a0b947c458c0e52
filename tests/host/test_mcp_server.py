"""`chat-recall mcp` driven by the MCP SDK's own client over stdio, as a subprocess."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from chat_recall.adapters import bootstrap
from chat_recall.domain.messages import Role

ROOT = Path(__file__).resolve().parents[2]


def make_database(path: Path) -> int:
    recall = bootstrap.sqlite(path, create_host_schema=True)
    chat_id = recall.host.create_chat(1, "Auth decisions", 1_700_000_000)
    recall.host.add_message(chat_id, Role.USER, "sessions or JWT?", 1_700_000_060)
    recall.host.add_message(
        chat_id, Role.ASSISTANT, "We chose sessions in Postgres.", 1_700_000_120
    )
    other = recall.host.create_chat(2, "Other app", 1_700_000_000)
    recall.host.add_message(other, Role.USER, "OTHERAPPMARKER sessions", 1_700_000_060)
    recall.indexer.run_until_idle()
    recall.close()
    return chat_id


def test_mcp_server_lists_searches_and_reads(tmp_path: Path) -> None:
    path = tmp_path / "mcp.db"
    chat_id = make_database(path)
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "chat_recall.adapters.cli.main", "mcp", "--db", str(path), "--app", "1"],
        cwd=str(ROOT),
    )

    async def scenario() -> None:
        with anyio.fail_after(60):
            await exchange()

    async def exchange() -> None:
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            tools = {tool.name: tool for tool in listed.tools}
            assert set(tools) == {"search_chats", "read_chat"}
            assert tools["search_chats"].annotations.read_only_hint is True
            assert "app_id" not in tools["read_chat"].input_schema["properties"]
            found = await session.call_tool("search_chats", {"query": "sessions"})
            payload = json.loads(found.content[0].text)
            assert not found.is_error
            assert "OTHERAPPMARKER" not in found.content[0].text
            top = payload["results"][0]
            assert top["chat_id"] == chat_id
            around = top["matches"][0]["message_id"]
            read_result = await session.call_tool(
                "read_chat", {"chat_id": chat_id, "around_message_id": around}
            )
            read_payload = json.loads(read_result.content[0].text)
            assert around in [m["message_id"] for m in read_payload["messages"]]
            bad = await session.call_tool("read_chat", {"chat_id": 10_000})
            assert bad.is_error
            assert json.loads(bad.content[0].text)["error"]["kind"] == "not_found"

    anyio.run(scenario)
