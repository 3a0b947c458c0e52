"""The `chat-recall` subcommands over a SQLite database."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite import migrations, setup
from chat_recall.adapters.sqlite.database import SqliteDatabase
from chat_recall.adapters.sqlite.importer import import_lines
from chat_recall.adapters.sqlite.schema import HostSchema
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.application.tools.read_chat import ReadChat
from chat_recall.application.tools.registry import ToolOutcome
from chat_recall.application.tools.search_chats import SearchChats
from chat_recall.domain.errors import ChatRecallError, InvalidArguments
from chat_recall.domain.indexing import index_stamp


def load_schema(path: str | None) -> HostSchema:
    """A schema mapping from a JSON file of HostSchema fields (reference schema if None)."""
    if path is None:
        return HostSchema.reference()
    try:
        fields = json.loads(Path(path).read_text(encoding="utf-8"))
        return HostSchema(**fields)
    except (OSError, ValueError, TypeError) as error:
        raise InvalidArguments(f"cannot read schema mapping {path}: {error}") from error


def _open(arguments: argparse.Namespace, *, install: bool = False) -> ChatRecall:
    path = Path(arguments.db)
    if not path.exists():
        raise InvalidArguments(f"no database at {path} (create one with: chat-recall init)")
    schema = load_schema(getattr(arguments, "schema", None))
    return bootstrap.sqlite(path, schema=schema, install=install)


def cmd_init(arguments: argparse.Namespace) -> int:
    recall = bootstrap.sqlite(Path(arguments.db), create_host_schema=True)
    recall.close()
    print(f"created the reference host schema and the chat-recall index in {arguments.db}")
    return 0


def cmd_install(arguments: argparse.Namespace) -> int:
    recall = _open(arguments, install=True)
    backlog = recall.dirty.backlog()
    recall.close()
    print(f"installed; {backlog.messages} messages to index (run: chat-recall index --db ...)")
    return 0


def cmd_uninstall(arguments: argparse.Namespace) -> int:
    database = SqliteDatabase(Path(arguments.db), load_schema(arguments.schema))
    dropped = setup.uninstall(database)
    database.close()
    print(f"removed {len(dropped)} derived objects; host tables untouched")
    return 0


def cmd_import(arguments: argparse.Namespace) -> int:
    recall = bootstrap.sqlite(Path(arguments.db), create_host_schema=True)
    database: SqliteDatabase = recall.index.database  # type: ignore[attr-defined]
    try:
        with open(arguments.file, encoding="utf-8") as handle:
            report = import_lines(database, handle)
    except OSError as error:
        raise InvalidArguments(f"cannot read {arguments.file}: {error}") from error
    finally:
        recall.close()
    for problem in report.errors:
        print(f"chat-recall: {arguments.file}: {problem}", file=sys.stderr)
    print(
        f"imported {report.chats} chats and {report.messages} messages; "
        f"{len(report.errors)} bad lines"
    )
    return 1 if report.errors else 0


def drain(recall: ChatRecall, out: TextIO) -> tuple[int, int, float]:
    """Run the indexer to the end with a progress line (rate, ETA)."""
    total = max(recall.dirty.backlog().messages, 1)
    started = time.monotonic()
    indexed = deleted = 0
    longest = 0.0
    while True:
        report = recall.indexer.run_batch()
        indexed += report.indexed
        deleted += report.deleted
        longest = max(longest, report.duration_seconds)
        done = indexed + deleted
        elapsed = max(time.monotonic() - started, 1e-9)
        rate = done / elapsed
        remaining = recall.dirty.backlog()
        eta = remaining.messages / rate if rate else 0.0
        print(
            f"\rindexed {done}/{max(total, done)} messages  {rate:,.0f}/s  ETA {eta:,.0f}s ",
            end="",
            file=out,
            flush=True,
        )
        if not report.did_work and remaining.is_empty:
            break
    print(file=out)
    return indexed, deleted, longest


def cmd_index(arguments: argparse.Namespace) -> int:
    recall = _open(arguments)
    try:
        started = time.monotonic()
        indexed, deleted, longest = drain(recall, sys.stderr)
        elapsed = time.monotonic() - started
    finally:
        recall.close()
    print(
        f"indexed {indexed} messages, removed {deleted} without searchable text, "
        f"in {elapsed:.1f}s (longest batch {longest * 1000:.1f} ms)"
    )
    return 0


def _print_tool_output(outcome: ToolOutcome) -> int:
    print(outcome.output)
    return 1 if outcome.is_error else 0


def cmd_search(arguments: argparse.Namespace) -> int:
    recall = _open(arguments)
    try:
        context = CallContext(arguments.app, arguments.chat)
        tool_arguments: dict[str, Any] = {"query": arguments.query}
        if arguments.limit is not None:
            tool_arguments["limit"] = arguments.limit
        return _print_tool_output(
            recall.call_tool(SearchChats.definition.name, context, tool_arguments)
        )
    finally:
        recall.close()


def cmd_read(arguments: argparse.Namespace) -> int:
    recall = _open(arguments)
    try:
        context = CallContext(arguments.app, arguments.current_chat, arguments.current_message)
        tool_arguments: dict[str, Any] = {"chat_id": arguments.chat}
        for name in ("around", "before", "after", "offset", "limit"):
            value = getattr(arguments, name)
            if value is not None:
                tool_arguments["around_message_id" if name == "around" else name] = value
        return _print_tool_output(
            recall.call_tool(ReadChat.definition.name, context, tool_arguments)
        )
    finally:
        recall.close()


def cmd_status(arguments: argparse.Namespace) -> int:
    recall = _open(arguments)
    database: SqliteDatabase = recall.index.database  # type: ignore[attr-defined]
    try:
        backlog = recall.dirty.backlog()
        stored = recall.index.projection_stamp()
        current = index_stamp(recall.policy, recall.repo.source_fingerprint())
        problems = integrity_problems(database)
        with database.reading() as connection:
            version = migrations.schema_version(connection)
            apps = connection.execute(
                f"SELECT app_id FROM {migrations.APPS} ORDER BY app_id"
            ).fetchall()
        print(f"schema version: {version} (this release: {migrations.SCHEMA_VERSION})")
        print(
            f"projection: stored {stored or 'none'}, current {current}"
            + ("" if stored == current else "  (rebuild pending)")
        )
        print(
            f"backlog: {backlog.messages} messages, {backlog.chats} chats, "
            f"{backlog.purges} deleted documents to purge"
        )
        for (app_id,) in apps:
            stats = recall.index.stats(app_id)
            print(
                f"app {app_id}: {stats.documents} documents "
                f"({stats.unreclaimed} deleted, awaiting maintenance)"
            )
        quarantine = recall.index.quarantine(20)
        print(f"quarantine: {quarantine.total} rows that cannot be indexed")
        for row in quarantine.rows:
            print(f"  message {row.message_id} (app {row.app_id}): {row.reason.value}")
        print("integrity: " + ("ok" if not problems else "; ".join(problems)))
    finally:
        recall.close()
    return 1 if problems else 0


def integrity_problems(database: SqliteDatabase) -> list[str]:
    problems = []
    with database.writing() as connection:
        for app_id, table in connection.execute(
            f"SELECT app_id, fts_table FROM {migrations.APPS}"
        ).fetchall():
            try:
                connection.execute(f'INSERT INTO "{table}"("{table}") VALUES (\'integrity-check\')')
            except Exception as error:  # the check reports corruption as an error
                problems.append(f"app {app_id}: {error}")
            rows = connection.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
            expected = connection.execute(
                f"SELECT (SELECT count(*) FROM {migrations.DOCS} WHERE app_id = ?) + "
                f"(SELECT count(*) FROM {migrations.PURGE} WHERE app_id = ?)",
                (app_id, app_id),
            ).fetchone()[0]
            if rows != expected:
                problems.append(f"app {app_id}: {rows} index rows for {expected} documents")
    return problems


def cmd_rebuild(arguments: argparse.Namespace) -> int:
    database = SqliteDatabase(Path(arguments.db), load_schema(arguments.schema))
    setup.uninstall(database)
    database.close()
    recall = _open(arguments, install=True)
    try:
        indexed, deleted, _ = drain(recall, sys.stderr)
    finally:
        recall.close()
    print(f"rebuilt: {indexed} messages indexed, {deleted} without searchable text")
    return 0


def cmd_mcp(arguments: argparse.Namespace) -> int:
    from chat_recall.adapters.mcp_server import serve

    recall = _open(arguments)
    try:
        serve(recall, CallContext(arguments.app, arguments.chat))
    finally:
        recall.close()
    return 0


def register(commands: Any) -> None:
    def add(name: str, handler: Any, help_text: str, *, db: bool = True) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = commands.add_parser(name, help=help_text)
        if db:
            parser.add_argument("--db", required=True, help="path of the SQLite database")
        parser.set_defaults(handler=handler)
        return parser

    add("init", cmd_init, "create the reference host schema and the index in a new database")
    for name, handler, text in (
        ("install", cmd_install, "add the derived index to an existing host database"),
        ("uninstall", cmd_uninstall, "remove every derived object (host rows untouched)"),
        ("rebuild", cmd_rebuild, "rebuild the derived index from the host rows"),
    ):
        add(name, handler, text).add_argument(
            "--schema", help="JSON file with a HostSchema mapping"
        )
    importer = add("import", cmd_import, "import chats and messages from a JSON Lines file")
    importer.add_argument("file", help="JSON Lines: chat and message objects")
    for name, handler, text in (
        ("index", cmd_index, "drain the indexing backlog, with progress"),
        ("status", cmd_status, "backlog, versions and index integrity"),
    ):
        add(name, handler, text).add_argument(
            "--schema", help="JSON file with a HostSchema mapping"
        )
    search = add("search", cmd_search, "run search_chats and print its JSON")
    search.add_argument("--app", type=int, required=True)
    search.add_argument("--chat", type=int, help="the current chat (excluded)")
    search.add_argument("--limit", type=int)
    search.add_argument("query")
    read = add("read", cmd_read, "run read_chat and print its JSON")
    read.add_argument("--app", type=int, required=True)
    read.add_argument("--chat", type=int, required=True)
    read.add_argument("--around", type=int)
    read.add_argument("--before", type=int)
    read.add_argument("--after", type=int)
    read.add_argument("--offset", type=int)
    read.add_argument("--limit", type=int)
    read.add_argument("--current-chat", type=int)
    read.add_argument("--current-message", type=int)
    mcp = add("mcp", cmd_mcp, "serve both tools over MCP (stdio), scoped to one app")
    mcp.add_argument("--app", type=int, required=True)
    mcp.add_argument("--chat", type=int, help="the current chat (excluded from search)")


def report_error(error: ChatRecallError) -> int:
    print(f"chat-recall: error: {error}", file=sys.stderr)
    return 1
