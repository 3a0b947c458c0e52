"""Read-only databases work for the tools: search, read and status run on a database
file and directory this process cannot write (WAL included: with its -wal/-shm files
present, or with none of them), search says the index cannot be advanced here, and
nothing is ever written."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import textwrap
from pathlib import Path
from typing import Any

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.domain.messages import Role
from tests.robustness.read_only import run_read_only

SCRIPT = textwrap.dedent(
    """
    import contextlib, io, json, os, sys
    DIRECTORY, PATH = {directory!r}, {path!r}
    try:
        open(os.path.join(DIRECTORY, "probe"), "w").close()
    except OSError:
        pass
    else:
        raise SystemExit("the directory is writable: the test would prove nothing")

    from chat_recall.adapters import bootstrap
    from chat_recall.adapters.cli.main import main
    from chat_recall.adapters.bootstrap import administration
    from chat_recall.adapters.host_database import SqliteFile
    from chat_recall.adapters.sqlite_host.schema import HostSchema
    from chat_recall.application.tools.context import CallContext
    from chat_recall.domain.errors import ChatRecallError

    out = {{}}
    try:
        recall = bootstrap.sqlite(PATH)  # install=True by default: must not write
    except ChatRecallError as error:
        out["open_error"] = [error.kind, str(error)]
        print(json.dumps(out))
        raise SystemExit(0)
    with recall:
        recall.start()
        out["worker_running"] = recall.indexer.running
        out["indexed"] = recall.wait_until_indexed(timeout=1)
        search = json.loads(recall.search_chats(CallContext(1), {{"query": "sessions"}}))
        out["search"] = search
        read = json.loads(recall.read_chat(CallContext(1), {{"chat_id": 1}}))
        out["read_ids"] = [m["message_id"] for m in read.get("messages", [])]
        out["read_error"] = read.get("error")
        out["status"] = [recall.status(1).state, recall.status(1).indexer]
    report = administration(
        SqliteFile(__import__("pathlib").Path(PATH)), HostSchema.reference()
    ).status()
    out["status_problems"] = report.problems
    out["status_checks"] = sorted({{c.check for c in report.checks}})
    out["backlog"] = report.backlog.messages if report.backlog else None
    for command in (
        ["search", "--db", PATH, "--app", "1", "sessions", "--format", "json"],
        ["read", "--db", PATH, "--app", "1", "--chat", "1", "--format", "json"],
        ["status", "--db", PATH, "--format", "json"],
    ):
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = main(command)
        out["cli_" + command[0]] = [code, stderr.getvalue()[-300:]]
    print(json.dumps(out))
    """
)


def digest(directory: Path) -> dict[str, str]:
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(directory.iterdir())
    }


def host_database(directory: Path, *, pending: bool) -> Path:
    path = directory / "host.db"
    recall = bootstrap.sqlite(path, create_host_schema=True)
    chat_id = recall.host.create_chat(1, "Auth", 1_700_000_000)
    recall.host.add_message(chat_id, Role.USER, "sessions or tokens?", 1_700_000_060)
    recall.host.add_message(chat_id, Role.ASSISTANT, "sessions in Postgres", 1_700_000_120)
    recall.indexer.run_until_idle()
    if pending:
        recall.host.add_message(chat_id, Role.USER, "later sessions talk", 1_700_000_180)
    recall.close()
    return path


def checkpoint(path: Path) -> None:
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def run(directory: Path, path: Path) -> Any:
    return run_read_only(directory, SCRIPT.format(directory=str(directory), path=str(path)))


def assert_served(out: dict[str, Any], *, pending: int) -> None:
    assert "open_error" not in out, out
    assert out["worker_running"] is False  # nothing can advance the index here
    assert out["indexed"] is (pending == 0)
    search = out["search"]
    assert "error" not in search, search
    assert search["results"][0]["chat_id"] == 1
    assert "read-only for this process" in search["index_note"]
    if pending:
        assert search["index_status"] == "stalled"
        coverage = dict(search["index_coverage"])
        coverage.pop("lag_seconds", None)  # how long ago an indexer caught up, if one did
        assert coverage == {
            "indexed_messages": 2,
            "pending_messages": pending,
            "indexer": "read_only",
        }
        assert f"{pending} messages are not searchable yet" in search["index_note"]
    else:
        assert search["index_status"] == "ready"
    assert out["read_ids"] == [1, 2, 3][: 2 + pending]
    assert out["read_error"] is None
    assert out["status"][1] == "read_only"
    assert out["status_problems"] == []
    assert out["status_checks"] == ["integrity", "registry", "schema_version", "triggers"]
    assert out["backlog"] == pending
    assert out["cli_search"][0] == 0, out["cli_search"]
    assert out["cli_read"][0] == 0, out["cli_read"]
    assert out["cli_status"][0] == 0, out["cli_status"]


@pytest.mark.parametrize("pending", [0, 1])
def test_a_rollback_journal_database_in_a_read_only_directory(tmp_path: Path, pending: int) -> None:
    path = host_database(tmp_path, pending=bool(pending))
    checkpoint(path)
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA journal_mode = DELETE")
    connection.close()
    before = digest(tmp_path)
    assert_served(run(tmp_path, path), pending=pending)
    assert digest(tmp_path) == before  # not a byte written


def test_a_wal_database_without_its_shm_file_is_read_immutable(tmp_path: Path) -> None:
    path = host_database(tmp_path, pending=True)
    checkpoint(path)  # WAL mode, but every change in the main file, no -wal or -shm
    before = digest(tmp_path)
    assert sorted(before) == ["host.db"]
    assert_served(run(tmp_path, path), pending=1)
    assert digest(tmp_path) == before


def test_a_wal_database_with_its_wal_and_shm_files_is_read_with_the_latest_changes(
    tmp_path: Path,
) -> None:
    path = host_database(tmp_path, pending=False)
    checkpoint(path)
    host = sqlite3.connect(path, isolation_level=None)  # the host is running
    host.execute(
        "INSERT INTO messages(chat_id, role, content, created_at) VALUES (1, 'user', "
        "'sessions still in the wal', 1700000200)"
    )
    assert Path(f"{path}-wal").stat().st_size > 0
    try:
        assert_served(run(tmp_path, path), pending=1)
    finally:
        host.close()


def test_changes_in_a_wal_that_cannot_be_read_are_a_clear_error(tmp_path: Path) -> None:
    path = host_database(tmp_path, pending=False)
    checkpoint(path)
    host = sqlite3.connect(path, isolation_level=None)
    host.execute("PRAGMA wal_autocheckpoint = 0")
    host.execute(
        "INSERT INTO messages(chat_id, role, content, created_at) VALUES (1, 'user', "
        "'only in the wal', 1700000200)"
    )
    wal = Path(f"{path}-wal").read_bytes()
    host.close()  # the last close checkpoints and removes both files: put the wal back
    Path(f"{path}-wal").write_bytes(wal)
    Path(f"{path}-shm").unlink(missing_ok=True)
    out = run(tmp_path, path)
    assert out["open_error"][0] == "index_unavailable"
    assert "make the directory writable" in out["open_error"][1]
    assert json.dumps(out).count("Traceback") == 0


class _DeniedShm:
    """A `mode=ro` connection as a non-root user gets it in a directory it may not
    write: SQLite cannot create the -shm and says SQLITE_READONLY_DIRECTORY (1544)."""

    def execute(self, *_: object) -> None:
        error = sqlite3.OperationalError("attempt to write a readonly database")
        error.sqlite_errorcode = 1544  # type: ignore[attr-defined]
        raise error

    def close(self) -> None:
        pass


def test_a_directory_that_permissions_make_read_only_is_read_immutable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Root ignores permissions, so the suite's other read-only runs (a read-only mount
    when root) meet SQLITE_CANTOPEN; a user denied by permissions meets READONLY."""
    from chat_recall.adapters.sqlite_host import database

    path = host_database(tmp_path, pending=False)
    checkpoint(path)
    real_connect = sqlite3.connect
    opened: list[str] = []

    def connect(target: str, *args: Any, **kwargs: Any) -> Any:
        opened.append(str(target))
        if str(target).endswith("?mode=ro"):
            return _DeniedShm()
        return real_connect(target, *args, **kwargs)

    monkeypatch.setattr(database.sqlite3, "connect", connect)
    db = database.SqliteDatabase(path)
    with db.reading() as connection:
        assert connection.execute("SELECT count(*) FROM messages").fetchone()[0] == 2
    assert opened[-1].endswith("?mode=ro&immutable=1")
