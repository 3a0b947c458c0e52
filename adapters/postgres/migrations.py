"""Versioned migrations of chat-recall's derived objects in PostgreSQL, its triggers on
the host's tables, and uninstall.

Only objects named `chat_recall_*` are created or dropped; no host row is ever written.
Everything lives in the first schema of the connection's `search_path` (the host's),
beside the host tables. Triggers are generated from the host schema mapping and
recreated at an install that finds them changed (or missing), so a changed mapping
takes effect at the next start; an unchanged one takes no lock on the host's tables.

What the triggers do inside the host's transaction, and nothing more (see
docs/engines.md, "PostgreSQL"):
- a message inserted or changed in a watched column: one upsert of its marker (a new
  `seq` from a sequence; the app is looked up in the chat by primary key);
- a message deleted by the host: its marker removed and, if it has a document, a
  tombstone so maintenance reclaims it. Messages deleted by a cascade from their chat
  cost nothing (`pg_trigger_depth()`): the chat's one tombstone covers them;
- a chat renamed or moved (or inserted when messages already name it): one upsert of
  its marker; deleted: one tombstone.
Deleted is deleted without any of them: every read joins the live host rows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import psycopg

from chat_recall.adapters.host_schema import HostSchema, quote
from chat_recall.domain.errors import IndexUnavailable
from chat_recall.domain.schema_version import usable_version
from chat_recall.domain.text.analysis import TextAnalysis

SCHEMA_VERSION = 1
PREFIX = "chat_recall_"

META = "chat_recall_meta"
SEQUENCE = "chat_recall_seq"
DOCS = "chat_recall_docs"
APPS = "chat_recall_apps"
DIRTY_MESSAGES = "chat_recall_dirty_messages"
DIRTY_CHATS = "chat_recall_dirty_chats"
PURGE = "chat_recall_purge"
DELETED_CHATS = "chat_recall_deleted_chats"
QUARANTINE = "chat_recall_quarantine"
MESSAGE_ORDER_INDEX = "chat_recall_messages_order"
# How long creating or dropping triggers waits for the host's table (see `install`).
TRIGGER_LOCK_TIMEOUT_MS = 200

TABLES = (META, DOCS, APPS, DIRTY_MESSAGES, DIRTY_CHATS, PURGE, DELETED_CHATS, QUARANTINE)

# Advisory lock keys (second half of the two-key form; the first is the schema's hash).
LOCK_INSTALL = 1
LOCK_BATCH = 2
LOCK_MAINTAIN = 3


def lock_key_sql(kind: int) -> str:
    """Arguments of pg_advisory_*lock: one namespace per schema holding chat-recall."""
    return f"hashtext('chat_recall:' || current_schema()), {int(kind)}"


def _migration_1(connection: psycopg.Connection[Any], schema: HostSchema) -> None:
    for statement in (
        f"CREATE SEQUENCE IF NOT EXISTS {SEQUENCE}",
        f"""CREATE TABLE IF NOT EXISTS {APPS} (
            app_id bigint PRIMARY KEY,
            documents bigint NOT NULL DEFAULT 0,
            terms bigint NOT NULL DEFAULT 0
        )""",
        f"""CREATE TABLE IF NOT EXISTS {DOCS} (
            message_id bigint PRIMARY KEY,
            app_id bigint NOT NULL,
            chat_id bigint NOT NULL,
            role text NOT NULL,
            created_at bigint NOT NULL,
            is_compaction_summary boolean NOT NULL,
            projection_truncated boolean NOT NULL,
            terms integer NOT NULL,
            title text NOT NULL,
            body text NOT NULL,
            tsv tsvector NOT NULL
        )""",
        f"CREATE INDEX IF NOT EXISTS chat_recall_docs_tsv ON {DOCS} USING gin (tsv)",
        f"CREATE INDEX IF NOT EXISTS chat_recall_docs_app ON {DOCS} (app_id, message_id)",
        f"CREATE INDEX IF NOT EXISTS chat_recall_docs_chat ON {DOCS} (chat_id)",
        f"""CREATE TABLE IF NOT EXISTS {DIRTY_MESSAGES} (
            message_id bigint PRIMARY KEY,
            seq bigint NOT NULL DEFAULT nextval('{SEQUENCE}'),
            app_id bigint,
            chat_id bigint
        )""",
        f"CREATE INDEX IF NOT EXISTS chat_recall_dirty_messages_seq ON {DIRTY_MESSAGES} (seq)",
        f"""CREATE INDEX IF NOT EXISTS chat_recall_dirty_messages_app
            ON {DIRTY_MESSAGES} (app_id, chat_id)""",
        f"""CREATE TABLE IF NOT EXISTS {DIRTY_CHATS} (
            chat_id bigint PRIMARY KEY,
            seq bigint NOT NULL DEFAULT nextval('{SEQUENCE}'),
            app_id bigint
        )""",
        f"CREATE INDEX IF NOT EXISTS chat_recall_dirty_chats_seq ON {DIRTY_CHATS} (seq)",
        f"""CREATE TABLE IF NOT EXISTS {PURGE} (
            message_id bigint PRIMARY KEY,
            app_id bigint NOT NULL
        )""",
        f"""CREATE TABLE IF NOT EXISTS {DELETED_CHATS} (
            chat_id bigint PRIMARY KEY,
            app_id bigint
        )""",
        f"""CREATE TABLE IF NOT EXISTS {QUARANTINE} (
            message_id bigint PRIMARY KEY,
            app_id bigint,
            chat_id bigint,
            reason text NOT NULL
        )""",
    ):
        connection.execute(statement)


MIGRATIONS: dict[int, Callable[[psycopg.Connection[Any], HostSchema], None]] = {
    1: _migration_1,
}


def _functions(schema: HostSchema, namespace: str) -> dict[str, str]:
    """Trigger function name -> its plpgsql body. Every table it names is qualified by
    `namespace` (the schema chat-recall is installed in): a trigger runs with the search
    path of the host's session, which need not find chat-recall's tables (a host that
    installed with `options=-csearch_path=app` and writes with the default path had
    every write fail with "relation chat_recall_dirty_messages does not exist")."""
    s = schema
    ns = quote(namespace)
    chats = f"{ns}.{s.q('chats')}"
    dirty_messages, dirty_chats = f"{ns}.{DIRTY_MESSAGES}", f"{ns}.{DIRTY_CHATS}"
    purge, docs, deleted_chats = f"{ns}.{PURGE}", f"{ns}.{DOCS}", f"{ns}.{DELETED_CHATS}"
    mid, mchat = s.q("message_id"), s.q("message_chat_id")
    cid, capp = s.q("chat_id"), s.q("chat_app_id")
    mark_message = f"""
        INSERT INTO {dirty_messages} (message_id, app_id, chat_id)
        VALUES (NEW.{mid}, (SELECT c.{capp} FROM {chats} AS c WHERE c.{cid} = NEW.{mchat}),
                NEW.{mchat})
        ON CONFLICT (message_id) DO UPDATE
            SET seq = EXCLUDED.seq, app_id = EXCLUDED.app_id, chat_id = EXCLUDED.chat_id;"""
    # One statement (one executor start in the host's transaction, not two).
    forget_message = f"""
        WITH unmarked AS (DELETE FROM {dirty_messages} WHERE message_id = OLD.{mid})
        INSERT INTO {purge} (message_id, app_id)
            SELECT d.message_id, d.app_id FROM {docs} AS d WHERE d.message_id = OLD.{mid}
            ON CONFLICT (message_id) DO NOTHING;"""
    mark_chat = f"""
        INSERT INTO {dirty_chats} (chat_id, app_id) VALUES (NEW.{cid}, NEW.{capp})
        ON CONFLICT (chat_id) DO UPDATE SET seq = EXCLUDED.seq, app_id = EXCLUDED.app_id;"""
    forget_chat = f"""
        WITH unmarked AS (DELETE FROM {dirty_chats} WHERE chat_id = OLD.{cid})
        INSERT INTO {deleted_chats} (chat_id, app_id) VALUES (OLD.{cid}, OLD.{capp})
        ON CONFLICT (chat_id) DO NOTHING;"""
    return {
        "chat_recall_message_inserted": mark_message,
        "chat_recall_message_updated": f"""
        IF OLD.{mid} IS DISTINCT FROM NEW.{mid} THEN {forget_message} END IF;
        {mark_message}""",
        "chat_recall_message_deleted": forget_message,
        # A new chat has no messages yet (theirs mark themselves): only a chat row that
        # adopts existing messages needs them indexed (no duplicate work at import).
        "chat_recall_chat_inserted": f"""
        IF EXISTS (SELECT 1 FROM {ns}.{s.q("messages")} AS m WHERE m.{mchat} = NEW.{cid}) THEN
            {mark_chat}
        END IF;""",
        "chat_recall_chat_updated": f"""
        IF OLD.{cid} IS DISTINCT FROM NEW.{cid} THEN {forget_chat} END IF;
        {mark_chat}""",
        "chat_recall_chat_deleted": forget_chat,
    }


def _triggers(schema: HostSchema) -> list[tuple[str, str]]:
    """(trigger name, CREATE TRIGGER statement)."""
    s = schema
    messages, chats = s.q("messages"), s.q("chats")
    watched = [
        s.q("message_id"),
        s.q("message_chat_id"),
        s.q("message_role"),
        s.q("message_content"),
        s.q("message_created_at"),
    ]
    if s.message_is_compaction_summary is not None:
        watched.append(s.q("message_is_compaction_summary"))
    chat_watched = [s.q("chat_id"), s.q("chat_app_id"), s.q("chat_title")]

    def changed(columns: list[str]) -> str:
        return " OR ".join(f"OLD.{c} IS DISTINCT FROM NEW.{c}" for c in columns)

    def trigger(name: str, when: str, table: str, condition: str | None) -> tuple[str, str]:
        guard = f" WHEN ({condition})" if condition else ""
        return name, (
            f"CREATE TRIGGER {name} AFTER {when} ON {table} FOR EACH ROW{guard} "
            f"EXECUTE FUNCTION {name}()"
        )

    return [
        trigger("chat_recall_message_inserted", "INSERT", messages, None),
        trigger(
            "chat_recall_message_updated",
            f"UPDATE OF {', '.join(watched)}",
            messages,
            changed(watched),
        ),
        # A cascade from a deleted chat runs inside the chat's RI trigger (depth 1):
        # the chat's tombstone covers its messages, at no cost per message.
        trigger("chat_recall_message_deleted", "DELETE", messages, "pg_trigger_depth() < 1"),
        trigger("chat_recall_chat_inserted", "INSERT", chats, None),
        trigger(
            "chat_recall_chat_updated",
            f"UPDATE OF {', '.join(chat_watched)}",
            chats,
            changed(chat_watched),
        ),
        trigger("chat_recall_chat_deleted", "DELETE", chats, None),
    ]


TRIGGER_TABLES = {
    "chat_recall_message_inserted": "messages",
    "chat_recall_message_updated": "messages",
    "chat_recall_message_deleted": "messages",
    "chat_recall_chat_inserted": "chats",
    "chat_recall_chat_updated": "chats",
    "chat_recall_chat_deleted": "chats",
}


def _drop_triggers(connection: psycopg.Connection[Any], schema: HostSchema) -> None:
    """Drop our triggers wherever they are (a changed mapping may have moved them)."""
    rows = connection.execute(
        "SELECT t.tgname, t.tgrelid::regclass::text FROM pg_trigger AS t "
        "JOIN pg_class AS r ON r.oid = t.tgrelid "
        "WHERE t.tgname LIKE 'chat\\_recall\\_%' AND NOT t.tgisinternal "
        "AND r.relnamespace = current_schema()::regnamespace"
    ).fetchall()
    for name, table in rows:
        connection.execute(f"DROP TRIGGER IF EXISTS {quote(name)} ON {table}")


def stored_schema_version(connection: psycopg.Connection[Any]) -> object:
    """The stored schema version as stored (None when chat-recall is not installed)."""
    exists = connection.execute("SELECT to_regclass(%s) IS NOT NULL", (META,)).fetchone()
    if not exists or not exists[0]:
        return None
    row = connection.execute(f"SELECT value FROM {META} WHERE key = 'schema_version'").fetchone()
    return None if row is None else row[0]


def schema_version(connection: psycopg.Connection[Any]) -> int:
    """The installed schema version (0: not installed). Raises IndexUnavailable for a
    version this release cannot use (`domain.schema_version`): an older or a newer
    release's, or a value that is no version; none is ever re-stamped."""
    return usable_version(stored_schema_version(connection), SCHEMA_VERSION)


