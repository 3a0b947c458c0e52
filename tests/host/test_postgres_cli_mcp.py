"""The CLI and the MCP server take a PostgreSQL URL wherever they take a SQLite path:
the README's sequence (init, import, index, search, read, status, rebuild, uninstall),
the same with a `--schema` mapping onto a host's own table and column names, and an MCP
session, on the test run's PostgreSQL server."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from chat_recall.adapters.cli.exits import Exit
from chat_recall.adapters.cli.main import main
from chat_recall.application.tools.search_chats import CURRENT_WITHIN_SECONDS
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


# A host whose names are all its own: mixed case and reserved words (quoted everywhere),
# timestamptz times, an integer compaction flag, columns chat-recall never reads.
MAPPED_HOST_DDL = (
    """CREATE TABLE "Threads" (
        tid bigint PRIMARY KEY,
        "Workspace" bigint NOT NULL,
        "Name" text,
        "when" timestamptz NOT NULL,
        secret text
    )""",
    """CREATE TABLE posts (
        pid bigint PRIMARY KEY,
        "thread" bigint NOT NULL REFERENCES "Threads" (tid) ON DELETE CASCADE,
        "user" text NOT NULL,
        "Body" text NOT NULL,
        "order" timestamptz NOT NULL,
        "summarised" smallint NOT NULL DEFAULT 0,
        raw_json text
    )""",
    """INSERT INTO "Threads" VALUES
        (1, 9, 'Deploy notes', '2024-01-01T10:00:00Z', 'k1'),
        (2, 9, 'Lunch', '2024-01-02T10:00:00Z', 'k2'),
        (3, 4, 'Other workspace', '2024-01-03T10:00:00Z', 'k3')""",
    """INSERT INTO posts VALUES
        (10, 1, 'user', 'Which canary percentage for the zeppelin rollout?',
         '2024-01-01T10:00:01Z', 0, '{}'),
        (11, 1, 'assistant', 'Start the zeppelin canary at five percent.',
         '2024-01-01T10:00:02Z', 0, '{}'),
        (12, 2, 'user', 'Soup or salad today?', '2024-01-02T10:00:01Z', 0, '{}'),
        (13, 3, 'user', 'zeppelin in another workspace', '2024-01-03T10:00:01Z', 0, '{}')""",
)

MAPPING = {
    "chats": "Threads",
    "chat_id": "tid",
    "chat_app_id": "Workspace",
    "chat_title": "Name",
    "chat_created_at": "when",
    "messages": "posts",
    "message_id": "pid",
    "message_chat_id": "thread",
    "message_role": "user",
    "message_content": "Body",
    "message_created_at": "order",
    "message_is_compaction_summary": "summarised",
    "timestamps": "iso_8601",
}


def test_the_readme_commands_work_on_a_postgresql_host_with_its_own_names(
    postgres_dsn: str, tmp_path: Path, capsys: Capture
) -> None:
    with psycopg.connect(postgres_dsn) as connection:
        for statement in MAPPED_HOST_DDL:
            connection.execute(statement)
    mapping = tmp_path / "mapping.json"
    mapping.write_text(json.dumps(MAPPING), encoding="utf-8")
    db = ("--db", postgres_dsn, "--schema", str(mapping))

    def search(query: str, app: str = "9", status: str = "ready") -> list[tuple[int, int]]:
        code, out, err = cli(capsys, "search", *db, "--app", app, "--format", "json", query)
        assert code == Exit.OK, err
        payload = json.loads(out)
        if status == "pending":  # messages wait: `indexing` once they have for a while
            lag = payload["index_coverage"].get("lag_seconds")
            current = lag is not None and lag <= CURRENT_WITHIN_SECONDS
            assert payload["index_status"] == ("ready" if current else "indexing")
        else:
            assert payload["index_status"] == status
        return [(r["chat_id"], m["message_id"]) for r in payload["results"] for m in r["matches"]]

    code, out, _ = cli(capsys, "install", *db)
    assert code == Exit.OK
    assert cli(capsys, "index", *db, "--quiet")[0] == Exit.OK
    assert (1, 10) in search("rollout")  # the planted message (its answer may come too)
    assert {m for _, m in search("zeppelin")} == {10, 11}
    assert {c for c, _ in search("deploy notes")} == {1}  # the mapped title is indexed
    assert {m for _, m in search("zeppelin", app="4")} == {13}  # each workspace its own
    code, out, _ = cli(capsys, "read", *db, "--app", "9", "--chat", "1", "--format", "json")
    assert code == Exit.OK
    read = json.loads(out)
    assert [m["message_id"] for m in read["messages"]] == [10, 11]
    assert read["messages"][0]["created_at"] == "2024-01-01T10:00:01.000Z"  # timestamptz
    assert "five percent" in json.dumps(read)
    assert "k1" not in out  # a column outside the mapping is never read
    code, out, err = cli(capsys, "read", *db, "--app", "4", "--chat", "1", "--format", "json")
    assert (code, json.loads(err)["error"]["kind"]) == (Exit.TOOL_ERROR, "not_found")
    # The triggers follow the mapped names: a new post is indexed, a deleted one gone.
    with psycopg.connect(postgres_dsn) as connection:
        connection.execute(
            "INSERT INTO posts VALUES (14, 2, 'user', 'zeppelin soup recipe', "
            "'2024-01-02T10:00:02Z', 0, '{}')"
        )
        connection.execute("DELETE FROM posts WHERE pid = 10")
    assert {m for _, m in search("zeppelin", status="pending")} == {11}  # deleted at once
    assert cli(capsys, "index", *db, "--quiet")[0] == Exit.OK
    assert {m for _, m in search("zeppelin")} == {11, 14}
    with psycopg.connect(postgres_dsn) as connection:
        connection.execute('DELETE FROM "Threads" WHERE tid = 1')  # cascades to its posts
        connection.execute('UPDATE "Threads" SET "Name" = \'Airship picnic\' WHERE tid = 2')
    assert {m for _, m in search("zeppelin", status="pending")} == {14}
    assert cli(capsys, "index", *db, "--quiet")[0] == Exit.OK
    assert {c for c, _ in search("airship")} == {2}  # a renamed thread's new title
    code, out, _ = cli(capsys, "status", *db, "--format", "json")
    status = json.loads(out)
    assert (code, status["healthy"]) == (Exit.OK, True), status["problems"]
    assert cli(capsys, "uninstall", *db)[0] == Exit.OK
    with psycopg.connect(postgres_dsn) as connection:
        left = connection.execute(
            "SELECT count(*) FROM pg_class WHERE relname LIKE 'chat\\_recall\\_%' "
            "AND relnamespace = current_schema()::regnamespace"
        ).fetchone()
        host_rows = connection.execute("SELECT count(*) FROM posts").fetchone()
    assert (left, host_rows) == ((0,), (3,))
