"""Versioned, idempotent migrations of chat-recall's derived objects, and uninstall.

Only objects named `chat_recall_*` are created or dropped; no host row is ever written.
Triggers are generated from the host schema mapping and recreated on every install, so
a changed mapping takes effect at the next start.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from chat_recall.adapters.sqlite.schema import HostSchema, quote
from chat_recall.domain.text.analysis import Stemming, TextAnalysis

SCHEMA_VERSION = 2
PREFIX = "chat_recall_"

META = "chat_recall_meta"
DOCS = "chat_recall_docs"
DIRTY_MESSAGES = "chat_recall_dirty_messages"
DIRTY_CHATS = "chat_recall_dirty_chats"
PURGE = "chat_recall_purge"
APPS = "chat_recall_apps"
QUARANTINE = "chat_recall_quarantine"
MESSAGE_ORDER_INDEX = "chat_recall_messages_order"

UNICODE61 = "unicode61 remove_diacritics 2"


def fts_tokenizer(analysis: TextAnalysis) -> str:
    """The FTS5 tokenizer that applies `analysis`: unicode61, wrapped by FTS5's `porter`
    when it stems (`domain.text.porter` reproduces it for the in-memory twin)."""
    return f"porter {UNICODE61}" if analysis.stemming is Stemming.PORTER else UNICODE61


FTS_TOKENIZER = fts_tokenizer(TextAnalysis.default())


def fts_table_name(app_id: int) -> str:
    """The FTS5 table of one app: one table per app, so a search touches only its app's
    postings and statistics."""
    return f"chat_recall_fts_{app_id}" if app_id >= 0 else f"chat_recall_fts_n{-app_id}"


def fts_table_ddl(table: str, analysis: TextAnalysis) -> str:
    return (
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {quote(table)} "
        f"USING fts5(title, body, chat_ref, tokenize = '{fts_tokenizer(analysis)}')"
    )


def execute_script(connection: sqlite3.Connection, script: str) -> None:
    """Run `;`-separated statements inside the caller's transaction (unlike
    `executescript`, which commits first)."""
    for statement in script.split(";"):
        if statement.strip():
            connection.execute(statement)


def _migration_1(connection: sqlite3.Connection, schema: HostSchema) -> None:
    execute_script(
        connection,
        f"""
        CREATE TABLE IF NOT EXISTS {DOCS} (
            message_id INTEGER PRIMARY KEY,
            app_id INTEGER NOT NULL,
            chat_id INTEGER NOT NULL,
            role TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            is_compaction_summary INTEGER NOT NULL,
            projection_truncated INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS chat_recall_docs_chat ON {DOCS}(chat_id);
        CREATE INDEX IF NOT EXISTS chat_recall_docs_app ON {DOCS}(app_id, message_id);
        CREATE TABLE IF NOT EXISTS {DIRTY_MESSAGES} (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            message_id INTEGER NOT NULL UNIQUE,
            app_id INTEGER,
            chat_id INTEGER
        );
        CREATE INDEX IF NOT EXISTS chat_recall_dirty_messages_app
            ON {DIRTY_MESSAGES}(app_id, chat_id);
        CREATE TABLE IF NOT EXISTS {DIRTY_CHATS} (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            chat_id INTEGER NOT NULL UNIQUE,
            app_id INTEGER
        );
        CREATE TABLE IF NOT EXISTS {PURGE} (
            message_id INTEGER PRIMARY KEY,
            app_id INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS {APPS} (
            app_id INTEGER PRIMARY KEY,
            fts_table TEXT NOT NULL UNIQUE
        );
        CREATE INDEX IF NOT EXISTS {MESSAGE_ORDER_INDEX}
            ON {schema.q("messages")}({schema.q("message_chat_id")},
                                       {schema.q("message_created_at")},
                                       {schema.q("message_id")});
        """,
    )
    mark_all_messages_dirty(connection, schema, replace=False)


def _migration_2(connection: sqlite3.Connection, schema: HostSchema) -> None:
    """Rows that cannot be indexed are set aside here with their reason, so every
    other row keeps being indexed (`domain.model.QuarantinedRow`)."""
    connection.execute(
        f"""
        CREATE TABLE IF NOT EXISTS {QUARANTINE} (
            message_id INTEGER PRIMARY KEY,
            app_id INTEGER,
            chat_id INTEGER,
            reason TEXT NOT NULL
        )
        """
    )


MIGRATIONS: dict[int, Callable[[sqlite3.Connection, HostSchema], None]] = {
    1: _migration_1,
    2: _migration_2,
}


def mark_all_messages_dirty(
    connection: sqlite3.Connection,
    schema: HostSchema,
    *,
    replace: bool,
    after: int | None = None,
    limit: int | None = None,
) -> tuple[int, int] | None:
    """Mark host messages dirty (backfill, or a projection change), all of them or the
    next `limit` ids after `after`. Returns (marked, last id), or None when none were
    left."""
    s = schema
    verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
    mid = s.q("message_id")
    where = "" if after is None else f"WHERE m.{mid} > {int(after)}"
    bound = "" if limit is None else f"LIMIT {int(limit)}"
    last = connection.execute(
        f"SELECT max({mid}) FROM (SELECT m.{mid} FROM {s.q('messages')} AS m {where} "
        f"ORDER BY m.{mid} {bound})"
    ).fetchone()[0]
    if last is None:
        return None
    upper = f"m.{mid} <= {int(last)}"
    cursor = connection.execute(
        f"""
        {verb} INTO {DIRTY_MESSAGES}(message_id, app_id, chat_id)
        SELECT m.{mid}, c.{s.q("chat_app_id")}, m.{s.q("message_chat_id")}
        FROM {s.q("messages")} AS m
        LEFT JOIN {s.q("chats")} AS c ON c.{s.q("chat_id")} = m.{s.q("message_chat_id")}
        {where + " AND " + upper if where else "WHERE " + upper}
        ORDER BY m.{mid}
        """
    )
    return cursor.rowcount, int(last)


def _hide(where: str) -> str:
    """Make documents invisible at once (the FTS rows are purged by the indexer)."""
    return f"""
        INSERT OR REPLACE INTO {PURGE}(message_id, app_id)
            SELECT message_id, app_id FROM {DOCS} WHERE {where};
        DELETE FROM {DOCS} WHERE {where};
    """


def _trigger_sql(schema: HostSchema) -> list[str]:
    s = schema
    messages, chats = s.q("messages"), s.q("chats")
    mid, mchat = s.q("message_id"), s.q("message_chat_id")
    cid, capp, title = s.q("chat_id"), s.q("chat_app_id"), s.q("chat_title")
    watched = [mid, mchat, s.q("message_role"), s.q("message_content"), s.q("message_created_at")]
    if s.message_is_compaction_summary is not None:
        watched.append(s.q("message_is_compaction_summary"))
    message_changed = " OR ".join(f"OLD.{column} IS NOT NEW.{column}" for column in watched)
    message_moved = f"(OLD.{mid} IS NOT NEW.{mid} OR OLD.{mchat} IS NOT NEW.{mchat})"
    chat_moved = f"(OLD.{cid} IS NOT NEW.{cid} OR OLD.{capp} IS NOT NEW.{capp})"
    mark_message = f"""
        INSERT OR REPLACE INTO {DIRTY_MESSAGES}(message_id, app_id, chat_id)
        VALUES (NEW.{mid}, (SELECT {capp} FROM {chats} WHERE {cid} = NEW.{mchat}), NEW.{mchat});
    """
    mark_chat = f"""
        INSERT OR REPLACE INTO {DIRTY_CHATS}(chat_id, app_id) VALUES (NEW.{cid}, NEW.{capp});
    """
    return [
        f"""CREATE TRIGGER chat_recall_message_insert AFTER INSERT ON {messages}
        BEGIN {mark_message} END""",
        f"""CREATE TRIGGER chat_recall_message_update AFTER UPDATE ON {messages}
        WHEN {message_changed}
        BEGIN
            {_hide(f"{message_moved} AND message_id = OLD.{mid}")}
            DELETE FROM {DIRTY_MESSAGES}
                WHERE OLD.{mid} IS NOT NEW.{mid} AND message_id = OLD.{mid};
            {mark_message}
        END""",
        f"""CREATE TRIGGER chat_recall_message_delete AFTER DELETE ON {messages}
        BEGIN
            {_hide(f"message_id = OLD.{mid}")}
            DELETE FROM {DIRTY_MESSAGES} WHERE message_id = OLD.{mid};
        END""",
        f"""CREATE TRIGGER chat_recall_chat_insert AFTER INSERT ON {chats}
        BEGIN {mark_chat} END""",
        f"""CREATE TRIGGER chat_recall_chat_update AFTER UPDATE ON {chats}
        WHEN OLD.{title} IS NOT NEW.{title} OR {chat_moved}
        BEGIN
            {_hide(f"{chat_moved} AND chat_id = OLD.{cid}")}
            DELETE FROM {DIRTY_CHATS} WHERE OLD.{cid} IS NOT NEW.{cid} AND chat_id = OLD.{cid};
            {mark_chat}
        END""",
        f"""CREATE TRIGGER chat_recall_chat_delete AFTER DELETE ON {chats}
        BEGIN
            {_hide(f"chat_id = OLD.{cid}")}
            DELETE FROM {DIRTY_CHATS} WHERE chat_id = OLD.{cid};
        END""",
    ]


TRIGGERS = (
    "chat_recall_message_insert",
    "chat_recall_message_update",
    "chat_recall_message_delete",
    "chat_recall_chat_insert",
    "chat_recall_chat_update",
    "chat_recall_chat_delete",
)


ANALYSIS_KEY = "analysis"


def recorded_analysis(connection: sqlite3.Connection) -> str | None:
    """The analysis (`TextAnalysis.name`) the index's FTS5 tables were built with, or
    None when there are none yet. Installs older than this record built unstemmed
    unicode61 tables."""
    row = connection.execute(f"SELECT value FROM {META} WHERE key = ?", (ANALYSIS_KEY,)).fetchone()
    if row is not None:
        return str(row[0])
    built = connection.execute(f"SELECT 1 FROM {APPS} LIMIT 1").fetchone()
    return Stemming.NONE.value if built else None


def record_analysis(connection: sqlite3.Connection, analysis: TextAnalysis) -> None:
    connection.execute(
        f"INSERT OR REPLACE INTO {META}(key, value) VALUES (?, ?)", (ANALYSIS_KEY, analysis.name)
    )


def drop_app_index(connection: sqlite3.Connection, app_id: int, table: str) -> None:
    """One app's FTS5 table and documents, gone (its messages are re-marked by the
    caller): a table's tokenizer cannot change in place."""
    connection.execute(f"DROP TABLE IF EXISTS {quote(table)}")
    connection.execute(f"DELETE FROM {DOCS} WHERE app_id = ?", (app_id,))
    connection.execute(f"DELETE FROM {PURGE} WHERE app_id = ?", (app_id,))
    connection.execute(f"DELETE FROM {APPS} WHERE app_id = ?", (app_id,))


def schema_version(connection: sqlite3.Connection) -> int:
    exists = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (META,)
    ).fetchone()
    if not exists:
        return 0
    row = connection.execute(f"SELECT value FROM {META} WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def install(connection: sqlite3.Connection, schema: HostSchema) -> int:
    """Bring the derived objects to SCHEMA_VERSION inside the caller's transaction and
    (re)create the triggers. Returns the version found before."""
    connection.execute(f"CREATE TABLE IF NOT EXISTS {META} (key TEXT PRIMARY KEY, value TEXT)")
    found = schema_version(connection)
    for version in range(found + 1, SCHEMA_VERSION + 1):
        MIGRATIONS[version](connection, schema)
    connection.execute(
        f"INSERT OR REPLACE INTO {META}(key, value) VALUES ('schema_version', ?)",
        (str(SCHEMA_VERSION),),
    )
    for name in TRIGGERS:
        connection.execute(f"DROP TRIGGER IF EXISTS {name}")
    for statement in _trigger_sql(schema):
        connection.execute(statement)
    return found


def uninstall(connection: sqlite3.Connection) -> list[str]:
    """Drop every derived object; host tables and rows are untouched. Returns the
    names dropped."""
    dropped: list[str] = []
    rows = connection.execute(
        "SELECT type, name FROM sqlite_master WHERE name LIKE 'chat\\_recall\\_%' ESCAPE '\\' "
        "AND type IN ('trigger', 'index', 'table') ORDER BY type = 'table', name"
    ).fetchall()
    fts_tables = {
        name for _, name in rows if name.startswith("chat_recall_fts_") and "_fts_" in name
    }
    for kind, name in rows:
        if kind == "table" and any(
            name.startswith(f"{table}_") and name != table for table in fts_tables
        ):
            continue  # FTS5 shadow tables go with their virtual table
        if kind == "index" and name.startswith("sqlite_autoindex"):
            continue
        connection.execute(f"DROP {kind.upper()} IF EXISTS {quote(name)}")
        dropped.append(name)
    return dropped
