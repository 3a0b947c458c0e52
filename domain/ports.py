"""The ports: what the domain and application need from the outside, by role.

Adapters implement them (`adapters/sqlite`, `adapters/memory`); `contracts/` holds the
suites every implementation passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol

from chat_recall.domain.listing import ChatListQuery, ChatPage
from chat_recall.domain.messages import Role
from chat_recall.domain.model import (
    AppId,
    Backlog,
    Candidate,
    Chat,
    ChatId,
    ChatMarker,
    DocumentText,
    Finding,
    IndexDocument,
    IndexStats,
    Maintenance,
    MessageId,
    MessageMarker,
    MessageWindow,
    Quarantine,
    QuarantinedRow,
    SourceRow,
)
from chat_recall.domain.query import ScopedQuery, TermCount, VocabularyProbe
from chat_recall.domain.semantic import (
    EmbeddingModel,
    EmbedTask,
    MeaningQuery,
    Purpose,
    Similar,
    SimilarChat,
    VectorCoverage,
)
from chat_recall.domain.telemetry import TelemetryEvent
from chat_recall.domain.text.analysis import TextAnalysis
from chat_recall.domain.warming import VectorMemory

if TYPE_CHECKING:  # a search imports the ports, and never the indexing policies
    from chat_recall.domain.indexing import PlannedBatch
    from chat_recall.domain.projection import MarkupPolicy


class Telemetry(Protocol):
    """Where content-free events go (see `domain.telemetry`)."""

    def emit(self, event: TelemetryEvent) -> None: ...


class Clock(Protocol):
    def monotonic(self) -> float:
        """A monotonic clock for budgets and durations, seconds."""
        ...


class HostWriter(Protocol):
    """Host-side writes, as the host app makes them. chat-recall never calls these
    while serving tools; they exist for standalone use, imports and the contracts."""

    def create_chat(
        self, app_id: AppId, title: str | None, created_at: int, *, chat_id: ChatId | None = None
    ) -> ChatId: ...

    def add_message(
        self,
        chat_id: ChatId,
        role: Role | str,
        content: str,
        created_at: int,
        *,
        is_compaction_summary: bool = False,
        message_id: MessageId | None = None,
    ) -> MessageId:
        """A new message; `role` is the enum or its value (`"user"`, `"assistant"`),
        anything else InvalidArguments."""
        ...

    def update_message(self, message_id: MessageId, content: str) -> None: ...

    def delete_message(self, message_id: MessageId) -> None: ...

    def rename_chat(self, chat_id: ChatId, title: str | None) -> None: ...

    def delete_chat(self, chat_id: ChatId) -> None: ...


class MessageRepo(Protocol):
    """The read side of the host's chats and messages. Every query that takes an
    `app_id` enforces it in storage; missing and other-app ids raise NotFound alike."""

    def chat(self, app_id: AppId, chat_id: ChatId) -> Chat: ...

    def source_fingerprint(self) -> str:
        """Changes whenever the adapter's mapping may change what is read from the host
        rows (table and column names, the timestamp format); part of the index stamp,
        so a changed mapping re-indexes every message."""
        ...

    def source_rows(self, message_ids: Sequence[MessageId]) -> list[SourceRow]:
        """Messages joined to their chats, for indexing; ids with no such message (or
        whose chat is gone) are left out."""
        ...

    def page(
        self,
        app_id: AppId,
        chat_id: ChatId,
        offset: int,
        limit: int,
        *,
        before_message_id: MessageId | None = None,
    ) -> MessageWindow:
        """Up to `limit` messages of a chat in (created_at, id) order from position
        `offset`. With `before_message_id` (a message of that chat), only messages
        ordered before it: a snapshot that excludes an in-flight message and all after."""
        ...

    def around(
        self,
        app_id: AppId,
        chat_id: ChatId,
        message_id: MessageId,
        before: int,
        after: int,
        *,
        before_message_id: MessageId | None = None,
    ) -> MessageWindow:
        """A message and up to `before`/`after` neighbours, found by keyset (no
        bodies loaded but the returned ones). NotFound when the message is not a
        visible message of that chat of that app."""
        ...

    def next_message_ids(
        self, app_id: AppId, message_ids: Sequence[MessageId]
    ) -> dict[MessageId, MessageId]:
        """For each message of the app, the id of the message that follows it in its
        chat's (created_at, id) order, in one set-based query; last messages are left
        out."""
        ...

    def last_message_at(self, app_id: AppId, chat_ids: Sequence[ChatId]) -> dict[ChatId, int]:
        """The newest message time of each chat, in one set-based query."""
        ...

    def list_chats(self, query: ChatListQuery) -> ChatPage:
        """One page of the app's chats by time (list_chats), read in one snapshot.

        A chat's activity is the span of its messages of the known roles whose time is
        readable (the newest and oldest of each stored kind of time are read, as
        `last_message_at` reads them). Listed: chats of `query.app_id` (enforced inside
        the storage query) with such a message, other than `query.exclude_chat_id`,
        chosen and ordered by `domain.listing.select_page` (window, order, cursor,
        limit), so every adapter lists the same page for the same data. Each carries
        its chat, first and last times, the number of its messages of the known roles,
        and its first user message in chat order (as `page` reads it; None when it has
        none). A deleted chat or message is gone from the next listing."""
        ...


class DirtyQueue(Protocol):
    """The dirty-tracking side: host writes mark ids; the indexer drains them."""

    def pending_messages(
        self, limit: int, *, after: MessageId | None = None
    ) -> list[MessageMarker]:
        """Up to `limit` dirty message markers; with `after`, only those of ids above it
        (SQL adapters: in id order, so the indexer reads past the batches it handed out
        to planning processes)."""
        ...

    def pending_chats(self, limit: int) -> list[ChatMarker]: ...

    def expand_chat(self, marker: ChatMarker) -> int:
        """Mark every message of a dirty chat dirty, then clear the chat marker (if it
        is unchanged). A large chat is marked in bounded steps (SQL adapters: short
        transactions), never in one long one. Returns the number of messages marked."""
        ...

    def mark_all_messages(self) -> int:
        """Mark every source message dirty (a projection change). Returns the count."""
        ...

    def backlog(self) -> Backlog: ...

    def requeue_quarantined(self) -> int:
        """Mark every quarantined message whose source still exists dirty again, so the
        next batches retry it. Returns how many."""
        ...

    def pending_in_app(self, app_id: AppId, exclude_chat_id: ChatId | None) -> int:
        """Dirty messages and chats of one app, not counting the excluded chat's own."""
        ...

    def claim(self, holder: str, seconds: float, *, overrule: str | None = None) -> str | None:
        """Take or renew `holder`'s claim to drain the queue for `seconds` (by the
        storage's clock), unless another holder's claim is still live and is not
        `overrule`: then return that holder and take nothing (`IndexerLease`). Atomic:
        of two indexers claiming at once, one gets it."""
        ...

    def release(self, holder: str) -> None:
        """End `holder`'s claim, if it has it."""
        ...

    def claimant(self) -> str | None:
        """The holder of a live claim (one that has not run out), if any: read only, so
        a process that does not index can tell that another one does."""
        ...

    def host_writes(self) -> int | None:
        """A value that changes whenever someone other than this indexer committed a
        write to the storage since the last call (the host, another indexer): an idle
        indexer looks at it to learn of writes nobody told it about. None where it
        cannot be known cheaply."""
        ...

    def note_caught_up(self, age_seconds: float) -> None:
        """Record that the index held every change marked until `age_seconds` ago (an
        indexer read every pending marker then, and has written them), so that any
        process can tell how fresh the index is (`caught_up_ago`). `age_seconds` is as of
        the call: a record that waits (a rest, a lock) counts the wait into the age. A
        record is never moved back; the tantivy engine records only once its documents
        are published."""
        ...

    def caught_up_ago(self) -> float | None:
        """Seconds since the latest moment `note_caught_up` recorded (None: none): every
        marker still pending was set after it, so it bounds the age of the oldest."""
        ...


