"""`PostgresDirtyQueue`: the marker tables the triggers fill."""

from __future__ import annotations

import functools
import time
from typing import Any

import attrs
import psycopg

from chat_recall.adapters.postgres.database import PostgresDatabase
from chat_recall.adapters.postgres.migrations import (
    DELETED_CHATS,
    DIRTY_CHATS,
    DIRTY_MESSAGES,
    DOCS,
    META,
    PURGE,
    QUARANTINE,
    mark_messages,
)
from chat_recall.domain.model import AppId, Backlog, ChatId, ChatMarker, MessageId, MessageMarker

CAUGHT_UP_KEY = "caught_up"
CLAIM_KEY = "indexer"
# Ids marked per transaction by a re-mark (a projection change, a large chat renamed):
# each chunk is a short transaction, so no host write waits long on a marker row.
MARK_CHUNK = 5_000


# What a claim row's value looks like (`["holder", expiry]`, as `claim` writes it):
# anything else is damage, read as no claim, so it cannot stop every indexer.
CLAIM_SHAPE = "'" + r'^\["(?:[^"\\]|\\.)*", ?-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?\]$' + "'"


@attrs.define
class PostgresDirtyQueue:
    database: PostgresDatabase

    def pending_messages(
        self, limit: int, *, after: MessageId | None = None
    ) -> list[MessageMarker]:
        """In mark order (seq); with `after`, of ids above it in id order."""
        query = f"SELECT message_id, seq FROM {DIRTY_MESSAGES} ORDER BY seq LIMIT %s"
        parameters: tuple[int, ...] = (limit,)
        if after is not None:
            query = (
                f"SELECT message_id, seq FROM {DIRTY_MESSAGES} WHERE message_id > %s "
                "ORDER BY message_id LIMIT %s"
            )
            parameters = (after, limit)
        rows = self.database.read(lambda c: c.execute(query, parameters).fetchall())
        return [MessageMarker(MessageId(row[0]), int(row[1])) for row in rows]

    def pending_chats(self, limit: int) -> list[ChatMarker]:
        rows = self.database.read(
            lambda c: c.execute(
                f"SELECT chat_id, seq FROM {DIRTY_CHATS} ORDER BY seq LIMIT %s", (limit,)
            ).fetchall()
        )
        return [ChatMarker(ChatId(row[0]), int(row[1])) for row in rows]

    def expand_chat(self, marker: ChatMarker) -> int:
        """Mark the chat's messages in chunks by id, each its own short transaction,
        then clear the chat marker if it is unchanged (a crash in between leaves it, and
        the expansion runs again)."""
        s = self.database.schema
        mid, mchat = s.q("message_id"), s.q("message_chat_id")
        marked = 0
        after: int | None = None
        while True:

            def chunk(
                connection: psycopg.Connection[Any], after: int | None = after
            ) -> tuple[int, int | None]:
                row = connection.execute(
                    f"""
                    WITH chunk AS (
                        SELECT m.{mid} AS id FROM {s.q("messages")} AS m
                        WHERE m.{mchat} = %(chat)s AND (%(after)s::bigint IS NULL
                              OR m.{mid} > %(after)s::bigint)
                        ORDER BY m.{mid} LIMIT %(limit)s
                    ), marked AS (
                        INSERT INTO {DIRTY_MESSAGES} (message_id, app_id, chat_id)
                        SELECT chunk.id, c.{s.q("chat_app_id")}, %(chat)s FROM chunk
                        JOIN {s.q("chats")} AS c ON c.{s.q("chat_id")} = %(chat)s
                        ORDER BY chunk.id
                        ON CONFLICT (message_id) DO UPDATE SET seq = EXCLUDED.seq,
                            app_id = EXCLUDED.app_id, chat_id = EXCLUDED.chat_id
                        RETURNING 1
                    )
                    SELECT (SELECT count(*) FROM marked), (SELECT max(id) FROM chunk)
                    """,
                    {"chat": marker.id, "after": after, "limit": MARK_CHUNK},
                ).fetchone()
                assert row is not None
                return int(row[0]), row[1]

            count, last = self.database.write(chunk)
            marked += count
            if last is None or count < MARK_CHUNK:
                break
            after = int(last)
        self.database.write(
            lambda c: c.execute(
                f"DELETE FROM {DIRTY_CHATS} WHERE chat_id = %s AND seq = %s",
                (marker.id, marker.seq),
            )
        )
        return marked

    def mark_all_messages(self) -> int:
        return self._mark(replace=True)

    def backfill(self) -> int:
        """Mark every host message that has no marker yet (after install), in chunks."""
        return self._mark(replace=False)

    def _mark(self, *, replace: bool) -> int:
        marked = 0
        after: int | None = None
        while True:
            chunk = self.database.write(
                functools.partial(
                    mark_messages,
                    schema=self.database.schema,
                    replace=replace,
                    after=after,
                    limit=MARK_CHUNK,
                )
            )
            if chunk is None:
                return marked
            count, after = chunk
            marked += count

    def requeue_quarantined(self) -> int:
        s = self.database.schema

        def requeue(connection: psycopg.Connection[Any]) -> int:
            cursor = connection.execute(
                f"""
                INSERT INTO {DIRTY_MESSAGES} (message_id, app_id, chat_id)
                SELECT m.{s.q("message_id")}, c.{s.q("chat_app_id")}, m.{s.q("message_chat_id")}
                FROM {QUARANTINE} AS q
                JOIN {s.q("messages")} AS m ON m.{s.q("message_id")} = q.message_id
                LEFT JOIN {s.q("chats")} AS c ON c.{s.q("chat_id")} = m.{s.q("message_chat_id")}
                ORDER BY q.message_id
                ON CONFLICT (message_id) DO UPDATE SET seq = EXCLUDED.seq
                """
            )
            return max(cursor.rowcount, 0)

        return self.database.write(requeue)

    def backlog(self) -> Backlog:
        def count(connection: psycopg.Connection[Any]) -> Backlog:
            row = connection.execute(
                f"""
                SELECT (SELECT count(*) FROM {DIRTY_MESSAGES}),
                       (SELECT count(*) FROM {DIRTY_CHATS}),
                       (SELECT count(*) FROM {PURGE})
                       + (SELECT count(*) FROM {DELETED_CHATS} AS t
                          WHERE EXISTS (SELECT 1 FROM {DOCS} AS d WHERE d.chat_id = t.chat_id))
                """
            ).fetchone()
            assert row is not None
            return Backlog(messages=int(row[0]), chats=int(row[1]), purges=int(row[2]))

        return self.database.read(count)

    def claim(self, holder: str, seconds: float, *, overrule: str | None = None) -> str | None:
        """The claim is a row of `chat_recall_meta` (holder, expiry in epoch seconds by
        the server's clock), taken by one conditional upsert: the row lock orders two
        indexers claiming at once."""

        def take(connection: psycopg.Connection[Any]) -> str | None:
            taken = connection.execute(
                f"""
                INSERT INTO {META} AS m (key, value)
                VALUES ('{CLAIM_KEY}', json_build_array(%(holder)s::text,
                        extract(epoch FROM clock_timestamp()) + %(seconds)s)::text)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                WHERE CASE WHEN m.value ~ {CLAIM_SHAPE}
                      THEN m.value::json ->> 0 IN (%(holder)s, %(overrule)s)
                        OR (m.value::json ->> 1)::float8
                           <= extract(epoch FROM clock_timestamp())
                      ELSE true END  -- an unreadable claim (damaged) is replaced
                RETURNING 1
                """,
                {"holder": holder, "seconds": seconds, "overrule": overrule or holder},
            ).fetchone()
            if taken is not None:
                return None
            row = connection.execute(
                f"SELECT CASE WHEN value ~ {CLAIM_SHAPE} THEN value::json ->> 0 END "
                f"FROM {META} WHERE key = '{CLAIM_KEY}'"
            ).fetchone()
            return None if row is None else str(row[0])

        return self.database.write(take)

    def release(self, holder: str) -> None:
        self.database.write(
            lambda c: c.execute(
                f"DELETE FROM {META} WHERE key = '{CLAIM_KEY}' "
                f"AND CASE WHEN value ~ {CLAIM_SHAPE} THEN value::json ->> 0 = %s END",
                (holder,),
            )
        )

    def claimant(self) -> str | None:
        def read(connection: psycopg.Connection[Any]) -> str | None:
            row = connection.execute(
                f"SELECT value::json ->> 0 FROM {META} WHERE key = '{CLAIM_KEY}' "
                f"AND CASE WHEN value ~ {CLAIM_SHAPE} THEN (value::json ->> 1)::float8 "
                "> extract(epoch FROM clock_timestamp()) END"
            ).fetchone()
            return None if row is None else str(row[0])

        return self.database.read(read)

    def host_writes(self) -> int | None:
        """None: PostgreSQL tells no cheap count of commits."""
        return None

    def note_caught_up(self, age_seconds: float) -> None:
        """A row of `chat_recall_meta`: the moment in epoch seconds by the server's
        clock; never moved back. The write may wait for a connection or the row: the
        moment is the call's all the same."""
        called = time.monotonic()
        self.database.write(
            lambda c: c.execute(
                f"INSERT INTO {META} AS m (key, value) VALUES ('{CAUGHT_UP_KEY}', "
                "(extract(epoch FROM clock_timestamp()) - %s)::text) "
                "ON CONFLICT (key) DO UPDATE SET value = greatest(m.value::float8, "
                "excluded.value::float8)::text",
                (age_seconds + time.monotonic() - called,),
            )
        )

    def caught_up_ago(self) -> float | None:
        def read(connection: psycopg.Connection[Any]) -> float | None:
            row = connection.execute(
                f"SELECT extract(epoch FROM clock_timestamp()) - value::float8 FROM {META} "
                f"WHERE key = '{CAUGHT_UP_KEY}'"
            ).fetchone()
            return None if row is None or row[0] is None else max(0.0, float(row[0]))

        return self.database.read(read)

    def pending_in_app(self, app_id: AppId, exclude_chat_id: ChatId | None) -> int:
        row = self.database.read(
            lambda c: c.execute(
                f"""
                SELECT (SELECT count(*) FROM {DIRTY_MESSAGES}
                        WHERE app_id = %(app)s AND chat_id IS DISTINCT FROM %(chat)s)
                     + (SELECT count(*) FROM {DIRTY_CHATS}
                        WHERE app_id = %(app)s AND chat_id IS DISTINCT FROM %(chat)s)
                """,
                {"app": app_id, "chat": exclude_chat_id},
            ).fetchone()
        )
        return int(row[0]) if row else 0
