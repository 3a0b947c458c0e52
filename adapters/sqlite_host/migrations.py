"""chat-recall's derived objects in the host's SQLite database: the schema, created in
one step, the triggers on the host's tables, and uninstall.

Only objects named `chat_recall_*` are created or dropped; no host row is ever written.
Triggers are generated from the host schema mapping and recreated on every install, so
a changed mapping takes effect at the next start.

The triggers run inside the host's own write transactions, so they do the least that
must happen at once: a host write upserts one marker row ("message X changed", "chat X
renamed"); a delete records one row that every search filters against ("message X
deleted", "chat X deleted"), so deleted content is invisible from the moment the delete
commits, whatever the size of the chat. Everything else (resolving a chat into its
messages, removing documents) is the indexer's, later, in bounded steps. Work that grows
with the database (marking every message at install, filling the message order) runs
after the install in chunks, each its own short transaction (`setup.finish`).

Reading a chat in order needs its messages by (created_at, id). An index on the host's
messages would give that order, but SQLite builds an index in one statement, holding
the write lock for as long as it reads the whole table (a time that grows with the
host's history): no host writer may wait that long. So the order is a table of
chat-recall's own (`MESSAGE_ORDER`), filled in the install's chunked walk and kept by
the triggers.
"""

from __future__ import annotations

import sqlite3

import attrs

from chat_recall.adapters.sqlite_host.schema import HostSchema, quote
from chat_recall.domain.schema_version import usable_version
from chat_recall.domain.text.analysis import Stemming, TextAnalysis

# The one version this release writes and reads. Versions 1 to 3 were pre-release
# schemas, never published: they are refused with the fix named (`domain.schema_version`),
# not upgraded. The number stays 4 so that databases installed with it open unchanged.
SCHEMA_VERSION = 4
PREFIX = "chat_recall_"

META = "chat_recall_meta"
DOCS = "chat_recall_docs"
# Markers keyed by id, whose `seq` is a new random value at every mark: no AUTOINCREMENT
# bookkeeping in the host's transaction (see the module doc).
DIRTY_MESSAGES = "chat_recall_dirty_messages"
DIRTY_CHATS = "chat_recall_dirty_chats"
DELETED_MESSAGES = "chat_recall_deleted_messages"
DELETED_CHATS = "chat_recall_deleted_chats"
# Documents the engine still holds that no docs row describes any more (written by the
# maintenance step that reclaims deleted documents).
PURGE = "chat_recall_purge"
APPS = "chat_recall_apps"
# meta key: every message with an id above this value still has to be marked dirty
# (a fresh install or a projection change marks in chunks; absent when done).
MARKING_AFTER = "marking_after"
# Rows that cannot be indexed, set aside with their reason, so every other row keeps
# being indexed (`domain.model.QuarantinedRow`).
QUARANTINE = "chat_recall_quarantine"
# Each host message's (chat, created_at), copied exactly (created_at has no
# type, so no affinity changes a value or its order), with an index in read order.
MESSAGE_ORDER = "chat_recall_message_order"
# meta key: messages with an id above this value may still be missing from (or stale
# in) MESSAGE_ORDER; reads take the host's order meanwhile (absent when filled).
ORDER_FILLED_AFTER = "order_filled_after"

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


# With an analysis that writes its stems (`TextAnalysis.writes_stems`: a Snowball
# language), `title` and `body` hold the stems as text and these unindexed columns the
# index text itself, for excerpts and `documents`.
WRITTEN_TEXT_COLUMNS = ("title_text", "body_text")


def fts_table_ddl(table: str, analysis: TextAnalysis) -> str:
    texts = "".join(f", {column} UNINDEXED" for column in WRITTEN_TEXT_COLUMNS)
    return (
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {quote(table)} "
        f"USING fts5(title, body, chat_ref{texts if analysis.writes_stems else ''}, "
        f"tokenize = '{fts_tokenizer(analysis)}')"
    )


def execute_script(connection: sqlite3.Connection, script: str) -> None:
    """Run `;`-separated statements inside the caller's transaction (unlike
    `executescript`, which commits first)."""
    for statement in script.split(";"):
        if statement.strip():
            connection.execute(statement)