class IndexWriter(Protocol):
    """The writes of one indexer unit of work (see `IndexUnitOfWork`)."""

    def put(self, documents: Sequence[IndexDocument]) -> None:
        """Insert or replace the documents (one per message id), except those whose
        message no longer exists in the chat and app they name, or whose marker `clear`
        found stale in this unit of work: a batch never brings back what the host
        deleted or changed while it ran."""
        ...

    def remove(self, message_ids: Sequence[MessageId]) -> None:
        """Remove the documents of these messages, wherever they are."""
        ...

    def clear(self, markers: Sequence[MessageMarker]) -> None:
        """Clear these dirty markers, each only if its `seq` is unchanged since it was
        read: a host write during the batch keeps its marker. Called before `put`."""
        ...

    def quarantine(self, rows: Sequence[QuarantinedRow]) -> None:
        """Set these rows aside (replacing an earlier entry of the same message); `put`
        or `remove` of a message ends its quarantine."""
        ...

    @property
    def stale(self) -> AbstractSet[MessageId]:
        """The ids of cleared markers found changed or gone (the host marked the row
        again, deleted it, or another indexer applied it): nothing was written for
        them. Complete once the transaction has committed."""
        ...

    @property
    def set_aside(self) -> Sequence[QuarantinedRow]:
        """Documents `put` could not write because their app's index reports damage:
        quarantined instead (`index_damaged`), so one damaged app never stops the
        others' indexing (`rebuild` restores it). Complete once committed."""
        ...


