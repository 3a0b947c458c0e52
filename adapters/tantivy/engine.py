"""The tantivy side of the tantivy engine: one index per app in a directory beside the
host's database, their schema, and the one writer per index a process may hold.

- Layout: `<database file>.chat-recall-tantivy/app-<id>/` (`app-n<id>` for negative
  ids), one tantivy index per app, so a search touches only its app's postings and its
  app's statistics, as with the per-app FTS5 tables.
- Documents: `message_id` (indexed, fast), `chat_id` (indexed: the current chat is
  excluded inside the query), `title` and `body` (the *terms* of the index text,
  separated by spaces, split by tantivy's whitespace tokenizer, with positions for
  phrases), `title_text` and `body_text` (the index text itself, stored, for excerpts).
  The terms come from the domain's `TextAnalysis` (FTS5 `unicode61 remove_diacritics 2`
  tokens, Porter-stemmed by default exactly as FTS5's `porter`), so both engines index
  the same terms and the domain's excerpts find what the engine matched.
- Writers: tantivy allows one writer per index. A process shares one `TantivyIndexes`
  per directory (every facade over the same database in a process uses it), and opens an
  app's writer on its first write; another process that tries to write at the same time
  gets a `StorageError` (one indexing process per database; others run read-only).
  A commit closes the writers that had nothing to commit: a writer kept its memory (its
  threads' heap arenas) for as long as it was open, so a backfill that moves from app to
  app grew by every app it had written; the writers open are the apps written since the
  last publish, and opening one again is cheap next to that memory.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import attrs
import tantivy

from chat_recall.adapters.tantivy.heap import release_free_memory
from chat_recall.domain.errors import IndexUnavailable, StorageDamaged, StorageError
from chat_recall.domain.model import AppId, IndexDocument, MessageId
from chat_recall.domain.text.analysis import TextAnalysis
from chat_recall.domain.text.unicode61 import (
    ASCII_TOKEN_CHARACTER,
    DROPPED,
    TOKEN_RUN_CHARACTER,
    fold,
)

# The writer's indexing memory per app (tantivy's minimum is 15 MB per thread); one
# indexing thread per app writer: the indexer's batches are small and published often.
WRITER_HEAP_BYTES = 16_000_000
WRITER_THREADS = 1
# App writers open at once, at most. A writer takes memory as it opens and up to its
# heap as it fills, so a backfill whose
# messages interleave many apps would hold a writer for each: past this many, the
# changes are given to the writers app by app, what the open writers hold committed
# and they closed before more open (`TantivyIndexStore._apply_pending`). This bound
# caps that memory whatever the number of apps.
MAX_OPEN_WRITERS = 16


def build_schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("message_id", indexed=True, fast=True)
    builder.add_integer_field("chat_id", indexed=True)
    builder.add_text_field("title", tokenizer_name="whitespace", index_option="position")
    builder.add_text_field("body", tokenizer_name="whitespace", index_option="position")
    builder.add_bytes_field("title_text", stored=True)
    builder.add_bytes_field("body_text", stored=True)
    return builder.build()


SCHEMA = build_schema()


# A Porter stem can end inside a multi-byte character (the domain keeps those bytes as
# surrogate escapes); tantivy takes valid UTF-8 only, so such a term is spelled as this
# private-use mark and the hex of its bytes, the same way in documents and queries.
_ESCAPED_TERM = "\ue000"
_SURROGATE = re.compile("[\ud800-\udfff]")
# Folding first, then splitting into token runs, gives `tokenize`'s tokens in a few C
# calls: every fold maps a token character to one token character or none, and leaves
# every other character alone (checked by tests/adapters/test_tantivy_engine.py). The
# run class also admits DROPPED (NUL, the domain's same-length fold mark), which is no
# token character: it is turned into a separator first. ASCII text (most message bodies)
# needs no expression: one `bytes.translate` of its ASCII encoding lower-cases its token
# characters and turns every other character into a space, and `split` gives the tokens
# (cheaper than `str.translate` with a table, an ASCII regular expression, or the whole
# table's run class).
_TOKEN_RUNS = re.compile(TOKEN_RUN_CHARACTER + "+")
_ASCII_TOKENS = (
    bytes(
        ord(chr(point).lower()) if re.fullmatch(ASCII_TOKEN_CHARACTER, chr(point)) else ord(" ")
        for point in range(128)
    )
    + b" " * 128
)  # (no ASCII text holds a byte over 127)
STEM_CACHE_LIMIT = 200_000


def engine_term(term: str) -> str:
    """A term of the domain's analysis as this engine indexes it."""
    if _SURROGATE.search(term) is None:
        return term
    return _ESCAPED_TERM + term.encode("utf-8", "surrogateescape").hex()


