"""What a person meets first on the command line (issue 37): file errors that name
their path, hints that are commands one can paste, plain words in status, readable
errors on a terminal, plurals, and a subcommand's own usage for a bad flag."""

from __future__ import annotations

import json
import shlex
import sqlite3
import sys
from pathlib import Path

import pytest

from chat_recall.adapters.cli.exits import Exit
from chat_recall.adapters.cli.main import main

Capture = pytest.CaptureFixture[str]


def test_init_names_the_path_it_cannot_create(tmp_path: Path, capsys: Capture) -> None:
    target = tmp_path / "no" / "such" / "dir" / "x.db"
    assert main(["init", "--db", str(target)]) == Exit.FAILED
    error = capsys.readouterr().err
    assert str(target) in error
    assert f"the directory {target.parent} does not exist" in error
    assert list(tmp_path.iterdir()) == []


LINES = [
    {"type": "chat", "id": 7, "app_id": 1, "title": "Auth", "created_at": 1_700_000_000},
    {
        "type": "message",
        "id": 42,
        "chat_id": 7,
        "role": "user",
        "content": "Sessions or JWT for authentication?",
        "created_at": 1_700_000_001,
    },
    {
        "type": "message",
        "id": 43,
        "chat_id": 7,
        "role": "assistant",
        "content": "We chose sessions stored in Postgres.",
        "created_at": 1_700_000_002,
    },
    {
        "type": "message",
        "id": 44,
        "chat_id": 7,
        "role": "user",
        "content": "And the cookie flags?",
        "created_at": 1_700_000_003,
    },
    {
        "type": "message",
        "id": 45,
        "chat_id": 7,
        "role": "assistant",
        "content": "httpOnly and secure.",
        "created_at": 1_700_000_004,
    },
]


@pytest.fixture
def database(tmp_path: Path, capsys: Capture) -> Path:
    path = tmp_path / "my history.db"  # a space: hints quote what they name
    lines = tmp_path / "history.jsonl"
    lines.write_text("\n".join(json.dumps(line) for line in LINES) + "\n", encoding="utf-8")
    assert main(["init", "--db", str(path)]) == 0
    assert main(["import", "--db", str(path), str(lines)]) == 0
    assert main(["index", "--db", str(path)]) == 0
    capsys.readouterr()
    return path


def hint(text: str, label: str) -> list[str]:
    """The command a `label:` line of the text output says to run, as main takes it."""
    (line,) = [line for line in text.splitlines() if line.startswith(f"{label}: ")]
    words = shlex.split(line.removeprefix(f"{label}: "))
    assert words[0] == "chat-recall"
    return words[1:]


