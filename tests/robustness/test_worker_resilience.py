"""The background worker never dies silently, and a poison row never fails its batch
forever: failures of any kind are recorded, surfaced by `status`, `index_status` and
telemetry, and retried with backoff; a row that fails a batch on its own is isolated
(bisection, or one-by-one loading) and quarantined while every other row is indexed."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
import pytest

from chat_recall.adapters import bootstrap
from chat_recall.application.health import IndexerState
from chat_recall.application.indexer import IndexerSettings
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.errors import StorageBusy, TransactionOverTime
from chat_recall.domain.host_values import UnreadableReason
from chat_recall.domain.indexing import BatchSizing, RetryBackoff
from chat_recall.domain.messages import Role
from chat_recall.domain.model import IndexDocument, MessageId, QuarantinedRow, SourceRow
from chat_recall.domain.pacing import PacingRule, retry_gap
from chat_recall.domain.ports import IndexUnitOfWork, IndexWriter, MessageRepo, Telemetry
from chat_recall.domain.telemetry import IndexFailureEvent
from tests.robustness.odd_rows import Storage

FAST_RETRY = IndexerSettings(
    backoff=RetryBackoff(first_seconds=0.001, max_seconds=0.01), poll_interval_seconds=3600
)


class PoisonError(Exception):
    """Not a ChatRecallError: what a bug or an unexpected driver failure raises."""


@attrs.frozen
class PoisonedWriter:
    writer: IndexWriter
    poison: str

    def put(self, documents: Sequence[IndexDocument]) -> None:
        if any(self.poison in document.body for document in documents):
            raise PoisonError("this document breaks the index")
        self.writer.put(documents)

    def remove(self, message_ids: Sequence[MessageId]) -> None:
        self.writer.remove(message_ids)

    def clear(self, markers: Sequence[Any]) -> None:
        self.writer.clear(markers)

    def quarantine(self, rows: Sequence[QuarantinedRow]) -> None:
        self.writer.quarantine(rows)

    @property
    def stale(self) -> AbstractSet[MessageId]:
        return self.writer.stale

    @property
    def set_aside(self) -> Sequence[QuarantinedRow]:
        return self.writer.set_aside


@attrs.define
class PoisonedUnitOfWork:
    """Fails every transaction that puts a document holding `poison` (after the real
    writes began, so the rollback is exercised), or every one while `broken`."""

    real: IndexUnitOfWork
    poison: str = "POISON"
    broken: BaseException | None = None
    attempts: int = 0

    @contextmanager
    def transaction(self, *, time_limit_seconds: float | None = None) -> Iterator[IndexWriter]:
        self.attempts += 1
        with self.real.transaction(time_limit_seconds=time_limit_seconds) as writer:
            if self.broken is not None:
                raise self.broken
            yield PoisonedWriter(writer, self.poison)


@attrs.define
class OverTimeUnitOfWork:
    """A transaction with a time limit that clears more than `most` markers runs over
    it: on SQLite for real (a statement that runs until the watchdog interrupts it), in
    memory by raising what the storage raises then. Records each transaction's limit
    and size."""

    real: IndexUnitOfWork
    most: int = 4
    seen: list[tuple[float | None, int]] = attrs.field(factory=list)

    @contextmanager
    def transaction(self, *, time_limit_seconds: float | None = None) -> Iterator[IndexWriter]:
        with self.real.transaction(time_limit_seconds=time_limit_seconds) as writer:
            yield OverTimeWriter(writer, self, time_limit_seconds)


@attrs.frozen
class OverTimeWriter:
    writer: IndexWriter
    owner: OverTimeUnitOfWork
    limit: float | None

    def clear(self, markers: Sequence[Any]) -> None:
        self.owner.seen.append((self.limit, len(markers)))
        self.writer.clear(markers)
        if self.limit is not None and len(markers) > self.owner.most:
            connection = getattr(self.writer, "connection", None)
            if connection is None:
                raise TransactionOverTime("over its limit")
            connection.execute(
                "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n "
                "WHERE x < 1000000000) SELECT count(*) FROM n"
            ).fetchone()

    def put(self, documents: Sequence[IndexDocument]) -> None:
        self.writer.put(documents)

    def remove(self, message_ids: Sequence[MessageId]) -> None:
        self.writer.remove(message_ids)

    def quarantine(self, rows: Sequence[QuarantinedRow]) -> None:
        self.writer.quarantine(rows)

    @property
    def stale(self) -> AbstractSet[MessageId]:
        return self.writer.stale

    @property
    def set_aside(self) -> Sequence[QuarantinedRow]:
        return self.writer.set_aside


@attrs.define
class FailureWatch:
    """Telemetry that records events and tells when `count` batches have failed."""

    count: int = 3
    events: list[Any] = attrs.field(factory=list)
    failed: threading.Event = attrs.field(factory=threading.Event)

    def emit(self, event: Any) -> None:
        self.events.append(event)
        if sum(isinstance(e, IndexFailureEvent) for e in self.events) >= self.count:
            self.failed.set()


@attrs.define
class PoisonedRepo:
    """Loading fails whenever the requested ids include `poison_id`."""

    real: MessageRepo
    poison_id: int

    def source_rows(self, message_ids: Sequence[MessageId]) -> list[SourceRow]:
        if self.poison_id in message_ids:
            raise PoisonError("this row cannot be loaded")
        return self.real.source_rows(message_ids)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def seed(recall: ChatRecall, count: int, poison_at: int | None = None) -> tuple[int, list[int]]:
    chat_id = recall.host.create_chat(1, "Batch", 1_700_000_000)
    ids = []
    for index in range(count):
        text = "POISON message" if index == poison_at else f"ordinary message {index}"
        ids.append(recall.host.add_message(chat_id, Role.USER, text, 1_700_000_000 + index))
    return chat_id, ids


def search(recall: ChatRecall, query: str) -> Any:
    return json.loads(recall.search_chats(CallContext(1), {"query": query}))


def quarantined(recall: ChatRecall) -> dict[int, UnreadableReason]:
    return {row.message_id: row.reason for row in recall.index.quarantine(100).rows}


@pytest.mark.parametrize("position", [0, 17, 63])
def test_a_row_that_fails_the_write_is_isolated_by_bisection(
    storage: Storage, position: int
) -> None:
    recall = storage.open()
    recall.indexer.unit_of_work = PoisonedUnitOfWork(recall.indexer.unit_of_work)
    _, ids = seed(recall, 64, poison_at=position)
    report = recall.indexer.run_until_idle()
    assert recall.dirty.backlog().is_empty
    assert report.indexed == 63
    assert quarantined(recall) == {ids[position]: UnreadableReason.INDEXING_FAILED}
    assert set(recall.index.document_ids(1)) == set(ids) - {ids[position]}
    assert recall.indexer.health.snapshot().failures == 0  # the batches succeeded


def test_a_batch_over_its_time_limit_is_written_in_halves_and_nothing_is_lost(
    storage: Storage,
) -> None:
    """The rolled-back batch is written again in halves, halves of halves while they
    still run over; nothing is quarantined, nothing is counted twice, and the batch
    size adapts down."""
    # 50 ms: long enough that a part of 4 never runs over it on a loaded machine; a host
    # never taken for writing, so that the quiet sizing applies throughout
    polite = PacingRule(limit_seconds=0.05, first_look_seconds=0.0)
    sixty_four = IndexerSettings(sizing=BatchSizing(initial=64), pacing=polite)
    recall = storage.open(settings=sixty_four)
    over_time = OverTimeUnitOfWork(recall.indexer.unit_of_work)
    recall.indexer.unit_of_work = over_time
    _, ids = seed(recall, 100)
    report = recall.indexer.run_batch()
    assert report.batch_size == report.indexed == 64  # one batch, written in sixteen parts
    limit = polite.limit_seconds
    assert over_time.seen[0] == (limit, 64)
    # every part of more than four ran over and was written again in smaller ones; the
    # parts of four or fewer were written, each message once
    assert sum(count for _, count in over_time.seen if count <= over_time.most) == 64
    assert {count for _, count in over_time.seen} >= {64, 32, 4}
    # every part of more than one marker ran under the limit (one of a single marker
    # has none: a loaded machine can push a part of four past 50 ms and split it so far)
    assert all(seen_limit == limit for seen_limit, count in over_time.seen if count > 1)
    assert recall.indexer.batch_size < 64  # the size adapts down
    recall.indexer.run_until_idle()
    assert set(recall.index.document_ids(1)) == set(ids)
    assert quarantined(recall) == {}
    assert recall.dirty.backlog().is_empty
    assert recall.indexer.health.snapshot().failures == 0
    assert search(recall, "ordinary")["results"]


def test_after_a_part_rolled_back_over_its_limit_a_waiting_host_write_gets_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rolled-back part held the lock for its whole limit: a host write that waited
    meanwhile sleeps long between its tries, so the next part begins only after a rest
    that lets it in (`PacingRule.rest`); after a part written on a quiet host, the
    usual short one."""
    polite = PacingRule(limit_seconds=0.05, first_look_seconds=0.0)
    recall = bootstrap.sqlite(
        tmp_path / "host.db", create_host_schema=True, settings=IndexerSettings(pacing=polite)
    )
    over_time = OverTimeUnitOfWork(recall.indexer.unit_of_work, most=8)
    recall.indexer.unit_of_work = over_time
    seed(recall, 16)
    pacer = recall.index.database.pacer  # type: ignore[attr-defined]
    events: list[tuple[str, float]] = []
    end = pacer.end

    def ended(held: float, read: float = 0.0) -> None:
        events.append(("held", held))
        end(held, read)

    monkeypatch.setattr(pacer, "end", ended)
    clear = OverTimeWriter.clear

    def noted(self: OverTimeWriter, markers: Sequence[Any]) -> None:
        events.append(("part", len(markers)))
        clear(self, markers)

    monkeypatch.setattr(OverTimeWriter, "clear", noted)
    report = recall.indexer.run_batch()
    assert report.indexed == 16
    parts = [event for event in events if event[0] == "part"]
    # 16 ran over and was rolled back, then halves (a loaded machine can push a half
    # past the real 50 ms limit too and split it again: only the first is certain)
    assert parts[:2] == [("part", 16), ("part", 8)]
    assert all(size <= 8 for _, size in parts[1:])
    rolled_back = events[events.index(("part", 16)) + 1][1]  # that transaction's hold
    assert rolled_back >= polite.limit_seconds
    assert polite.rest(rolled_back, writing=False) >= retry_gap(rolled_back)
    assert polite.rest(0.001, writing=False) == polite.quiet_rest_seconds
    recall.close()


