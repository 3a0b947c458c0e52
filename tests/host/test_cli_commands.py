"""The `chat-recall` commands, run in-process as a terminal user would."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from chat_recall.adapters.cli.main import main

LINES = [
    {"type": "chat", "id": 7, "app_id": 1, "title": "Auth", "created_at": 1_700_000_000},
    {
        "type": "message",
        "id": 42,
        "chat_id": 7,
        "role": "user",
        "content": "Sessions or JWT for login?",
        "created_at": 1_700_000_001,
        "is_compaction_summary": False,
    },
    {
        "type": "message",
        "id": 43,
        "chat_id": 7,
        "role": "assistant",
        "content": "We chose sessions stored in Postgres.",
        "created_at": 1_700_000_002,
        "is_compaction_summary": False,
    },
    {"type": "chat", "id": 8, "app_id": 2, "title": None, "created_at": 1_700_000_000},
    {
        "type": "message",
        "id": 44,
        "chat_id": 8,
        "role": "user",
        "content": "sessions elsewhere",
        "created_at": 1_700_000_003,
    },
]


@pytest.fixture
def database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "cli.db"
    history = tmp_path / "history.jsonl"
    history.write_text("\n".join(json.dumps(line) for line in LINES) + "\n", encoding="utf-8")
    assert main(["init", "--db", str(path)]) == 0
    assert main(["import", "--db", str(path), str(history)]) == 0
    assert main(["index", "--db", str(path)]) == 0
    capsys.readouterr()
    return path


def test_search_prints_the_tool_json(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "--db", str(database), "--app", "1", "login sessions"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert [r["chat_id"] for r in output["results"]] == [7]
    assert {m["message_id"] for m in output["results"][0]["matches"]} == {42, 43}
    assert main(["search", "--db", str(database), "--app", "1", "--chat", "7", "sessions"]) == 0
    assert json.loads(capsys.readouterr().out)["results"] == []


def test_read_prints_the_tool_json(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    arguments = ["read", "--db", str(database), "--app", "1", "--chat", "7"]
    assert main([*arguments, "--around", "43", "--before", "1", "--after", "0"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert [m["message_id"] for m in output["messages"]] == [42, 43]
    assert main([*arguments, "--current-chat", "7", "--current-message", "43"]) == 0
    assert [m["message_id"] for m in json.loads(capsys.readouterr().out)["messages"]] == [42]
    assert main(["read", "--db", str(database), "--app", "2", "--chat", "7"]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["kind"] == "not_found"


def test_a_bad_import_line_is_reported_with_its_number_and_not_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.db"
    history = tmp_path / "bad.jsonl"
    history.write_text(
        '{"type": "chat", "id": 1, "app_id": 1, "title": "t", "created_at": 1}\n'
        '{"type": "message", "id": 5, "chat_id": 1, "role": "robot", "content": "x", '
        '"created_at": 2}\n'
        "{not json\n"
        '{"type": "message", "id": 6, "chat_id": 1, "role": "user", "content": "ok", '
        '"created_at": 3}\n',
        encoding="utf-8",
    )
    assert main(["import", "--db", str(path), str(history)]) == 1
    captured = capsys.readouterr()
    assert "line 2:" in captured.err
    assert "line 3:" in captured.err
    assert "imported 1 chats and 1 messages; 2 bad lines" in captured.out
    rows = sqlite3.connect(path).execute("SELECT id FROM messages ORDER BY id").fetchall()
    assert rows == [(6,)]


def test_status_rebuild_uninstall_install(
    database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["status", "--db", str(database)]) == 0
    status = capsys.readouterr().out
    assert "integrity: ok" in status
    assert "backlog: 0 messages" in status
    assert main(["rebuild", "--db", str(database)]) == 0
    assert "rebuilt: 3 messages indexed" in capsys.readouterr().out
    assert main(["uninstall", "--db", str(database)]) == 0
    assert main(["search", "--db", str(database), "--app", "1", "x"]) == 1
    assert "not installed" in capsys.readouterr().err
    assert main(["install", "--db", str(database)]) == 0
    assert "3 messages to index" in capsys.readouterr().out


def test_install_with_a_schema_mapping(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mapped.db"
    connection = sqlite3.connect(path)
    connection.executescript(
        "CREATE TABLE threads (tid INTEGER PRIMARY KEY, ws INTEGER, name TEXT, at INTEGER);"
        "CREATE TABLE posts (pid INTEGER PRIMARY KEY, thread INTEGER, author TEXT, body TEXT,"
        " at INTEGER);"
        "INSERT INTO threads VALUES (1, 3, 'Mapped', 1);"
        "INSERT INTO posts VALUES (1, 1, 'user', 'mapped words', 2);"
    )
    connection.commit()
    connection.close()
    mapping = tmp_path / "schema.json"
    mapping.write_text(
        json.dumps(
            {
                "chats": "threads",
                "chat_id": "tid",
                "chat_app_id": "ws",
                "chat_title": "name",
                "chat_created_at": "at",
                "messages": "posts",
                "message_id": "pid",
                "message_chat_id": "thread",
                "message_role": "author",
                "message_content": "body",
                "message_created_at": "at",
                "message_is_compaction_summary": None,
            }
        ),
        encoding="utf-8",
    )
    assert main(["install", "--db", str(path), "--schema", str(mapping)]) == 0
    assert main(["index", "--db", str(path), "--schema", str(mapping)]) == 0
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"message_content": "text"}), encoding="utf-8")
    assert main(["install", "--db", str(path), "--schema", str(wrong)]) == 1
    assert "host table 'chats' does not exist" in capsys.readouterr().err


def test_errors_follow_cli_conventions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "--db", str(tmp_path / "none.db"), "--app", "1", "x"]) == 1
    assert "chat-recall: error: no database" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["search", "--db", "x.db"])
    assert usage.value.code == 2
