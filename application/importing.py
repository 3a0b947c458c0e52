"""Importing history from the exports people have: the ports and the use case.

An `Importer` (one per format, `adapters/importers/`) reads the files of one path (a
file, a directory or a zip archive, `SourceFiles`) into records: imported chats, or a
record that could not be read (where, and why). `ImportHistory` then decides which app
each source's chats go to, plans each chat against what an earlier import made of it
(`domain.imports.plan_sync`) and hands the changes to the `ImportTarget`, the storage
adapter that writes them into the host's tables, as the host writes, in short
transactions. chat-recall's own JSON Lines (rows with their host ids) go through the same
port as text lines the target writes as they are (`--on-conflict`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import BinaryIO, ClassVar, Protocol

import attrs

from chat_recall.domain.imports import (
    ChatChange,
    ChatSync,
    ImportedChat,
    LinkedChat,
    RefusedRecord,
    SourceApp,
    SourceFormat,
    chosen_app,
    plan_sync,
)
from chat_recall.domain.model import AppId

# A write transaction of an import holds at most about this many messages (a chat is
# never split: a larger one is one transaction of its own), so the host's own writes
# never wait long behind an import.
BATCH_MESSAGES = 500
# How many source ids one look-up of earlier links asks for.
LOOKUP_IDS = 500


class OnConflict(enum.Enum):
    """What a JSON Lines row whose id already exists does."""

    FAIL = "fail"  # refused and reported, like any bad line
    IGNORE = "ignore"  # skipped, counted
    REPLACE = "replace"  # the existing row is updated with the line's values


@attrs.frozen
class LinesReport:
    """What writing JSON Lines did (running totals while it goes on)."""

    chats: int = 0
    messages: int = 0
    ignored: int = 0  # lines whose id existed, skipped under OnConflict.IGNORE
    conflicts: int = 0  # lines refused because their id existed (OnConflict.FAIL)
    errors: tuple[str, ...] = ()
    lines: int = 0  # lines read so far
    bytes: int = 0  # UTF-8 bytes read so far


@attrs.frozen
class HostRowLines:
    """chat-recall's own JSON Lines: rows that keep their host ids, written as they
    are. `size` is their size in bytes where known (for progress)."""

    label: str
    lines: Iterable[str]
    size: int | None = None


ImportRecord = ImportedChat | RefusedRecord | HostRowLines


class SourceFiles(Protocol):
    """The files one path names, as importers read them: a file, the files under a
    directory, or the members of a zip archive (read from the archive, never unpacked
    to disk). Names use `/`, relative to the path (a file alone is its own name)."""

    @property
    def label(self) -> str:
        """The path as the user gave it, for reports."""
        ...

    def names(self) -> list[str]:
        """Every file's name, sorted."""
        ...

    def open(self, name: str) -> BinaryIO:
        """One file's bytes (the caller closes it)."""
        ...

    def size(self, name: str) -> int | None:
        """One file's size in bytes, where it is known (progress)."""
        ...


class Importer(Protocol):
    """Reads one format of exported chat history."""

    format: ClassVar[SourceFormat]

    def recognises(self, files: SourceFiles) -> bool:
        """Whether the files hold this format, from their names and the start of their
        content (no whole file is read to decide)."""
        ...

    def read(self, files: SourceFiles) -> Iterator[ImportRecord]:
        """Every conversation, as a chat or, when it cannot be read, a refused record
        saying where and why; one bad record never stops the others. A conversation
        with no message of the user or the assistant is left out (nothing to recall)."""
        ...