class IndexUnitOfWork(Protocol):
    """The one write transaction of an indexer batch. It spans the index and the dirty
    queue, so the documents a batch writes and the markers it clears commit together
    or not at all; it is short (one bounded batch)."""

    def transaction(
        self, *, time_limit_seconds: float | None = None
    ) -> AbstractContextManager[IndexWriter]:
        """Commits when the block ends normally, rolls back when it raises. With a time
        limit, a storage whose writers hold a lock others wait for (SQLite's one write
        lock) abandons a transaction still open at the limit: it rolls back and raises
        `TransactionOverTime`. Storages where nobody waits for our writes ignore it
        (`WritePacer.limit` is None there)."""
        ...


class IndexStore(Protocol):
    """The derived search documents: search and read them; housekeeping. Writes go
    through `IndexUnitOfWork`."""

    @property
    def analysis(self) -> TextAnalysis:
        """How this index turns text into the terms it scores. It applies it to the
        documents it indexes and to the phrases of a query alike, so a phrase matches
        a document holding the same terms in the same order (with stemming: a word
        finds its inflections)."""
        ...

    def maintain(self) -> Maintenance:
        """One bounded step of housekeeping after writes: reclaim documents the host
        deleted (already invisible to search), and compact the engine's storage where
        it has any. Each step is a short transaction."""
        ...

    def remove_orphans(self) -> int:
        """Remove documents whose source message is gone. Returns how many."""
        ...

    def search(self, query: ScopedQuery) -> list[Candidate]:
        """The best `query.window` visible candidates of one app by score (higher is
        better), then message id; the excluded chat, and messages written outside
        `query.within`, left out inside the storage query (before the best are chosen:
        an old match is found however many newer ones there are)."""
        ...

    def documents(self, app_id: AppId, message_ids: Sequence[MessageId]) -> list[DocumentText]:
        """The indexed title and body of visible documents of one app."""
        ...

    def vocabulary(self, probe: VocabularyProbe) -> list[TermCount]:
        """Terms of `probe.app_id`'s own index, never another app's, sorted by term:
        each of `probe.terms` it holds, and up to `probe.limit` of those that begin
        with `probe.prefix` (which ones, when more do, is the engine's choice), each
        with how many of the app's documents hold it. Terms are the index analysis's
        (`MatchQuery.terms` takes them as they are). Bounded work: lookups and one scan
        of a prefix's terms, never the whole vocabulary. Counts rank terms by how
        common they are and may include documents the host deleted that maintenance
        has not reclaimed yet: a term is shown only once `search` finds it in a visible
        document."""
        ...

    def document_ids(self, app_id: AppId) -> list[MessageId]:
        """Every visible document id of one app, ascending (for audits and tests)."""
        ...

    def stats(self, app_id: AppId) -> IndexStats: ...

    def projection_stamp(self) -> str | None:
        """The projection version and policy the documents were built under."""
        ...

    def set_projection_stamp(self, stamp: str) -> None: ...

    def quarantine(self, limit: int) -> Quarantine:
        """The rows set aside as unreadable whose message still exists: the total and
        the first `limit` by message id."""
        ...


class IndexAudit(Protocol):
    """Checks of the derived index against what this release creates (drift: missing
    or changed triggers, registry rows, schema version; damaged index data), and the
    repair of what can be restored in place."""

    def check(self, *, deep: bool = True) -> list[Finding]:
        """Every check, without writing or taking a write lock; `deep` also reads the
        whole index to find damaged data. Never raises for what it finds."""
        ...

    def repair(self) -> list[str]:
        """Restore what drifted and can be restored in place (triggers, registry rows,
        an app whose index table vanished is indexed again), in short transactions.
        Returns what was done. A damaged index needs a rebuild instead."""
        ...


