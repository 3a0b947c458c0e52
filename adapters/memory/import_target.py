"""`InMemoryImportTarget`: imports into an `InMemoryDatabase`, with the links the SQL
engines keep in their table (`adapters/import_links.py`), for hosts' own tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import attrs

from chat_recall.adapters.importers.jsonl import ChatLine, MessageLine, parse_line
from chat_recall.adapters.memory.database import ChatRow, InMemoryDatabase, InMemoryHostStore
from chat_recall.application.importing import LinesReport, OnConflict
from chat_recall.domain.errors import ChatRecallError
from chat_recall.domain.imports import (
    ChatChange,
    ChatSync,
    LinkedChat,
    LinkedMessage,
    RefusedRecord,
    SourceApp,
    SourceFormat,
)
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId, ChatId, MessageId

APP, CHAT, MESSAGE = "app", "chat", "message"
SEPARATOR = "\n"


@attrs.define
class InMemoryImportTarget:
    """Each chat is written at once under the database's lock."""

    database: InMemoryDatabase

    @property
    def _host(self) -> InMemoryHostStore:
        return InMemoryHostStore(self.database)

    def linked_apps(self, sources: Sequence[SourceApp]) -> dict[SourceApp, AppId]:
        links = self.database.import_links
        with self.database.lock:
            return {
                source: AppId(links[key][0])
                for source in sources
                if (key := (APP, source.format.value, source.key)) in links
            }

    def linked_chats(
        self, format: SourceFormat, source_ids: Sequence[str]
    ) -> dict[str, LinkedChat]:
        db = self.database
        found = {}
        with db.lock:
            for source_id in source_ids:
                link = db.import_links.get((CHAT, format.value, source_id))
                chat = None if link is None else db.chats.get(ChatId(link[0]))
                if link is None or chat is None:
                    continue
                prefix = f"{source_id}{SEPARATOR}"
                messages = tuple(
                    LinkedMessage(key[2][len(prefix) :], MessageId(target), str(digest))
                    for key, (target, digest) in sorted(db.import_links.items())
                    if key[0] == MESSAGE
                    and key[1] == format.value
                    and key[2].startswith(prefix)
                    and (message := db.messages.get(MessageId(target))) is not None
                    and message.chat_id == chat.id
                )
                found[source_id] = LinkedChat(chat.id, chat.app_id, str(link[1]), messages)
        return found

    def new_app_id(self) -> AppId:
        db = self.database
        with db.lock:
            apps: list[int] = [chat.app_id for chat in db.chats.values()]
            apps += [target for (kind, _, _), (target, _) in db.import_links.items() if kind == APP]
        return AppId(max(apps, default=0) + 1)

    def apply(
        self, syncs: Sequence[ChatSync], apps: Mapping[SourceApp, AppId]
    ) -> list[RefusedRecord]:
        db = self.database
        refused = []
        with db.lock:
            for source, app_id in apps.items():
                db.import_links[(APP, source.format.value, source.key)] = (app_id, None)
            for sync in syncs:
                try:
                    self._write(sync)
                except ChatRecallError as error:
                    refused.append(RefusedRecord(sync.chat.where, f"not written: {error}"))
        return refused

    def _write(self, sync: ChatSync) -> None:
        db, host, chat = self.database, self._host, sync.chat
        if sync.change is ChatChange.ADDED:
            chat_id = host.create_chat(sync.app_id, chat.title, chat.created_at)
        else:
            assert sync.chat_id is not None
            chat_id = sync.chat_id
            row = db.chats[chat_id]
            row.app_id, row.title, row.created_at = sync.app_id, chat.title, chat.created_at
            db.mark_chat(row)
        for message_id in sync.remove:
            host.delete_message(message_id)
        for message_id, message in sync.rewrite:
            stored = db.messages[message_id]
            stored.role, stored.content = message.role.value, message.content
            stored.created_at = message.created_at
            stored.is_compaction_summary = message.is_compaction_summary
            db.mark_message(stored)
            self._link(
                MESSAGE,
                chat.format,
                f"{chat.source_id}{SEPARATOR}{message.source_id}",
                message_id,
                message.fingerprint,
            )
        for message in sync.add:
            new_id = host.add_message(
                chat_id,
                message.role,
                message.content,
                message.created_at,
                is_compaction_summary=message.is_compaction_summary,
            )
            self._link(
                MESSAGE,
                chat.format,
                f"{chat.source_id}{SEPARATOR}{message.source_id}",
                new_id,
                message.fingerprint,
            )
        self._link(CHAT, chat.format, chat.source_id, chat_id, chat.fingerprint)

    def _link(
        self, kind: str, format: SourceFormat, key: str, target: int, fingerprint: str | None
    ) -> None:
        self.database.import_links[(kind, format.value, key)] = (target, fingerprint)

    def write_lines(
        self,
        lines: Iterable[str],
        on_conflict: OnConflict,
        on_batch: Callable[[LinesReport], None] | None = None,
    ) -> LinesReport:
        """The JSON Lines rules of the SQL writers, a line at a time."""
        chats = messages = ignored = conflicts = read = size = 0
        errors: list[str] = []
        db = self.database
        for number, text in enumerate(lines, start=1):
            read = number
            size += len(text.encode("utf-8", "surrogateescape"))
            if not text.strip():
                continue
            try:
                line = parse_line(text)
                with db.lock:
                    written = self._write_line(line, on_conflict)
            except _Exists as exists:
                conflicts += 1
                errors.append(f"line {number}: {exists}")
            except (ValueError, TypeError, ChatRecallError) as error:
                errors.append(f"line {number}: {error}")
            else:
                if not written:
                    ignored += 1
                elif isinstance(line, ChatLine):
                    chats += 1
                else:
                    messages += 1
        report = LinesReport(chats, messages, ignored, conflicts, tuple(errors), read, size)
        if on_batch is not None:
            on_batch(report)
        return report

    def _write_line(self, line: ChatLine | MessageLine, on_conflict: OnConflict) -> bool:
        db, host = self.database, self._host
        if isinstance(line, ChatLine):
            existing = None if line.id is None else db.chats.get(ChatId(line.id))
            if existing is None:
                chat_id = None if line.id is None else ChatId(line.id)
                host.create_chat(AppId(line.app_id), line.title, line.created_at, chat_id=chat_id)
                return True
            return self._conflict(existing, line, on_conflict, f"chat {line.id} exists already")
        if ChatId(line.chat_id) not in db.chats:
            raise ValueError(f"chat {line.chat_id} does not exist (import its chat line first)")
        stored = None if line.id is None else db.messages.get(MessageId(line.id))
        if stored is None:
            host.add_message(
                ChatId(line.chat_id),
                Role(line.role),
                line.content,
                line.created_at,
                is_compaction_summary=line.is_compaction_summary,
                message_id=None if line.id is None else MessageId(line.id),
            )
            return True
        if on_conflict is OnConflict.FAIL:
            raise _Exists(f"message {line.id} exists already")
        if on_conflict is OnConflict.IGNORE:
            return False
        stored.chat_id, stored.role, stored.content = ChatId(line.chat_id), line.role, line.content
        stored.created_at = line.created_at
        stored.is_compaction_summary = line.is_compaction_summary
        db.mark_message(stored)
        return True

    def _conflict(
        self, existing: ChatRow, line: ChatLine, on_conflict: OnConflict, exists: str
    ) -> bool:
        if on_conflict is OnConflict.FAIL:
            raise _Exists(exists)
        if on_conflict is OnConflict.IGNORE:
            return False
        existing.app_id, existing.title, existing.created_at = (
            AppId(line.app_id),
            line.title,
            line.created_at,
        )
        self.database.mark_chat(existing)
        return True


class _Exists(Exception):
    """A line whose id exists already, under OnConflict.FAIL."""
