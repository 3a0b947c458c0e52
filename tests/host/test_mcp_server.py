"""`chat-recall mcp` driven by the MCP SDK's own client over stdio, as a subprocess."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

import chat_recall
from chat_recall.adapters import bootstrap
from chat_recall.domain.messages import Role

ROOT = Path(__file__).resolve().parents[2]
DEFINITIONS = [tool.definition for tool in bootstrap.TOOLS]


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


@asynccontextmanager
async def session(*arguments: str, errlog: Any = None) -> AsyncIterator[ClientSession]:
    parameters = StdioServerParameters(
        command=sys.executable, args=["-m", "chat_recall", "mcp", *arguments], cwd=str(ROOT)
    )
    client = stdio_client(parameters) if errlog is None else stdio_client(parameters, errlog)
    async with client as (read, write), ClientSession(read, write) as opened:
        yield opened


def run(scenario: Callable[[], Any]) -> None:
    async def bounded() -> None:
        with anyio.fail_after(90):
            await scenario()

    anyio.run(bounded)


def validate(tool: str, structured: Any) -> None:
    schema = next(d.output_schema for d in DEFINITIONS if d.name == tool)
    jsonschema.validate(structured, schema)


def test_mcp_server_lists_searches_and_reads(tmp_path: Path) -> None:
    path = tmp_path / "mcp.db"
    chat_id = make_database(path)

    async def scenario() -> None:
        async with session("--db", str(path), "--app", "1") as client:
            initialized = await client.initialize()
            assert initialized.server_info.version == chat_recall.__version__
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == {"search_chats", "read_chat", "list_chats"}
            assert tools["search_chats"].annotations.read_only_hint is True
            assert "app_id" not in tools["read_chat"].input_schema["properties"]
            for definition in DEFINITIONS:
                assert tools[definition.name].output_schema == definition.output_schema
            found = await client.call_tool("search_chats", {"query": "sessions"})
            assert not found.is_error
            payload = json.loads(found.content[0].text)
            assert found.structured_content == payload
            validate("search_chats", found.structured_content)
            assert "OTHERAPPMARKER" not in found.content[0].text
            top = payload["results"][0]
            assert top["chat_id"] == chat_id
            around = top["matches"][0]["message_id"]
            read_result = await client.call_tool(
                "read_chat", {"chat_id": chat_id, "around_message_id": around}
            )
            validate("read_chat", read_result.structured_content)
            assert around in [m["message_id"] for m in read_result.structured_content["messages"]]
            listed = await client.call_tool("list_chats", {"order": "oldest"})
            validate("list_chats", listed.structured_content)
            assert chat_id in [c["chat_id"] for c in listed.structured_content["chats"]]
            assert "OTHERAPPMARKER" not in listed.content[0].text
            bad = await client.call_tool("read_chat", {"chat_id": 10_000})
            assert bad.is_error
            assert bad.structured_content is None
            assert json.loads(bad.content[0].text)["error"]["kind"] == "not_found"
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("drop_tables", {})
            assert unknown.value.code == -32602  # invalid params, per the MCP specification
            assert "Unknown tool: drop_tables" in unknown.value.message

    run(scenario)


def test_a_message_the_host_writes_during_the_session_is_found_within_two_seconds(
    tmp_path: Path,
) -> None:
    path = tmp_path / "fresh.db"
    chat_id = make_database(path)

    async def scenario() -> None:
        async with session("--db", str(path), "--app", "1") as client:
            await client.initialize()
            before = await client.call_tool("search_chats", {"query": "zanzibar"})
            assert before.structured_content["results"] == []
            # The host, in its own process, writes through its own connection.
            host = bootstrap.sqlite(path)
            message_id = host.host.add_message(
                chat_id, Role.USER, "the zanzibar release is due Friday", 1_700_000_200
            )
            host.close()
            written = time.monotonic()
            with anyio.fail_after(2):
                while True:
                    found = await client.call_tool("search_chats", {"query": "zanzibar"})
                    results = found.structured_content["results"]
                    if results:
                        break
            assert time.monotonic() - written < 2
            assert results[0]["matches"][0]["message_id"] == message_id
            assert found.structured_content["index_status"] == "ready"

    run(scenario)


def test_read_only_leaves_indexing_to_the_host_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "ro.db"
    chat_id = make_database(path)
    host = bootstrap.sqlite(path)
    host.host.add_message(chat_id, Role.USER, "pending words", 1_700_000_300)
    host.close()
    with sqlite3.connect(path) as connection:  # as if no indexer had caught up for long
        connection.execute("DELETE FROM chat_recall_meta WHERE key = 'caught_up'")

    async def scenario() -> None:
        async with session("--db", str(path), "--app", "1", "--read-only") as client:
            await client.initialize()
            found = await client.call_tool("search_chats", {"query": "sessions"})
            validate("search_chats", found.structured_content)
            assert found.structured_content["index_status"] == "indexing"
            assert found.structured_content["index_coverage"] == {
                "indexed_messages": 2,
                "pending_messages": 1,
                "indexer": "elsewhere",
            }

    run(scenario)


@pytest.mark.parametrize(
    ("case", "fix"),
    [
        ("no database", "no database at"),
        ("not installed", "chat-recall is not installed in this database"),
        ("no app", "no app: add --app ID"),
    ],
)
def test_start_up_problems_reach_the_client_and_stderr(tmp_path: Path, case: str, fix: str) -> None:
    path = tmp_path / "problem.db"
    arguments = ["--db", str(path), "--app", "1"]
    if case == "not installed":
        make_database(path)
        assert (
            subprocess.run(
                [sys.executable, "-m", "chat_recall", "uninstall", "--db", str(path)],
                capture_output=True,
                check=False,
            ).returncode
            == 0
        )
    elif case == "no app":
        make_database(path)
        arguments = ["--db", str(path)]
    errors = tmp_path / "stderr.txt"

    async def scenario() -> None:
        with errors.open("w") as errlog:
            async with session(*arguments, errlog=errlog) as client:
                initialized = await client.initialize()
                assert fix in (initialized.instructions or "")
                listed = await client.list_tools()
                assert {tool.name for tool in listed.tools} == {
                    "search_chats",
                    "read_chat",
                    "list_chats",
                }
                answer = await client.call_tool("search_chats", {"query": "anything"})
                assert answer.is_error
                error = json.loads(answer.content[0].text)["error"]
                assert error["kind"] == "not_ready"
                assert fix in error["message"]

    run(scenario)
    assert fix in errors.read_text()
    if case == "no database":
        assert not path.exists()


@pytest.mark.parametrize("case", ["no database", "not installed"])
def test_a_server_started_too_early_serves_once_the_problem_is_fixed(
    tmp_path: Path, case: str
) -> None:
    """A client often starts its MCP servers before the app has created its database:
    the fix the error names works without restarting the server."""
    path = tmp_path / "later.db"
    if case == "not installed":
        make_database(path)
        done = subprocess.run(
            [sys.executable, "-m", "chat_recall", "uninstall", "--db", str(path)],
            capture_output=True,
            check=False,
        )
        assert done.returncode == 0

    async def scenario() -> None:
        async with session("--db", str(path), "--app", "1") as client:
            await client.initialize()
            early = await client.call_tool("search_chats", {"query": "sessions"})
            assert early.is_error
            assert json.loads(early.content[0].text)["error"]["kind"] == "not_ready"
            if case == "no database":
                await anyio.to_thread.run_sync(make_database, path)
            else:
                await anyio.to_thread.run_sync(
                    lambda: subprocess.run(
                        [sys.executable, "-m", "chat_recall", "install", "--db", str(path)],
                        capture_output=True,
                        check=True,
                    )
                )
            answer = await client.call_tool("search_chats", {"query": "sessions"})
            assert not answer.is_error, answer.content[0].text
            results = answer.structured_content["results"]
            assert [r["title"] for r in results] == ["Auth decisions"]

    run(scenario)


def test_without_the_mcp_extra_the_command_prints_how_to_install_it(tmp_path: Path) -> None:
    probe = (
        "import sys; sys.modules['mcp'] = None\n"
        "from chat_recall.adapters.cli.main import main\n"
        f"sys.exit(main(['mcp', '--db', {str(tmp_path / 'x.db')!r}, '--app', '1']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "chat-recall mcp needs the MCP SDK" in result.stderr
    assert "pip install '.[mcp]'" in result.stderr


def test_request_lines_the_sdk_cannot_read_are_answered(tmp_path: Path) -> None:
    """A lone surrogate escape (what JSON.stringify writes for a string cut inside an
    emoji) is read as U+FFFD and served; JSON that is no valid request gets an error
    for its id; the server goes on answering. Raw lines, since the SDK's client would
    not send them."""
    path = tmp_path / "mcp.db"
    make_database(path)
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    raw = [json.dumps(line) for line in lines]
    call = '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"search_chats",'
    raw.append(call % 2 + '"arguments":{"query":"sessions \\ud83d"}}}')
    raw.append(call % '"three"' + '"arguments":{"query":"\\udfff"}}, "extra": "\\ud800"}')
    raw.append('{"jsonrpc":"2.0","id":4,"method":7,"params":"\\ud800"}')
    raw.append("not json at all")
    raw.append(call % 5 + '"arguments":{"query":"sessions"}}}')
    server = subprocess.Popen(
        [sys.executable, "-m", "chat_recall", "mcp", "--db", str(path), "--app", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    assert server.stdin is not None
    assert server.stdout is not None
    watchdog = threading.Timer(60, server.kill)  # a reply that never comes ends the read
    watchdog.start()
    try:
        server.stdin.write("\n".join(raw) + "\n")
        server.stdin.flush()
        replies: dict[object, Any] = {}
        while len(replies) < 5 and (line := server.stdout.readline()):
            reply = json.loads(line)
            replies[reply["id"]] = reply
    finally:
        watchdog.cancel()
        server.stdin.close()
        server.wait(timeout=30)
    assert set(replies) == {1, 2, "three", 4, 5}
    found = replies[2]["result"]["structuredContent"]
    assert found["query"] == "sessions \ufffd"
    assert found["results"], "the readable part of the query still finds the chat"
    assert replies["three"]["result"]["structuredContent"]["results"] == []
    assert replies[4]["error"]["code"] == -32600
    assert replies[5]["result"]["structuredContent"]["results"]


def test_what_start_up_loaded_is_frozen_before_serving(monkeypatch: pytest.MonkeyPatch) -> None:
    """A full garbage collection walked every object the SDK and the facade loaded
    (41-46 ms here), the one slow call in a search class's p95 through MCP: serving
    begins with them frozen, out of the collector's way."""
    import gc

    from chat_recall.adapters import mcp_server

    frozen_when_serving: list[int] = []
    monkeypatch.setattr(
        mcp_server.anyio, "run", lambda _: frozen_when_serving.append(gc.get_freeze_count())
    )
    gc.unfreeze()
    try:
        mcp_server.run_stdio(mcp_server.build_problem_server("not installed"))
        (frozen,) = frozen_when_serving
        assert frozen > 1000
    finally:
        gc.unfreeze()