class WritePacer(Protocol):
    """How long the storage's next write transaction may hold the lock the host's writes
    wait for (domain `PacingRule`): batches size themselves to `budget()` and run under
    `limit()`. The storage rests between its transactions itself."""

    def budget(self) -> float:
        """Seconds the next write transaction should aim at."""
        ...

    def limit(self) -> float | None:
        """A transaction that can be cut is abandoned at this (`TransactionOverTime`)
        by a storage whose lock others wait for; None: none."""
        ...

    def last_seconds(self) -> float | None:
        """How long this thread's last write transaction took, as its size is judged:
        the longer of the time it held the lock and the time it read before taking it
        (a transaction refused the lock after such reads is done again holding the lock
        for them too). None: not recorded here; the caller times the transaction
        itself."""
        ...


class Claimants(Protocol):
    """Names for indexers in the queue's claim (domain `IndexerLease`), and what such a
    name tells: which process holds the claim, and whether it is known to be gone."""

    def name(self, owner: object) -> str:
        """A new name, unique to `owner`, that stays live while `owner` exists."""
        ...

    def gone(self, holder: str) -> bool:
        """Whether the indexer named `holder` is known to be gone (its process ended,
        or it was of this process and no longer exists)."""
        ...

    def describe(self, holder: str) -> str:
        """The holder as a person reads it ("process 123")."""
        ...


class BatchPlanner(Protocol):
    """Where the indexer's batches come from: the next pending markers with their rows
    loaded and planned (domain `plan_batch`), in this process or in planning processes.
    A planned batch is as safe later as now: the unit of work writes nothing whose
    marker changed since it was read."""

    def next(self, size: int, repo: MessageRepo, policy: MarkupPolicy) -> PlannedBatch:
        """The next batch of up to `size` markers, its rows read from `repo` (here; a
        planning process reads through its own) and planned under `policy` (no markers:
        nothing is pending)."""
        ...

    def ahead(self, size: int, repo: MessageRepo, policy: MarkupPolicy) -> None:
        """Get the batch after it ready, while no lock is held (after a batch's write,
        before its maintenance step). Never raises: a failure is met by `next`."""
        ...

    @property
    def planned_apart(self) -> int:
        """Batches planned by planning processes so far."""
        ...

    @property
    def failures(self) -> int:
        """Times planning processes failed (their batches were planned here instead)."""
        ...

    def close(self) -> None:
        """Stop whatever plans ahead (in-flight batches are dropped, their markers stay)."""
        ...


class MessageRepoOpener(Protocol):
    """How another process opens its own read-only `MessageRepo` on the same storage:
    the indexer plans backfill batches (load and project rows) in planning processes
    (`application/planning.py`). It is pickled to that process, so it holds only plain
    values (a path, a mapping)."""

    def open(self) -> MessageRepo: ...


class Embedder(Protocol):
    """Turns text into vectors (`domain.semantic`). An adapter holds one model; it is
    given only the redacted projection of messages and the redacted query, never a
    host row. Whether text leaves the machine, and where, is part of its `model`."""

    @property
    def model(self) -> EmbeddingModel: ...

    def embed(self, texts: Sequence[str], purpose: Purpose) -> list[bytes]:
        """One packed unit vector (`pack_vector`, `model.dimension` values) per text, in
        order; the same text and purpose give the same vector. An empty text gives a
        vector too (near nothing). Raises `EmbeddingFailed` when the model cannot run
        (a remote service that does not answer, a model file that does not load)."""
        ...

    def embed_query(self, query: MeaningQuery) -> bytes:
        """One packed unit vector for a search: a model that sums word vectors weighs
        the query's words by their weights; any other embeds `query.text` as `embed`
        does with `Purpose.QUERY`. Raises `EmbeddingFailed` as `embed` does."""
        ...

    def close(self) -> None:
        """Release what the model holds (a runtime's threads); idempotent."""
        ...


