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


@attrs.define
class TantivyDirtyQueue(SqliteDirtyQueue):
    def backlog(self) -> Backlog:
        backlog = super().backlog()
        with self.database.reading() as connection:
            staged = connection.execute(f"SELECT count(*) {_UNPUBLISHED}").fetchone()[0]
        return Backlog(
            backlog.messages + int(staged), backlog.chats, backlog.purges, unpublished=int(staged)
        )

    def note_caught_up(self, age_seconds: float) -> None:
        """Only once nothing staged waits for a publish: until then the documents written
        are not searchable. The moment is the call's, as for SQLite."""
        called = self.clock.monotonic()
        with self.database.writing() as connection:
            staged = connection.execute(f"SELECT EXISTS (SELECT 1 {_UNPUBLISHED})").fetchone()[0]
            if not staged:
                note_caught_up(connection, age_seconds + self.clock.monotonic() - called)

    def pending_in_app(self, app_id: AppId, exclude_chat_id: ChatId | None) -> int:
        pending = super().pending_in_app(app_id, exclude_chat_id)
        with self.database.reading() as connection:
            staged = connection.execute(
                f"SELECT count(*) {_UNPUBLISHED} AND s.app_id = ? AND s.chat_id IS NOT ?",
                (app_id, exclude_chat_id),
            ).fetchone()[0]
        return pending + int(staged)
