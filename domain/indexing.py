"""Pure indexing policy: what document a source row becomes (or why it is set aside),
and the stamp that says under which projection and host mapping the documents were
built."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import attrs

from chat_recall.domain import projection as projections  # loaded on use, never by a search
from chat_recall.domain.host_values import READER_VERSION, Unreadable, UnreadableReason
from chat_recall.domain.model import (
    IndexBatch,
    IndexDocument,
    MessageId,
    MessageMarker,
    QuarantinedRow,
    SourceRow,
)
from chat_recall.domain.projection import MarkupPolicy
from chat_recall.domain.text import index_text


def projection_stamp(policy: MarkupPolicy) -> str:
    """Changes whenever projection output may change: the version or the policy table."""
    return f"{projections.PROJECTION_VERSION}:{policy.fingerprint()}"


def index_stamp(policy: MarkupPolicy, source_fingerprint: str) -> str:
    """Changes whenever a document may change: the projection (see `projection_stamp`),
    how host values are read (`READER_VERSION`), or the adapter's host mapping
    (`MessageRepo.source_fingerprint`). A change re-indexes every message, quarantined
    ones included."""
    return f"{projection_stamp(policy)}|r{READER_VERSION}:{source_fingerprint}"


@attrs.frozen
class IndexEntry:
    """What indexing a source row gives: its document (None when the projection is
    empty) and how many credentials were redacted from its body and title."""

    document: IndexDocument | None
    redactions: int = 0


@attrs.frozen
class IndexedTitle:
    """A chat title as the index holds it (credentials redacted, index text) and how
    many values were redacted from it."""

    text: str
    redactions: int

    @classmethod
    def of(cls, title: str | None, policy: MarkupPolicy) -> IndexedTitle:
        redaction = projections.redact_title(title, policy)
        return cls(index_text(redaction.text), redaction.total)


def index_entry(
    row: SourceRow, policy: MarkupPolicy, title: IndexedTitle | None = None
) -> IndexEntry:
    """The document for a source row, with the count of redacted values. Body and title
    are redacted before they are indexed, so no search can find or return a secret.
    `title` is `IndexedTitle.of(row.title, policy)` when the caller has it already (a
    batch holds many messages of one chat). Raises `Unreadable` for a row whose stored
    values cannot be read."""
    document, redactions = _document(row, policy, title)
    return IndexEntry(document, redactions)


def _document(
    row: SourceRow, policy: MarkupPolicy, title: IndexedTitle | None
) -> tuple[IndexDocument | None, int]:
    """`index_entry` as a pair (`plan_batch` needs no entry object per message)."""
    message = row.message
    if row.problem is not None:
        raise Unreadable(row.problem)
    assert message.created_at is not None  # no time_problem
    projection = projections.project_content_for_search(message.role, message.content, policy)
    if projection.is_empty:
        return None, 0
    title = title or IndexedTitle.of(row.title, policy)
    document = IndexDocument(
        message_id=message.id,
        chat_id=message.chat_id,
        app_id=row.app_id,
        role=message.role,
        created_at=message.created_at,
        is_compaction_summary=message.is_compaction_summary,
        projection_truncated=projection.truncated,
        title=title.text,
        body=index_text(projection.text),
    )
    return document, projection.redacted + title.redactions


def build_document(row: SourceRow, policy: MarkupPolicy) -> IndexDocument | None:
    """The document for a source row, or None when its projection is empty (empty
    projections are not indexed). Raises `Unreadable` for a row whose stored values
    cannot be read (`SourceRow.problem`)."""
    return index_entry(row, policy).document


def plan_batch(
    markers: Sequence[MessageMarker],
    rows: Mapping[MessageId, SourceRow],
    policy: MarkupPolicy,
    failed_to_load: Collection[MessageId] = (),
) -> IndexBatch:
    """What one indexer batch writes: a document for every marked message whose source
    row projects to something, a removal for the rest (gone, or nothing searchable),
    a quarantine entry for a row that cannot be read or projected, or whose row alone
    failed to load (`failed_to_load`): one odd row never fails the batch. Every marker read
    is cleared."""
    upserts: list[IndexDocument] = []
    deletes: list[MessageId] = []
    quarantined: list[QuarantinedRow] = []
    redactions = 0
    titles: dict[str | None, IndexedTitle] = {}  # a batch holds many messages per chat
    for marker in markers:
        if marker.id in failed_to_load:
            quarantined.append(QuarantinedRow(marker.id, None, None, UnreadableReason.READ_FAILED))
            continue
        row = rows.get(marker.id)
        try:
            if row is None:
                document, found = None, 0
            else:
                title = titles.get(row.title)
                if title is None:
                    title = titles[row.title] = IndexedTitle.of(row.title, policy)
                document, found = _document(row, policy, title)
        except Unreadable as problem:
            assert row is not None
            quarantined.append(set_aside(row, problem.reason))
            continue
        except Exception:  # a projection bug: this row waits, the others are indexed
            assert row is not None
            quarantined.append(set_aside(row, UnreadableReason.PROJECTION_FAILED))
            continue
        redactions += found
        if document is None:
            deletes.append(marker.id)
        else:
            upserts.append(document)
    return IndexBatch(
        tuple(upserts), tuple(deletes), tuple(markers), tuple(quarantined), redactions
    )


def set_aside(row: SourceRow, reason: UnreadableReason) -> QuarantinedRow:
    return QuarantinedRow(row.message.id, row.app_id, row.message.chat_id, reason)


def split_batch(batch: IndexBatch) -> tuple[IndexBatch, IndexBatch]:
    """Two halves of a batch by its markers, each with its own writes: a batch whose
    write fails is bisected to find the row that fails it."""
    half = len(batch.cleared) // 2
    return _part(batch, batch.cleared[:half]), _part(batch, batch.cleared[half:])


def split_at(batch: IndexBatch, size: int) -> tuple[IndexBatch, IndexBatch]:
    """The batch's first `size` markers and the rest, each with its own writes: a batch is
    written in parts as large as the time budget allows when each is written."""
    return _part(batch, batch.cleared[:size]), _part(batch, batch.cleared[size:])


def refuse(batch: IndexBatch) -> IndexBatch:
    """A one-marker batch whose write failed on its own, as a quarantine entry instead
    (`indexing_failed`): the marker is cleared, the row waits for a retry."""
    (marker,) = batch.cleared
    where = [(d.app_id, d.chat_id) for d in batch.upserts] + [
        (row.app_id, row.chat_id) for row in batch.quarantined
    ]
    app_id, chat_id = where[0] if where else (None, None)
    row = QuarantinedRow(marker.id, app_id, chat_id, UnreadableReason.INDEXING_FAILED)
    return IndexBatch(cleared=(marker,), quarantined=(row,))


def _part(batch: IndexBatch, markers: Sequence[MessageMarker]) -> IndexBatch:
    ids = {marker.id for marker in markers}
    return IndexBatch(
        upserts=tuple(d for d in batch.upserts if d.message_id in ids),
        deletes=tuple(m for m in batch.deletes if m in ids),
        cleared=tuple(markers),
        quarantined=tuple(row for row in batch.quarantined if row.message_id in ids),
    )


@attrs.frozen
class BatchSizing:
    """How many dirty messages one write transaction takes, adapted so that the
    transaction stays within its time budget (domain `PacingRule.budget`): one over
    budget halves the size, a full one under half the budget doubles it, within
    [minimum, maximum]. The budget, not `maximum`, sets the size: each transaction costs
    a BEGIN and a COMMIT whatever its size, so a cap that stops a fast machine's
    transactions well under budget only costs speed. `initial` is the size for
    `budget_seconds`; another budget starts in proportion (`at`)."""

    budget_seconds: float = 0.012
    initial: int = 64
    minimum: int = 1
    maximum: int = 1024

    @classmethod
    def host_walk(cls) -> BatchSizing:
        """Rows per transaction when an install walks the host's messages (marking each
        for indexing, copying its place in its chat): a few thousand fit the budget, but
        the cost is each row's bytes (a row's later columns are read past its content),
        so the size follows the time, as a batch's does, under the same limit."""
        return cls(budget_seconds=0.010, initial=2_000, minimum=100, maximum=8_000)

    def at(self, budget_seconds: float) -> BatchSizing:
        """This sizing for another budget, starting at a size in proportion."""
        if budget_seconds == self.budget_seconds:
            return self
        initial = round(self.initial * budget_seconds / self.budget_seconds)
        return attrs.evolve(
            self,
            budget_seconds=budget_seconds,
            initial=min(self.maximum, max(self.minimum, initial)),
        )

    def next_size(self, size: int, duration_seconds: float, *, full: bool) -> int:
        if duration_seconds > self.budget_seconds:
            return max(self.minimum, size // 2)
        if full and duration_seconds < self.budget_seconds / 2:
            return min(self.maximum, size * 2)
        return size


@attrs.frozen
class PlannedBatch:
    """A batch as the indexer writes it: the markers read, what they plan to
    (`plan_batch`), and how it was planned."""

    size: int  # how many markers were asked for
    markers: tuple[MessageMarker, ...]
    batch: IndexBatch
    seconds: float  # the planning, in this process's flow (0 when planned apart)
    ahead_seconds: float = 0.0  # the planning done in a planning process, ahead of time
    # The read that gave these markers found every marker pending then (fewer than asked
    # for): once written, the index holds every change marked before `read_at`.
    drained: bool = False
    read_at: float = 0.0  # the indexer's monotonic clock

    @classmethod
    def nothing(cls, size: int, read_at: float) -> PlannedBatch:
        return cls(size, (), IndexBatch(), 0.0, drained=True, read_at=read_at)


def join_batches(parts: Sequence[IndexBatch], redactions: int = 0) -> IndexBatch:
    """Parts of one batch (planned or written apart) as one."""
    if len(parts) == 1 and not redactions:
        return parts[0]
    return IndexBatch(
        upserts=tuple(d for part in parts for d in part.upserts),
        deletes=tuple(m for part in parts for m in part.deletes),
        cleared=tuple(m for part in parts for m in part.cleared),
        quarantined=tuple(r for part in parts for r in part.quarantined),
        redactions=redactions or sum(part.redactions for part in parts),
    )


@attrs.frozen
class IndexerLease:
    """One indexer drains a database's queue at a time. Two at once (the app's embedded
    indexer and `chat-recall index` from a terminal) would read the same markers, do
    the same work twice (the slower one's writes are found stale and dropped), and on
    SQLite double the share of time the host's writes meet an indexer's transaction;
    each would also take the other's commits for host writes. So an indexer works
    under a claim held for `seconds` (by the storage's clock), renewed after
    `renew_after_seconds`, and ended when it stops; another indexer finds the claim,
    waits `recheck_seconds` and looks again (an indexer that died without ending its
    claim is overruled once its process is known to be gone, or when the claim runs
    out)."""

    seconds: float = 10.0
    renew_after_seconds: float = 3.0
    recheck_seconds: float = 0.5

    def due(self, claimed_at: float | None, now: float) -> bool:
        """Whether to take or renew the claim before the next batch."""
        return claimed_at is None or now - claimed_at >= self.renew_after_seconds


@attrs.frozen
class RetryBackoff:
    """The pause before retrying after consecutive failed batches: `first_seconds`,
    doubled per further failure, at most `max_seconds`."""

    first_seconds: float = 0.5
    max_seconds: float = 60.0

    def delay(self, failures: int) -> float:
        if failures <= 0:
            return 0.0
        return min(self.max_seconds, self.first_seconds * 2.0 ** min(failures - 1, 32))
