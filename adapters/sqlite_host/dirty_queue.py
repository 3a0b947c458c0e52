"""`SqliteDirtyQueue`: the marker tables the triggers fill.

One row per message or chat id; its `seq` is a new random value at every mark, so a
batch that read a marker clears it only if no host write marked it again meanwhile.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

import attrs

from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.adapters.sqlite_host.migrations import (
    DELETED_CHATS,
    DELETED_MESSAGES,
    DIRTY_CHATS,
    DIRTY_MESSAGES,
    DOCS,
    META,
    QUARANTINE,
    mark_all_messages_dirty,
)
from chat_recall.adapters.system_clock import SystemClock
from chat_recall.domain.model import AppId, Backlog, ChatId, ChatMarker, MessageId, MessageMarker
from chat_recall.domain.ports import Clock

# Messages marked per transaction when a projection change or a `rebuild` re-marks
# everything: each chunk is one paced transaction, and one of this size holds the lock
# for a few of the writing host's budgets at most (`PacingRule`), so a host write that
# meets one waits little more than it would for a batch; larger chunks made the host's
# writes wait several times longer during a rebuild (docs/results.md).
MARK_CHUNK = 1_000
# Messages of a dirty chat marked per transaction (a renamed chat of any size is
# re-marked in many short transactions, not one long one).
EXPAND_CHUNK = 500


@attrs.define
class SqliteDirtyQueue:
    database: SqliteDatabase
    clock: Clock = attrs.field(factory=SystemClock)  # times `note_caught_up`'s wait

    @staticmethod
    def clear(connection: sqlite3.Connection, markers: Sequence[MessageMarker]) -> set[MessageId]:
        """Inside the caller's transaction: clear message markers whose seq is
        unchanged (a newer mark of the same id keeps it dirty). Returns the ids
        cleared: the ones whose rows no host write changed since they were read."""
        unchanged = SqliteDirtyQueue.unchanged(connection, markers)
        SqliteDirtyQueue.delete(connection, unchanged)
        return set(SqliteDirtyQueue.ids(unchanged))

    @staticmethod
    def ids(unchanged: str) -> list[MessageId]:
        """The ids of a JSON array (`unchanged`'s)."""
        return [MessageId(message_id) for message_id in json.loads(unchanged)]

    @staticmethod
    def unchanged(connection: sqlite3.Connection, markers: Sequence[MessageMarker]) -> str:
        """The ids of the markers whose seq is unchanged, as a JSON array (`clear`'s
        read: `delete` them in the same transaction)."""
        if not markers:
            return "[]"
        # One statement whatever the batch size (see `SqliteFts5IndexStore._forget`).
        row = connection.execute(
            f"SELECT json_group_array(d.message_id) FROM json_each(?) AS j "
            f"JOIN {DIRTY_MESSAGES} AS d "
            "ON d.message_id = j.value ->> 0 AND d.seq = j.value ->> 1",
            (json.dumps([(marker.id, marker.seq) for marker in markers]),),
        ).fetchone()
        return str(row[0])

    @staticmethod
    def delete(connection: sqlite3.Connection, ids: str) -> None:
        """Delete the markers of these ids (a JSON array)."""
        if ids != "[]":
            connection.execute(
                f"DELETE FROM {DIRTY_MESSAGES} "
                "WHERE message_id IN (SELECT value FROM json_each(?))",
                (ids,),
            )

    def pending_messages(
        self, limit: int, *, after: MessageId | None = None
    ) -> list[MessageMarker]:
        with self.database.reading() as connection:
            rows = connection.execute(
                f"SELECT message_id, seq FROM {DIRTY_MESSAGES} WHERE message_id > ? "
                "ORDER BY message_id LIMIT ?",
                (-(2**63) if after is None else after, limit),
            ).fetchall()
        return [MessageMarker(MessageId(row[0]), row[1]) for row in rows]

    def pending_chats(self, limit: int) -> list[ChatMarker]:
        with self.database.reading() as connection:
            rows = connection.execute(
                f"SELECT chat_id, seq FROM {DIRTY_CHATS} ORDER BY chat_id LIMIT ?", (limit,)
            ).fetchall()
        return [ChatMarker(ChatId(row[0]), row[1]) for row in rows]

    def expand_chat(self, marker: ChatMarker) -> int:
        """Mark the chat's messages in chunks of EXPAND_CHUNK by id, each its own short
        transaction, then clear the chat marker if it is unchanged (a crash in between
        leaves it, and the expansion runs again). A new chat's marker (`adopt`) marks
        only messages with neither a document nor a marker: ones that named the chat
        before it existed; its other messages mark themselves. Only the messages the
        chat holds when the expansion starts: one that joins it later is marked by its
        own trigger, and a host adding messages to the chat faster than the chunks go
        would otherwise keep the expansion from ending."""
        s = self.database.schema
        mid, mchat = s.q("message_id"), s.q("message_chat_id")
        with self.database.reading() as connection:
            row = connection.execute(
                f"SELECT adopt FROM {DIRTY_CHATS} WHERE chat_id = ? AND seq = ?",
                (marker.id, marker.seq),
            ).fetchone()
            ceiling = connection.execute(
                f"SELECT max({mid}) FROM {s.q('messages')} WHERE {mchat} = ?", (marker.id,)
            ).fetchone()[0]
        only_new = (
            f"AND NOT EXISTS (SELECT 1 FROM {DOCS} AS d WHERE d.message_id = m.{mid}) "
            f"AND NOT EXISTS (SELECT 1 FROM {DIRTY_MESSAGES} AS x WHERE x.message_id = m.{mid})"
            if row is not None and row[0]
            else ""
        )
        marked = 0
        after = -(2**63)
        while True:
            with self.database.writing() as connection:
                last = connection.execute(
                    f"SELECT max({mid}) FROM (SELECT {mid} FROM {s.q('messages')} "
                    f"WHERE {mchat} = ? AND {mid} > ? AND {mid} <= ? ORDER BY {mid} LIMIT ?)",
                    (marker.id, after, ceiling, EXPAND_CHUNK),
                ).fetchone()[0]
                if last is None:
                    connection.execute(
                        f"DELETE FROM {DIRTY_CHATS} WHERE chat_id = ? AND seq = ?",
                        (marker.id, marker.seq),
                    )
                    return marked
                cursor = connection.execute(
                    f"""
                    INSERT OR REPLACE INTO {DIRTY_MESSAGES}(message_id, app_id, chat_id, seq)
                    SELECT m.{mid}, c.{s.q("chat_app_id")}, m.{mchat}, random()
                    FROM {s.q("messages")} AS m
                    JOIN {s.q("chats")} AS c ON c.{s.q("chat_id")} = m.{mchat}
                    WHERE m.{mchat} = ? AND m.{mid} > ? AND m.{mid} <= ? {only_new}
                    """,
                    (marker.id, after, last),
                )
                marked += max(cursor.rowcount, 0)
                after = last

    def mark_all_messages(self) -> int:
        """In chunks of MARK_CHUNK ids, each its own short transaction, so host writes
        never wait long for the lock."""
        marked = 0
        after = None
        while True:
            with self.database.writing() as connection:
                chunk = mark_all_messages_dirty(
                    connection, self.database.schema, after=after, limit=MARK_CHUNK
                )
            if chunk is None:
                return marked
            count, after = chunk
            marked += count

    def requeue_quarantined(self) -> int:
        s = self.database.schema
        with self.database.writing() as connection:
            cursor = connection.execute(
                f"""
                INSERT OR REPLACE INTO {DIRTY_MESSAGES}(message_id, app_id, chat_id, seq)
                SELECT m.{s.q("message_id")}, c.{s.q("chat_app_id")}, m.{s.q("message_chat_id")},
                       random()
                FROM {QUARANTINE} AS q
                JOIN {s.q("messages")} AS m ON m.{s.q("message_id")} = q.message_id
                LEFT JOIN {s.q("chats")} AS c ON c.{s.q("chat_id")} = m.{s.q("message_chat_id")}
                """
            )
            return max(cursor.rowcount, 0)

    def backlog(self) -> Backlog:
        with self.database.reading() as connection:
            messages, chats, deleted_messages, deleted_chats = (
                connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in (DIRTY_MESSAGES, DIRTY_CHATS, DELETED_MESSAGES, DELETED_CHATS)
            )
        return Backlog(messages=messages, chats=chats, purges=deleted_messages + deleted_chats)

    def claim(self, holder: str, seconds: float, *, overrule: str | None = None) -> str | None:
        """The claim is a row of `chat_recall_meta` (holder, expiry by SQLite's clock).
        Looked at on a read connection first: while another indexer holds it, waiting
        takes no write lock."""
        with self.database.reading() as connection:
            other = _live_claim(connection, holder)
        if other is not None and other != overrule:
            return other
        with self.database.writing() as connection:
            other = _live_claim(connection, holder)
            if other is not None and other != overrule:
                return other
            connection.execute(
                f"INSERT OR REPLACE INTO {META}(key, value) "
                f"VALUES ('{CLAIM_KEY}', json_array(?, julianday('now') + ? / 86400.0))",
                (holder, seconds),
            )
        return None

    def release(self, holder: str) -> None:
        with self.database.writing() as connection:
            connection.execute(
                f"DELETE FROM {META} WHERE key = '{CLAIM_KEY}' "
                f"AND CASE WHEN {READABLE_CLAIM} THEN value ->> 0 = ? END",
                (holder,),
            )

    def claimant(self) -> str | None:
        with self.database.reading() as connection:
            return _live_claim(connection, "")

    def host_writes(self) -> int | None:
        """SQLite's `data_version` on this thread's writer connection: it moves when
        any other connection commits (this indexer's own commits use this connection)."""
        return self.database.data_version()

    def note_caught_up(self, age_seconds: float) -> None:
        """A row of `chat_recall_meta`: the moment, by SQLite's clock (every process on
        the machine reads the same), as a Julian day number; never moved back. The
        write waits for its rest and the lock: the moment is the call's all the same."""
        called = self.clock.monotonic()
        with self.database.writing() as connection:
            note_caught_up(connection, age_seconds + self.clock.monotonic() - called)

    def caught_up_ago(self) -> float | None:
        with self.database.reading() as connection:
            row = connection.execute(
                f"SELECT (julianday('now') - CAST(value AS REAL)) * 86400.0 FROM {META} "
                f"WHERE key = '{CAUGHT_UP_KEY}'"
            ).fetchone()
        return None if row is None or row[0] is None else max(0.0, float(row[0]))

    def pending_in_app(self, app_id: AppId, exclude_chat_id: ChatId | None) -> int:
        with self.database.reading() as connection:
            # The triggers leave a marker's app to its chat (they may not name the chats
            # table: see migrations._trigger_sql), chat-recall's own marks name it.
            s = self.database.schema
            messages = connection.execute(
                f"SELECT (SELECT count(*) FROM {DIRTY_MESSAGES} "
                "WHERE app_id = ? AND chat_id IS NOT ?) + "
                f"(SELECT count(*) FROM {DIRTY_MESSAGES} AS d "
                f"JOIN {s.q('chats')} AS c ON c.{s.q('chat_id')} = d.chat_id "
                f"WHERE d.app_id IS NULL AND c.{s.q('chat_app_id')} = ? AND d.chat_id IS NOT ?)",
                (app_id, exclude_chat_id, app_id, exclude_chat_id),
            ).fetchone()[0]
            chats = connection.execute(  # (a new chat's marker indexes nothing as a rule)
                f"SELECT count(*) FROM {DIRTY_CHATS} WHERE app_id = ? AND chat_id IS NOT ? "
                "AND NOT adopt",
                (app_id, exclude_chat_id),
            ).fetchone()[0]
        return int(messages) + int(chats)


CLAIM_KEY = "indexer"
CAUGHT_UP_KEY = "caught_up"


def note_caught_up(connection: sqlite3.Connection, age_seconds: float) -> None:
    """Inside the caller's transaction (`SqliteDirtyQueue.note_caught_up`)."""
    connection.execute(
        f"INSERT INTO {META}(key, value) VALUES ('{CAUGHT_UP_KEY}', "
        "julianday('now') - ? / 86400.0) ON CONFLICT(key) DO UPDATE "
        "SET value = max(CAST(value AS REAL), CAST(excluded.value AS REAL))",
        (age_seconds,),
    )


# What a claim row's value looks like (`[holder, expiry]`, as `claim` writes it):
# anything else is damage, read as no claim, so it cannot stop every indexer.
READABLE_CLAIM = (
    "(CASE WHEN json_valid(value) THEN json_type(value, '$[0]') = 'text' "
    "AND json_type(value, '$[1]') IN ('integer', 'real') "
    "AND json_array_length(value) = 2 END)"
)


def _live_claim(connection: sqlite3.Connection, holder: str) -> str | None:
    """The holder of a claim that has not run out, if it is not `holder`."""
    row = connection.execute(  # an unreadable claim (damaged) is none: it is replaced
        f"SELECT CASE WHEN {READABLE_CLAIM} THEN value ->> 0 END FROM {META} "
        f"WHERE key = '{CLAIM_KEY}' AND CASE WHEN {READABLE_CLAIM} "
        "THEN value ->> 1 > julianday('now') AND value ->> 0 IS NOT ? END",
        (holder,),
    ).fetchone()
    return None if row is None else str(row[0])