class ImportTarget(Protocol):
    """Where imports go: the host's chats and messages, written as the host writes them
    (the triggers queue them for indexing), and chat-recall's own links from each
    source's ids to the rows they became (a table created at install), so a re-import
    updates instead of duplicating. Every write is one short transaction."""

    def linked_apps(self, sources: Sequence[SourceApp]) -> dict[SourceApp, AppId]:
        """The app each keyed source (an account, a project) was imported into before."""
        ...

    def linked_chats(
        self, format: SourceFormat, source_ids: Sequence[str]
    ) -> dict[str, LinkedChat]:
        """What earlier imports made of these source chats (with their messages'
        links); a chat the host deleted since is left out (it is imported anew)."""
        ...

    def new_app_id(self) -> AppId:
        """An app id above every app id of the host's chats and of the links."""
        ...

    def apply(
        self, syncs: Sequence[ChatSync], apps: Mapping[SourceApp, AppId]
    ) -> list[RefusedRecord]:
        """Write the syncs in one transaction, each chat whole or not at all (with its
        links), and link the keyed sources to their apps. Returns the chats that could
        not be written and why; the others are written."""
        ...

    def write_lines(
        self,
        lines: Iterable[str],
        on_conflict: OnConflict,
        on_batch: Callable[[LinesReport], None] | None = None,
    ) -> LinesReport:
        """chat-recall's JSON Lines (README: the format), in batches of short
        transactions, each line in a savepoint: a bad line is reported by its number
        and nothing of it is written; the lines around it are."""
        ...


@attrs.frozen
class AppChoice:
    """Which app a source went to, and whether it was new."""

    source: SourceApp
    app_id: AppId
    new: bool


@attrs.frozen
class ImportReport:
    """What an import did, counted."""

    added: int = 0  # chats
    updated: int = 0
    unchanged: int = 0
    messages_added: int = 0
    messages_updated: int = 0
    messages_removed: int = 0
    refused: tuple[RefusedRecord, ...] = ()
    apps: tuple[AppChoice, ...] = ()
    lines: LinesReport | None = None  # JSON Lines written, when any

    @property
    def wrote(self) -> bool:
        lines = self.lines
        return bool(
            self.added
            or self.updated
            or (lines is not None and (lines.chats or lines.messages or lines.ignored))
        )

    @property
    def failed(self) -> bool:
        return bool(self.refused or (self.lines is not None and self.lines.errors))


@attrs.frozen
class ImportProgress:
    """Running totals for a progress display."""

    chats_done: int
    chats_total: int
    lines: LinesReport | None = None  # JSON Lines written so far
    lines_bytes: int | None = None  # the size of the JSON Lines being written, if known


