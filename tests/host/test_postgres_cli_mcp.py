"""The CLI and the MCP server take a PostgreSQL URL wherever they take a SQLite path:
the README's sequence (init, import, index, search, read, status, rebuild, uninstall)
and an MCP session, on the test run's PostgreSQL server."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from chat_recall.adapters.cli.exits import Exit
from chat_recall.adapters.cli.main import main
from tests.host.test_cli_commands import LINES, jsonl
from tests.host.test_mcp_server import run, session, validate

Capture = pytest.CaptureFixture[str]


def cli(capsys: Capture, *arguments: str) -> tuple[int, str, str]:
    code = main(list(arguments))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_cli_runs_every_command_on_a_postgresql_url(
    postgres_dsn: str, tmp_path: Path, capsys: Capture
) -> None:
    db = ("--db", postgres_dsn)
    code, out, _ = cli(capsys, "init", *db)
    assert code == Exit.OK
    assert "installed the index" in out
    code, out, _ = cli(capsys, "import", *db, str(jsonl(tmp_path / "h.jsonl", LINES)))
    assert (code, out.split(";")[0]) == (Exit.OK, "imported 2 chats and 3 messages")
    assert cli(capsys, "index", *db, "--quiet")[0] == Exit.OK
    code, out, _ = cli(capsys, "search", *db, "--app", "1", "--format", "json", "sessions")
    payload = json.loads(out)
    assert (code, payload["index_status"]) == (Exit.OK, "ready")
    assert [r["chat_id"] for r in payload["results"]] == [7]
    code, out, _ = cli(
        capsys, "read", *db, "--app", "1", "--chat", "7", "--around", "43", "--format", "json"
    )
    assert [m["message_id"] for m in json.loads(out)["messages"]] == [42, 43]
    code, out, err = cli(capsys, "read", *db, "--app", "2", "--chat", "7", "--format", "json")
    assert code == Exit.TOOL_ERROR
    assert json.loads(err)["error"]["kind"] == "not_found"
    code, out, _ = cli(capsys, "status", *db, "--format", "json")
    status = json.loads(out)
    assert (code, status["healthy"], status["backlog"]["messages"]) == (Exit.OK, True, 0)
    assert [(a["app_id"], a["documents"]) for a in status["apps"]] == [(1, 2), (2, 1)]
    assert cli(capsys, "rebuild", *db, "--quiet")[0] == Exit.OK
    code, out, _ = cli(capsys, "uninstall", *db)
    assert code == Exit.OK
    with psycopg.connect(postgres_dsn) as connection:
        left = connection.execute(
            "SELECT count(*) FROM pg_class WHERE relname LIKE 'chat\\_recall\\_%' "
            "AND relnamespace = current_schema()::regnamespace"
        ).fetchone()
        host_rows = connection.execute("SELECT count(*) FROM messages").fetchone()
    assert left == (0,)
    assert host_rows == (3,)


def test_status_reports_a_dropped_trigger(postgres_dsn: str, capsys: Capture) -> None:
    assert cli(capsys, "init", "--db", postgres_dsn)[0] == Exit.OK
    with psycopg.connect(postgres_dsn) as connection:
        connection.execute("DROP TRIGGER chat_recall_message_inserted ON messages")
    code, out, _ = cli(capsys, "status", "--db", postgres_dsn, "--format", "json")
    assert code == Exit.UNHEALTHY
    assert any("chat_recall_message_inserted" in p for p in json.loads(out)["problems"])
    assert cli(capsys, "repair", "--db", postgres_dsn)[0] == Exit.OK
    assert cli(capsys, "status", "--db", postgres_dsn)[0] == Exit.OK


def test_the_mcp_server_serves_a_postgresql_database(
    postgres_dsn: str, tmp_path: Path, capsys: Capture
) -> None:
    assert cli(capsys, "init", "--db", postgres_dsn)[0] == Exit.OK
    assert cli(capsys, "import", "--db", postgres_dsn, str(jsonl(tmp_path / "h", LINES)))[0] == 0

    async def scenario() -> None:
        async with session("--db", postgres_dsn, "--app", "1") as client:
            await client.initialize()
            found = await client.call_tool("search_chats", {"query": "sessions postgres"})
            assert not found.is_error
            validate("search_chats", found.structured_content)
            assert found.structured_content["results"][0]["chat_id"] == 7
            read = await client.call_tool("read_chat", {"chat_id": 7})
            assert [m["message_id"] for m in read.structured_content["messages"]] == [42, 43]

    run(scenario)
