"""`TantivyDirtyQueue`: the SQLite dirty queue, whose pending work also counts the
messages staged in tantivy but not yet published (not yet searchable), so a search says
`indexing` until they are and `wait_until_indexed` waits for them."""

from __future__ import annotations

import attrs

from chat_recall.adapters.sqlite_host.dirty_queue import SqliteDirtyQueue, note_caught_up
from chat_recall.adapters.sqlite_host.migrations import DIRTY_MESSAGES
from chat_recall.adapters.tantivy.index_store import STAGED
from chat_recall.domain.model import AppId, Backlog, ChatId

# Staged messages not also marked dirty (a recovered one is both until re-indexed).
_UNPUBLISHED = (
    f"FROM {STAGED} AS s WHERE NOT EXISTS "
    f"(SELECT 1 FROM {DIRTY_MESSAGES} AS d WHERE d.message_id = s.message_id)"
)


# Moments kept waiting at most (the oldest are dropped: a later one covers them).
WAITING_AT_MOST = 16


@attrs.define
class TantivyDirtyQueue(SqliteDirtyQueue):
    # Caught-up moments waiting for their publish, oldest first: (the last staged row's
    # seq then, the moment by this process's clock). While a host writes, something is
    # nearly always staged; a moment is recorded once what was staged when it was noted
    # is published (a row staged later is a later change).
    _waiting: list[tuple[int, float]] = attrs.field(init=False, factory=list)

    def backlog(self) -> Backlog:
        backlog = super().backlog()
        with self.database.reading() as connection:
            staged = connection.execute(f"SELECT count(*) {_UNPUBLISHED}").fetchone()[0]
        return Backlog(
            backlog.messages + int(staged), backlog.chats, backlog.purges, unpublished=int(staged)
        )

    def note_caught_up(self, age_seconds: float) -> None:
        """Only once what was staged by then is published: until then the documents
        written are not searchable. A moment noted while documents wait is recorded at
        a later call that finds them published, the latest such; the moment is the
        call's, as for SQLite."""
        moment = self.clock.monotonic() - age_seconds
        with self.database.writing() as connection:
            oldest, newest = connection.execute(
                f"SELECT min(s.seq), max(s.seq) {_UNPUBLISHED}"
            ).fetchone()
            # this call's moment waits for what is staged now (nothing: for nothing)
            self._waiting.append((-1 if newest is None else int(newest), moment))
            published = [m for seq, m in self._waiting if oldest is None or seq < oldest]
            self._waiting = self._waiting[len(published) :][-WAITING_AT_MOST:]
            if published:
                note_caught_up(connection, self.clock.monotonic() - published[-1])

    def pending_in_app(self, app_id: AppId, exclude_chat_id: ChatId | None) -> int:
        pending = super().pending_in_app(app_id, exclude_chat_id)
        with self.database.reading() as connection:
            staged = connection.execute(
                f"SELECT count(*) {_UNPUBLISHED} AND s.app_id = ? AND s.chat_id IS NOT ?",
                (app_id, exclude_chat_id),
            ).fetchone()[0]
        return pending + int(staged)
