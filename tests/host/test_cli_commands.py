"""The `chat-recall` commands, run as a terminal user or a script would: in-process
through `main`, and as a subprocess where standard input or the environment matter."""

from __future__ import annotations

import argparse
import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import chat_recall
from chat_recall.adapters.cli.exits import Exit
from chat_recall.adapters.cli.main import COMMANDS, build_parser, main

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

Capture = pytest.CaptureFixture[str]


def jsonl(path: Path, lines: list[dict[str, object]]) -> Path:
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def files(directory: Path) -> set[str]:
    return {path.name for path in directory.iterdir()}


@pytest.fixture
def database(tmp_path: Path, capsys: Capture) -> Path:
    path = tmp_path / "cli.db"
    history = jsonl(tmp_path / "history.jsonl", LINES)
    assert main(["init", "--db", str(path)]) == 0
    assert main(["import", "--db", str(path), str(history)]) == 0
    assert main(["index", "--db", str(path)]) == 0
    capsys.readouterr()
    return path


def run_cli(
    *arguments: str, stdin: str = "", **environment: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chat_recall", *arguments],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, **environment},
        timeout=120,
        check=False,
    )


# -- search and read ----------------------------------------------------------------------


def test_search_prints_the_tool_json(database: Path, capsys: Capture) -> None:
    assert main(["search", "--db", str(database), "--app", "1", "login sessions"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert [r["chat_id"] for r in output["results"]] == [7]
    assert {m["message_id"] for m in output["results"][0]["matches"]} == {42, 43}


def test_the_program_prints_and_exits_as_main_returns(database: Path, capsys: Capture) -> None:
    """`chat-recall` / `python -m chat_recall` (`program`: main, then a cheap exit)."""
    arguments = ["search", "--db", str(database), "--app", "1", "login sessions"]
    assert main(arguments) == 0
    in_process = capsys.readouterr().out
    process = run_cli(*arguments)
    assert (process.returncode, process.stdout, process.stderr) == (0, in_process, "")
    missing = run_cli("read", "--db", str(database), "--app", "1", "--chat", "999")
    assert missing.returncode == Exit.TOOL_ERROR
    assert json.loads(missing.stderr)["error"]["kind"] == "not_found"


def test_read_prints_the_tool_json(database: Path, capsys: Capture) -> None:
    arguments = ["read", "--db", str(database), "--app", "1", "--chat", "7"]
    assert main([*arguments, "--around", "43", "--before", "1", "--after", "0"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert [m["message_id"] for m in output["messages"]] == [42, 43]


def test_current_chat_flags_mean_the_same_in_search_and_read(
    database: Path, capsys: Capture
) -> None:
    scope = ["--db", str(database), "--app", "1", "--current-chat", "7"]
    assert main(["search", *scope, "sessions"]) == 0
    assert json.loads(capsys.readouterr().out)["results"] == []
    assert main(["read", *scope, "--current-message", "43", "--chat", "7"]) == 0
    assert [m["message_id"] for m in json.loads(capsys.readouterr().out)["messages"]] == [42]
    with pytest.raises(SystemExit) as usage:  # --chat is the chat to read, never the scope
        main(["search", "--db", str(database), "--app", "1", "--chat", "7", "sessions"])
    assert usage.value.code == Exit.USAGE


def test_list_prints_the_tool_json_and_a_listing_for_a_person(
    database: Path, capsys: Capture
) -> None:
    scope = ["list", "--db", str(database), "--app", "1"]
    assert main([*scope, "--after", "2023-11-14", "--order", "oldest"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert [c["chat_id"] for c in output["chats"]] == [7]
    assert output["chats"][0]["first_user_message"] == "Sessions or JWT for login?"
    assert main([*scope, "--current-chat", "7"]) == 0
    assert json.loads(capsys.readouterr().out)["chats"] == []
    assert main([*scope, "--current-chat", "7", "--include-current", "--format", "text"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("1 chat, newest first\n")
    assert "chat 7: Auth  (2023-11-14 22:13 UTC – 2023-11-14 22:13 UTC, 2 messages)" in text
    assert "    Sessions or JWT for login?" in text
    hint = f"read one: chat-recall read --db {database} --app 1 --current-chat 7 --chat 7"
    assert hint in text
    assert main([*scope, "--limit", "1", "--before", "2024-01-01", "--format", "text"]) == 0
    assert capsys.readouterr().out.startswith("1 chat, newest first, before 2024-01-01 00:00 UTC")
    assert main([*scope, "--after", "tomorrow"]) == Exit.TOOL_ERROR
    error = json.loads(capsys.readouterr().err)["error"]
    assert error["message"].startswith("--after must be an ISO 8601 date")


def test_search_takes_the_same_window_flags(database: Path, capsys: Capture) -> None:
    scope = ["search", "--db", str(database), "--app", "1"]
    assert main([*scope, "--before", "2023-11-14", "sessions"]) == 0
    assert json.loads(capsys.readouterr().out)["results"] == []
    assert main([*scope, "--after", "2023-11-14", "sessions"]) == 0
    assert [r["chat_id"] for r in json.loads(capsys.readouterr().out)["results"]] == [7]
    assert main([*scope, "--after", "noon", "sessions"]) == Exit.TOOL_ERROR
    assert "--after must be an ISO 8601 date" in capsys.readouterr().err


def test_list_text_says_how_to_go_on(tmp_path: Path, capsys: Capture) -> None:
    lines = [{"type": "chat", "id": i, "app_id": 1, "created_at": 1} for i in (1, 2, 3)] + [
        {"type": "message", "chat_id": i, "role": "user", "content": "x", "created_at": i}
        for i in (1, 2, 3)
    ]
    path = tmp_path / "l.db"
    assert main(["import", "--db", str(path), str(jsonl(tmp_path / "l.jsonl", lines))]) == 0
    capsys.readouterr()
    arguments = ["list", "--db", str(path), "--app", "1", "--limit", "2", "--format", "text"]
    assert main(arguments) == 0
    text = capsys.readouterr().out
    more = (
        f"more: chat-recall list --db {path} --app 1 --order newest --limit 2 --cursor newest:2:2"
    )
    assert more in text
    assert main([*arguments[:-2], "--cursor", "newest:2:2"]) == 0
    assert [c["chat_id"] for c in json.loads(capsys.readouterr().out)["chats"]] == [1]


def test_tool_errors_go_to_stderr_as_json_naming_flags_with_their_own_exit_code(
    database: Path, capsys: Capture
) -> None:
    read = ["read", "--db", str(database), "--app", "1", "--chat", "7"]
    assert main([*read, "--before", "2"]) == Exit.TOOL_ERROR
    captured = capsys.readouterr()
    assert captured.out == ""
    error = json.loads(captured.err)["error"]
    assert error["kind"] == "invalid_arguments"
    assert "--before/--after need --around" in error["message"]
    assert "around_message_id" not in error["message"]
    assert main(["read", "--db", str(database), "--app", "2", "--chat", "7"]) == Exit.TOOL_ERROR
    assert json.loads(capsys.readouterr().err)["error"]["kind"] == "not_found"
    assert main([*read, "--before", "2", "--format", "text"]) == Exit.TOOL_ERROR
    assert capsys.readouterr().err.startswith("chat-recall: invalid_arguments: --before/--after")


def test_out_of_range_flags_are_usage_errors_naming_the_flag_and_range(
    database: Path, capsys: Capture
) -> None:
    with pytest.raises(SystemExit) as usage:
        main(["search", "--db", str(database), "--app", "1", "--limit", "21", "x"])
    assert usage.value.code == Exit.USAGE
    assert "argument --limit: must be an integer from 1-20" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["read", "--db", str(database), "--app", "1", "--chat", "7", "--before", "11"])
    assert "argument --before: must be an integer from 0-10" in capsys.readouterr().err


def test_formats_for_search_read_and_status(database: Path, capsys: Capture) -> None:
    search = ["search", "--db", str(database), "--app", "1", "login sessions"]
    assert main(search) == 0  # not a terminal: compact JSON, exactly the tool's output
    compact = capsys.readouterr().out
    assert compact.count("\n") == 1
    assert main([*search, "--format", "pretty"]) == 0
    pretty = capsys.readouterr().out
    assert json.loads(pretty) == json.loads(compact)
    assert pretty.count("\n") > 10
    assert main([*search, "--format", "text"]) == 0
    text = capsys.readouterr().out
    assert "1 chat matching 'login sessions' (index up to date)" in text
    assert "chat 7: Auth" in text
    assert "message 43, assistant, 2023-11-14 22:13 UTC" in text
    assert f"read more: chat-recall read --db {database} --app 1 --chat 7 --around" in text

    read = ["read", "--db", str(database), "--app", "1", "--chat", "7", "--format", "text"]
    assert main([*read, "--around", "42", "--before", "0", "--after", "0"]) == 0
    text = capsys.readouterr().out
    assert "── message 42, user, 2023-11-14 22:13 UTC" in text
    assert "Sessions or JWT for login?" in text
    assert f"more after: chat-recall read --db {database} --app 1 --chat 7 --around 42" in text

    assert main(["status", "--db", str(database), "--format", "text", "--verbose"]) == 0
    text = capsys.readouterr().out
    assert "backlog: messages 0, chats 0, purges 0" in text
    assert "apps:\n  app id 1, documents 2, deleted awaiting maintenance 0" in text
    assert text.rstrip().endswith("status: ok")
    assert main(["status", "--db", str(database)]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["healthy"] is True
    assert status["backlog"] == {"messages": 0, "chats": 0, "purges": 0}


def test_text_is_the_default_on_a_terminal(
    database: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["search", "--db", str(database), "--app", "1", "sessions"]) == 0
    assert capsys.readouterr().out.startswith("1 chat matching 'sessions'")


# -- status -------------------------------------------------------------------------------


def test_status_exit_code_says_problems_were_found(database: Path, capsys: Capture) -> None:
    connection = sqlite3.connect(database)
    connection.execute("DELETE FROM chat_recall_docs WHERE message_id = 42")
    connection.commit()
    connection.close()
    assert main(["status", "--db", str(database), "--format", "text"]) == Exit.UNHEALTHY
    text = capsys.readouterr().out
    assert "app 1: 2 index rows for 1 document" in text
    assert "status: 1 problem found" in text


def test_status_counts_the_host_messages_no_index_holds(database: Path, capsys: Capture) -> None:
    """Roles other than user and assistant (a host storing 'User' among them) and
    messages without a chat are never indexed: status says how many, without calling
    it a problem of the index."""
    assert main(["status", "--db", str(database), "--format", "json"]) == Exit.OK
    assert json.loads(capsys.readouterr().out)["not_indexed"] == []
    connection = sqlite3.connect(database)
    chat_id = connection.execute("SELECT min(id) FROM chats").fetchone()[0]
    for role in ("User", "User", "system", "tool", "user"):
        connection.execute(
            "INSERT INTO messages(chat_id, role, content, created_at) VALUES (?, ?, 'x', 1)",
            (chat_id, role),
        )
    connection.execute(  # foreign keys are off on this connection, as in many hosts
        "INSERT INTO messages(chat_id, role, content, created_at) VALUES (9999, 'user', 'x', 1)"
    )
    connection.commit()
    connection.close()
    assert main(["index", "--db", str(database)]) == 0
    summary = capsys.readouterr().out
    assert "indexed 1 message, 5 left out (no searchable text, another role or no chat: " in (
        summary
    )
    assert main(["status", "--db", str(database), "--format", "json"]) == Exit.OK
    assert json.loads(capsys.readouterr().out)["not_indexed"] == [
        {"reason": "role 'User' is not indexed", "messages": 2},
        {"reason": "role 'system' is not indexed", "messages": 1},
        {"reason": "role 'tool' is not indexed", "messages": 1},
        {"reason": "its chat does not exist", "messages": 1},
    ]


# -- databases, schemas and files ----------------------------------------------------------


MAPPING = {
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


@pytest.fixture
def mapped(tmp_path: Path) -> tuple[Path, Path]:
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
    mapping.write_text(json.dumps(MAPPING), encoding="utf-8")
    return path, mapping


def test_a_mapped_schema_works_with_every_command_that_opens_the_database(
    mapped: tuple[Path, Path], tmp_path: Path, capsys: Capture
) -> None:
    path, mapping = mapped
    db = ["--db", str(path), "--schema", str(mapping)]
    assert main(["install", *db]) == 0
    more = jsonl(
        tmp_path / "more.jsonl",
        [
            {"type": "message", "id": 2, "chat_id": 1, "role": "assistant",
             "content": "more mapped words", "created_at": 3},
        ],
    )  # fmt: skip
    assert main(["import", *db, str(more)]) == 0
    assert main(["index", *db]) == 0
    capsys.readouterr()
    assert main(["search", *db, "--app", "3", "mapped"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert {m["message_id"] for m in found["results"][0]["matches"]} == {1, 2}
    assert main(["read", *db, "--app", "3", "--chat", "1"]) == 0
    assert len(json.loads(capsys.readouterr().out)["messages"]) == 2
    assert main(["status", *db]) == 0
    assert main(["rebuild", *db, "--quiet"]) == 0
    assert "rebuilt in place: indexed 2 messages" in capsys.readouterr().out
    assert main(["uninstall", *db]) == 0
    # Without the mapping the reference tables are missing, and the error says so.
    assert main(["install", "--db", str(path)]) == Exit.FAILED
    assert "host table 'chats' does not exist" in capsys.readouterr().err


def test_environment_variables_stand_in_for_db_schema_and_app(
    mapped: tuple[Path, Path],
) -> None:
    path, mapping = mapped
    environment = {
        "CHAT_RECALL_DB": str(path),
        "CHAT_RECALL_SCHEMA": str(mapping),
        "CHAT_RECALL_APP": "3",
    }
    assert run_cli("install", **environment).returncode == 0
    assert run_cli("index", **environment).returncode == 0
    found = run_cli("search", "mapped", **environment)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["results"][0]["chat_id"] == 1


@pytest.mark.parametrize(
    "command",
    [
        ["uninstall"],
        ["install"],
        ["rebuild"],
        ["index"],
        ["status"],
        ["search", "--app", "1", "x"],
        ["read", "--app", "1", "--chat", "1"],
    ],
)
def test_commands_on_a_missing_database_fail_and_create_nothing(
    tmp_path: Path, capsys: Capture, command: list[str]
) -> None:
    missing = tmp_path / "mistyped.db"
    assert main([command[0], "--db", str(missing), *command[1:]]) == Exit.FAILED
    assert f"no database at {missing}" in capsys.readouterr().err
    assert files(tmp_path) == set()


@pytest.mark.parametrize(
    "command",
    [
        ["init"],
        ["install"],
        ["uninstall"],
        ["rebuild"],
        ["index"],
        ["repair"],
        ["search", "--app", "1", "x"],
        ["read", "--app", "1", "--chat", "1"],
        ["import", "LINES"],
    ],
)
def test_commands_on_a_file_that_is_no_database_say_so_plainly(
    tmp_path: Path, command: list[str]
) -> None:
    junk = tmp_path / "notes.db"
    junk.write_bytes(b"not an SQLite database, just notes\n" * 10)
    lines = jsonl(tmp_path / "h.jsonl", [{"type": "chat", "id": 1, "app_id": 1}])
    arguments = [str(lines) if item == "LINES" else item for item in command[1:]]
    done = run_cli(command[0], "--db", str(junk), *arguments)
    assert done.returncode == Exit.FAILED
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("chat-recall: error: cannot open the database")
    assert "is not an SQLite database" in done.stderr
    assert junk.read_bytes() == b"not an SQLite database, just notes\n" * 10


def test_failed_init_and_import_leave_no_file_behind(tmp_path: Path, capsys: Capture) -> None:
    assert main(["init", "--db", str(tmp_path / "no" / "such" / "dir.db")]) == Exit.FAILED
    assert main(["import", "--db", str(tmp_path / "a.db"), str(tmp_path / "none.jsonl")]) == 1
    assert "cannot read" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "chat"}\nnot json\n', encoding="utf-8")
    assert main(["import", "--db", str(tmp_path / "b.db"), str(bad)]) == Exit.FAILED
    assert "nothing was imported" in capsys.readouterr().err
    assert files(tmp_path) == {"bad.jsonl"}


def test_init_says_what_it_did(tmp_path: Path, capsys: Capture) -> None:
    path = tmp_path / "new.db"
    assert main(["init", "--db", str(path)]) == 0
    assert capsys.readouterr().out.startswith(f"created {path} with the reference host tables")
    assert main(["init", "--db", str(path)]) == 0
    again = capsys.readouterr().out
    assert again.startswith(f"{path} already has the reference host tables")
    assert "the index was already installed" in again


def test_uninstall_and_install_report_what_they_did(database: Path, capsys: Capture) -> None:
    assert main(["uninstall", "--db", str(database)]) == 0
    assert "host tables untouched" in capsys.readouterr().out
    assert main(["uninstall", "--db", str(database)]) == 0
    assert "nothing to remove: chat-recall is not installed" in capsys.readouterr().out
    assert main(["search", "--db", str(database), "--app", "1", "x"]) == Exit.FAILED
    assert "not installed" in capsys.readouterr().err
    assert main(["install", "--db", str(database)]) == 0
    assert capsys.readouterr().out.startswith("installed (schema version ")
    assert main(["index", "--db", str(database), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("indexed 3 messages")


# -- import -------------------------------------------------------------------------------


def test_a_bad_import_line_is_reported_with_its_number_and_not_written(
    tmp_path: Path, capsys: Capture
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
    assert main(["import", "--db", str(path), str(history)]) == Exit.FAILED
    captured = capsys.readouterr()
    assert 'line 2: role: must be "user" or "assistant"' in captured.err
    assert "line 3:" in captured.err
    assert "imported 1 chat and 1 message; 2 bad lines" in captured.out
    rows = sqlite3.connect(path).execute("SELECT id FROM messages ORDER BY id").fetchall()
    assert rows == [(6,)]


def test_a_bad_import_line_is_reported_without_the_credential_it_holds(
    tmp_path: Path, capsys: Capture
) -> None:
    stripe = "sk_live_" + "51HxQ2mKp9Lz3Vn8Rt4Yw6Bc"
    lines = jsonl(
        tmp_path / "h.jsonl",
        [
            {"type": "chat", "id": 1, "app_id": 1, "created_at": 1_700_000_000},
            {
                "type": "message",
                "id": 1,
                "chat_id": 1,
                "role": "user",
                "content": "x",
                "created_at": stripe,
            },
            {
                "type": "message",
                "id": 2,
                "chat_id": 1,
                "role": "password=hunter2Xy9Qz",
                "content": "x",
                "created_at": 1_700_000_001,
            },
        ],
    )
    assert main(["import", "--db", str(tmp_path / "h.db"), str(lines)]) == Exit.FAILED
    err = capsys.readouterr().err
    assert "line 2: created_at: '[redacted stripe-secret-key]'" in err
    assert "line 3: role:" in err
    assert "[redacted password]" in err
    assert stripe not in err
    assert "hunter2Xy9Qz" not in err


def test_import_accepts_seconds_milliseconds_and_iso_timestamps(
    tmp_path: Path, capsys: Capture
) -> None:
    path = tmp_path / "times.db"
    base = {"type": "message", "chat_id": 1, "role": "user", "content": "x"}
    history = jsonl(
        tmp_path / "times.jsonl",
        [
            {"type": "chat", "id": 1, "app_id": 1, "created_at": "2023-11-14T22:13:20Z"},
            {**base, "id": 1, "created_at": 1_700_000_000},
            {**base, "id": 2, "created_at": 1_700_000_000_123},
            {**base, "id": 3, "created_at": "2023-11-14T23:13:20+01:00"},
            {**base, "id": 4, "created_at": "2023-11-14 22:13:20"},
            {**base, "id": 5, "created_at": "last tuesday"},
        ],
    )
    assert main(["import", "--db", str(path), str(history)]) == Exit.FAILED
    refused = capsys.readouterr().err
    assert "line 6: created_at: 'last tuesday' is not Unix seconds, Unix milliseconds" in refused
    connection = sqlite3.connect(path)
    times = connection.execute("SELECT created_at FROM messages ORDER BY id").fetchall()
    assert times == [(1_700_000_000,)] * 4
    assert connection.execute("SELECT created_at FROM chats").fetchone() == (1_700_000_000,)


def test_reimport_with_on_conflict(database: Path, tmp_path: Path, capsys: Capture) -> None:
    history = jsonl(tmp_path / "history.jsonl", LINES)
    db = ["import", "--db", str(database)]
    assert main([*db, str(history)]) == Exit.FAILED
    captured = capsys.readouterr()
    assert "line 1: chat 7 exists already" in captured.err
    assert "--on-conflict ignore or --on-conflict replace" in captured.err
    assert main([*db, "--on-conflict", "ignore", str(history)]) == 0
    assert "5 skipped as already there" in capsys.readouterr().out
    changed = [dict(line) for line in LINES]
    changed[2]["content"] = "We chose JWT after all."
    assert main([*db, "--on-conflict", "replace", str(jsonl(history, changed))]) == 0
    assert "imported 2 chats and 3 messages" in capsys.readouterr().out
    assert main(["index", "--db", str(database)]) == 0
    capsys.readouterr()
    assert main(["search", "--db", str(database), "--app", "1", "JWT after"]) == 0
    matches = json.loads(capsys.readouterr().out)["results"][0]["matches"]
    assert 43 in {m["message_id"] for m in matches}
    count = sqlite3.connect(database).execute("SELECT count(*) FROM messages").fetchone()
    assert count == (3,)


def test_import_reads_standard_input_and_leaves_nothing_when_it_fails(tmp_path: Path) -> None:
    path = tmp_path / "stdin.db"
    text = "\n".join(json.dumps(line) for line in LINES) + "\n"
    imported = run_cli("import", "--db", str(path), "-", stdin=text)
    assert imported.returncode == 0, imported.stderr
    assert "imported 2 chats and 3 messages" in imported.stdout
    assert imported.stderr == ""  # not a terminal, short: no progress lines at all
    refused = run_cli("import", "--db", str(tmp_path / "other.db"), "-", stdin="nonsense\n")
    assert refused.returncode == Exit.FAILED
    assert "standard input: line 1:" in refused.stderr
    assert "stdin.db" in files(tmp_path)
    assert not any(name.startswith("other.db") for name in files(tmp_path))


# -- conventions ---------------------------------------------------------------------------


def test_version_comes_from_the_package_metadata(capsys: Capture) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"chat-recall {chat_recall.__version__}\n"
    assert chat_recall.__version__ != "0+unknown"


def _parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    found = []
    for command in COMMANDS:
        parser = build_parser(command.name)
        subcommands = next(
            action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
        )
        found.append((command.name, subcommands.choices[command.name]))
    return found


def test_a_command_line_starting_with_its_command_parses_as_with_every_command(
    capsys: Capture,
) -> None:
    """`main` builds only that command's parser then (`alone`): same help, same errors."""
    for command in COMMANDS:
        seen = []
        for alone in (False, True):
            parser = build_parser(command.name, alone=alone)
            for argv in ([command.name, "--help"], [command.name, "--no-such-flag"]):
                with pytest.raises(SystemExit) as done:
                    parser.parse_args(argv)
                captured = capsys.readouterr()
                seen.append((argv, done.value.code, captured.out, captured.err))
        assert seen[:2] == seen[2:]
        assert command.summary[1:] in seen[0][2]


def test_every_flag_has_help_text_with_its_range_and_default() -> None:
    for name, parser in _parsers():
        for action in parser._actions:
            assert action.help, f"{name} {action.option_strings or action.dest} has no help"
            if action.option_strings and not action.required and action.nargs != 0:
                assert "default" in action.help, f"{name} {action.option_strings}: no default"
    flags = {name: {a.dest: a.help for a in parser._actions} for name, parser in _parsers()}
    assert "(1-20, default 8)" in str(flags["search"]["limit"])
    assert "(0-10, default 3)" in str(flags["read"]["before"])
    assert "(1-20, default 10)" in str(flags["read"]["limit"])
    assert "1-500 characters" in str(flags["search"]["query"])


def test_help_lists_every_command_and_the_exit_codes(capsys: Capture) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    for command in COMMANDS:
        assert command.name in text
    assert "3 the tool answered with an error" in text


def test_help_imports_no_command(tmp_path: Path) -> None:
    probe = (
        "import sys; from chat_recall.adapters.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('chat_recall.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.splitlines()[-1]
    assert (
        loaded
        == "['chat_recall.adapters', 'chat_recall.adapters.cli', 'chat_recall.adapters.cli.main']"
    )


# What a short command never needs: a search or a read loads none of these (start-up
# time, tests/benchmarks/bench_startup.py).
NOT_FOR_A_SEARCH = (
    "logging",
    "lxml",
    "chat_recall.adapters.memory",
    "chat_recall.adapters.postgres",
    "chat_recall.adapters.sqlite_host.admin",
    "chat_recall.adapters.sqlite_host.importer",
    # the facade builds these on first use (`Deferred`): the tools never need them
    "chat_recall.application.indexer",
    "chat_recall.domain.indexing",
    "chat_recall.adapters.sqlite.unit_of_work",
    "chat_recall.adapters.sqlite.audit",
    "chat_recall.adapters.sqlite_host.audit",
    "chat_recall.adapters.sqlite_host.host_writer",
)


@pytest.mark.parametrize("command", [["search", "sessions"], ["read", "--chat", "7"], ["list"]])
def test_search_and_read_load_only_what_they_use(database: Path, command: list[str]) -> None:
    argv = [command[0], "--db", str(database), "--app", "1", *command[1:]]
    probe = (
        "import sys; from chat_recall.adapters.cli.main import main\n"
        f"code = main({argv!r})\n"
        "print(code, sorted(m for m in sys.modules if m.split('.')[0] == 'logging'"
        f" or m.startswith({NOT_FOR_A_SEARCH!r})))"
    )
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert ran.stdout.splitlines()[-1] == "0 []"


def test_errors_follow_cli_conventions(tmp_path: Path, capsys: Capture) -> None:
    assert main(["search", "--db", str(tmp_path / "none.db"), "--app", "1", "x"]) == 1
    assert "chat-recall: error: no database" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["search", "--db", "x.db"])
    assert usage.value.code == Exit.USAGE


def test_progress_on_a_pipe_is_plain_lines_and_none_with_quiet(database: Path) -> None:
    assert main(["rebuild", "--db", str(database)]) == 0  # stderr captured: not a terminal
    rebuilt = run_cli("rebuild", "--db", str(database))
    assert rebuilt.returncode == 0
    assert "\r" not in rebuilt.stderr
    assert rebuilt.stdout.startswith("rebuilt in place: indexed 3 messages")
    quiet = run_cli("index", "--db", str(database), "--quiet")
    assert quiet.stderr == ""
    assert quiet.stdout == "nothing to index: the index is up to date\n"


def test_import_progress_is_reported_per_batch(tmp_path: Path) -> None:
    from chat_recall.adapters.cli.progress import Lines
    from chat_recall.adapters.sqlite_host.admin import import_file
    from chat_recall.adapters.sqlite_host.importer import OnConflict
    from chat_recall.adapters.sqlite_host.schema import HostSchema

    lines = [
        json.dumps({"type": "chat", "id": i, "app_id": 1, "created_at": 1}) for i in range(1, 1201)
    ]
    now = [0.0]
    stream = io.StringIO()
    progress = Lines("importing", stream, interval=10.0, clock=lambda: now[0])
    seen = []

    def on_batch(report: object) -> None:
        now[0] += 6.0
        seen.append(report)
        progress.update(report.bytes, 1000 * 1200, f"{report.lines:,} lines")  # type: ignore[attr-defined]

    report = import_file(
        tmp_path / "p.db",
        HostSchema.reference(),
        lines,
        on_conflict=OnConflict.FAIL,
        create=True,
        on_batch=on_batch,
    )
    progress.close()
    assert report.chats == 1200
    assert [r.lines for r in seen] == [500, 1000, 1200]  # type: ignore[attr-defined]
    printed = stream.getvalue().splitlines()
    assert printed[0].startswith("importing: 1,000 lines, ")
    assert printed[-1].startswith("importing: 1,200 lines, ")


def test_a_terminal_gets_a_progress_bar_and_a_pipe_plain_lines() -> None:
    from chat_recall.adapters.cli.progress import Bar, Lines, Silent, reporter

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    bar = reporter("indexing", quiet=False, stream=terminal)
    assert isinstance(bar, Bar)
    bar.update(5, 10, "5 messages")
    bar.close()
    assert "indexing" in terminal.getvalue()
    assert isinstance(reporter("indexing", quiet=False, stream=io.StringIO()), Lines)
    assert isinstance(reporter("indexing", quiet=True, stream=terminal), Silent)


def test_plain_progress_lines_are_spaced_and_estimate_from_the_recent_rate() -> None:
    from chat_recall.adapters.cli.progress import Lines

    now = [0.0]
    stream = io.StringIO()
    lines = Lines("indexing", stream, interval=10.0, clock=lambda: now[0])
    # A slow start (small first batches), then a steady 1,000 messages a second.
    for second, done in [(1, 10), (2, 20), (5, 3_020), (10, 8_020), (15, 13_020), (20, 18_020)]:
        now[0] = float(second)
        lines.update(done, 100_000, f"{done:,} messages")
    lines.close()
    printed = stream.getvalue().splitlines()
    assert len(printed) == 2  # at 10 s and at 20 s, nothing in between
    assert printed[0].startswith("indexing: 8,020 messages, 8%, about ")
    assert "\r" not in stream.getvalue()
    # From the last 30 s of samples: (18,020 - 10) / 19 s ~ 948/s -> about 86 s left.
    assert "about 1 min 26 s left, 20 s so far" in printed[1]


@pytest.mark.parametrize("with_import", [False, True])
def test_index_counts_each_message_once(tmp_path: Path, capsys: Capture, with_import: bool) -> None:
    """The first wave reported `indexed 101050` for 100,000 messages: a fresh install
    marked the history and the first `index` marked it all again."""
    from chat_recall.adapters.sqlite_host.schema import REFERENCE_HOST_DDL

    path = tmp_path / "host.db"
    total = 1_234
    if with_import:  # init, then import into the installed index
        history = [{"type": "chat", "id": 1, "app_id": 1, "created_at": 1}] + [
            {
                "type": "message",
                "id": i,
                "chat_id": 1,
                "role": "user",
                "content": f"m {i}",
                "created_at": 1 + i,
            }
            for i in range(1, total + 1)
        ]
        assert main(["init", "--db", str(path)]) == 0
        capsys.readouterr()
        assert main(["import", "--db", str(path), str(jsonl(tmp_path / "h.jsonl", history))]) == 0
        # `import` indexes what it imported, as `index` would: each message once
        assert f"\nindexed {total:,} messages " in capsys.readouterr().out
    else:  # history written before chat-recall was installed
        connection = sqlite3.connect(path)
        connection.executescript(REFERENCE_HOST_DDL)
        connection.execute("INSERT INTO chats(id, app_id, title, created_at) VALUES (1, 1, 't', 1)")
        connection.executemany(
            "INSERT INTO messages(chat_id, role, content, created_at) VALUES (1, 'user', ?, 1)",
            [(f"m {i}",) for i in range(total)],
        )
        connection.commit()
        connection.close()
        assert main(["install", "--db", str(path)]) == 0
        capsys.readouterr()
        assert main(["index", "--db", str(path)]) == 0
        assert capsys.readouterr().out.startswith(f"indexed {total:,} messages ")
    assert main(["index", "--db", str(path)]) == 0
    assert capsys.readouterr().out.startswith("nothing to index: the index is up to date\n")


def test_the_cli_serves_and_keeps_a_database_indexed_by_the_tantivy_engine(
    tmp_path: Path, capsys: Capture
) -> None:
    """A host that chose tantivy in Python can still use every command: they open the
    index with the engine that built it; rebuild keeps it, uninstall removes it."""
    from chat_recall.adapters.sqlite_host.engines import tantivy_directory

    path = tmp_path / "host.db"
    with chat_recall.sqlite(path, create_host_schema=True, engine=chat_recall.Engine.TANTIVY) as r:
        chat_id = r.host.create_chat(1, "Auth", 1_700_000_000)
        r.host.add_message(chat_id, chat_recall.Role.USER, "argon2 for passwords", 1_700_000_060)
        assert r.wait_until_indexed(timeout=30)
    db = ["--db", str(path)]
    for command in (
        ["search", *db, "--app", "1", "argon2"],
        ["read", *db, "--app", "1", "--chat", "1"],
    ):
        assert main(command) == 0
        assert "argon2" in capsys.readouterr().out
    assert main(["status", *db, "--format", "json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["healthy"]
    assert [(app["app_id"], app["documents"]) for app in status["apps"]] == [(1, 1)]
    assert main(["rebuild", *db]) == 0
    assert capsys.readouterr().out.startswith("rebuilt in place: indexed 1 message")
    assert tantivy_directory(path).is_dir()
    with chat_recall.sqlite(path, install=False, engine=chat_recall.Engine.TANTIVY) as r:
        output = r.search_chats(chat_recall.CallContext(app_id=1), {"query": "argon2"})
        assert '"chat_id":1' in output  # still the tantivy engine, and indexed again
    assert main(["uninstall", *db]) == 0
    assert not tantivy_directory(path).exists()