class _Terms(dict[str, str]):
    """token -> engine term, filled on first use (vocabularies are Zipfian); and the
    terms of the last title (a chat's messages come in a row and share its title)."""

    def __init__(self, analysis: TextAnalysis) -> None:
        super().__init__()
        self.analysis = analysis
        self.title: tuple[str, str] = ("", "")

    def __missing__(self, token: str) -> str:
        if len(self) >= STEM_CACHE_LIMIT:
            self.clear()
        term = self[token] = engine_term(self.analysis.term(token))
        return term

    def of(self, text: str) -> str:
        if text.isascii():  # O(1) in CPython
            tokens = text.encode("ascii").translate(_ASCII_TOKENS).decode("ascii").split()
        else:
            tokens = _TOKEN_RUNS.findall(fold(text).replace(DROPPED, " "))
        return " ".join(map(self.__getitem__, tokens))

    def of_title(self, title: str) -> str:
        last = self.title  # read once: the pair is replaced whole, never changed
        if last[0] == title:
            return last[1]
        terms = self.of(title)
        self.title = (title, terms)
        return terms


_TERM_CACHES: dict[TextAnalysis, _Terms] = {}


def _terms(analysis: TextAnalysis) -> _Terms:
    terms = _TERM_CACHES.get(analysis)
    if terms is None:
        terms = _TERM_CACHES.setdefault(analysis, _Terms(analysis))
    return terms


def engine_terms(text: str, analysis: TextAnalysis) -> str:
    """The terms of an index text as tantivy's whitespace tokenizer reads them: the
    domain's terms (`analysis.terms`; tokens never hold whitespace), one space apart."""
    return _terms(analysis).of(text)


def to_tantivy(document: IndexDocument, analysis: TextAnalysis) -> tantivy.Document:
    """The engine's document (field by field: cheaper than `from_dict`)."""
    terms = _terms(analysis)
    built = tantivy.Document()
    built.add_integer("message_id", document.message_id)
    built.add_integer("chat_id", document.chat_id)
    built.add_text("title", terms.of_title(document.title))
    built.add_text("body", terms.of(document.body))
    built.add_bytes("title_text", document.title.encode("utf-8", "surrogatepass"))
    built.add_bytes("body_text", document.body.encode("utf-8", "surrogatepass"))
    return built


# The names `app_directory` gives (anything else in the directory is not ours to read).
_APP_DIRECTORY = re.compile(r"app-(n?)([0-9]+)")


def app_directory(root: Path, app_id: AppId) -> Path:
    return root / (f"app-{app_id}" if app_id >= 0 else f"app-n{-app_id}")