def test_one_message_is_written_without_a_limit(storage: Storage) -> None:
    """A batch of one message has no time limit: its document is bounded by the
    projection's cap, and there is nothing smaller to write it in."""
    recall = storage.open()
    over_time = OverTimeUnitOfWork(recall.indexer.unit_of_work, most=0)
    recall.indexer.unit_of_work = over_time
    _, ids = seed(recall, 3)
    recall.indexer.run_until_idle()
    assert set(recall.index.document_ids(1)) == set(ids)
    assert quarantined(recall) == {}
    assert (None, 1) in over_time.seen
    assert all(limit is None for limit, count in over_time.seen if count == 1)


def test_a_row_that_fails_to_load_is_loaded_alone_and_quarantined(storage: Storage) -> None:
    recall = storage.open()
    _, ids = seed(recall, 40)
    recall.indexer.repo = PoisonedRepo(recall.indexer.repo, ids[5])
    recall.indexer.run_until_idle()
    assert quarantined(recall) == {ids[5]: UnreadableReason.READ_FAILED}
    assert set(recall.index.document_ids(1)) == set(ids) - {ids[5]}


def test_a_poison_row_alone_is_retried_then_isolated_once_it_has_company(
    storage: Storage,
) -> None:
    recall = storage.open()
    recall.indexer.unit_of_work = PoisonedUnitOfWork(recall.indexer.unit_of_work)
    chat_id, (poison,) = seed(recall, 1, poison_at=0)
    with pytest.raises(PoisonError):  # alone it cannot be told from a systemic failure
        recall.indexer.run_batch()
    assert recall.dirty.backlog().messages == 1
    assert quarantined(recall) == {}
    later = recall.host.add_message(chat_id, Role.USER, "ordinary later", 1_700_000_100)
    recall.indexer.run_until_idle()
    assert quarantined(recall) == {poison: UnreadableReason.INDEXING_FAILED}
    assert recall.index.document_ids(1) == [later]