def _create_tables(connection: sqlite3.Connection) -> None:
    """The derived tables of SCHEMA_VERSION, empty, inside the caller's transaction; the
    walks that fill them from the host's messages are left to `setup.finish`."""
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
            message_id INTEGER PRIMARY KEY,
            app_id INTEGER,
            chat_id INTEGER,
            seq INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS chat_recall_dirty_messages_app
            ON {DIRTY_MESSAGES}(app_id, chat_id);
        CREATE TABLE IF NOT EXISTS {DIRTY_CHATS} (
            chat_id INTEGER PRIMARY KEY,
            app_id INTEGER,
            seq INTEGER NOT NULL,
            adopt INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE IF NOT EXISTS {DELETED_MESSAGES} (
            message_id INTEGER PRIMARY KEY
        );
        CREATE TABLE IF NOT EXISTS {DELETED_CHATS} (
            chat_id INTEGER PRIMARY KEY
        );
        CREATE TABLE IF NOT EXISTS {PURGE} (
            message_id INTEGER PRIMARY KEY,
            app_id INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS {APPS} (
            app_id INTEGER PRIMARY KEY,
            fts_table TEXT NOT NULL UNIQUE
        );
        CREATE TABLE IF NOT EXISTS {QUARANTINE} (
            message_id INTEGER PRIMARY KEY,
            app_id INTEGER,
            chat_id INTEGER,
            reason TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS {MESSAGE_ORDER} (
            message_id INTEGER PRIMARY KEY,
            chat_id INTEGER,
            created_at
        );
        CREATE INDEX IF NOT EXISTS chat_recall_message_order_read
            ON {MESSAGE_ORDER}(chat_id, created_at, message_id)
        """,
    )
    # Every message gets marked, and the order filled, after the install in chunks.
    connection.execute(
        f"INSERT OR REPLACE INTO {META}(key, value) VALUES ('{MARKING_AFTER}', NULL)"
    )
    refill_order(connection)


def refill_order(connection: sqlite3.Connection) -> None:
    """Have `setup.finish` walk every host message into MESSAGE_ORDER again (at a fresh
    install, or after triggers that were missing while the host wrote)."""
    connection.execute(
        f"INSERT OR REPLACE INTO {META}(key, value) VALUES ('{ORDER_FILLED_AFTER}', NULL)"
    )


def mark_all_messages_dirty(
    connection: sqlite3.Connection,
    schema: HostSchema,
    *,
    after: int | None = None,
    limit: int | None = None,
) -> tuple[int, int] | None:
    """Mark host messages dirty (backfill, or a projection change), all of them or the
    next `limit` ids after `after`, each with a new seq. Returns (marked, last id), or
    None when none were left."""
    last = chunk_end(connection, schema, after=after, limit=limit)
    if last is None:
        return None
    return mark_range(connection, schema, after, last), last


def forget_order_of_gone_chat(
    connection: sqlite3.Connection, schema: HostSchema, chat_id: int, limit: int
) -> int:
    """Of a deleted chat's first `limit` order rows, remove those whose message is gone
    (or in another chat): its messages left with it in a cascade the delete trigger
    skips, so a chat's delete costs one row whatever its size. Returns how many went:
    `limit` when more may follow. Rows whose message is still there are kept (a host
    without foreign keys keeps a deleted chat's messages, which read again if the chat
    comes back); reads join each row to its message, so a stale one is never seen."""
    s = schema
    cursor = connection.execute(
        f"DELETE FROM {MESSAGE_ORDER} WHERE message_id IN ("
        f"SELECT o.message_id FROM (SELECT message_id, chat_id FROM {MESSAGE_ORDER} "
        f"WHERE chat_id = ? LIMIT ?) AS o WHERE NOT EXISTS (SELECT 1 FROM {s.q('messages')} "
        f"AS m WHERE m.{s.q('message_id')} = o.message_id "
        f"AND m.{s.q('message_chat_id')} = o.chat_id))",
        (chat_id, limit),
    )
    return max(int(cursor.rowcount), 0)


def _id_range(column: str, after: int | None, last: int) -> str:
    """`column` in (after, last] (no lower bound without `after`)."""
    lower = "" if after is None else f"{column} > {int(after)} AND "
    return f"{lower}{column} <= {int(last)}"


def _host_ids(schema: HostSchema) -> str:
    return f"m.{schema.q('message_id')}"


# SQLite's largest integer key.
LARGEST_ID = 2**63 - 1


def chunk_end(
    connection: sqlite3.Connection,
    schema: HostSchema,
    *,
    after: int | None = None,
    limit: int | None = None,
) -> int | None:
    """The last id of the next chunk of host messages after `after`: a chunk spans at
    most `limit` ids from the first message after `after` (ids, not rows: one step down
    the table's key finds it, where counting rows read each of them), all of them
    without a limit. None when none are left."""
    mid = schema.q("message_id")
    where = "" if after is None else f"WHERE {mid} > {int(after)}"
    first = connection.execute(
        f"SELECT {mid} FROM {schema.q('messages')} {where} ORDER BY {mid} LIMIT 1"
    ).fetchone()
    if first is None:
        return None
    if limit is not None:
        return min(int(first[0]) + max(limit, 1) - 1, LARGEST_ID)
    return int(
        connection.execute(
            f"SELECT {mid} FROM {schema.q('messages')} ORDER BY {mid} DESC LIMIT 1"
        ).fetchone()[0]
    )


def mark_range(
    connection: sqlite3.Connection,
    schema: HostSchema,
    after: int | None,
    last: int,
    *,
    from_order: bool = False,
) -> int:
    """Mark the host messages with ids in (after, last] dirty, each with a new seq.
    `from_order`: MESSAGE_ORDER was just filled for that range in this transaction
    (`fill_order_range`), so it holds exactly those messages' ids and chats, and is read
    instead of the host's rows (small rows, not pages of message content)."""
    s = schema
    chats = f"{s.q('chats')} AS c"
    if from_order:
        source = f"""
        SELECT m.message_id, c.{s.q("chat_app_id")}, m.chat_id, random()
        FROM {MESSAGE_ORDER} AS m LEFT JOIN {chats} ON c.{s.q("chat_id")} = m.chat_id
        WHERE {_id_range("m.message_id", after, last)}
        ORDER BY m.message_id"""
    else:
        source = f"""
        SELECT m.{s.q("message_id")}, c.{s.q("chat_app_id")}, m.{s.q("message_chat_id")},
               random()
        FROM {s.q("messages")} AS m
        LEFT JOIN {chats} ON c.{s.q("chat_id")} = m.{s.q("message_chat_id")}
        WHERE {_id_range(_host_ids(s), after, last)}
        ORDER BY m.{s.q("message_id")}"""
    cursor = connection.execute(
        f"INSERT OR REPLACE INTO {DIRTY_MESSAGES}(message_id, app_id, chat_id, seq) {source}"
    )
    return int(cursor.rowcount)


def fill_order_range(
    connection: sqlite3.Connection, schema: HostSchema, after: int | None, last: int | None
) -> None:
    """Make MESSAGE_ORDER agree with the host's messages with ids in (after, last]
    (above `after` when `last` is None: the walk's end): copy each message's chat and
    time, and remove rows whose message is gone."""
    s = schema
    mid = s.q("message_id")
    if last is None:
        if after is not None:
            connection.execute(f"DELETE FROM {MESSAGE_ORDER} WHERE message_id > ?", (after,))
        else:
            connection.execute(f"DELETE FROM {MESSAGE_ORDER}")
        return
    host_range = _id_range(_host_ids(s), after, last)
    connection.execute(
        f"DELETE FROM {MESSAGE_ORDER} WHERE {_id_range('message_id', after, last)} "
        f"AND message_id NOT IN (SELECT m.{mid} FROM {s.q('messages')} AS m "
        f"WHERE {host_range})"
    )
    connection.execute(
        f"INSERT OR REPLACE INTO {MESSAGE_ORDER}(message_id, chat_id, created_at) "
        f"SELECT m.{mid}, m.{s.q('message_chat_id')}, m.{s.q('message_created_at')} "
        f"FROM {s.q('messages')} AS m WHERE {host_range} ORDER BY m.{mid}"
    )


def _trigger_sql(schema: HostSchema) -> list[str]:
    s = schema
    messages, chats = s.q("messages"), s.q("chats")
    mid, mchat = s.q("message_id"), s.q("message_chat_id")
    cid, capp, title = s.q("chat_id"), s.q("chat_app_id"), s.q("chat_title")
    created = s.q("message_created_at")
    watched = [mid, mchat, s.q("message_role"), s.q("message_content"), s.q("message_created_at")]
    if s.message_is_compaction_summary is not None:
        watched.append(s.q("message_is_compaction_summary"))
    message_changed = " OR ".join(f"OLD.{column} IS NOT NEW.{column}" for column in watched)
    message_moved = f"(OLD.{mid} IS NOT NEW.{mid} OR OLD.{mchat} IS NOT NEW.{mchat})"
    chat_moved = f"(OLD.{cid} IS NOT NEW.{cid} OR OLD.{capp} IS NOT NEW.{capp})"
    # No trigger on messages names the chats table, and none on chats names messages:
    # a host migration that rebuilds either table (create, copy, drop, rename: SQLite's
    # twelve steps, as Drizzle, Prisma, Alembic and Django generate them) renames a table
    # while the other one's triggers are checked, and one naming the dropped table fails
    # the host's migration. So a message's marker leaves its app to its chat (NULL: see
    # `SqliteDirtyQueue.pending_in_app`); the rebuilt table's own triggers go with it,
    # which status reports (fix: repair).
    #
    # A host statement's own conflict policy (`INSERT OR IGNORE`, `UPDATE OR ROLLBACK`)
    # overrides the one of every statement its triggers run. So no statement here relies
    # on a policy: a row that could conflict (a marker not yet indexed, a record not yet
    # reclaimed, an order row a chat's cascade left for a reused id) is deleted first,
    # or the insert skips an existing one. Otherwise an `OR ROLLBACK` write would fail
    # on a row of ours, and an `OR IGNORE` one would keep a marker's old seq (the
    # indexer would take the change as indexed).
    mark_message = f"""
        DELETE FROM {DIRTY_MESSAGES} WHERE message_id = NEW.{mid};
        INSERT INTO {DIRTY_MESSAGES}(message_id, app_id, chat_id, seq)
        VALUES (NEW.{mid}, NULL, NEW.{mchat}, random());
    """
    keep_order = f"""
        DELETE FROM {MESSAGE_ORDER} WHERE message_id = NEW.{mid};
        INSERT INTO {MESSAGE_ORDER}(message_id, chat_id, created_at)
        VALUES (NEW.{mid}, NEW.{mchat}, NEW.{created});
    """
    mark_chat = f"""
        DELETE FROM {DIRTY_CHATS} WHERE chat_id = NEW.{cid};
        INSERT INTO {DIRTY_CHATS}(chat_id, app_id, seq, adopt)
        VALUES (NEW.{cid}, NEW.{capp}, random(), 0);
    """

    def record_deleted(table: str, key: str, value: str, condition: str) -> str:
        return (
            f"INSERT INTO {table}({key}) SELECT {value} WHERE {condition} "
            f"AND NOT EXISTS (SELECT 1 FROM {table} WHERE {key} = {value});"
        )

    hide_replaced = record_deleted(
        DELETED_MESSAGES,
        "message_id",
        f"NEW.{mid}",
        f"EXISTS (SELECT 1 FROM {DOCS} "
        f"WHERE message_id = NEW.{mid} AND chat_id IS NOT NEW.{mchat})",
    )
    hide_moved_message = record_deleted(DELETED_MESSAGES, "message_id", f"OLD.{mid}", message_moved)
    hide_moved_chat = record_deleted(DELETED_CHATS, "chat_id", f"OLD.{cid}", chat_moved)

    return [
        # REPLACE INTO messages deletes the old row without a delete trigger (unless the
        # host turns recursive_triggers on): a message it moved to another chat is hidden
        # at once, as an UPDATE that moves one is.
        f"""CREATE TRIGGER chat_recall_message_insert AFTER INSERT ON {messages}
        BEGIN
            {hide_replaced}
            {mark_message}
            {keep_order}
        END""",
        # The order row follows its message's id, chat and time (`UPDATE OF`: an update
        # that sets none of them, as streaming an answer's content does, never runs it).
        f"""CREATE TRIGGER chat_recall_message_order_update
        AFTER UPDATE OF {mid}, {mchat}, {created} ON {messages}
        WHEN OLD.{mid} IS NOT NEW.{mid} OR OLD.{mchat} IS NOT NEW.{mchat}
            OR OLD.{created} IS NOT NEW.{created}
        BEGIN
            DELETE FROM {MESSAGE_ORDER} WHERE message_id = OLD.{mid};
            {keep_order}
        END""",
        # An edit keeps the old document searchable until it is re-indexed; a message
        # that moves (new id or chat) is hidden at once.
        f"""CREATE TRIGGER chat_recall_message_update AFTER UPDATE ON {messages}
        WHEN {message_changed}
        BEGIN
            {hide_moved_message}
            DELETE FROM {DIRTY_MESSAGES}
                WHERE OLD.{mid} IS NOT NEW.{mid} AND message_id = OLD.{mid};
            {mark_message}
        END""",
        # A message deleted with its chat (ON DELETE CASCADE) costs nothing here: the
        # chat's deletion record, written BEFORE the chat row goes (the cascade runs
        # before a chat's AFTER triggers), hides it. A chat that REPLACE INTO chats
        # deleted fires no delete trigger, so there each cascaded message records itself.
        f"""CREATE TRIGGER chat_recall_message_delete AFTER DELETE ON {messages}
        WHEN NOT EXISTS (SELECT 1 FROM {DELETED_CHATS} WHERE chat_id = OLD.{mchat})
        BEGIN
            INSERT OR IGNORE INTO {DELETED_MESSAGES}(message_id) VALUES (OLD.{mid});
            DELETE FROM {DIRTY_MESSAGES} WHERE message_id = OLD.{mid};
            DELETE FROM {MESSAGE_ORDER} WHERE message_id = OLD.{mid};
        END""",
        # A new chat's messages mark themselves: its marker only asks the indexer to
        # adopt messages that named it before it existed, ones with neither a document
        # nor a marker (`adopt`), never to index its messages a second time. (No
        # reference to the messages table here: a host migration that rebuilds that
        # table, drop then rename, must not trip over a trigger on chats.)
        f"""CREATE TRIGGER chat_recall_chat_insert AFTER INSERT ON {chats}
        BEGIN
            DELETE FROM {DIRTY_CHATS} WHERE chat_id = NEW.{cid};
            INSERT INTO {DIRTY_CHATS}(chat_id, app_id, seq, adopt)
            VALUES (NEW.{cid}, NEW.{capp}, random(), 1);
        END""",
        f"""CREATE TRIGGER chat_recall_chat_update AFTER UPDATE ON {chats}
        WHEN OLD.{title} IS NOT NEW.{title} OR {chat_moved}
        BEGIN
            {hide_moved_chat}
            DELETE FROM {DIRTY_CHATS} WHERE OLD.{cid} IS NOT NEW.{cid} AND chat_id = OLD.{cid};
            {mark_chat}
        END""",
        f"""CREATE TRIGGER chat_recall_chat_delete BEFORE DELETE ON {chats}
        BEGIN
            INSERT OR IGNORE INTO {DELETED_CHATS}(chat_id) VALUES (OLD.{cid});
            DELETE FROM {DIRTY_CHATS} WHERE chat_id = OLD.{cid};
        END""",
    ]


# The triggers that keep MESSAGE_ORDER: without any of them, reads take the host's order.
ORDER_KEEPERS = (
    "chat_recall_message_insert",
    "chat_recall_message_order_update",
    "chat_recall_message_delete",
)
TRIGGERS = (
    "chat_recall_message_insert",
    "chat_recall_message_update",
    "chat_recall_message_order_update",
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


def chosen_analysis(connection: sqlite3.Connection) -> str | None:
    """The analysis recorded by a start that chose one (None before any, and for an
    install older than the record, which is brought to the default)."""
    if stored_schema_version(connection) is None:
        return None
    row = connection.execute(f"SELECT value FROM {META} WHERE key = ?", (ANALYSIS_KEY,)).fetchone()
    return None if row is None else str(row[0])


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


def stored_schema_version(connection: sqlite3.Connection) -> object:
    """The stored schema version as stored (None when chat-recall is not installed)."""
    exists = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (META,)
    ).fetchone()
    if not exists:
        return None
    row = connection.execute(f"SELECT value FROM {META} WHERE key = 'schema_version'").fetchone()
    return None if row is None else row[0]


def schema_version(connection: sqlite3.Connection) -> int:
    """The installed schema version (0: not installed). Raises IndexUnavailable for a
    version this release cannot use (`domain.schema_version`)."""
    return usable_version(stored_schema_version(connection), SCHEMA_VERSION)


def install(connection: sqlite3.Connection, schema: HostSchema) -> int:
    """Create the derived objects of SCHEMA_VERSION where they are missing and (re)create
    the triggers, inside the caller's transaction: all of it DDL and a few meta rows, so
    it holds the write lock no longer than any other transaction of ours (the walks over
    the host's messages follow in chunks, `setup.finish`). Returns the version found
    (0: a fresh install). Raises IndexUnavailable for a version this release cannot use
    (`schema_version`), before anything is written."""
    connection.execute(f"CREATE TABLE IF NOT EXISTS {META} (key TEXT PRIMARY KEY, value TEXT)")
    found = schema_version(connection)
    if found and trigger_drift(connection, schema):
        # Host writes may have gone untracked (a host migration dropped the triggers,
        # or the mapping changed): the order is walked again.
        refill_order(connection)
    if not found:
        _create_tables(connection)
        connection.execute(
            f"INSERT OR REPLACE INTO {META}(key, value) VALUES ('schema_version', ?)",
            (str(SCHEMA_VERSION),),
        )
    create_triggers(connection, schema)
    return found


def create_triggers(connection: sqlite3.Connection, schema: HostSchema) -> None:
    """(Re)create the triggers for `schema` (inside the caller's transaction)."""
    for name in TRIGGERS:
        connection.execute(f"DROP TRIGGER IF EXISTS {name}")
    for statement in _trigger_sql(schema):
        connection.execute(statement)


FTS5_SHADOWS = ("_data", "_idx", "_content", "_docsize", "_config")


@attrs.frozen
class Uninstalled:
    """What uninstall removed: `dropped` with DROP; `forced` (damaged objects whose
    DROP failed) by removing their schema entries, so their pages stay allocated in the
    file until the host runs VACUUM."""

    dropped: tuple[str, ...]
    forced: tuple[str, ...]


class DropFailed(Exception):
    """A DROP failed on a damaged object; the transaction must be rolled back (SQLite
    refuses every later statement of a transaction that met corruption) and the
    uninstall tried again with `name` among the damaged."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def derived_objects(connection: sqlite3.Connection) -> list[tuple[str, str, str | None]]:
    """(type, name, sql) of every chat-recall trigger, index and table."""
    return [
        (str(kind), str(name), sql)
        for kind, name, sql in connection.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name LIKE 'chat\\_recall\\_%' "
            "ESCAPE '\\' AND type IN ('trigger', 'index', 'table')"
        )
    ]


def uninstall(
    connection: sqlite3.Connection,
    damaged: frozenset[str] = frozenset(),
    kept: frozenset[str] = frozenset(),
) -> Uninstalled:
    """Drop every derived object inside the caller's transaction; host tables and rows
    are untouched; the tables named in `kept` stay. Raises `DropFailed` when a DROP
    fails: the caller rolls back and calls again with that name in `damaged`
    (`setup.uninstall` does).

    A damaged FTS5 table cannot be dropped (its constructor fails on corrupt data or
    shadow tables), so its shadow tables are dropped one by one, and what still cannot
    be dropped (the virtual table itself, a shadow table whose b-tree is corrupt) leaves
    the schema through `writable_schema`, restricted to `chat_recall_*` names."""
    rows = [row for row in derived_objects(connection) if row[1] not in kept]
    virtual = sorted(name for kind, name, sql in rows if kind == "table" and is_virtual(sql))
    shadows = {f"{table}{suffix}" for table in virtual for suffix in FTS5_SHADOWS}
    present = {name for _, name, _ in rows}
    dropped: list[str] = []
    forced: list[str] = []

    def drop(kind: str, name: str) -> None:
        if name in damaged:
            forced.append(name)
            return
        try:
            connection.execute(f"DROP {kind} IF EXISTS {quote(name)}")
        # MemoryError: SQLITE_NOMEM, as a damaged record asking for a huge size reports
        # (Python raises it, not sqlite3.Error): the object is as damaged as any other.
        except (sqlite3.DatabaseError, MemoryError) as error:
            raise DropFailed(name) from error
        dropped.append(name)

    for kind in ("trigger", "index"):
        for _, name, _ in sorted(r for r in rows if r[0] == kind):
            if not name.startswith("sqlite_"):
                drop(kind.upper(), name)
    for table in virtual:
        if table not in damaged:
            drop("TABLE", table)
            continue
        for shadow in (f"{table}{suffix}" for suffix in FTS5_SHADOWS):
            if shadow in present:
                drop("TABLE", shadow)
        forced.append(table)
    for kind, name, _ in sorted(rows):
        if kind == "table" and name not in shadows and name not in virtual:
            drop("TABLE", name)
    if forced:
        _remove_from_schema(connection, forced)
    return Uninstalled(tuple(dropped), tuple(forced))


def is_virtual(sql: str | None) -> bool:
    return (sql or "").lstrip().upper().startswith("CREATE VIRTUAL TABLE")


def _remove_from_schema(connection: sqlite3.Connection, names: list[str]) -> None:
    """Remove schema entries of damaged derived objects that DROP cannot remove, and
    bump the schema cookie so every connection reloads the schema."""
    marks = ", ".join("?" for _ in names)
    own = "name LIKE 'chat\\_recall\\_%' ESCAPE '\\'"
    cookie = connection.execute("PRAGMA schema_version").fetchone()[0]
    connection.execute("PRAGMA writable_schema = ON")
    try:
        connection.execute(
            f"DELETE FROM sqlite_master WHERE ({own} AND name IN ({marks})) "
            f"OR (type = 'index' AND name LIKE 'sqlite\\_autoindex\\_%' ESCAPE '\\' "
            f"AND tbl_name IN ({marks}))",
            (*names, *names),
        )
        connection.execute(f"PRAGMA schema_version = {int(cookie) + 1}")
    finally:
        connection.execute("PRAGMA writable_schema = OFF")


def expected_triggers(schema: HostSchema) -> dict[str, str]:
    """The triggers this release creates for `schema`: name -> CREATE statement."""
    statements = _trigger_sql(schema)
    names = [statement.split()[2] for statement in statements]
    return dict(zip(names, statements, strict=True))


def trigger_drift(connection: sqlite3.Connection, schema: HostSchema) -> list[str]:
    """How the installed triggers differ from what this release creates for `schema`:
    missing, changed, or unknown chat-recall triggers; empty when they match."""
    expected = {name: _normalised(sql) for name, sql in expected_triggers(schema).items()}
    installed = {
        str(name): _normalised(str(sql))
        for name, sql in connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' "
            "AND name LIKE 'chat\\_recall\\_%' ESCAPE '\\'"
        )
    }
    drift = [f"trigger {name} is missing" for name in expected if name not in installed]
    drift += [
        f"trigger {name} differs from what this release creates"
        for name in expected
        if name in installed and installed[name] != expected[name]
    ]
    drift += [
        f"trigger {name} is unknown to this release" for name in installed if name not in expected
    ]
    return sorted(drift)


def _normalised(sql: str) -> str:
    return " ".join(sql.split())