@attrs.define
class TantivyIndexes:
    """The per-app indexes of one directory, shared by every facade of a process
    (`acquire` / `release`); a writer per app, opened on the first write."""

    root: Path
    lock: threading.RLock = attrs.field(factory=threading.RLock)
    _indexes: dict[AppId, tantivy.Index] = attrs.field(factory=dict)
    _writers: dict[AppId, tantivy.IndexWriter] = attrs.field(factory=dict)
    # Apps whose writer holds changes not yet committed, since when (monotonic), and the
    # reclaimed documents among them (see `TantivyIndexStore`).
    uncommitted: set[AppId] = attrs.field(factory=set)
    # Changes of units of work not yet given to the writers (`TantivyIndexStore`).
    pending: list[Any] = attrs.field(factory=list)
    staged_since: float | None = None
    applied_purges: set[MessageId] = attrs.field(factory=set)
    # Whether this process has recovered the staged rows a crashed one left.
    recovered: bool = False
    # Apps whose index failed to take changes, to commit or to reload while other apps'
    # indexes did (a damaged or vanished directory). Their changes are not
    # given to a writer and their new documents are quarantined as `index_damaged`
    # (`TantivyIndexStore.write`), so one app's damage never stops the others'
    # publishing; `rebuild` restores it. For the life of this object, the process's: its
    # deletes and edits are not applied meanwhile, so the index must not take changes
    # again before the start-up sweep of a new one (`remove_orphans`) has removed what
    # they left (tried again in place, an edited message's old text matched again).
    set_aside: set[AppId] = attrs.field(factory=set)
    # A commit running in the background (`TantivyIndexStore`): while it runs, no
    # other code uses a writer.
    committing: BackgroundCommit | None = None
    _users: int = 0

    _open: ClassVar[dict[Path, TantivyIndexes]] = {}
    _registry_lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def acquire(cls, root: Path) -> TantivyIndexes:
        key = root.resolve()
        with cls._registry_lock:
            shared = cls._open.get(key)
            if shared is None:
                shared = cls._open[key] = cls(key)
            shared._users += 1
            return shared

    def release(self) -> None:
        """The last user of the process closes the writers (uncommitted changes are
        dropped: their staged rows re-mark them at the next start)."""
        with type(self)._registry_lock:
            self._users -= 1
            if self._users > 0:
                return
            type(self)._open.pop(self.root, None)
        with self.lock:
            commit, self.committing = self.committing, None
            if commit is not None:  # its staged rows re-mark it at the next start
                with contextlib.suppress(StorageError):
                    commit.wait()
            self._writers.clear()
            self._indexes.clear()
            self.uncommitted.clear()
            self.pending.clear()
            self.applied_purges.clear()
            self.staged_since = None

    def index(self, app_id: AppId, *, create: bool) -> tantivy.Index | None:
        """The app's index: None when it has none yet (and `create` is false)."""
        with self.lock:
            index = self._indexes.get(app_id)
            if index is not None:
                return index
            path = app_directory(self.root, app_id)
            try:
                if not (path / "meta.json").exists():
                    if not create:
                        return None
                    path.mkdir(parents=True, exist_ok=True)
                index = tantivy.Index(SCHEMA, path=str(path), reuse=True)
            except (OSError, ValueError) as error:
                raise IndexUnavailable(f"cannot open the tantivy index {path}: {error}") from error
            self._indexes[app_id] = index
            return index

    def writer(self, app_id: AppId) -> tantivy.IndexWriter:
        with self.lock:
            writer = self._writers.get(app_id)
            if writer is not None:
                return writer
            index = self.index(app_id, create=True)
            assert index is not None
            try:
                writer = index.writer(WRITER_HEAP_BYTES, WRITER_THREADS)
            except (OSError, ValueError, RuntimeError) as error:
                raise StorageError(
                    f"cannot write the tantivy index of app {app_id} (another process may be "
                    f"indexing this database; run the others read-only): {error}"
                ) from error
            self._writers[app_id] = writer
            return writer

    def set_app_aside(self, app_id: AppId, error: BaseException) -> None:
        """Stop using the app's index (see `set_aside`): its writer's uncommitted changes
        are dropped and its handles closed."""
        with self.lock:
            writer = self._writers.pop(app_id, None)
            if writer is not None:
                try:
                    writer.rollback()
                except BaseException as failure:  # a damaged writer may panic
                    if not engine_failure(failure):
                        raise
            self._indexes.pop(app_id, None)
            self.uncommitted.discard(app_id)
            self.set_aside.add(app_id)
        import logging  # here: importing it registers an exit hook in the host's process

        logging.getLogger("chat_recall.tantivy").warning(
            "tantivy: the index of app %s failed (%s); its new messages are quarantined "
            "as index_damaged, the other apps go on (fix: chat-recall rebuild)",
            app_id,
            error,
        )

    def apps_on_disk(self) -> list[AppId]:
        if not self.root.exists():
            return []
        found = []
        for path in self.root.iterdir():
            named = _APP_DIRECTORY.fullmatch(path.name)
            if named is None:  # not an app's index: a copy someone made, a system file
                continue
            number = int(named[2])
            if (path / "meta.json").exists():
                found.append(AppId(-number if named[1] else number))
        return sorted(found)

    def writer_is_open(self, app_id: AppId) -> bool:
        return app_id in self._writers

    def writer_apps(self) -> set[AppId]:
        """The apps whose writer is open."""
        with self.lock:
            return set(self._writers)

    def close_writers(self) -> None:
        """Close every writer (after a commit: none holds uncommitted changes)."""
        with self.lock:
            assert not self.uncommitted, "a writer with uncommitted changes is never closed"
            self._writers.clear()

    def writers_to_commit(self) -> list[tuple[AppId, tantivy.IndexWriter]]:
        """The writers holding changes not yet committed."""
        with self.lock:
            return [(app_id, self._writers[app_id]) for app_id in sorted(self.uncommitted)]

    def committed(self, failed: Sequence[tuple[AppId, StorageError]] = ()) -> None:
        """After a commit of `writers_to_commit()`: let this process's searchers see it,
        and close the writers that had nothing to commit (see the module docstring).
        `failed`: the apps whose commit failed while the others' are durable; they are
        set aside. So is an app whose index cannot be read after its commit, unless no
        app's can: then the failure is not about one app, and it is raised."""
        with self.lock:
            for app_id, error in failed:
                self.set_app_aside(app_id, error)
            unreadable: dict[AppId, StorageDamaged] = {}
            for app_id in sorted(self.uncommitted):
                try:
                    self._indexes[app_id].reload()
                except BaseException as error:  # its files on disk are damaged
                    if not engine_failure(error):
                        raise
                    self._indexes.pop(app_id, None)  # opened again at the next use
                    damaged = StorageDamaged(
                        f"the tantivy index of app {app_id} cannot be read after its commit "
                        f"({error}); `chat-recall rebuild` restores it",
                        app_id=app_id,
                    )
                    damaged.__cause__ = error
                    unreadable[app_id] = damaged
            readable = bool(self.uncommitted - unreadable.keys())
            if readable:
                for app_id, damaged in sorted(unreadable.items()):
                    self.set_app_aside(app_id, damaged)
            for app_id in [a for a in self._writers if a not in self.uncommitted]:
                del self._writers[app_id]
            self.uncommitted.clear()
            if unreadable and not readable:
                raise unreadable[min(unreadable)]

    def commit(self) -> None:
        """Commit every writer with changes (durable when it returns), then let this
        process's searchers see them."""
        with self.lock:
            writers = self.writers_to_commit()
            self.committed(commit_writers(writers))
        if writers:  # at most once a publish (PUBLISH_SECONDS), so its cost stays rare
            release_free_memory()

    def rollback(self) -> None:
        """Drop the uncommitted changes. After a failed commit a writer's rollback can
        panic ("does not have any lock"): that writer and its index are dropped, and
        the next use opens them again from disk."""
        with self.lock:
            for app_id in sorted(self.uncommitted):
                writer = self._writers.pop(app_id, None)
                if writer is None:
                    continue
                try:
                    writer.rollback()
                except BaseException as error:
                    if not engine_failure(error):
                        raise
                    self._indexes.pop(app_id, None)
                    continue
                self._writers[app_id] = writer
            self.uncommitted.clear()


