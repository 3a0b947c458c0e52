"""`SqliteFts5IndexStore`: the derived documents in FTS5, one table per app.

Layout (docs/engines.md says why; docs/results.md has the figures that chose it):
- `chat_recall_fts_<app>`: FTS5 (title, body, chat_ref), rowid = message id; under a
  Snowball language title and body hold the stems as text, and two unindexed columns
  the text itself (`migrations.WRITTEN_TEXT_COLUMNS`).
- `chat_recall_docs`: one row per document (app, chat, role, time, flags).
- `chat_recall_deleted_messages` / `chat_recall_deleted_chats`: what the host deleted
  (one row per message, one per chat, written by the triggers in the host's delete).
  Every read filters against them, so deleted content is never a result from the moment
  the delete commits; `maintain` reclaims the documents later, in bounded steps.

A document is only ever put for a message that still exists, in the same chat and app,
checked inside the unit of work's transaction: a batch that read a row before the host
deleted or moved it cannot bring it back.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from functools import partial
from typing import TypeVar

import attrs

from chat_recall.adapters.index_layout import RECLAIM_PER_STEP, chat_ref
from chat_recall.adapters.sqlite.fts5_query import compile_match
from chat_recall.adapters.sqlite_host import document_rows
from chat_recall.adapters.sqlite_host.database import SqliteDatabase, translate
from chat_recall.adapters.sqlite_host.document_rows import as_json
from chat_recall.adapters.sqlite_host.migrations import (
    APPS,
    DELETED_CHATS,
    DELETED_MESSAGES,
    DIRTY_CHATS,
    DIRTY_MESSAGES,
    DOCS,
    META,
    PURGE,
    QUARANTINE,
    WRITTEN_TEXT_COLUMNS,
    forget_order_of_gone_chat,
    fts_table_ddl,
    fts_table_name,
)
from chat_recall.adapters.sqlite_host.schema import HostSchema, quote
from chat_recall.adapters.sqlite_host.vector_tables import forget_vectors
from chat_recall.domain.errors import StorageDamaged
from chat_recall.domain.host_values import UnreadableReason
from chat_recall.domain.messages import Role
from chat_recall.domain.model import (
    AppId,
    Candidate,
    DocumentText,
    IndexDocument,
    IndexStats,
    Maintenance,
    MessageId,
    Quarantine,
    QuarantinedRow,
)
from chat_recall.domain.query import ScopedQuery, TermCount, VocabularyProbe
from chat_recall.domain.text.analysis import TextAnalysis

# FTS5 merge work per written table and maintenance step: one transaction of small merge
# statements (`MERGE_STEP_PAGES` each), until nothing is left to merge or
# `MERGE_BUDGET_SECONDS` have passed. FTS5 merges incrementally: a merge in progress is
# kept in the table's structure record, and the next statement goes on with it, so many
# small statements do the work of one large one. The time check between them bounds the
# transaction by construction; before, one statement per step had a page budget adapted
# to how long its transactions took, and a forecast held in most steps only (a rare
# step held the lock past its budget: docs/results.md). FTS5 ends a statement only
# between terms, so a statement takes at least the time of merging one term's postings:
# 32 pages keeps that short. The COMMIT writes the pages merged, so it grows with the
# work done, which the time check bounds too.
MERGE_BUDGET_SECONDS = 0.008
MERGE_STEP_PAGES = 32
MERGE_STATEMENTS = 64  # at most per transaction, whatever the clock says
# How many segments a level of an app's table gathers before a merge step merges them
# (FTS5's `usermerge`; its default is 4). Each merge rewrites the postings it takes, so
# merging 8 at a time rewrites each document fewer times (the merge steps of a heavy
# backfill took less time, common-word queries as fast: docs/results.md). It stays below
# FTS5's `crisismerge` (16), where an insert merges inside the batch's own transaction.
MERGE_SEGMENTS_PER_LEVEL = 8
# A reclaim step stops taking more documents after this long inside its transaction
# (an FTS5 delete re-reads the document's text; large documents cost more).
RECLAIM_BUDGET_SECONDS = 0.010
RECLAIM_CHUNK = 2
# Documents checked per read when looking for orphans; orphans found are removed in
# short transactions of their own.
ORPHAN_SCAN_CHUNK = 5_000
ORPHAN_REMOVE_CHUNK = 25

# Documents per text insert at most (4 bound values each, 6 where the table holds
# stems; SQLite's own bound-value limit, 999 before 3.32, may allow fewer): an indexer
# batch in one statement.
TEXT_ROWS = 256

T = TypeVar("T")
# Write transactions done again, each without one more damaged app table, at most.
DAMAGE_RETRIES = 8

RECLAIM_WAITING = (
    f"SELECT EXISTS (SELECT 1 FROM {PURGE}) OR EXISTS (SELECT 1 FROM {DELETED_MESSAGES}) "
    f"OR EXISTS (SELECT 1 FROM {DELETED_CHATS})"
)


@attrs.define
class SqliteFts5IndexStore:
    database: SqliteDatabase
    # Applied by FTS5 itself (the table's tokenizer) to documents and query phrases.
    analysis: TextAnalysis = TextAnalysis.default()
    purges_per_step: int = RECLAIM_PER_STEP
    _known_tables: set[AppId] = attrs.field(factory=set, init=False)
    _damage_reported: set[AppId] = attrs.field(factory=set, init=False)
    # App tables found damaged, by the schema version they were found in (`_set_aside`),
    # and those of them blamed for damage met on a table of every app (`_on_app_table`).
    _damaged: dict[AppId, int | None] = attrs.field(factory=dict, init=False)
    _blamed_on_shared: set[AppId] = attrs.field(factory=set, init=False)
    # Times the merge statements (`MERGE_BUDGET_SECONDS`); tests step it by hand.
    clock: Callable[[], float] = time.perf_counter
    _written: set[AppId] = attrs.field(factory=set, init=False)
    # Tables whose merge settings this store has set (a table made before they changed
    # gets them at its first merge step; `_merge_in`).
    _merge_settings_set: set[AppId] = attrs.field(factory=set, init=False)

    # -- writing (inside a unit of work's transaction, see unit_of_work.py) -------------

    def put(
        self, connection: sqlite3.Connection, documents: Sequence[IndexDocument]
    ) -> list[QuarantinedRow]:
        """Set-based: one lookup finds which sources still exist as the documents say
        (the others are left out: deleted or moved since they were read), which
        documents are described as they are already, and what the ids hold now
        (documents, purge rows, quarantine); the ids whose document changes are removed
        (as `remove` does), and each app table gets its documents in one statement over
        a JSON array (see `_forget` for why). `to_put` is the reading, `write` the
        writing: a unit of work reads before it takes the write lock.

        The documents of an app whose table reports damage are quarantined instead
        (`index_damaged`) and returned: the other apps' documents are written."""
        return self.write(connection, self.to_put(connection, documents))

    def to_put(
        self,
        connection: sqlite3.Connection,
        documents: Sequence[IndexDocument],
        *,
        removed: AbstractSet[MessageId] = frozenset(),
    ) -> Put:
        """What `put` writes, read in the caller's transaction (nothing is written):
        with `removed`, the ids the same transaction removes first (never unchanged)."""
        if not documents:
            return Put()
        found = _Found.look_up(connection, self.database.schema, documents)
        documents = document_rows.sourced_documents(documents, found.sourced)
        documents = self._without_unchanged(connection, documents, found.described - removed)
        if not documents:
            return Put()
        ids = {document.message_id for document in documents}
        held = [(m, a) for m, a in found.held if m in ids]
        by_app: dict[AppId, list[IndexDocument]] = {}
        for document in documents:
            by_app.setdefault(document.app_id, []).append(document)
        return Put(
            documents=tuple(documents),
            held=tuple(sorted({m for m, _ in held})),
            held_apps=frozenset(a for _, a in held),
            quarantined=tuple(m for m in ids if m in found.quarantined),
            texts={
                app_id: _text_rows(connection, app_documents, self.analysis)
                for app_id, app_documents in by_app.items()
            },
            described={
                app_id: document_rows.described_rows(app_documents)
                for app_id, app_documents in by_app.items()
            },
            by_app=by_app,
        )

    def write(self, connection: sqlite3.Connection, put: Put) -> list[QuarantinedRow]:
        """Write what `to_put` read, in the same transaction."""
        if not put.documents:
            return []
        self._drop(connection, put.held, set(put.held_apps))
        if put.quarantined:
            connection.execute(
                f"DELETE FROM {QUARANTINE} WHERE message_id IN (SELECT value FROM json_each(?))",
                (as_json(put.quarantined),),
            )
        set_aside: list[QuarantinedRow] = []
        for app_id, app_documents in put.by_app.items():
            self._written.add(app_id)
            table = quote(self._ensure_table(connection, app_id))
            texts = partial(_insert_texts, connection, table, put.texts[app_id])
            described = partial(
                document_rows.insert_rows,
                connection,
                app_documents,
                described=put.described[app_id],
            )
            if not self._on_app_table(connection, app_id, texts) or not self._on_app_table(
                connection, app_id, described, shared=True
            ):
                set_aside.extend(
                    QuarantinedRow(
                        d.message_id, d.app_id, d.chat_id, UnreadableReason.INDEX_DAMAGED
                    )
                    for d in app_documents
                )
        if set_aside:
            self._quarantine(connection, set_aside)
        return set_aside

    def _without_unchanged(
        self,
        connection: sqlite3.Connection,
        documents: Sequence[IndexDocument],
        described: set[int],
    ) -> list[IndexDocument]:
        """The documents that differ from the visible document their message has now
        (`described`: the ids whose visible document is described as theirs is). One
        that is the same, text and description, is left as it is: an FTS5 delete
        reads the stored text back and tokenizes it again, so replacing a document by
        itself costs about twice its first write, and a `rebuild` in place (or a change
        of projection that leaves most messages as they were) would pay that for every
        message while holding the write lock. A document hidden by a deletion record is
        never the same: putting it supersedes the record."""
        if not documents or not described:
            return list(documents)
        same: set[int] = set()
        by_app: dict[AppId, list[IndexDocument]] = {}
        for document in documents:
            if document.message_id in described:
                by_app.setdefault(document.app_id, []).append(document)
        texts = ", ".join(WRITTEN_TEXT_COLUMNS) if self.analysis.writes_stems else "title, body"
        for app_id, app_documents in by_app.items():
            if not self._table_exists(connection, app_id):
                continue
            wanted = {
                int(d.message_id): (d.title, d.body, chat_ref(d.chat_id)) for d in app_documents
            }
            stored: list[tuple[int, str, str, str]] = []
            read = partial(
                connection.execute,
                f"SELECT rowid, {texts}, chat_ref FROM {quote(fts_table_name(app_id))} "
                "WHERE rowid IN (SELECT value FROM json_each(?))",
                (as_json(list(wanted)),),
            )
            self._on_app_table(connection, app_id, partial(_collect, read, stored))
            same.update(rowid for rowid, *text in stored if wanted.get(rowid) == tuple(text))
        return [d for d in documents if d.message_id not in same]

    def remove(self, connection: sqlite3.Connection, message_ids: Sequence[MessageId]) -> None:
        """Remove documents; a message put or removed is out of quarantine too."""
        self.write_removal(connection, self.to_remove(connection, message_ids))

    def to_remove(
        self, connection: sqlite3.Connection, message_ids: Sequence[MessageId]
    ) -> Removal:
        """What `remove` writes, read in the caller's transaction (nothing is written)."""
        if not message_ids:
            return Removal()
        ids = as_json(list(message_ids))
        existing, apps = self._held(connection, ids)
        return Removal(ids, tuple(existing), frozenset(apps))

    def write_removal(self, connection: sqlite3.Connection, removal: Removal) -> None:
        """Write what `to_remove` read, in the same transaction."""
        if not removal.ids:
            return
        self._drop(connection, removal.held, set(removal.held_apps))
        connection.execute(
            f"DELETE FROM {QUARANTINE} WHERE message_id IN (SELECT value FROM json_each(?))",
            (removal.ids,),
        )

    def set_aside(self, connection: sqlite3.Connection, rows: Sequence[QuarantinedRow]) -> None:
        """Quarantine rows: their documents go (the content they were built from
        changed into something unreadable), their reason stays."""
        if not rows:  # a batch's usual case: no statement at all
            return
        self.remove(connection, [row.message_id for row in rows])
        self._quarantine(connection, rows)

    def _quarantine(self, connection: sqlite3.Connection, rows: Sequence[QuarantinedRow]) -> None:
        connection.executemany(
            f"INSERT OR REPLACE INTO {QUARANTINE}(message_id, app_id, chat_id, reason) "
            "VALUES (?, ?, ?, ?)",
            [(row.message_id, row.app_id, row.chat_id, row.reason.value) for row in rows],
        )

    def _forget(self, connection: sqlite3.Connection, ids: str) -> None:
        """Drop the documents of the ids (a JSON array) wherever they are (visible,
        hidden, or awaiting reclaim), and the deletion records of those that had one (a
        document put for a message supersedes the record that hid its previous one).

        A few statements whatever the number of ids, each over the whole array: inside
        a write transaction every return to Python costs a wait for the GIL, which in a
        host's busy process can be a switch interval or more while the write lock is
        held; one statement per id made batches of a few documents hold it far past
        their budget under load (docs/results.md)."""
        self._drop(connection, *self._held(connection, ids))

    @staticmethod
    def _held(connection: sqlite3.Connection, ids: str) -> tuple[list[int], set[AppId]]:
        """Which of the ids (a JSON array) have a document or a purge row, and in which
        apps."""
        found = connection.execute(
            f"""
            SELECT json_group_array(DISTINCT message_id), json_group_array(DISTINCT app_id)
            FROM (SELECT message_id, app_id FROM {DOCS}
                  WHERE message_id IN (SELECT value FROM json_each(?1))
                  UNION ALL
                  SELECT message_id, app_id FROM {PURGE}
                  WHERE message_id IN (SELECT value FROM json_each(?1)))
            """,
            (ids,),
        ).fetchone()
        return json.loads(found[0]), {AppId(app) for app in json.loads(found[1])}

    def _drop(
        self, connection: sqlite3.Connection, existing: Sequence[int], apps: set[AppId]
    ) -> None:
        """`_forget` of the ids that have a document or a purge row (`existing`), in
        the apps `apps`."""
        if not existing:
            return
        existing_ids = as_json(existing)
        for app_id in sorted(apps):
            self._written.add(app_id)
            if self._table_exists(connection, app_id):
                # A damaged table keeps the rows: without their documents no read finds
                # them, and `rebuild` drops the table.
                self._on_app_table(
                    connection,
                    app_id,
                    partial(
                        connection.execute,
                        f"DELETE FROM {quote(fts_table_name(app_id))} "
                        "WHERE rowid IN (SELECT value FROM json_each(?))",
                        (existing_ids,),
                    ),
                )
        for table in (DOCS, PURGE, DELETED_MESSAGES):
            connection.execute(
                f"DELETE FROM {table} WHERE message_id IN (SELECT value FROM json_each(?))",
                (existing_ids,),
            )
        forget_vectors(connection, existing_ids)

    def _on_app_table(
        self,
        connection: sqlite3.Connection,
        app_id: AppId,
        statement: Callable[[], object],
        *,
        shared: bool = False,
    ) -> bool:
        """Run a statement on one app's FTS5 table inside the caller's transaction;
        False, without running it, while that table is set aside as damaged. A
        statement that meets damage sets the table aside and raises `StorageDamaged`
        naming the app: SQLite refuses the rest of a transaction that met corruption,
        so the caller does its work again at once, without that table (one damaged app
        never stops the others' indexing; `status` reports it, `rebuild` restores it).

        `shared`: a statement on a table of every app, run right after one on the
        app's table (a write into a damaged FTS5 table can make SQLite report the
        damage at the next statement). Its damage is blamed on the app once; when it
        is blamed on a second app, the shared table is the damaged one: nothing is
        set aside, and `StorageDamaged` is raised for the whole index."""
        if self._set_aside(connection, app_id):
            return False
        try:
            statement()
        except MemoryError as error:
            # A damaged FTS5 structure record asks for a huge allocation (SQLITE_NOMEM).
            # A real shortage may pass: damage only when reading the table fails again.
            if not self._reading_fails(connection, app_id):
                raise
            damaged = StorageDamaged(
                f"the index of app {app_id} is damaged (a record asks for more memory than "
                "there is); `chat-recall rebuild` restores it",
                app_id=app_id,
            )
            self._damage_found(app_id, damaged)
            raise damaged from error
        except sqlite3.Error as error:
            if not isinstance(translate(error), StorageDamaged):
                raise
            if shared and self._blamed_on_shared - {app_id}:
                for blamed in self._blamed_on_shared:
                    self._damaged.pop(blamed, None)
                self._blamed_on_shared.clear()
                raise StorageDamaged(
                    f"chat-recall's index is damaged ({error}); `chat-recall rebuild` restores it"
                ) from error
            if shared:
                self._blamed_on_shared.add(app_id)
            else:
                self._blamed_on_shared.discard(app_id)
            self._damage_found(app_id, error)
            raise StorageDamaged(
                f"the index of app {app_id} is damaged ({error}); `chat-recall rebuild` "
                "restores it",
                app_id=app_id,
            ) from error
        return True

    @staticmethod
    def _reading_fails(connection: sqlite3.Connection, app_id: AppId) -> bool:
        """Whether a read of the app's FTS5 table (which decodes its structure record)
        fails with memory or damage."""
        table = quote(fts_table_name(app_id))
        try:
            connection.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH 'a' LIMIT 1")
        except MemoryError:
            return True
        except sqlite3.Error as error:
            return isinstance(translate(error), StorageDamaged)
        return False

    def _set_aside(self, connection: sqlite3.Connection, app_id: AppId) -> bool:
        """Whether the app's table was found damaged and the schema has not changed
        since (a `rebuild`, by any process, changes it: the new table is tried)."""
        if app_id not in self._damaged:
            return False
        version = _schema_version(connection)
        if self._damaged[app_id] is None:  # found just now
            self._damaged[app_id] = version
        return self._damaged[app_id] == version

    def _damage_found(self, app_id: AppId, error: sqlite3.Error | StorageDamaged) -> None:
        """Set the app's table aside until the schema changes, and say so once per app
        and process. The schema's version is read at the next look (`_set_aside`): the
        transaction that met the damage may refuse any further statement."""
        self._damaged[app_id] = None
        if app_id not in self._damage_reported:
            self._damage_reported.add(app_id)
            import logging  # here: a process that meets no damage does not load it

            logging.getLogger("chat_recall.index").warning(
                "the index of app %d is damaged (%s): its messages are set aside until "
                "`chat-recall rebuild`; the other apps are indexed",
                app_id,
                type(error).__name__,
            )

    def _writing_around_damage(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work` in a write transaction, done again without the app whose table it
        found damaged (`_on_app_table`), as often as it finds another one."""
        failure: StorageDamaged | None = None
        for _ in range(DAMAGE_RETRIES):
            try:
                with self.database.writing() as connection:
                    return work(connection)
            except StorageDamaged as error:
                if error.app_id is None or error.app_id not in self._damaged:
                    raise
                failure = error
        assert failure is not None
        raise failure

    def forget_tables(self) -> None:
        """Drop the cache of registered app tables (after the registry was repaired)."""
        self._known_tables.clear()

    def _table_exists(self, connection: sqlite3.Connection, app_id: AppId) -> bool:
        if app_id in self._known_tables:
            return True
        found = connection.execute(f"SELECT 1 FROM {APPS} WHERE app_id = ?", (app_id,)).fetchone()
        if found:
            self._known_tables.add(app_id)
        return found is not None

    def _ensure_table(self, connection: sqlite3.Connection, app_id: AppId) -> str:
        table = fts_table_name(app_id)
        if not self._table_exists(connection, app_id):
            before = _schema_version(connection) if self._damaged else None
            connection.execute(fts_table_ddl(table, self.analysis))
            if before is not None:  # this change of the schema is no rebuild: still aside
                after = _schema_version(connection)
                for damaged, version in self._damaged.items():
                    if version == before:
                        self._damaged[damaged] = after
            _set_merge_settings(connection, table)
            self._merge_settings_set.add(app_id)
            connection.execute(
                f"INSERT OR IGNORE INTO {APPS}(app_id, fts_table) VALUES (?, ?)", (app_id, table)
            )
        return table

    def maintain(self) -> Maintenance:
        """Reclaim documents the host deleted (see `_reclaim`), then an incremental
        FTS5 merge of each table written since the last step (`MERGE_BUDGET_SECONDS`):
        automatic merging is off in our tables (it made some write batches take well
        past the budget), so this bounded step replaces it. Short transactions: the reclaim,
        then one per table merged, each within the pacer's budget, with the pacer's
        rest between them (`SqliteDatabase.pacer`). `held_seconds`: the last one's
        length, COMMIT included."""
        with self.database.reading() as connection:
            waiting = connection.execute(RECLAIM_WAITING).fetchone()[0]
        reclaimed, more, held = 0, False, 0.0
        if waiting:
            began = time.perf_counter()
            reclaimed, more = self._reclaim_step()
            held = time.perf_counter() - began
        written, self._written = self._written, set()
        for app_id in sorted(written):  # one transaction per table
            began = time.perf_counter()
            self._merge(app_id)
            held = time.perf_counter() - began
        return Maintenance(reclaimed=reclaimed, more=more, held_seconds=held)

    def _reclaim_step(self) -> tuple[int, bool]:
        return self._writing_around_damage(self._reclaim)

    def _merge(self, app_id: AppId) -> int:
        """One transaction of merge statements in an app's table; returns how many of
        them merged something."""
        return self._writing_around_damage(partial(self._merge_in, app_id))

    def _merge_in(self, app_id: AppId, connection: sqlite3.Connection) -> int:
        merged = 0
        if not self._table_exists(connection, app_id):
            return 0
        if app_id not in self._merge_settings_set:
            settings = partial(_set_merge_settings, connection, fts_table_name(app_id))
            if not self._on_app_table(connection, app_id, settings):
                return 0
            self._merge_settings_set.add(app_id)
        table = quote(fts_table_name(app_id))
        started = self.clock()
        for _ in range(MERGE_STATEMENTS):
            changes = connection.total_changes
            if not self._on_app_table(
                connection,
                app_id,
                partial(
                    connection.execute,
                    f"INSERT INTO {table}({table}, rank) VALUES ('merge', ?)",
                    (MERGE_STEP_PAGES,),
                ),
            ):
                break
            # The command's own row is one change; FTS5 writes pages and the
            # structure record only when some level had segments to merge.
            if connection.total_changes - changes <= 1:
                break
            merged += 1
            if self.clock() - started >= min(MERGE_BUDGET_SECONDS, self.database.pacer.budget()):
                break
        return merged

    def _reclaim(self, connection: sqlite3.Connection) -> tuple[int, bool]:
        """Up to `purges_per_step` documents awaiting reclaim (`chat_recall_purge`),
        then of deleted messages, then of deleted chats, in chunks until
        RECLAIM_BUDGET_SECONDS (or the pacer's budget, while the host writes) have
        passed. A deletion record goes with its documents;
        if the host row exists again (an id reused, a message or chat moved), it is
        marked dirty to be indexed as it is now."""
        started = time.perf_counter()
        budget = min(RECLAIM_BUDGET_SECONDS, self.database.pacer.budget())
        reclaimed = 0
        while reclaimed < self.purges_per_step:
            if time.perf_counter() - started > budget:
                return reclaimed, True
            take = min(RECLAIM_CHUNK, self.purges_per_step - reclaimed)
            purged = [
                MessageId(row[0])
                for row in connection.execute(
                    f"SELECT message_id FROM {PURGE} ORDER BY message_id LIMIT ?", (take,)
                )
            ]
            if purged:
                self._forget(connection, as_json(purged))
                reclaimed += len(purged)
                continue
            ids = [
                MessageId(row[0])
                for row in connection.execute(
                    f"SELECT message_id FROM {DELETED_MESSAGES} ORDER BY message_id LIMIT ?",
                    (take,),
                )
            ]
            if ids:
                self._forget(connection, as_json(ids))
                connection.execute(  # the records of messages that had no document too
                    f"DELETE FROM {DELETED_MESSAGES} "
                    "WHERE message_id IN (SELECT value FROM json_each(?))",
                    (as_json(ids),),
                )
                self._mark_existing(connection, ids)
                reclaimed += len(ids)
                continue
            chat = connection.execute(
                f"SELECT chat_id FROM {DELETED_CHATS} ORDER BY chat_id LIMIT 1"
            ).fetchone()
            if chat is None:
                return reclaimed, False
            documents = [
                MessageId(row[0])
                for row in connection.execute(
                    f"SELECT message_id FROM {DOCS} WHERE chat_id = ? LIMIT ?", (chat[0], take)
                )
            ]
            if documents:
                self._forget(connection, as_json(documents))
            reclaimed += len(documents)
            forgotten = forget_order_of_gone_chat(connection, self.database.schema, chat[0], take)
            if len(documents) < take and forgotten < take:
                connection.execute(f"DELETE FROM {DELETED_CHATS} WHERE chat_id = ?", chat)
                self._mark_chat_if_present(connection, chat[0])
        more = connection.execute(RECLAIM_WAITING).fetchone()[0]
        return reclaimed, bool(more)

    def _mark_existing(self, connection: sqlite3.Connection, ids: Sequence[MessageId]) -> None:
        s = self.database.schema
        marks = ", ".join("?" for _ in ids)
        connection.execute(
            f"""
            INSERT OR REPLACE INTO {DIRTY_MESSAGES}(message_id, app_id, chat_id, seq)
            SELECT m.{s.q("message_id")}, c.{s.q("chat_app_id")}, m.{s.q("message_chat_id")},
                   random()
            FROM {s.q("messages")} AS m
            LEFT JOIN {s.q("chats")} AS c ON c.{s.q("chat_id")} = m.{s.q("message_chat_id")}
            WHERE m.{s.q("message_id")} IN ({marks})
            """,
            list(ids),
        )

    def _mark_chat_if_present(self, connection: sqlite3.Connection, chat_id: int) -> None:
        s = self.database.schema
        connection.execute(
            f"""
            INSERT OR REPLACE INTO {DIRTY_CHATS}(chat_id, app_id, seq, adopt)
            SELECT {s.q("chat_id")}, {s.q("chat_app_id")}, random(), 0
            FROM {s.q("chats")} WHERE {s.q("chat_id")} = ?
            """,
            (chat_id,),
        )

    def remove_orphans(self) -> int:
        """Documents whose message is gone (or in another chat or app than the document
        says) without the triggers having seen it, and index rows without a document:
        found by reading in chunks, removed in short transactions."""
        s = self.database.schema
        removed = 0
        after = -(2**63)
        while True:
            with self.database.reading() as connection:
                rows = connection.execute(
                    f"""
                    SELECT d.message_id, {_unsourced(s)}
                    FROM (SELECT message_id, chat_id, app_id FROM {DOCS}
                          WHERE message_id > ? ORDER BY message_id LIMIT ?) AS d
                    """,
                    (after, ORPHAN_SCAN_CHUNK),
                ).fetchall()
            if not rows:
                break
            after = rows[-1][0]
            orphans = [MessageId(row[0]) for row in rows if row[1]]
            removed += self._remove_in_chunks(orphans)
        with self.database.reading() as connection:
            tables = connection.execute(f"SELECT app_id, fts_table FROM {APPS}").fetchall()
        for app_id, table in tables:
            try:
                removed += self._remove_stray_rows(AppId(app_id), table)
            except StorageDamaged as error:  # the other apps' tables are still swept
                self._damage_found(AppId(app_id), error)
        with self.database.writing() as connection:
            connection.execute(
                f"DELETE FROM {QUARANTINE} WHERE NOT EXISTS (SELECT 1 FROM {s.q('messages')} "
                f"AS m WHERE m.{s.q('message_id')} = {QUARANTINE}.message_id)"
            )
        return removed

    def _remove_in_chunks(self, orphans: Sequence[MessageId]) -> int:
        """Remove orphan documents, re-checked inside each short write transaction."""
        removed = 0
        for start in range(0, len(orphans), ORPHAN_REMOVE_CHUNK):
            chunk = list(orphans[start : start + ORPHAN_REMOVE_CHUNK])
            removed += self._writing_around_damage(partial(self._remove_orphans_in, chunk))
        return removed

    def _remove_orphans_in(self, chunk: Sequence[MessageId], connection: sqlite3.Connection) -> int:
        s = self.database.schema
        marks = ", ".join("?" for _ in chunk)
        still = [
            MessageId(row[0])
            for row in connection.execute(
                f"""
                SELECT d.message_id FROM {DOCS} AS d
                WHERE d.message_id IN ({marks}) AND {_unsourced(s)}
                """,
                chunk,
            )
        ]
        if still:
            self._forget(connection, as_json(still))
        return len(still)

    def _remove_stray_rows(self, app_id: AppId, table: str) -> int:
        """Index rows of an app table with no document of that app (neither described
        nor awaiting reclaim), found in chunks by rowid."""
        fts = quote(table)
        removed = 0
        after = -(2**63)
        while True:
            with self.database.reading() as connection:
                rows = connection.execute(
                    f"""
                    SELECT f.rowid,
                        NOT EXISTS (SELECT 1 FROM {DOCS} AS d
                                    WHERE d.message_id = f.rowid AND d.app_id = ?)
                        AND NOT EXISTS (SELECT 1 FROM {PURGE} AS p
                                        WHERE p.message_id = f.rowid AND p.app_id = ?)
                    FROM (SELECT rowid FROM {fts} WHERE rowid > ? ORDER BY rowid LIMIT ?) AS f
                    """,
                    (app_id, app_id, after, ORPHAN_SCAN_CHUNK),
                ).fetchall()
            if not rows:
                return removed
            after = rows[-1][0]
            stray = [row[0] for row in rows if row[1]]
            for start in range(0, len(stray), ORPHAN_REMOVE_CHUNK):
                chunk = stray[start : start + ORPHAN_REMOVE_CHUNK]
                marks = ", ".join("?" for _ in chunk)
                with self.database.writing() as connection:
                    cursor = connection.execute(
                        f"DELETE FROM {fts} WHERE rowid IN ({marks}) AND NOT EXISTS "
                        f"(SELECT 1 FROM {DOCS} AS d WHERE d.message_id = {fts}.rowid "
                        "AND d.app_id = ?) AND NOT EXISTS "
                        f"(SELECT 1 FROM {PURGE} AS p WHERE p.message_id = {fts}.rowid "
                        "AND p.app_id = ?)",
                        (*chunk, app_id, app_id),
                    )
                    removed += max(cursor.rowcount, 0)
                    self._written.add(app_id)

    # -- reading -----------------------------------------------------------------------

    def _readable_table(self, connection: sqlite3.Connection, app_id: AppId) -> str | None:
        return fts_table_name(app_id) if self._table_exists(connection, app_id) else None

    def search(self, query: ScopedQuery) -> list[Candidate]:
        if query.match.is_empty:
            return []
        match = compile_match(query.match, query.exclude_chat_id, self.analysis)
        if match is None:
            return []
        with self.database.reading() as connection:
            table = self._readable_table(connection, query.app_id)
            if table is None:
                return []
            fts = quote(table)
            past = document_rows.hidden_in_app(connection, query.app_id)
            within, span = "", ()  # type: tuple[str, tuple[int, ...]]
            if query.within.bounded:  # each match's time, read before the best are chosen
                within = (
                    f" AND EXISTS (SELECT 1 FROM {DOCS} AS w WHERE w.message_id = {fts}.rowid "
                    "AND w.created_at >= ? AND w.created_at < ?)"
                )
                span = query.within.span()
            rows = connection.execute(
                f"""
                SELECT r.message_id, -r.score, d.chat_id, d.role, d.created_at,
                       d.is_compaction_summary, d.projection_truncated
                FROM (
                    SELECT rowid AS message_id, bm25({fts}, ?, ?, 0.0) AS score
                    FROM {fts} WHERE {fts} MATCH ?{within}
                    ORDER BY score, rowid LIMIT ?
                ) AS r
                JOIN {DOCS} AS d ON d.message_id = r.message_id AND d.app_id = ?
                WHERE NOT {document_rows.HIDDEN}
                ORDER BY r.score, r.message_id LIMIT ?
                """,
                (
                    query.weights.title,
                    query.weights.body,
                    match,
                    *span,
                    query.window + past,
                    query.app_id,
                    query.window,
                ),
            ).fetchall()
        return [
            Candidate(
                message_id=row[0],
                score=row[1],
                chat_id=row[2],
                role=Role(row[3]),
                created_at=row[4],
                is_compaction_summary=bool(row[5]),
                projection_truncated=bool(row[6]),
            )
            for row in rows
        ]

    def documents(self, app_id: AppId, message_ids: Sequence[MessageId]) -> list[DocumentText]:
        if not message_ids:
            return []
        with self.database.reading() as connection:
            table = self._readable_table(connection, app_id)
            if table is None:
                return []
            marks = ", ".join("?" for _ in message_ids)
            texts = WRITTEN_TEXTS if self.analysis.writes_stems else "f.title, f.body"
            rows = connection.execute(
                f"""
                SELECT d.message_id, {texts}, d.chat_id, d.role, d.created_at,
                       d.is_compaction_summary, d.projection_truncated
                FROM {DOCS} AS d JOIN {quote(table)} AS f ON f.rowid = d.message_id
                WHERE d.message_id IN ({marks}) AND d.app_id = ? AND NOT {document_rows.HIDDEN}
                ORDER BY d.message_id
                """,
                (*message_ids, app_id),
            ).fetchall()
        return [
            DocumentText(
                message_id=row[0],
                title=row[1],
                body=row[2],
                chat_id=row[3],
                role=Role(row[4]),
                created_at=row[5],
                is_compaction_summary=bool(row[6]),
                projection_truncated=bool(row[7]),
            )
            for row in rows
        ]

    def vocabulary(self, probe: VocabularyProbe) -> list[TermCount]:
        """From the app's own table, through an `fts5vocab` table of type `row` (terms
        and the rows holding them, read from the index's term dictionary: an exact term
        is one seek, a prefix one range scan)."""
        found: dict[str, int] = {}
        with self.database.reading() as connection:
            table = self._readable_table(connection, probe.app_id)
            if table is None:
                return []
            vocabulary = _vocabulary_table(connection, table)
            for start in range(0, len(probe.terms), VOCABULARY_CHUNK):
                chunk = probe.terms[start : start + VOCABULARY_CHUNK]
                marks = ", ".join("?" for _ in chunk)
                found.update(
                    connection.execute(
                        f"SELECT term, doc FROM {vocabulary} WHERE term IN ({marks})", chunk
                    ).fetchall()
                )
            if probe.prefix:
                found.update(
                    connection.execute(
                        f"SELECT term, doc FROM {vocabulary} WHERE term >= ? AND term < ? "
                        "ORDER BY term LIMIT ?",
                        (probe.prefix, probe.prefix + PAST_EVERY_CHARACTER, probe.limit),
                    ).fetchall()
                )
        return [TermCount(term, found[term]) for term in sorted(found)]

    def document_ids(self, app_id: AppId) -> list[MessageId]:
        with self.database.reading() as connection:
            rows = connection.execute(
                f"SELECT message_id FROM {DOCS} AS d "
                f"WHERE app_id = ? AND NOT {document_rows.HIDDEN} ORDER BY message_id",
                (app_id,),
            ).fetchall()
        return [row[0] for row in rows]

    def stats(self, app_id: AppId) -> IndexStats:
        with self.database.reading() as connection:
            return document_rows.stats(connection, app_id)

    def projection_stamp(self) -> str | None:
        with self.database.reading() as connection:
            row = connection.execute(
                f"SELECT value FROM {META} WHERE key = 'projection'"
            ).fetchone()
        return None if row is None else str(row[0])

    def quarantine(self, limit: int) -> Quarantine:
        s = self.database.schema
        live = (
            f"FROM {QUARANTINE} AS q WHERE EXISTS (SELECT 1 FROM {s.q('messages')} AS m "
            f"WHERE m.{s.q('message_id')} = q.message_id)"
        )
        with self.database.reading() as connection:
            total = connection.execute(f"SELECT count(*) {live}").fetchone()[0]
            rows = connection.execute(
                f"SELECT q.message_id, q.app_id, q.chat_id, q.reason {live} "
                "ORDER BY q.message_id LIMIT ?",
                (limit,),
            ).fetchall()
        return Quarantine(
            int(total),
            tuple(QuarantinedRow(row[0], row[1], row[2], reason_of(row[3])) for row in rows),
        )

    def set_projection_stamp(self, stamp: str) -> None:
        with self.database.writing() as connection:
            connection.execute(
                f"INSERT OR REPLACE INTO {META}(key, value) VALUES ('projection', ?)", (stamp,)
            )


# The text of a document where the table holds its stems (`WRITTEN_TEXT_COLUMNS`).
WRITTEN_TEXTS = ", ".join(f"f.{column}" for column in WRITTEN_TEXT_COLUMNS)
# Terms looked up per statement (bound values: SQLite's limit was 999 before 3.32).
VOCABULARY_CHUNK = 500
# Every text that begins with a prefix sorts below the prefix followed by this.
PAST_EVERY_CHARACTER = "\U0010ffff"


def _vocabulary_table(connection: sqlite3.Connection, table: str) -> str:
    """A `temp` fts5vocab table over an app's table, created once per connection: in
    the connection's own temporary schema, so a read-only connection makes it (with
    `query_only` lifted for that statement: the database itself stays read-only) and
    no file is written."""
    name = f"chat_recall_vocabulary_{table}"
    exists = connection.execute(
        "SELECT 1 FROM temp.sqlite_master WHERE name = ?", (name,)
    ).fetchone()
    if exists is None:
        query_only = connection.execute("PRAGMA query_only").fetchone()[0]
        if query_only:
            connection.execute("PRAGMA query_only = OFF")
        try:
            connection.execute(
                f"CREATE VIRTUAL TABLE temp.{quote(name)} "
                f"USING fts5vocab(main, {quote(table)}, 'row')"
            )
        finally:
            if query_only:
                connection.execute("PRAGMA query_only = ON")
    return f"temp.{quote(name)}"


def _collect(read: Callable[[], sqlite3.Cursor], into: list[tuple[int, str, str, str]]) -> None:
    into.extend(read())


def _text_rows(
    connection: sqlite3.Connection, documents: Sequence[IndexDocument], analysis: TextAnalysis
) -> tuple[tuple[str, list[object]], ...]:
    """The statements (the part after the table's name, and their values) that put
    the documents' texts into an app's FTS5 table (`_insert_texts`), made before the
    write lock is taken: one multi-row `VALUES` statement per TEXT_ROWS documents, the
    texts bound as they are. Not a JSON array like the other statements here: for
    texts, encoding the array in Python and parsing it again in SQLite (`json_each`,
    `->>`) made the statement markedly slower (docs/results.md). Still one statement
    for a whole batch (see `_forget` for why that matters). Under an analysis that
    writes its stems, the stems go to title and body, the texts beside them
    (`WRITTEN_TEXT_COLUMNS`)."""
    if analysis.writes_stems:
        columns = "rowid, title, body, chat_ref, " + ", ".join(WRITTEN_TEXT_COLUMNS)

        def values(d: IndexDocument) -> tuple[object, ...]:
            title, body = analysis.written_text(d.title), analysis.written_text(d.body)
            return (d.message_id, title, body, chat_ref(d.chat_id), d.title, d.body)
    else:
        columns = "rowid, title, body, chat_ref"

        def values(d: IndexDocument) -> tuple[object, ...]:
            return (d.message_id, d.title, d.body, chat_ref(d.chat_id))

    width = columns.count(",") + 1
    marks = "(" + ", ".join("?" * width) + ")"
    rows = min(TEXT_ROWS, connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // width)
    return tuple(
        (
            f"({columns}) VALUES " + ", ".join([marks] * len(chunk)),
            [value for d in chunk for value in values(d)],
        )
        for chunk in (documents[start : start + rows] for start in range(0, len(documents), rows))
    )


def _insert_texts(
    connection: sqlite3.Connection, table: str, statements: Sequence[tuple[str, list[object]]]
) -> None:
    """The texts into an app's FTS5 table (`_text_rows` made the statements)."""
    for rest, values in statements:
        connection.execute(f"INSERT INTO {table}{rest}", values)


def _unsourced(s: HostSchema) -> str:
    """Whether document row `d` has no host message in the chat and app it names."""
    return f"""NOT EXISTS (
        SELECT 1 FROM {s.q("messages")} AS m
        JOIN {s.q("chats")} AS c ON c.{s.q("chat_id")} = m.{s.q("message_chat_id")}
        WHERE m.{s.q("message_id")} = d.message_id AND m.{s.q("message_chat_id")} = d.chat_id
          AND c.{s.q("chat_app_id")} = d.app_id)"""


def _set_merge_settings(connection: sqlite3.Connection, table: str) -> None:
    """Our merge settings for an app's FTS5 table, kept in the table's own config:
    no automatic merging (`IndexStore.maintain` merges in bounded steps instead; FTS5's
    own made some batches take twice their budget) and `MERGE_SEGMENTS_PER_LEVEL`."""
    quoted = quote(table)
    connection.execute(f"INSERT INTO {quoted}({quoted}, rank) VALUES ('automerge', 0)")
    connection.execute(
        f"INSERT INTO {quoted}({quoted}, rank) VALUES ('usermerge', ?)",
        (MERGE_SEGMENTS_PER_LEVEL,),
    )


def _schema_version(connection: sqlite3.Connection) -> int:
    return int(connection.execute("PRAGMA schema_version").fetchone()[0])


def reason_of(stored: str) -> UnreadableReason:
    """A stored reason (one written by a later release reads as `indexing_failed`)."""
    try:
        return UnreadableReason(stored)
    except ValueError:
        return UnreadableReason.INDEXING_FAILED


@attrs.frozen
class Put:
    """What `SqliteFts5IndexStore.put` writes, read and made ready before the write lock
    (`to_put`): the documents to write, grouped by app with their statements' values,
    what their ids hold now (documents or purge rows to drop first, and in which apps;
    quarantine entries to end)."""

    documents: tuple[IndexDocument, ...] = ()
    held: tuple[int, ...] = ()
    held_apps: frozenset[AppId] = frozenset()
    quarantined: tuple[int, ...] = ()
    texts: dict[AppId, tuple[tuple[str, list[object]], ...]] = attrs.field(factory=dict)
    described: dict[AppId, str] = attrs.field(factory=dict)
    by_app: dict[AppId, list[IndexDocument]] = attrs.field(factory=dict)


@attrs.frozen
class Removal:
    """What `SqliteFts5IndexStore.remove` writes (`to_remove`): the ids (a JSON array),
    those with a document or a purge row, and their apps."""

    ids: str = ""
    held: tuple[int, ...] = ()
    held_apps: frozenset[AppId] = frozenset()


@attrs.frozen
class _Found:
    """What a batch's documents' ids hold now, read in one statement at the start of
    `put` (inside its transaction, so nothing changes under it): the sources as they
    exist (`document_rows.sourced`), the ids whose visible document is described as
    the new one is, each (id, app) with a document or a purge row, and the ids in
    quarantine. One statement rather than one per question: see `_forget`."""

    sourced: str  # a JSON array, for `document_rows.sourced_documents`
    described: set[int]
    held: list[tuple[int, AppId]]
    quarantined: set[int]

    @classmethod
    def look_up(
        cls, connection: sqlite3.Connection, schema: HostSchema, documents: Sequence[IndexDocument]
    ) -> _Found:
        row = connection.execute(
            f"""
            SELECT {document_rows.sourced(schema, "?1")},
            (SELECT json_group_array(d.message_id) FROM {DOCS} AS d
             JOIN json_each(?2) AS n ON {document_rows.DESCRIBED_AS}
             WHERE NOT EXISTS (SELECT 1 FROM {DELETED_MESSAGES} AS x
                               WHERE x.message_id = d.message_id)),
            (SELECT json_group_array(json_array(message_id, app_id))
             FROM (SELECT message_id, app_id FROM {DOCS}
                   WHERE message_id IN (SELECT value FROM json_each(?1))
                   UNION ALL
                   SELECT message_id, app_id FROM {PURGE}
                   WHERE message_id IN (SELECT value FROM json_each(?1)))),
            (SELECT json_group_array(message_id) FROM {QUARANTINE}
             WHERE message_id IN (SELECT value FROM json_each(?1)))
            """,
            (
                json.dumps([d.message_id for d in documents]),
                as_json([document_rows.described(d) for d in documents]),
            ),
        ).fetchone()
        return cls(
            sourced=row[0],
            described=set(json.loads(row[1])),
            held=[(int(m), AppId(a)) for m, a in json.loads(row[2])],
            quarantined=set(json.loads(row[3])),
        )