def install(connection: psycopg.Connection[Any], schema: HostSchema) -> int:
    """Bring the derived objects to SCHEMA_VERSION inside the caller's transaction and
    (re)create the trigger functions and triggers. Returns the version found before.
    Serialised across processes by an advisory lock. A stored version this release
    cannot use raises IndexUnavailable before anything is written (`schema_version`)."""
    connection.execute(f"SELECT pg_advisory_xact_lock({lock_key_sql(LOCK_INSTALL)})")
    found = schema_version(connection)
    connection.execute(
        f"CREATE TABLE IF NOT EXISTS {META} (key text PRIMARY KEY, value text NOT NULL)"
    )
    for version in range(found + 1, SCHEMA_VERSION + 1):
        MIGRATIONS[version](connection, schema)
    connection.execute(
        f"INSERT INTO {META} (key, value) VALUES ('schema_version', %s) "
        "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        (str(SCHEMA_VERSION),),
    )
    namespace = connection.execute("SELECT current_schema()").fetchone()
    if namespace is None or namespace[0] is None:
        raise IndexUnavailable("the connection's search_path names no schema to install in")
    functions = {
        name: f" BEGIN {body} RETURN NULL; END "
        for name, body in _functions(schema, str(namespace[0])).items()
    }
    triggers = _triggers(schema)
    if _triggers_current(connection, schema, functions, triggers):
        return found  # nothing to change: no lock on the host's tables at all
    # Dropping and creating triggers locks the host's table against every statement,
    # and a lock waiting behind a host transaction queues all others behind it: wait
    # briefly, and let the caller try again (`setup.start`).
    connection.execute(f"SET LOCAL lock_timeout = {TRIGGER_LOCK_TIMEOUT_MS}")
    _drop_triggers(connection, schema)
    for name, source in functions.items():
        connection.execute(
            f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql "
            f"AS $chat_recall${source}$chat_recall$"
        )
    for _, statement in triggers:
        connection.execute(statement)
    connection.execute(
        f"INSERT INTO {META} (key, value) VALUES ('triggers', %s) "
        "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        (_statements_digest(triggers),),
    )
    return found