def engine_failure(error: BaseException) -> bool:
    """Whether a tantivy call failed: its own errors, or a panic in the Rust code,
    which pyo3 raises as `PanicException`, a BaseException (so `except Exception`
    misses it and a thread dies with it)."""
    if isinstance(error, (OSError, ValueError, RuntimeError)):
        return True
    return type(error).__name__ == "PanicException"


def commit_writers(
    writers: list[tuple[AppId, tantivy.IndexWriter]],
) -> list[tuple[AppId, StorageError]]:
    """Commit each writer: durable when this returns. When some fail and others do not,
    returns the ones that failed (`committed` sets their apps aside); when every one
    fails, the failure is not about one app: the first is raised, and the caller
    abandons what was staged. Takes no lock: while it runs, no other code may use these
    writers (tantivy-py refuses a second call on a writer in use)."""
    failed: list[tuple[AppId, StorageError]] = []
    for app_id, writer in writers:
        try:
            writer.commit()
        except BaseException as error:
            if not engine_failure(error):
                raise
            failure = StorageError(f"tantivy commit of app {app_id} failed: {error}")
            failure.__cause__ = error
            failed.append((app_id, failure))
    if failed and len(failed) == len(writers):
        raise failed[0][1]
    return failed


@attrs.define
class BackgroundCommit:
    """A commit of some writers on a thread of its own, and what its publish removes
    once the commit has returned: the staged rows up to `mark` and the purge rows of
    `purged` (see `TantivyIndexStore`). tantivy's commit releases the GIL (it waits for
    the writer's indexing thread to write its segment, then syncs the files, far
    longer than a batch), so the indexer projects and stages its next batches meanwhile."""

    mark: int | None
    purged: list[MessageId]
    _thread: threading.Thread
    _failure: list[StorageError]
    # The apps whose commit failed while others' succeeded (`commit_writers`).
    _failed: list[tuple[AppId, StorageError]]

    @classmethod
    def start(
        cls,
        writers: list[tuple[AppId, tantivy.IndexWriter]],
        mark: int | None,
        purged: list[MessageId],
    ) -> BackgroundCommit:
        failure: list[StorageError] = []
        failed: list[tuple[AppId, StorageError]] = []

        def run() -> None:
            try:
                failed.extend(commit_writers(writers))
            except StorageError as error:
                failure.append(error)
                return
            except Exception as error:  # never lost: raised by `wait`
                failure.append(StorageError(f"tantivy commit failed: {error}"))
                return
            release_free_memory()

        # Not a daemon: a process that exits meanwhile lets the commit finish first.
        thread = threading.Thread(target=run, name="chat-recall-tantivy-commit")
        thread.start()
        return cls(mark, purged, thread, failure, failed)

    def running(self) -> bool:
        return self._thread.is_alive()

    def wait(self) -> list[tuple[AppId, StorageError]]:
        """Until the commit has returned; raises its StorageError if it failed, and
        returns the apps whose commit failed (for `TantivyIndexes.committed`)."""
        self._thread.join()
        if self._failure:
            raise self._failure[0]
        return list(self._failed)
