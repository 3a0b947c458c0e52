"""`TantivyIndexStore`: the searchable text in tantivy indexes beside the host's SQLite
database; everything else (what is visible, purge list, quarantine, stamps, the dirty
queue and its triggers) stays in the database, exactly as with the FTS5 engine.

Publishing (why writes are staged). A tantivy commit is durable when it returns: it
writes a segment and syncs its files, which takes far longer than an indexer batch's
budget (`domain.pacing.PacingRule`; docs/results.md). So a batch's unit of work is one
short SQLite transaction that writes the metadata rows, clears the dirty markers and
records each message in `chat_recall_tantivy_staged`; its tantivy changes are queued in
memory. `maintain()`, which the indexer runs after every batch, gives them to the app
writers (the engine's work, outside the batch's budget and outside any transaction a
host write could wait on) and publishes: it commits the writers (at most once a
`PUBLISH_SECONDS`, or at once when no dirty marker is left) and only then deletes the
staged rows the commit covered. While dirty markers are left, the commit runs on a
thread of its own (`BackgroundCommit`: tantivy's commit releases the GIL), so the
indexer projects and stages its next batches meanwhile; their changes wait in memory, no
code touches a writer until a later step has seen the commit return (`_settle`), and
only then are the staged rows it covered deleted (a failed commit marks every staged
message dirty again). A drained queue, `publish()`, `close()` and recovery wait for it.
A staged row therefore means "tantivy may not hold this message's latest state durably":
the backlog counts staged messages as pending (searches say `indexing` until they are
published), and at the next start after a crash (`remove_orphans`, run by the indexer
first) every staged message is deleted from tantivy and marked dirty again, so it is
indexed anew: dirty markers are never lost, whether the process ends before or after the
tantivy commit."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence

import attrs
import tantivy

from chat_recall.adapters.index_layout import RECLAIM_PER_STEP
from chat_recall.adapters.sqlite_host import document_rows as rows
from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.adapters.sqlite_host.dirty_queue import SqliteDirtyQueue
from chat_recall.adapters.sqlite_host.migrations import (
    DELETED_CHATS,
    DELETED_MESSAGES,
    DIRTY_CHATS,
    DIRTY_MESSAGES,
    DOCS,
    META,
    PURGE,
    QUARANTINE,
)
from chat_recall.adapters.tantivy.engine import (
    MAX_OPEN_WRITERS,
    SCHEMA,
    BackgroundCommit,
    TantivyIndexes,
    engine_failure,
    engine_term,
    to_tantivy,
)
from chat_recall.adapters.tantivy.query import compile_match, domain_term
from chat_recall.domain.errors import ChatRecallError, IndexUnavailable, StorageError
from chat_recall.domain.host_values import UnreadableReason
from chat_recall.domain.model import (
    AppId,
    Candidate,
    DocumentText,
    IndexDocument,
    IndexStats,
    Maintenance,
    MessageId,
    MessageMarker,
    Quarantine,
    QuarantinedRow,
)
from chat_recall.domain.query import ScopedQuery, TermCount, VocabularyProbe
from chat_recall.domain.text.analysis import TextAnalysis

# A queued tantivy change: a document to add, or (app, message) to delete.
Change = IndexDocument | tuple[AppId, MessageId]

STAGED = "chat_recall_tantivy_staged"
STAGED_DDL = f"""
CREATE TABLE IF NOT EXISTS {STAGED} (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id INTEGER NOT NULL UNIQUE,
    app_id INTEGER,
    chat_id INTEGER
)
"""
# What search and `documents` leave out: what the FTS5 engine hides, and every staged
# message, whose document in tantivy may be an older state than the metadata row
# (an edit, an id the host deleted and used again: the row is the new message's while
# the published document still holds the deleted text until the next publish, or
# until recovery after a crash). Staged messages count as pending, so a search that
# misses one says `indexing`.
HIDDEN_OR_STAGED = (
    f"({rows.HIDDEN} OR EXISTS (SELECT 1 FROM {STAGED} AS z WHERE z.message_id = d.message_id))"
)
PUBLISH_SECONDS = 1.0
# The text analysis every document tantivy holds was written under (its terms depend
# on it), recorded once the queue drained under it.
WRITTEN_UNDER = "tantivy_written_under"
# Changes that may wait for the writers while a background commit runs (several times
# what a heavy backfill stages during one commit, docs/results.md): beyond this, the
# next step waits for the commit, so a slow disk cannot make memory grow.
PENDING_LIMIT = 10_000
# Staged or purge rows one transaction of a publish deletes at most: a publish covers
# what was staged in a second or more (more after a slow commit), which in one
# transaction would hold the lock well past a batch's budget (docs/results.md).
FORGET_PER_TRANSACTION = 2_000
# Candidates fetched beyond the window, so that ties on the window's last score (tantivy
# breaks them by its own document order) are broken by message id as the port says.
TIE_MARGIN = 32


def _app_of(change: Change) -> AppId:
    return change.app_id if isinstance(change, IndexDocument) else change[0]


def install(database: SqliteDatabase) -> None:
    with database.writing() as connection:
        connection.execute(STAGED_DDL)


@attrs.define
class TantivyIndexStore:
    database: SqliteDatabase
    indexes: TantivyIndexes
    # Applied here, in Python, to documents and query phrases alike (see engine.py).
    analysis: TextAnalysis = TextAnalysis.default()
    purges_per_step: int = RECLAIM_PER_STEP
    publish_seconds: float = PUBLISH_SECONDS
    _analysed_alike: bool | None = attrs.field(init=False, default=None)  # None: not read

    # -- writing (the unit of work, see unit_of_work.py) ----------------------------------

    def write(
        self,
        removes: Sequence[MessageId],
        puts: Sequence[IndexDocument],
        quarantined: Sequence[QuarantinedRow],
        cleared: Sequence[MessageMarker],
        *,
        time_limit_seconds: float | None = None,
    ) -> tuple[set[MessageId], list[QuarantinedRow]]:
        """One unit of work: one short SQLite transaction with the metadata rows, the
        staged rows and the cleared markers; then its tantivy changes are queued for the
        next maintenance step (`apply_pending`), which does the engine's work outside
        the batch and outside any transaction the host could wait on. As with FTS5, a
        document is put only if its message still exists in that chat and app and its
        marker was not set again meanwhile (checked inside the transaction). Returns
        the ids of the markers found stale (nothing was written for them), and the
        documents of apps set aside (`TantivyIndexes.set_aside`), quarantined instead
        as `index_damaged`. With a time limit, a transaction still open at it is rolled
        back whole and `TransactionOverTime` raised (nothing queued for tantivy either),
        as on FTS5: the indexer writes the batch in halves."""
        with self.indexes.lock:
            aside = set(self.indexes.set_aside)
            published = (
                self._published_texts([d for d in puts if d.app_id not in aside])
                if self._documents_analysed_alike()
                else {}
            )
            with self.database.writing(time_limit_seconds=time_limit_seconds) as connection:
                # A few statements whatever the batch size (one per marker, as before,
                # is a return to Python and a wait for the GIL each, lock held).
                current = SqliteDirtyQueue.clear(connection, cleared)
                stale = {marker.id for marker in cleared if marker.id not in current}
                puts = rows.still_sourced(
                    connection,
                    self.database.schema,
                    [d for d in puts if d.message_id not in stale],
                )
                damaged = [
                    QuarantinedRow(
                        d.message_id, d.app_id, d.chat_id, UnreadableReason.INDEX_DAMAGED
                    )
                    for d in puts
                    if d.app_id in aside
                ]
                if damaged:
                    puts = [d for d in puts if d.app_id not in aside]
                quarantined = [r for r in quarantined if r.message_id not in stale] + damaged
                gone = [*removes, *(row.message_id for row in quarantined)]
                puts = self._without_unchanged(connection, puts, published, set(gone))
                touched = [*gone, *(document.message_id for document in puts)]
                located = rows.locate(connection, touched)
                staged: dict[MessageId, tuple[AppId | None, int | None]] = {}
                changes: list[Change] = []
                for message_id in touched:
                    for app_id in sorted(located.get(message_id, set()) - aside):
                        changes.append((app_id, message_id))
                        staged[message_id] = (app_id, None)
                for document in puts:
                    changes.append(document)
                    staged[document.message_id] = (document.app_id, document.chat_id)
                rows.forget(connection, touched)
                rows.end_quarantine(connection, touched)
                rows.insert_rows(connection, puts)
                rows.set_aside(connection, quarantined)
                connection.execute(
                    f"INSERT OR REPLACE INTO {STAGED}(message_id, app_id, chat_id) "
                    "SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?)",
                    (rows.as_json([(m, app, chat) for m, (app, chat) in staged.items()]),),
                )
            self.indexes.pending.extend(changes)
            if self.indexes.staged_since is None and staged:
                self.indexes.staged_since = time.monotonic()
        return stale, damaged

    def _documents_analysed_alike(self) -> bool:
        """Whether every document tantivy holds was written under this store's text
        analysis. Only then may a document be left as it is because its text is the
        same (`_without_unchanged`): after a change of language every one is written
        again, its terms being another analysis's."""
        if self._analysed_alike is None:
            with self.database.reading() as connection:
                row = connection.execute(
                    f"SELECT value FROM {META} WHERE key = ?", (WRITTEN_UNDER,)
                ).fetchone()
            self._analysed_alike = row is not None and row[0] == self.analysis.name
        return self._analysed_alike

    def _note_analysed_alike(self) -> None:
        """The queue drained and everything is published: every message marked since
        the analysis was chosen (a change of it marks them all) is written under it."""
        if self._documents_analysed_alike() or self.indexes.uncommitted:
            return
        with self.database.writing() as connection:
            connection.execute(
                f"INSERT OR REPLACE INTO {META}(key, value) VALUES (?, ?)",
                (WRITTEN_UNDER, self.analysis.name),
            )
        self._analysed_alike = True

    def _published_texts(
        self, documents: Sequence[IndexDocument]
    ) -> dict[MessageId, tuple[str, str]]:
        """The title and body tantivy holds for each document's message whose visible
        document in the same app is published (not staged: what tantivy holds is its
        latest state). Read before the batch's transaction, outside the write lock;
        `_without_unchanged` checks inside it that the rest is still so. A read that
        fails only costs the optimisation: those documents are written again."""
        by_app: dict[AppId, list[MessageId]] = {}
        for document in documents:
            by_app.setdefault(document.app_id, []).append(document.message_id)
        texts: dict[MessageId, tuple[str, str]] = {}
        for app_id, ids in by_app.items():
            index = self.indexes.index(app_id, create=False)
            if index is None:
                continue
            with self.database.reading() as connection:
                visible = rows.metadata(connection, app_id, ids, hidden=HIDDEN_OR_STAGED)
            if not visible:
                continue
            try:
                # Another process may have published since this one's reader last
                # looked (it reloads on its own only after a delay): read the newest
                # commit, or an edit back to the text read would be taken as unchanged.
                index.reload()
                texts.update(_stored_texts(index, list(visible)))
            except BaseException as error:
                if not engine_failure(error):
                    raise
        return texts

    def _without_unchanged(
        self,
        connection: sqlite3.Connection,
        puts: list[IndexDocument],
        published: dict[MessageId, tuple[str, str]],
        gone: set[MessageId],
    ) -> list[IndexDocument]:
        """The documents that differ from what their message has, published and
        visible. One that is the same (text, app, chat and description) is left as it
        is, as the FTS5 engine does: a `rebuild` in place would otherwise rewrite every
        document, and each would be hidden from search until its publish. Checked here,
        in the batch's transaction: still published, visible, described the same, with
        no purge or quarantine row. A document hidden by a deletion record is never the
        same: putting it supersedes the record."""
        same = [
            d
            for d in puts
            if d.message_id not in gone and published.get(d.message_id) == (d.title, d.body)
        ]
        if not same:
            return puts
        found = connection.execute(
            f"""
            SELECT json_group_array(d.message_id) FROM {DOCS} AS d
            JOIN json_each(?) AS n ON {rows.DESCRIBED_AS}
            WHERE NOT {HIDDEN_OR_STAGED}
            AND NOT EXISTS (SELECT 1 FROM {PURGE} AS p WHERE p.message_id = d.message_id)
            AND NOT EXISTS (SELECT 1 FROM {QUARANTINE} AS q WHERE q.message_id = d.message_id)
            """,
            (rows.described_rows(same),),
        ).fetchone()[0]
        unchanged = set(json.loads(found))
        return [d for d in puts if d.message_id not in unchanged]

    def _apply_pending(self, over_budget: bool | None = None) -> None:
        """The queued tantivy changes, in order, into the writers (uncommitted); those
        of an app set aside are left out. An app whose index fails to take its changes
        while another app's takes theirs is set aside (its staged messages are marked
        dirty again when the others are published, then quarantined as
        `index_damaged`). When no app's index takes them, the failure is not about one
        app: every uncommitted change is dropped, every staged message marked dirty
        again, and the failure raised. `over_budget`: `_over_budget` of the pending
        changes when the caller has judged it already."""
        self._settle(wait=True)
        changes, self.indexes.pending = self.indexes.pending, []
        failed: dict[AppId, BaseException] = {}
        took: set[AppId] = set()
        # Each app's writer, looked up once (a backfill gives the writers a document
        # for almost every message: this loop is the indexer thread's busiest).
        writers: dict[AppId, tantivy.IndexWriter] = {}
        aside = self.indexes.set_aside
        budgeted = self._over_budget(changes) if over_budget is None else over_budget
        if budgeted:  # app by app (each app's changes in their order), see MAX_OPEN_WRITERS
            changes = sorted(changes, key=_app_of)
        try:
            for change in changes:
                if isinstance(change, IndexDocument):
                    app_id = change.app_id
                    if app_id in failed or app_id in aside:
                        continue
                    document = to_tantivy(change, self.analysis)
                    writer = writers.get(app_id)
                    try:
                        if writer is None:
                            if budgeted:
                                self._make_room(app_id, writers)
                            writer = writers[app_id] = self.indexes.writer(app_id)
                            self.indexes.uncommitted.add(app_id)
                        writer.add_document(document)
                    except BaseException as error:
                        self._fail(app_id, error, failed)
                        continue
                    took.add(app_id)
                else:
                    app_id, deleted = change
                    if app_id in failed or app_id in aside:
                        continue
                    if budgeted:
                        self._make_room(app_id, writers)
                    if self._delete_taken(app_id, deleted, failed):
                        took.add(app_id)
        except (ValueError, OSError, RuntimeError) as error:  # a document tantivy refuses
            self._abandon_uncommitted()
            raise StorageError(f"tantivy indexing failed: {error}") from error
        if failed and not took - failed.keys():
            self._abandon_uncommitted()
            app_id = min(failed)
            raise StorageError(
                f"tantivy indexing of app {app_id} failed: {failed[app_id]}"
            ) from failed[app_id]
        for app_id in sorted(failed):
            self.indexes.set_app_aside(app_id, failed[app_id])

    def _over_budget(self, changes: Sequence[Change]) -> bool:
        """Whether giving `changes` to their writers would hold more than
        MAX_OPEN_WRITERS open."""
        apps = self.indexes.writer_apps()
        if len(apps) + len(changes) <= MAX_OPEN_WRITERS:  # (no need to look)
            return False
        apps.update(map(_app_of, changes))
        return len(apps) > MAX_OPEN_WRITERS

    def _make_room(self, app_id: AppId, writers: dict[AppId, tantivy.IndexWriter]) -> None:
        """Before `app_id`'s writer opens beyond MAX_OPEN_WRITERS: what the open writers
        hold is committed (durable, visible to no search while its messages are still
        staged) and they are closed. Their staged rows stay until the publish that
        covers every change (a crash meanwhile indexes those messages once more). A
        failed commit abandons everything uncommitted, as a failed publish does."""
        if self.indexes.writer_is_open(app_id):
            return
        if len(self.indexes.writer_apps()) < MAX_OPEN_WRITERS:
            return
        try:
            self.indexes.commit()
        except StorageError:
            self._abandon_uncommitted()
            raise
        self.indexes.close_writers()
        writers.clear()

    @staticmethod
    def _fail(app_id: AppId, error: BaseException, failed: dict[AppId, BaseException]) -> None:
        """The app's index failed to take a change (the app goes in `failed`); any other
        error is raised."""
        if not (isinstance(error, ChatRecallError) or engine_failure(error)):
            raise error
        failed[app_id] = error

    def _delete_taken(
        self, app_id: AppId, message_id: MessageId, failed: dict[AppId, BaseException]
    ) -> bool:
        """A message deleted from its app's writer; False (and the app in `failed`)
        when the app's index failed to take it."""
        try:
            self._delete(app_id, message_id)
        except BaseException as error:
            self._fail(app_id, error, failed)
            return False
        return True

    def _delete(self, app_id: AppId, message_id: MessageId) -> None:
        self._settle(wait=True)
        if self.indexes.index(app_id, create=False) is None:
            return
        self.indexes.writer(app_id).delete_documents_by_term("message_id", message_id)
        self.indexes.uncommitted.add(app_id)

    def _abandon_uncommitted(self) -> None:
        """Roll back the writers and mark every staged message dirty again."""
        with self.indexes.lock:
            self.indexes.rollback()
            self.indexes.pending.clear()
            self.indexes.applied_purges.clear()
            self.indexes.staged_since = None
        self._requeue_staged()

    # -- publishing and housekeeping ------------------------------------------------------

    def maintain(self) -> Maintenance:
        """Apply up to `purges_per_step` reclaims to the writers, then publish when due
        (see the module docstring): in the background while dirty markers are left (the
        indexer goes on meanwhile; the publish ends in a later step), at once when none
        is. Reclaimed documents are counted when published. Documents the host deleted
        become purge rows first, a bounded number per step
        (`document_rows.convert_deletions`, one short transaction)."""
        with self.database.reading() as connection:
            deletions = connection.execute(
                f"SELECT EXISTS (SELECT 1 FROM {DELETED_MESSAGES}) "
                f"OR EXISTS (SELECT 1 FROM {DELETED_CHATS})"
            ).fetchone()[0]
        held = 0.0  # the step's one SQLite write transaction, if it takes it
        if deletions:
            began = time.perf_counter()
            with self.database.writing() as connection:
                rows.convert_deletions(connection, self.database.schema, self.purges_per_step)
            held = time.perf_counter() - began
        with self.database.reading() as connection:
            queue_empty = not connection.execute(
                f"SELECT EXISTS (SELECT 1 FROM {DIRTY_MESSAGES}) "
                f"OR EXISTS (SELECT 1 FROM {DIRTY_CHATS})"
            ).fetchone()[0]
        with self.indexes.lock:
            # A background commit ends here when it has returned, or at once when the
            # queue is drained (publish now) or too much waits for the writers.
            behind = len(self.indexes.pending) >= PENDING_LIMIT
            reclaimed = self._settle(wait=queue_empty or behind)
            if self.indexes.committing is not None:  # still running: the writers are its own
                return Maintenance(reclaimed=reclaimed, more=True, held_seconds=held)
            since = self.indexes.staged_since
            due = since is not None and time.monotonic() - since >= self.publish_seconds
            over_budget = self._over_budget(self.indexes.pending)
            if over_budget and not (queue_empty or behind or due):
                # More apps than writers may open: the changes wait, to be given to the
                # writers app by app when the publish is due, between fewer commits.
                return Maintenance(reclaimed=reclaimed, more=True, held_seconds=held)
            applied = self.indexes.applied_purges
            with self.database.reading() as connection:
                waiting = connection.execute(
                    f"SELECT message_id, app_id FROM {PURGE} ORDER BY message_id LIMIT ?",
                    (self.purges_per_step + len(applied) + 1,),
                ).fetchall()
            fresh = [(MessageId(m), AppId(a)) for m, a in waiting if m not in applied]
            self._apply_pending(over_budget)  # (`pending` is as it was judged above)
            # An app set aside keeps its documents until `rebuild` replaces its index.
            reclaiming = fresh[: self.purges_per_step]
            self._delete_or_set_aside((app_id, message_id) for message_id, app_id in reclaiming)
            applied.update(message_id for message_id, _ in reclaiming)
            if reclaiming and self.indexes.staged_since is None:
                self.indexes.staged_since = time.monotonic()
            since = self.indexes.staged_since
            if queue_empty and since is not None:
                reclaimed += self._publish()
            elif since is not None and time.monotonic() - since >= self.publish_seconds:
                self._publish_in_background()
            if queue_empty and self.indexes.staged_since is None:
                self._note_analysed_alike()
        more = len(fresh) > self.purges_per_step
        return Maintenance(reclaimed=reclaimed, more=more, held_seconds=held)

    def publish(self) -> int:
        """Commit what is staged now (whatever the time); returns documents reclaimed."""
        with self.indexes.lock:
            return self._publish()

    def _publish(self) -> int:
        reclaimed = self._settle(wait=True)
        self._apply_pending()
        mark = self._staged_mark()
        purged = sorted(self.indexes.applied_purges)
        try:
            self.indexes.commit()
        except StorageError:
            self._abandon_uncommitted()
            raise
        self.indexes.staged_since = None
        self.indexes.applied_purges.clear()
        return reclaimed + self._forget_published(mark, purged)

    def _publish_in_background(self) -> None:
        """Start committing what the writers hold (`BackgroundCommit`); a later step
        ends the publish (`_settle`). Until then no code touches a writer: changes
        wait in `pending`."""
        writers = self.indexes.writers_to_commit()
        if not writers:  # nothing for tantivy to do: publish now
            self._publish()
            return
        mark = self._staged_mark()
        purged = sorted(self.indexes.applied_purges)
        self.indexes.staged_since = None
        self.indexes.applied_purges.clear()
        self.indexes.committing = BackgroundCommit.start(writers, mark, purged)

    def _settle(self, *, wait: bool) -> int:
        """End the background commit, if any, once it has returned (`wait`: wait for
        it): only then are the staged rows it covered deleted (a failed commit marks
        every staged message dirty again, and raises). Returns documents reclaimed."""
        with self.indexes.lock:
            commit = self.indexes.committing
            if commit is None or (not wait and commit.running()):
                return 0
            self.indexes.committing = None
            try:
                failed = commit.wait()
            except StorageError:
                self._abandon_uncommitted()
                raise
            self.indexes.committed(failed)
            return self._forget_published(commit.mark, commit.purged)

    def _staged_mark(self) -> int | None:
        """The last staged row: every change staged up to it is in the writers now."""
        with self.database.reading() as connection:
            mark = connection.execute(f"SELECT max(seq) FROM {STAGED}").fetchone()[0]
        return None if mark is None else int(mark)

    def _forget_published(self, mark: int | None, purged: Sequence[MessageId]) -> int:
        """After a commit returned: the staged rows it covered and the purge rows it
        applied go, at most `FORGET_PER_TRANSACTION` rows a transaction, with a gap
        between them for a host writer. The staged rows of apps set aside are marked
        dirty again first (their changes were dropped; indexed anew, their messages
        are quarantined as `index_damaged`). Returns how many documents it reclaimed."""
        aside = sorted(self.indexes.set_aside)
        if aside and mark is not None:
            self._requeue_staged(aside, upto=mark)
        while mark is not None:
            with self.database.writing() as connection:
                deleted = connection.execute(
                    f"DELETE FROM {STAGED} WHERE seq IN (SELECT seq FROM {STAGED} "
                    "WHERE seq <= ? ORDER BY seq LIMIT ?)",
                    (mark, FORGET_PER_TRANSACTION),
                ).rowcount
            if deleted < FORGET_PER_TRANSACTION:
                break
        for start in range(0, len(purged), FORGET_PER_TRANSACTION):
            with self.database.writing() as connection:
                for chunk in rows.chunks(purged[start : start + FORGET_PER_TRANSACTION]):
                    connection.execute(
                        f"DELETE FROM {PURGE} WHERE message_id IN ({rows.marks(chunk)})", chunk
                    )
        return len(purged)

    def recover(self) -> int:
        """After a crash: staged messages that no live writer of this process holds are
        deleted from tantivy and marked dirty again (their staged rows stay until that
        is published); an app whose index fails to take the deletes is set aside, and
        its messages are marked dirty all the same. Returns how many."""
        with self.indexes.lock:
            if self.indexes.recovered:
                return 0
            self._settle(wait=True)  # what it published is no leftover
            with self.database.reading() as connection:
                leftovers = connection.execute(
                    f"SELECT message_id, app_id FROM {STAGED}"
                ).fetchall()
            if not leftovers:
                self.indexes.recovered = True
                return 0
            self._delete_or_set_aside(
                (AppId(app_id), MessageId(message_id))
                for message_id, app_id in leftovers
                if app_id is not None
            )
            if self.indexes.uncommitted and self.indexes.staged_since is None:
                self.indexes.staged_since = time.monotonic()
        marked = self._requeue_staged()
        self.indexes.recovered = True  # only now: a failure before it recovers again
        return marked

    def _delete_or_set_aside(self, deletes: Iterable[tuple[AppId, MessageId]]) -> None:
        """Deletes into their apps' writers, app by app (within MAX_OPEN_WRITERS, see
        `_make_room`); an app whose index fails to take one is set aside (its documents
        are found by no read: their rows are gone or go)."""
        failed: dict[AppId, BaseException] = {}
        for app_id, message_id in sorted(deletes):
            if app_id not in failed and app_id not in self.indexes.set_aside:
                self._make_room(app_id, {})
                self._delete_taken(app_id, message_id, failed)
        for app_id in sorted(failed):
            self.indexes.set_app_aside(app_id, failed[app_id])

    def _requeue_staged(self, apps: Sequence[AppId] = (), *, upto: int | None = None) -> int:
        """Mark staged messages dirty again (every one, or those of `apps` staged up to
        `upto`; their staged rows stay until they are published anew), at most
        FORGET_PER_TRANSACTION a transaction, with a gap between them for a host writer:
        a message marked twice is indexed once. Returns how many."""
        among = f" AND app_id IN ({rows.marks(apps)})" if apps else ""
        marked, after, last_seq = 0, -1, upto if upto is not None else 2**63 - 1
        while True:
            with self.database.writing() as connection:
                chunk = connection.execute(
                    f"SELECT seq FROM {STAGED} WHERE seq > ? AND seq <= ?{among} "
                    "ORDER BY seq LIMIT ?",
                    (after, last_seq, *apps, FORGET_PER_TRANSACTION),
                ).fetchall()
                if not chunk:
                    return marked
                last = chunk[-1][0]
                cursor = connection.execute(
                    f"INSERT OR REPLACE INTO {DIRTY_MESSAGES}(message_id, app_id, chat_id, seq) "
                    f"SELECT message_id, app_id, chat_id, random() FROM {STAGED} "
                    f"WHERE seq > ? AND seq <= ?{among}",
                    (after, last, *apps),
                )
                marked += max(cursor.rowcount, 0)
            if len(chunk) < FORGET_PER_TRANSACTION:
                return marked
            after = last

    def remove_orphans(self) -> int:
        """Documents whose source message is gone, and documents tantivy holds that the
        database does not know (left by a crash); staged messages are recovered first."""
        self.recover()
        s = self.database.schema
        with self.database.reading() as connection:
            orphans = rows.orphans(connection, s)
        with self.indexes.lock:
            self._delete_or_set_aside((app_id, message_id) for message_id, app_id in orphans)
        with self.database.writing() as connection:
            rows.forget(connection, [message_id for message_id, _ in orphans])
            rows.forget_quarantine_of_deleted(connection, s)
        stray = self._remove_unknown()
        self.publish()
        return len(orphans) + stray

    def _remove_unknown(self) -> int:
        """Tantivy documents with no docs or purge row: counted first (cheap), listed
        only when the counts disagree. A damaged app's index must not stop the others'
        indexing: one that cannot be opened is left (its searches say so, `status`
        reports it, `rebuild` restores it), one that fails to be read is set aside."""
        removed = 0
        for app_id in self.indexes.apps_on_disk():
            if app_id in self.indexes.set_aside:
                continue
            try:
                unknown = self._unknown_in(app_id)
            except IndexUnavailable:
                import logging  # only here: searches and reads never load it

                logging.getLogger("chat_recall.tantivy").warning(
                    "tantivy: the index of app %s cannot be opened (fix: rebuild)", app_id
                )
                continue
            except BaseException as error:
                if not engine_failure(error):
                    raise
                self.indexes.set_app_aside(app_id, error)
                continue
            with self.indexes.lock:
                self._delete_or_set_aside((app_id, message_id) for message_id in unknown)
            removed += len(unknown)
        return removed

    def _unknown_in(self, app_id: AppId) -> list[MessageId]:
        index = self.indexes.index(app_id, create=False)
        if index is None:
            return []
        searcher = index.searcher()
        with self.database.reading() as connection:
            known = connection.execute(
                f"SELECT (SELECT count(*) FROM {DOCS} WHERE app_id = ?) + "
                f"(SELECT count(*) FROM {PURGE} WHERE app_id = ?)",
                (app_id, app_id),
            ).fetchone()[0]
        if searcher.num_docs <= known:
            return []
        hits = searcher.search(tantivy.Query.all_query(), searcher.num_docs, count=False).hits
        held = ids_of(searcher, [address for _, address in hits])
        with self.database.reading() as connection:
            known_ids = {
                row[0]
                for table in (DOCS, PURGE)
                for row in connection.execute(
                    f"SELECT message_id FROM {table} WHERE app_id = ?", (app_id,)
                )
            }
        return [message_id for message_id in held if message_id not in known_ids]

    # -- reading --------------------------------------------------------------------------

    def _readable(self, app_id: AppId) -> tantivy.Index | None:
        """The app's index; None before its first publish. An app with published
        documents whose index is gone (its directory removed) is IndexUnavailable, not
        an empty result that search would call `ready`."""
        index = self.indexes.index(app_id, create=False)
        if index is not None:
            return index
        with self.database.reading() as connection:
            published = connection.execute(  # staged ones may wait for the first publish
                f"SELECT EXISTS (SELECT 1 FROM {DOCS} AS d WHERE app_id = ? AND NOT EXISTS "
                f"(SELECT 1 FROM {STAGED} AS z WHERE z.message_id = d.message_id))",
                (app_id,),
            ).fetchone()[0]
        if published:
            raise IndexUnavailable(
                f"the tantivy index of app {app_id} is missing; run `chat-recall rebuild`"
            )
        return None

    def search(self, query: ScopedQuery) -> list[Candidate]:
        if query.match.is_empty:
            return []
        index = self._readable(query.app_id)
        if index is None:
            return []
        # Staged messages are hidden too but not counted here: while backfilling most
        # of them are not in tantivy yet, and an edit is staged for about a second.
        with self.database.reading() as connection:
            past = rows.hidden_in_app(connection, query.app_id)
        searcher = index.searcher()
        compiled = compile_match(query.match, query.weights, self.analysis, query.exclude_chat_id)
        if query.within.bounded:  # tantivy holds no times: the window's documents, by id
            with self.database.reading() as connection:
                ids = rows.written_within(connection, query.app_id, *query.within.span())
            written = tantivy.Query.term_set_query(SCHEMA, "message_id", ids)
            compiled = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, compiled), (tantivy.Occur.Must, written)]
            )
        try:
            limit = query.window + TIE_MARGIN + past
            hits = searcher.search(compiled, limit, count=False).hits
            ids = ids_of(searcher, [address for _, address in hits])
        except ValueError as error:
            raise StorageError(f"tantivy search failed: {error}") from error
        scores = {i: float(score) for (score, _), i in zip(hits, ids, strict=True)}
        with self.database.reading() as connection:
            visible = rows.metadata(connection, query.app_id, list(scores), hidden=HIDDEN_OR_STAGED)
        ranked = sorted(visible, key=lambda message_id: (-scores[message_id], message_id))
        return [
            Candidate(
                message_id=message_id,
                chat_id=visible[message_id][0],
                role=visible[message_id][1],
                created_at=visible[message_id][2],
                is_compaction_summary=visible[message_id][3],
                projection_truncated=visible[message_id][4],
                score=scores[message_id],
            )
            for message_id in ranked[: query.window]
        ]

    def vocabulary(self, probe: VocabularyProbe) -> list[TermCount]:
        """From the app's own index's term dictionaries (title and body): documents
        counted per field and summed, deleted ones included until segments merge."""
        index = self._readable(probe.app_id)
        if index is None:
            return []
        searcher = index.searcher()
        found: dict[str, int] = {}
        for field in ("title", "body"):
            for term in probe.terms:
                count = searcher.doc_freq(field, engine_term(term))
                if count:
                    found[term] = found.get(term, 0) + count
            if probe.prefix:
                for term, count in searcher.terms_with_prefix(
                    field, engine_term(probe.prefix), limit=probe.limit
                ):
                    key = domain_term(term)
                    found[key] = found.get(key, 0) + count
        return [TermCount(term, found[term]) for term in sorted(found)]

    def documents(self, app_id: AppId, message_ids: Sequence[MessageId]) -> list[DocumentText]:
        if not message_ids:
            return []
        index = self._readable(app_id)
        if index is None:
            return []
        with self.database.reading() as connection:
            visible = rows.metadata(connection, app_id, message_ids, hidden=HIDDEN_OR_STAGED)
        if not visible:
            return []
        texts = _stored_texts(index, list(visible))
        return [
            DocumentText(
                message_id=message_id,
                title=texts[message_id][0],
                body=texts[message_id][1],
                chat_id=visible[message_id][0],
                role=visible[message_id][1],
                created_at=visible[message_id][2],
                is_compaction_summary=visible[message_id][3],
                projection_truncated=visible[message_id][4],
            )
            for message_id in sorted(texts)
        ]

    def document_ids(self, app_id: AppId) -> list[MessageId]:
        with self.database.reading() as connection:
            return rows.document_ids(connection, app_id)

    def stats(self, app_id: AppId) -> IndexStats:
        with self.database.reading() as connection:
            return rows.stats(connection, app_id)

    def projection_stamp(self) -> str | None:
        with self.database.reading() as connection:
            return rows.projection_stamp(connection)

    def set_projection_stamp(self, stamp: str) -> None:
        with self.database.writing() as connection:
            rows.set_projection_stamp(connection, stamp)

    def quarantine(self, limit: int) -> Quarantine:
        with self.database.reading() as connection:
            return rows.quarantine(connection, self.database.schema, limit)

    def close(self) -> None:
        """Publish what is staged (best effort) and let go of this process's writers."""
        try:
            if self.indexes.uncommitted or self.indexes.pending or self.indexes.committing:
                self.publish()
        except StorageError:
            pass  # the staged rows re-mark it at the next start
        finally:
            self.indexes.release()