def test_the_hints_of_search_and_read_are_commands_that_run(
    database: Path, capsys: Capture
) -> None:
    """Issue 37: `chat-recall read --chat 1 --around 103` failed for want of --db and
    --app. Every hint now runs as printed."""
    scope = ["--db", str(database), "--app", "1", "--format", "text"]
    assert main(["search", *scope, "sessions"]) == 0
    read_more = hint(capsys.readouterr().out, "read more")
    assert read_more[:4] == ["read", "--db", str(database), "--app"]
    assert main([*read_more, "--format", "text"]) == 0
    assert "We chose sessions stored in Postgres." in capsys.readouterr().out
    assert main([*read_more, "--before", "0", "--after", "0", "--format", "text"]) == 0
    text = capsys.readouterr().out
    assert main([*hint(text, "more after"), "--format", "text"]) == 0
    assert "And the cookie flags?" in capsys.readouterr().out
    assert main(["search", *scope, "authentcation"]) == 0
    suggested = hint(capsys.readouterr().out, "did you mean")
    assert suggested[-1] == "authentication"
    assert main([*suggested, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"]


def test_hints_leave_out_the_flags_the_environment_gives(
    database: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHAT_RECALL_DB", str(database))
    monkeypatch.setenv("CHAT_RECALL_APP", "1")
    assert main(["search", "--format", "text", "--current-chat", "99", "sessions"]) == 0
    read_more = hint(capsys.readouterr().out, "read more")
    assert read_more[:3] == ["read", "--current-chat", "99"]
    assert main([*read_more, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["messages"]


def test_a_hint_names_the_schema_mapping_it_was_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from argparse import Namespace

    from chat_recall.adapters.cli.options import command_line

    given = Namespace(db="a b.db", schema="map.json", app=3, current_chat=None)
    assert command_line(given, "read") == "chat-recall read --db 'a b.db' --schema map.json --app 3"
    monkeypatch.setenv("CHAT_RECALL_SCHEMA", "map.json")
    assert command_line(given, "read") == "chat-recall read --db 'a b.db' --app 3"


def test_counts_agree_with_their_nouns(tmp_path: Path, capsys: Capture) -> None:
    path = tmp_path / "one.db"
    lines = tmp_path / "one.jsonl"
    lines.write_text("\n".join(json.dumps(line) for line in LINES[:2]) + "\n", encoding="utf-8")
    assert main(["init", "--db", str(path)]) == 0
    assert "; 0 messages to index" in capsys.readouterr().out
    assert main(["import", "--db", str(path), str(lines)]) == 0
    output = capsys.readouterr().out
    assert "imported 1 chat and 1 message; 0 bad lines" in output
    assert "\nindexed 1 message in" in output  # an import indexes what it imported
    assert main(["index", "--db", str(path)]) == 0
    output = capsys.readouterr().out
    assert "nothing to index" in output
    assert " in 1 transaction," in output or " transactions," in output
    assert main(["search", "--db", str(path), "--app", "1", "--format", "text", "jwt"]) == 0
    assert capsys.readouterr().out.startswith("1 chat matching 'jwt'")
    assert main(["read", "--db", str(path), "--app", "1", "--chat", "7", "--format", "text"]) == 0
    assert "\n1 message (page read)\n" in capsys.readouterr().out


def test_an_unknown_flag_shows_the_commands_own_usage(capsys: Capture) -> None:
    with pytest.raises(SystemExit) as usage:
        main(["search", "--db", "x.db", "--app", "1", "--bogus", "q"])
    assert usage.value.code == Exit.USAGE
    error = capsys.readouterr().err
    assert error.startswith("usage: chat-recall search ")
    assert "chat-recall search: error: unrecognized arguments: --bogus" in error


def test_status_in_plain_words_with_the_command_that_fixes_each_problem(
    database: Path, capsys: Capture
) -> None:
    """Issue 37: status printed stamps and check tables (`index stamp: stored 4:...`,
    `check triggers, subject triggers, ok yes, problem none`)."""
    status = ["status", "--db", str(database), "--format", "text"]
    assert main(status) == 0
    text = capsys.readouterr().out
    assert text == (
        f"{database}: the index holds 4 messages of 1 app.\nNothing waits to be indexed.\n"
        "status: ok\n"
    )
    assert main([*status, "--verbose"]) == 0
    assert "index stamp: stored" in capsys.readouterr().out  # the internals, when asked
    connection = sqlite3.connect(database)
    connection.execute("DELETE FROM chat_recall_docs WHERE message_id = 42")
    connection.execute(
        "INSERT INTO messages (chat_id, role, content, created_at) VALUES (7, 'user', 'x', 1)"
    )
    connection.commit()
    connection.close()
    assert main(status) == Exit.UNHEALTHY
    text = capsys.readouterr().out
    assert "Waiting to be indexed: 1 message. Run chat-recall index --db " in text
    assert "Problem: app 1: 4 index rows for 3 documents\n" in text
    (fix,) = [line for line in text.splitlines() if line.startswith("  fix: ")]
    words = shlex.split(fix.removeprefix("  fix: ").split(" (")[0])
    assert words[:2] == ["chat-recall", "rebuild"]
    assert main(words[1:]) == 0  # the fix runs as printed, and fixes it
    capsys.readouterr()
    assert main(status) == 0
    assert "index stamp" not in capsys.readouterr().out


def test_status_of_a_database_without_chat_recall_says_how_to_install_it(
    tmp_path: Path, capsys: Capture
) -> None:
    path = tmp_path / "host.db"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE chats (id INTEGER PRIMARY KEY)")
    connection.close()
    assert main(["status", "--db", str(path), "--format", "text"]) == Exit.UNHEALTHY
    text = capsys.readouterr().out
    assert "chat-recall is not installed in this database" in text
    assert f"  fix: chat-recall install --db {path}\n" in text


def test_a_tool_error_is_one_readable_line_on_a_terminal_and_json_when_piped(
    database: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = ["read", "--db", str(database), "--app", "1", "--chat", "999"]
    assert main(missing) == Exit.TOOL_ERROR  # standard error is no terminal here
    assert json.loads(capsys.readouterr().err)["error"]["kind"] == "not_found"
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(missing) == Exit.TOOL_ERROR
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert error.startswith("chat-recall: not_found: no such chat or message in this app (")
    assert "chat-recall search" in error  # the fix
    monkeypatch.setenv("CHAT_RECALL_ERRORS", "json")  # a program on a terminal
    assert main(missing) == Exit.TOOL_ERROR
    assert json.loads(capsys.readouterr().err)["error"]["kind"] == "not_found"


@pytest.mark.parametrize(
    "command",
    [
        ["search", "--app", "1", "sessions"],
        ["read", "--app", "1", "--chat", "7"],
        ["status"],
        ["index"],
        ["repair"],
    ],
)
def test_commands_leave_no_wal_files_beside_the_database(
    database: Path, capsys: Capture, command: list[str]
) -> None:
    """The README: no command creates a file it was not asked to create. SQLite keeps
    `-wal` and `-shm` beside a WAL database while it is open; the last connection that
    can write removes them, a read-only one cannot."""
    assert sorted(p.name for p in database.parent.iterdir()) == ["history.jsonl", database.name]
    assert main([command[0], "--db", str(database), *command[1:]]) == 0
    assert sorted(p.name for p in database.parent.iterdir()) == ["history.jsonl", database.name]
    capsys.readouterr()


def test_wal_files_another_connection_uses_are_left_alone(database: Path, capsys: Capture) -> None:
    host = sqlite3.connect(database)  # the host app, with the database open
    try:
        host.execute("SELECT count(*) FROM messages").fetchone()
        assert main(["search", "--db", str(database), "--app", "1", "sessions"]) == 0
        assert (database.parent / f"{database.name}-wal").exists()
        host.execute("INSERT INTO chats (app_id, title, created_at) VALUES (1, 'new', 1)")
        host.commit()
    finally:
        host.close()
    assert main(["search", "--db", str(database), "--app", "1", "sessions"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["results"]