def _triggers_current(
    connection: psycopg.Connection[Any],
    schema: HostSchema,
    functions: dict[str, str],
    triggers: list[tuple[str, str]],
) -> bool:
    """Whether the trigger statements recorded at the last install are these, every
    trigger function has this source, and every trigger exists, enabled, on the table
    the mapping names."""
    recorded = connection.execute(f"SELECT value FROM {META} WHERE key = 'triggers'").fetchone()
    if recorded is None or recorded[0] != _statements_digest(triggers):
        return False
    sources = dict(
        connection.execute(
            "SELECT proname, prosrc FROM pg_proc "
            "WHERE pronamespace = current_schema()::regnamespace AND proname = ANY(%s)",
            (list(functions),),
        ).fetchall()
    )
    if sources != functions:
        return False
    present = {
        name: (table, enabled)
        for name, table, enabled in connection.execute(
            "SELECT t.tgname, t.tgrelid, t.tgenabled <> 'D' "
            "FROM pg_trigger AS t JOIN pg_class AS r ON r.oid = t.tgrelid "
            "WHERE NOT t.tgisinternal AND t.tgname = ANY(%s) "
            "AND r.relnamespace = current_schema()::regnamespace",
            ([name for name, _ in triggers],),
        ).fetchall()
    }
    for name, _ in triggers:
        table = connection.execute(
            "SELECT to_regclass(%s)::oid", (schema.q(TRIGGER_TABLES[name]),)
        ).fetchone()
        if name not in present or table is None or present[name] != (table[0], True):
            return False
    return True