class VectorStore(Protocol):
    """The vectors of an index's documents, kept beside them by the engine (derived
    data, like the documents). The indexer's put of a document queues it for a vector
    of the recorded model (its marker's `seq` changes each time it is put again), and
    the removal of a document removes its vector in the same transaction.

    Guarantees every store keeps (`contracts/vector_store.py`):
    - app scope: `nearest` returns only visible documents of the app it names, and
      never one of the excluded chat; the check is in the storage's query;
    - deleted is deleted at once: a document the host deleted is never returned, from
      the moment the delete commits, whether or not its vector was reclaimed yet;
    - one model: only vectors of the recorded model are returned or counted as done;
    - a vector is written only for the text it was made from (`write_vectors` skips a
      task whose document was put again since it was read);
    - every write is one short transaction of a bounded number of rows."""

    def vector_model(self) -> str | None:
        """The model identity whose vectors are kept; None while the layer is off."""
        ...

    def use_vector_model(self, identity: str | None) -> None:
        """Record the model whose vectors are kept. A different identity from the one
        recorded starts over: every visible document is queued again (`queue_step`),
        and vectors of the old model are never returned (`drop_step` removes them).
        None turns the layer off: nothing is queued, nothing returned."""
        ...

    def queue_step(self, limit: int) -> int:
        """After a model change, queue up to `limit` more documents for a vector, in
        one short transaction. Returns how many; 0 when every document is queued."""
        ...

    def pending_vectors(self, limit: int, *, after: MessageId | None = None) -> list[EmbedTask]:
        """Up to `limit` queued documents, by message id (above `after`, if given)."""
        ...

    def write_vectors(
        self, identity: str, tasks: Sequence[EmbedTask], vectors: Sequence[bytes | None]
    ) -> int:
        """In one short transaction, for each task whose marker is unchanged and whose
        model is still `identity`: its vector, and the marker cleared. A task whose
        document was put again since it was read keeps its newer marker; one given
        None stays queued as it is (its document could not be read now). Nothing when
        the recorded model is no longer `identity`. Returns the vectors written."""
        ...

    def drop_step(self, limit: int) -> int:
        """Remove up to `limit` vectors that are of no use (another model's, or of a
        document that is gone), in one short transaction; returns how many."""
        ...

    def building(self, app_id: AppId) -> bool:
        """Whether visible documents of the app still wait for a vector of the
        recorded model: cheap enough for every search (no count)."""
        ...

    def semantic_settings(self) -> str | None:
        """The semantic layer's settings recorded with the index (the host's or user's
        choice, as text), so every process that opens it uses the same; None when
        none was recorded."""
        ...

    def record_semantic_settings(self, settings: str | None) -> None: ...

    def vector_coverage(self, app_id: AppId | None) -> VectorCoverage:
        """The vectors of the recorded model against the visible documents, of one app
        or (None) of every app."""
        ...

    def nearest(
        self,
        app_id: AppId,
        vector: bytes,
        limit: int,
        *,
        exclude_chat_id: ChatId | None = None,
        floor: float = -1.0,
        centered: bool = False,
    ) -> list[Similar]:
        """Up to `limit` visible documents of the app whose vector of the recorded
        model is nearest `vector` (cosine similarity at least `floor`), best first,
        ties by message id. Exact: no approximation drops a nearer one.

        `centered`: the query is first moved away from what every document of the app
        shares (`domain.semantic.away_from`: the mean of the app's vectors, weighed by
        `centering_share` of their number, is taken from it), so documents rank by
        what sets them apart; the similarity returned is the cosine with that query.
        The mean may lag a few writes or deletes behind."""
        ...

    def nearest_chats(
        self,
        app_id: AppId,
        vector: bytes,
        limit: int,
        *,
        per_chat: int,
        mean_weight: float,
        exclude_chat_id: ChatId | None = None,
        floor: float = -1.0,
        centered: bool = False,
    ) -> list[SimilarChat]:
        """Up to `limit` chats of the app nearest `vector` (`centered` as `nearest`),
        each with up to `per_chat` of its best visible documents: a chat's similarity
        is `chat_similarity` of the cosine of its visible documents' mean vector and
        its best document's cosine. Best first, ties by chat id; at least `floor`;
        never the excluded chat. Chats are first chosen by their mean vector among
        the app's (a bounded number of candidates, `CHAT_CANDIDATES`), then ranked
        exactly. A returned chat's figures count only its visible documents; a deleted
        document is never returned, from the moment its delete commits."""
        ...

    def vector_memory(self) -> VectorMemory:
        """What the store holds in memory to search the vectors of the recorded model,
        its budget for that, and each app's vectors as they would be held (what
        `domain.warming.warming_order` plans by). A store that searches its vectors
        where it keeps them holds nothing apart, and lists no app."""
        ...

    def warm(self, app_id: AppId, limit: int) -> int:
        """One step of loading the app's vectors into memory before a search asks for
        them: up to `limit` more, read without taking any write lock, and only while
        they fit in the budget beside what is held (never pushing out what a search
        used). Returns how many were loaded; 0 when nothing more is to be loaded for
        this app (all of it is, a search loaded it, it does not fit, or the store
        holds nothing apart). Never changes what a search returns: a search finds
        every row written before it, warmed or not."""
        ...