def ids_of(searcher: tantivy.Searcher, addresses: list[tantivy.DocAddress]) -> list[MessageId]:
    """The message id of each document (a fast field: no stored document is read)."""
    values = searcher.fast_field_values("message_id", addresses)
    if any(not isinstance(value, int) for value in values):
        raise StorageError("a tantivy document without a message id")
    return [MessageId(int(value)) for value in values]  # type: ignore[arg-type]


def _stored_texts(
    index: tantivy.Index, message_ids: list[MessageId]
) -> dict[MessageId, tuple[str, str]]:
    """The title and body stored in `index` for each of the messages it holds."""
    if not message_ids:
        return {}
    searcher = index.searcher()
    wanted = tantivy.Query.term_set_query(SCHEMA, "message_id", message_ids)
    hits = searcher.search(wanted, len(message_ids), count=False).hits
    addresses = [address for _, address in hits]
    texts = {}
    for message_id, address in zip(ids_of(searcher, addresses), addresses, strict=True):
        document = searcher.doc(address)
        texts[message_id] = (
            _text(document.get_first("title_text")),
            _text(document.get_first("body_text")),
        )
    return texts


def _text(value: object) -> str:
    return bytes(value).decode("utf-8", "surrogatepass") if isinstance(value, bytes) else ""
