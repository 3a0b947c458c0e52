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
    """How many dirty messages one batch takes, adapted so that each batch's write
    transaction stays within a time budget: a batch over budget halves the size, a full
    batch under half the budget doubles it, within [minimum, maximum]. 12 ms: the
    maintenance step after a batch takes up to ~10 ms more, 2 ms apart (`HostYield`), so
    a host write that arrives meanwhile waits for one of them, well within 25 ms (sized
    on the whole batch, planning included, at 25 ms, the transactions at 1M heavy
    messages still reached 25-29 ms). The budget, not `maximum`, sets the size: each batch
    and its maintenance step cost a gap, two transactions and two COMMITs whatever the
    size, and at 256 a fast machine's batches all stopped at the cap, well under budget
    (200k payload-heavy messages, four alternating pairs: 1,024 indexed 3-9% faster, its
    batches averaging ~400, its longest transaction 17-21 ms)."""

    budget_seconds: float = 0.012
    initial: int = 64
    minimum: int = 1
    maximum: int = 1024

    @classmethod
    def host_walk(cls) -> BatchSizing:
        """Rows per transaction when an install walks the host's messages (marking each
        for indexing, copying its place in its chat): a few thousand take ~10 ms, but
        the cost is each row's bytes (a row's later columns are read past its content),
        so the size follows the time, as a batch's does, under the same limit
        (`HostYield.limit_seconds`). At 1M payload-heavy messages a fixed 2,000 held the
        lock 21 ms on one run and 29 ms on a slower one."""
        return cls(budget_seconds=0.010, initial=2_000, minimum=100, maximum=8_000)

    def next_size(self, size: int, duration_seconds: float, *, full: bool) -> int:
        if duration_seconds > self.budget_seconds:
            return max(self.minimum, size // 2)
        if full and duration_seconds < self.budget_seconds / 2:
            return min(self.maximum, size * 2)
        return size


@attrs.frozen
class HostYield:
    """How the indexer makes way for a host that is writing. SQLite lets one writer at a
    time: a host write that arrives while an indexer transaction holds the lock waits
    (its busy handler sleeps 1, 2, 5, 10 ms... between tries). What sets the host's
    latency percentiles is the share of its writes that meet one of our transactions,
    which is the share of time the indexer holds the lock; on a small machine the CPU
    the indexer takes counts too.

    While the host has written within `quiet_seconds`, each batch's transaction aims at
    `transaction_seconds`: its size adapts to that (`sizing`, at most `batch_cap`
    messages), so a host write that meets one waits only for the busy handler's first
    sleeps (1 + 2 ms), under the host's own p99 (a 12 ms transaction costs the host write
    that meets it 18 ms). Batches start at most every `burst_interval_seconds`, and the
    work takes at most `duty` of the time: the share of time we hold the lock is the
    share of host writes that meet it. A rest is never shorter than `min_rest_seconds`
    (a gap a waiting writer's next try can use), nor longer than `max_rest_seconds`. The
    maintenance step (reclaiming
    deleted documents, merging index segments) is one more transaction: while the host
    writes it runs at most once per `maintain_every_seconds`, after a rest of its own.
    In an indexer's first `quiet_seconds`, before there is anything to compare, batches
    are sized so too, but separated by `min_rest_seconds` only. A quiet host gets full speed,
    with `gap_seconds` between a batch and its maintenance step, and after a step that
    held the lock longer than that: back to back, two would be one long hold of the lock
    for a host write that arrives meanwhile.

    Sizing is a forecast; `limit_seconds` is the bound. A batch's transaction still open
    after it is abandoned (rolled back whole) and its batch written in halves, after a
    rest as long as the limit (a host write that waited meanwhile gets in), a half
    again in halves if it too runs over; one message is written without a limit (its
    document is bounded by the projection's cap). Batches aim at 12 ms on a quiet host
    and 3 ms while it writes, so the limit only meets the rare batch that runs two or
    three times its usual length (at 1M payload-heavy messages, 1 in ~4,300 held the
    lock 27 ms): a host write waits at most for the limit and the commit after it."""

    quiet_seconds: float = 0.5
    burst_interval_seconds: float = 0.25
    transaction_seconds: float = 0.003
    first_size: int = 16
    batch_cap: int = 128
    duty: float = 0.02
    min_rest_seconds: float = 0.005
    # A rest is never longer: a batch that waited for the lock (a host transaction of a
    # second) counts that wait as busy, and its duty rest would be 49 times as long.
    max_rest_seconds: float = 1.0
    maintain_every_seconds: float = 5.0
    gap_seconds: float = 0.002
    limit_seconds: float = 0.015

    def sizing(self) -> BatchSizing:
        """How a batch's size adapts while the host writes: to its transaction's length."""
        return BatchSizing(
            self.transaction_seconds, initial=self.first_size, maximum=self.batch_cap
        )

    def rest(
        self,
        busy_seconds: float,
        *,
        active: bool,
        writing: bool = True,
        since_burst: float | None = None,
    ) -> float:
        """Seconds to rest after `busy_seconds` of work. `since_burst`, for the last rest
        of a batch: seconds since the batch began (the rest also fills the burst
        interval). Active but not `writing` (an indexer's first `quiet_seconds`, before
        it can tell): small batches with short gaps only, so a run on a quiet host does
        not start with a second of rests."""
        if not active:
            return 0.0
        if not writing:
            return self.min_rest_seconds
        rest = max(self.min_rest_seconds, busy_seconds * (1.0 - self.duty) / self.duty)
        if since_burst is not None:
            rest = max(rest, self.burst_interval_seconds - since_burst)
        return min(rest, self.max_rest_seconds)

    def maintains(self, since_last: float | None, *, writing: bool) -> bool:
        """Whether a maintenance step follows this batch, `since_last` seconds after the
        previous one (None: there was none yet), `writing`: the host wrote within
        `quiet_seconds`."""
        if not writing or since_last is None:
            return True
        return since_last >= self.maintain_every_seconds


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