@attrs.define
class ImportHistory:
    """The import use case: records in, host rows out, counted.

    Apps: `app_id` (the user's `--app`) takes every chat; otherwise a source goes where
    it went before: its account or project's link, else the app most of its chats
    already imported are in (an export that names no account is recognised by its
    chats), else a new app, one above every app the host has."""

    target: ImportTarget
    app_id: AppId | None = None
    on_conflict: OnConflict = OnConflict.FAIL
    on_progress: Callable[[ImportProgress], None] | None = None
    batch_messages: int = BATCH_MESSAGES

    def run(self, records: Iterable[ImportRecord]) -> ImportReport:
        chats: dict[tuple[SourceFormat, str], ImportedChat] = {}
        refused: list[RefusedRecord] = []
        lines: LinesReport | None = None
        for record in records:
            if isinstance(record, RefusedRecord):
                refused.append(record)
            elif isinstance(record, HostRowLines):
                lines = _added(lines, self._write_lines(record))
            else:  # the same conversation given twice (two copies of an export): once
                chats.setdefault((record.format, record.source_id), record)
        linked = self._linked(list(chats.values()))
        choices = self._apps(list(chats.values()), linked)
        apps = {choice.source: choice.app_id for choice in choices}
        syncs = [
            plan_sync(chat, apps[chat.source_app], linked.get((chat.format, chat.source_id)))
            for chat in chats.values()
        ]
        not_written = self._apply(syncs, {c.source: c.app_id for c in choices if c.source.key})
        refused += not_written
        failed = {record.where for record in not_written}
        written = [sync for sync in syncs if sync.chat.where not in failed]
        return ImportReport(
            added=sum(s.change is ChatChange.ADDED for s in written),
            updated=sum(s.change is ChatChange.UPDATED for s in written),
            unchanged=sum(s.change is ChatChange.UNCHANGED for s in written),
            messages_added=sum(len(s.add) for s in written),
            messages_updated=sum(len(s.rewrite) for s in written),
            messages_removed=sum(len(s.remove) for s in written),
            refused=tuple(refused),
            apps=tuple(choices),
            lines=lines,
        )

    def _write_lines(self, record: HostRowLines) -> LinesReport:
        def on_batch(report: LinesReport) -> None:
            if self.on_progress is not None:
                self.on_progress(ImportProgress(0, 0, report, record.size))

        report = self.target.write_lines(record.lines, self.on_conflict, on_batch)
        return attrs.evolve(report, errors=tuple(f"{record.label}: {e}" for e in report.errors))

    def _linked(self, chats: Sequence[ImportedChat]) -> dict[tuple[SourceFormat, str], LinkedChat]:
        found: dict[tuple[SourceFormat, str], LinkedChat] = {}
        for format in SourceFormat:
            ids = [chat.source_id for chat in chats if chat.format is format]
            for start in range(0, len(ids), LOOKUP_IDS):
                chunk = ids[start : start + LOOKUP_IDS]
                for source_id, link in self.target.linked_chats(format, chunk).items():
                    found[(format, source_id)] = link
        return found

    def _apps(
        self,
        chats: Sequence[ImportedChat],
        linked: Mapping[tuple[SourceFormat, str], LinkedChat],
    ) -> list[AppChoice]:
        sources = list(dict.fromkeys(chat.source_app for chat in chats))
        if self.app_id is not None:
            return [AppChoice(source, self.app_id, False) for source in sources]
        known = self.target.linked_apps([source for source in sources if source.key])
        choices = []
        next_new: AppId | None = None
        for source in sources:
            app_id = known.get(source) or chosen_app(
                [
                    link.app_id
                    for chat in chats
                    if chat.source_app == source
                    and (link := linked.get((chat.format, chat.source_id))) is not None
                ]
            )
            if app_id is not None:
                choices.append(AppChoice(source, app_id, False))
                continue
            next_new = self.target.new_app_id() if next_new is None else AppId(next_new + 1)
            choices.append(AppChoice(source, next_new, True))
        return choices

    def _apply(
        self, syncs: Sequence[ChatSync], apps: Mapping[SourceApp, AppId]
    ) -> list[RefusedRecord]:
        """The syncs that write, in batches of about `batch_messages` messages."""
        writing = [sync for sync in syncs if sync.writes]
        refused: list[RefusedRecord] = []
        batch: list[ChatSync] = []
        size = 0
        done = len(syncs) - len(writing)
        linked_apps = dict(apps)

        def flush() -> None:
            nonlocal size, done, linked_apps
            if batch or linked_apps:
                refused.extend(self.target.apply(batch, linked_apps))
                linked_apps = {}  # recorded with the first batch
            done += len(batch)
            batch.clear()
            size = 0
            if self.on_progress is not None:
                self.on_progress(ImportProgress(done, len(syncs)))

        for sync in writing:
            weight = max(len(sync.add) + len(sync.rewrite) + len(sync.remove), 1)
            if batch and size + weight > self.batch_messages:
                flush()
            batch.append(sync)
            size += weight
        flush()
        return refused


def _added(total: LinesReport | None, more: LinesReport) -> LinesReport:
    if total is None:
        return more
    return LinesReport(
        total.chats + more.chats,
        total.messages + more.messages,
        total.ignored + more.ignored,
        total.conflicts + more.conflicts,
        total.errors + more.errors,
        total.lines + more.lines,
        total.bytes + more.bytes,
    )