def _statements_digest(triggers: list[tuple[str, str]]) -> str:
    return hashlib.sha256("\n".join(statement for _, statement in triggers).encode()).hexdigest()


def recorded_analysis(connection: psycopg.Connection[Any]) -> str | None:
    row = connection.execute(f"SELECT value FROM {META} WHERE key = 'analysis'").fetchone()
    return None if row is None else str(row[0])


def chosen_analysis(connection: psycopg.Connection[Any]) -> str | None:
    """The analysis the index records (None before chat-recall is installed)."""
    exists = connection.execute("SELECT to_regclass(%s) IS NOT NULL", (META,)).fetchone()
    return recorded_analysis(connection) if exists and exists[0] else None


def record_analysis(connection: psycopg.Connection[Any], analysis: TextAnalysis) -> None:
    connection.execute(
        f"INSERT INTO {META} (key, value) VALUES ('analysis', %s) "
        "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        (analysis.name,),
    )


def drop_documents(connection: psycopg.Connection[Any]) -> None:
    """Every document and its statistics (a rebuild under another analysis)."""
    connection.execute(f"TRUNCATE {DOCS}, {APPS}, {PURGE}, {DELETED_CHATS}")


def order_index_sql(schema: HostSchema) -> str:
    """The host index read_chat's keyset reads need; built CONCURRENTLY (outside any
    transaction) so host writes never wait for it."""
    s = schema
    return (
        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {MESSAGE_ORDER_INDEX} ON {s.q('messages')} "
        f"({s.q('message_chat_id')}, {s.q('message_created_at')}, {s.q('message_id')})"
    )