@pytest.mark.parametrize("error", [PoisonError("everything breaks"), StorageBusy("locked")])
def test_a_systemic_failure_quarantines_nothing_and_keeps_every_marker(
    storage: Storage, error: BaseException
) -> None:
    recall = storage.open()
    recall.indexer.unit_of_work = PoisonedUnitOfWork(recall.indexer.unit_of_work, broken=error)
    seed(recall, 20)
    with pytest.raises(type(error)):
        recall.indexer.run_batch()
    assert recall.indexer.unit_of_work.attempts <= 12  # gives up isolating early
    assert quarantined(recall) == {}
    assert recall.dirty.backlog().messages == 20
    health = recall.indexer.health.snapshot()
    assert health.failures == 1
    assert health.error_kind == ("storage_busy" if isinstance(error, StorageBusy) else "internal")


def test_the_worker_survives_any_failure_reports_it_and_recovers(storage: Storage) -> None:
    telemetry = FailureWatch()
    recall = storage.open(settings=FAST_RETRY, overrides={Telemetry: telemetry})
    faulty = PoisonedUnitOfWork(recall.indexer.unit_of_work, broken=PoisonError("disk bug"))
    recall.indexer.unit_of_work = faulty
    _, ids = seed(recall, 5)
    recall.start()
    assert telemetry.failed.wait(30)  # three failed batches: the worker kept retrying
    assert recall.indexer.running  # and did not die
    health = recall.indexer.health.snapshot()
    assert health.state is IndexerState.FAILING
    assert health.error_kind == "internal"
    assert "disk bug" in (health.error or "")
    assert 0 < (health.retry_in_seconds or 0) <= 0.01
    output = search(recall, "ordinary")
    assert output["index_status"] == "stalled"
    assert output["index_coverage"] == {
        "indexed_messages": 0,
        "pending_messages": 5,
        "indexer": "failing",
    }
    assert "(internal)" in output["index_note"]
    assert "disk bug" not in json.dumps(output)  # only the kind reaches the model
    assert recall.status(1).state == "stalled"
    assert recall.status(1).indexer == "failing"
    failures = [e for e in telemetry.events if isinstance(e, IndexFailureEvent)]
    assert len(failures) >= 3
    assert {e.error_kind for e in failures} == {"internal"}
    faulty.broken = None  # the fault goes away: the next retry succeeds
    recall.notify()
    assert recall.wait_until_indexed(timeout=30)
    assert recall.indexer.health.snapshot().state is IndexerState.RUNNING
    output = search(recall, "ordinary")
    assert output["index_status"] == "ready"
    assert "index_note" not in output
    assert output["results"]
    assert recall.index.document_ids(1) == ids
    recall.stop()
    assert recall.indexer.health.snapshot().state is IndexerState.STOPPED


def test_the_backoff_doubles_up_to_its_cap() -> None:
    backoff = RetryBackoff(first_seconds=0.5, max_seconds=60)
    assert [backoff.delay(n) for n in range(9)] == [0, 0.5, 1, 2, 4, 8, 16, 32, 60]
    assert backoff.delay(10_000) == 60
