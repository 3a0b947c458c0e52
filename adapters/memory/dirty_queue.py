"""`InMemoryDirtyQueue`: the markers an `InMemoryHostStore` sets."""

from __future__ import annotations

import time

import attrs

from chat_recall.adapters.memory.database import InMemoryDatabase
from chat_recall.domain.model import (
    AppId,
    Backlog,
    ChatId,
    ChatMarker,
    MessageId,
    MessageMarker,
)


@attrs.define
class InMemoryDirtyQueue:
    database: InMemoryDatabase
    # `note_caught_up`'s moment, by this process's monotonic clock.
    _caught_up_at: float | None = attrs.field(init=False, default=None)

    def pending_messages(
        self, limit: int, *, after: MessageId | None = None
    ) -> list[MessageMarker]:
        with self.database.lock:
            ids = sorted(i for i in self.database.dirty_messages if after is None or i > after)
            ids = ids[:limit]
            return [MessageMarker(i, self.database.dirty_messages[i].seq) for i in ids]

    def pending_chats(self, limit: int) -> list[ChatMarker]:
        with self.database.lock:
            ids = sorted(self.database.dirty_chats)[:limit]
            return [ChatMarker(i, self.database.dirty_chats[i].seq) for i in ids]

    def expand_chat(self, marker: ChatMarker) -> int:
        """As the SQLite adapter, a new chat's marker (`adopt`) marks only messages with
        neither a document nor a marker."""
        db = self.database
        with db.lock:
            entry = db.dirty_chats.get(marker.id)
            adopt = entry is not None and entry.seq == marker.seq and entry.adopt
            marked = 0
            if marker.id in db.chats:
                for message in sorted(db.messages.values(), key=lambda m: m.id):
                    if message.chat_id != marker.id:
                        continue
                    if adopt and (message.id in db.docs or message.id in db.dirty_messages):
                        continue
                    db.mark_message(message)
                    marked += 1
            entry = db.dirty_chats.get(marker.id)
            if entry is not None and entry.seq == marker.seq:
                del db.dirty_chats[marker.id]
            return marked

    def mark_all_messages(self) -> int:
        db = self.database
        with db.lock:
            for message in sorted(db.messages.values(), key=lambda m: m.id):
                db.mark_message(message)
            return len(db.messages)

    def requeue_quarantined(self) -> int:
        db = self.database
        with db.lock:
            waiting = [db.messages[m] for m in sorted(db.quarantine) if m in db.messages]
            for message in waiting:
                db.mark_message(message)
            return len(waiting)

    def backlog(self) -> Backlog:
        db = self.database
        with db.lock:
            return Backlog(
                len(db.dirty_messages),
                len(db.dirty_chats),
                len(db.deleted_messages) + len(db.deleted_chats),
            )

    def claim(self, holder: str, seconds: float, *, overrule: str | None = None) -> str | None:
        db = self.database
        with db.lock:
            now = time.monotonic()  # one process: its monotonic clock is the storage's
            current = db.claim
            if current is not None and current[0] not in (holder, overrule) and current[1] > now:
                return current[0]
            db.claim = (holder, now + seconds)
            return None

    def release(self, holder: str) -> None:
        db = self.database
        with db.lock:
            if db.claim is not None and db.claim[0] == holder:
                db.claim = None

    def claimant(self) -> str | None:
        db = self.database
        with db.lock:
            if db.claim is None or db.claim[1] <= time.monotonic():
                return None
            return db.claim[0]

    def host_writes(self) -> int | None:
        """None: the host's writes to memory come with `notify()`, or not at all."""
        return None

    def note_caught_up(self, age_seconds: float) -> None:
        at = time.monotonic() - age_seconds  # the call's moment, before any wait for the lock
        with self.database.lock:
            if self._caught_up_at is None or at > self._caught_up_at:
                self._caught_up_at = at

    def caught_up_ago(self) -> float | None:
        if self._caught_up_at is None:
            return None
        return max(0.0, time.monotonic() - self._caught_up_at)

    def pending_in_app(self, app_id: AppId, exclude_chat_id: ChatId | None) -> int:
        db = self.database
        with db.lock:
            return sum(
                1
                for pending in (db.dirty_messages, db.dirty_chats)
                for key, entry in pending.items()
                if entry.app_id == app_id
                and not entry.adopt
                and (entry.chat_id if pending is db.dirty_messages else key) != exclude_chat_id
            )