def mark_messages(
    connection: psycopg.Connection[Any],
    schema: HostSchema,
    *,
    replace: bool,
    after: int | None,
    limit: int,
) -> tuple[int, int] | None:
    """Mark the next `limit` host messages by id after `after` dirty (a backfill keeps
    existing markers, a projection change renews them). Returns (marked, last id), or
    None when none were left."""
    s = schema
    mid = s.q("message_id")
    where = "" if after is None else f"WHERE m.{mid} > %(after)s"
    conflict = (
        "DO UPDATE SET seq = EXCLUDED.seq, app_id = EXCLUDED.app_id, chat_id = EXCLUDED.chat_id"
        if replace
        else "DO NOTHING"
    )
    row = connection.execute(
        f"""
        WITH chunk AS (
            SELECT m.{mid} AS id, m.{s.q("message_chat_id")} AS chat_id
            FROM {s.q("messages")} AS m {where} ORDER BY m.{mid} LIMIT %(limit)s
        ), marked AS (
            INSERT INTO {DIRTY_MESSAGES} (message_id, app_id, chat_id)
            SELECT chunk.id, c.{s.q("chat_app_id")}, chunk.chat_id FROM chunk
            LEFT JOIN {s.q("chats")} AS c ON c.{s.q("chat_id")} = chunk.chat_id
            ORDER BY chunk.id
            ON CONFLICT (message_id) {conflict}
            RETURNING 1
        )
        SELECT (SELECT count(*) FROM marked), (SELECT max(id) FROM chunk)
        """,
        {"after": after, "limit": limit},
    ).fetchone()
    if row is None or row[1] is None:
        return None
    return int(row[0]), int(row[1])


def uninstall(
    connection: psycopg.Connection[Any], schema: HostSchema, kept: frozenset[str] = frozenset()
) -> list[str]:
    """Drop every derived object, our triggers on the host tables first; host tables
    and rows are untouched, and so are the tables named in `kept`. Returns the names
    dropped."""
    connection.execute(f"SELECT pg_advisory_xact_lock({lock_key_sql(LOCK_INSTALL)})")
    dropped: list[str] = []
    triggers = connection.execute(
        "SELECT t.tgname FROM pg_trigger AS t JOIN pg_class AS r ON r.oid = t.tgrelid "
        "WHERE t.tgname LIKE 'chat\\_recall\\_%' AND NOT t.tgisinternal "
        "AND r.relnamespace = current_schema()::regnamespace ORDER BY 1"
    ).fetchall()
    _drop_triggers(connection, schema)
    dropped += [row[0] for row in triggers]
    objects = connection.execute(
        "SELECT c.relname, c.relkind FROM pg_class AS c "
        "WHERE c.relnamespace = current_schema()::regnamespace "
        "AND c.relname LIKE 'chat\\_recall\\_%' AND c.relkind IN ('r', 'p', 'S', 'i') "
        "ORDER BY c.relkind = 'i' DESC, c.relname"
    ).fetchall()
    for name, kind in objects:
        if name in kept or any(name.startswith(f"{table}_") for table in kept):
            continue  # a kept table, and its own index
        statement = {
            "i": "DROP INDEX IF EXISTS",
            "S": "DROP SEQUENCE IF EXISTS",
        }.get(kind, "DROP TABLE IF EXISTS")
        if kind == "i" and not name.startswith(MESSAGE_ORDER_INDEX):
            continue  # our tables' own indexes go with them
        connection.execute(f"{statement} {quote(name)} CASCADE")
        dropped.append(name)
    functions = connection.execute(
        "SELECT p.proname FROM pg_proc AS p "
        "WHERE p.pronamespace = current_schema()::regnamespace "
        "AND p.proname LIKE 'chat\\_recall\\_%' ORDER BY 1"
    ).fetchall()
    for (name,) in functions:
        connection.execute(f"DROP FUNCTION IF EXISTS {quote(name)}()")
        dropped.append(f"{name}()")
    return dropped
