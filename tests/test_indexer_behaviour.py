"""The indexer's batch budget and its background worker, without sleeps."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

from chat_recall.adapters import bootstrap
from chat_recall.application.indexer import IndexerSettings
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.indexing import BatchSizing, HostYield
from chat_recall.domain.messages import Role
from chat_recall.domain.model import Maintenance
from chat_recall.domain.ports import Clock


@attrs.define
class SteppingClock:
    """Every reading of the monotonic clock moves it on by `step` seconds."""

    step: float
    ticks: float = 0.0

    def monotonic(self) -> float:
        self.ticks += self.step
        return self.ticks


def seeded_recall(clock: SteppingClock, messages: int) -> object:
    settings = IndexerSettings(sizing=BatchSizing(initial=64, minimum=1, maximum=256))
    recall = bootstrap.in_memory(settings=settings, overrides={Clock: clock})
    chat_id = recall.host.create_chat(1, "c", 1)
    for index in range(messages):
        recall.host.add_message(chat_id, Role.USER, f"message {index}", index + 2)
    return recall


def test_slow_batches_halve_the_batch_size() -> None:
    recall = seeded_recall(SteppingClock(step=0.02), 500)
    sizes = [recall.indexer.run_batch().batch_size for _ in range(4)]  # type: ignore[attr-defined]
    assert sizes == [64, 32, 16, 8]


def test_fast_full_batches_double_up_to_the_cap() -> None:
    recall = seeded_recall(SteppingClock(step=0.0001), 2000)
    sizes = [recall.indexer.run_batch().batch_size for _ in range(4)]  # type: ignore[attr-defined]
    assert sizes == [64, 128, 256, 256]


def test_notify_wakes_the_worker_which_indexes_new_writes() -> None:
    recall = bootstrap.in_memory(settings=IndexerSettings(poll_interval_seconds=3600))
    chat_id = recall.host.create_chat(1, "c", 1)
    recall.start()
    assert recall.indexer.wait_until_idle(timeout=30)
    recall.host.add_message(chat_id, Role.USER, "woken words", 2)
    recall.indexer.notify()
    assert recall.indexer.wait_until_idle(timeout=30)
    output = recall.search_chats(CallContext(1), {"query": "woken"})
    assert '"message_id":' in output
    recall.close()
    assert not recall.indexer.running


def test_batch_sizing_is_a_pure_policy() -> None:
    sizing = BatchSizing(budget_seconds=0.025, initial=64, minimum=4, maximum=128)
    assert sizing.next_size(64, 0.030, full=True) == 32  # over budget: halve
    assert sizing.next_size(5, 0.030, full=True) == 4  # never below the minimum
    assert sizing.next_size(64, 0.010, full=True) == 128  # full and fast: double
    assert sizing.next_size(128, 0.010, full=True) == 128  # never above the maximum
    assert sizing.next_size(64, 0.010, full=False) == 64  # a partial batch says nothing
    assert sizing.next_size(64, 0.020, full=True) == 64  # within budget: keep


def _host_and_events(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, host_yield: HostYield
) -> tuple[ChatRecall, Callable[[int, int], None], list[str], Callable[[], None]]:
    """A recall whose worker rests and maintenance steps are recorded in `events`, and a
    host writer on its own connection (as an app has it)."""
    from chat_recall.adapters.sqlite.index_store import SqliteFts5IndexStore

    path = tmp_path / "host.db"
    recall = bootstrap.sqlite(
        path, create_host_schema=True, settings=IndexerSettings(host_yield=host_yield)
    )
    host = sqlite3.connect(path)

    def host_writes(count: int, start: int) -> None:
        if start == 0:
            host.execute("INSERT INTO chats(id, app_id, title, created_at) VALUES (1, 1, 't', 1)")
        host.executemany(
            "INSERT INTO messages(chat_id, role, content, created_at) VALUES (1, 'user', ?, 2)",
            [(f"message {start + i}",) for i in range(count)],
        )
        host.commit()

    events: list[str] = []
    stopping = recall.indexer._stopping  # the worker's stop event, which rests wait on
    monkeypatch.setattr(stopping, "wait", lambda seconds: events.append(f"rest {seconds > 0}"))
    real_maintain = SqliteFts5IndexStore.maintain

    def maintain(self: SqliteFts5IndexStore) -> object:
        events.append("maintain")
        return real_maintain(self)

    monkeypatch.setattr(SqliteFts5IndexStore, "maintain", maintain)

    def close() -> None:
        host.close()
        recall.close()

    return recall, host_writes, events, close


def test_while_the_host_writes_the_batch_and_the_maintenance_step_each_get_a_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Back to back, a host write that waited for the batch would find the lock taken
    again by the maintenance step; a rest between them lets it in first."""
    every_batch = HostYield(maintain_every_seconds=0.0)
    recall, host_writes, events, close = _host_and_events(tmp_path, monkeypatch, every_batch)
    host_writes(16, 0)
    first = recall.indexer.run_batch()  # its first half second: small batches, short gaps
    assert first.indexed == 16
    assert events == ["rest True", "maintain"]  # a gap comes before maintenance
    assert first.rest_seconds == every_batch.min_rest_seconds  # not a burst's interval
    events.clear()
    _quiet(recall, every_batch)
    host_writes(1, 16)  # the host wrote since: it is active
    second = recall.indexer.run_batch()
    assert second.indexed == 1
    assert events == ["rest True", "maintain"]
    assert second.rest_seconds >= every_batch.burst_interval_seconds * 0.9
    events.clear()
    _quiet(recall, every_batch)
    host_writes(1, 17)
    recall.indexer._host_writes = recall.dirty.host_writes()  # seen: the host is quiet
    waits: list[float] = []
    monkeypatch.setattr(recall.indexer._stopping, "wait", waits.append)
    quiet = recall.indexer.run_batch()
    assert quiet.indexed == 1
    assert events == ["maintain"]
    # full speed: no rests, only a short gap between the batch and its maintenance step
    # (back to back, a host write that arrived meanwhile would wait for both), less what
    # looking for the next batch took in it
    (gap,) = waits
    assert 0 < gap <= every_batch.gap_seconds
    assert quiet.rest_seconds == 0
    close()


@pytest.mark.parametrize(("step_gaps", "gaps_after"), [(0.5, 0), (3.0, 1)])
def test_on_a_quiet_host_a_maintenance_step_that_held_the_lock_gets_a_gap_after_it(
    monkeypatch: pytest.MonkeyPatch, step_gaps: float, gaps_after: int
) -> None:
    """Back to back with the next batch, a host write that arrived during a step whose
    last transaction was long (a merge with work to do) would meet both: such a step is
    followed by a gap, as a batch is. One that held the lock briefly or not at all (a
    merge with nothing to do; tantivy's documents applied outside the lock) is not,
    however long the step took."""
    polite = HostYield(quiet_seconds=0.0)
    clock = SteppingClock(step=0.0)
    settings = IndexerSettings(host_yield=polite)
    recall = bootstrap.in_memory(settings=settings, overrides={Clock: clock})
    chat_id = recall.host.create_chat(1, "c", 1)
    recall.host.add_message(chat_id, Role.USER, "message", 2)
    indexer = recall.indexer
    indexer._host_writes = recall.dirty.host_writes()  # seen: the host is quiet
    store = type(indexer.index)
    real_maintain = store.maintain

    def maintain(self: object) -> Maintenance:
        done = real_maintain(self)  # type: ignore[arg-type]
        clock.ticks += polite.gap_seconds * 10  # a long step, whatever it held
        return attrs.evolve(done, held_seconds=polite.gap_seconds * step_gaps)

    monkeypatch.setattr(store, "maintain", maintain)
    waits: list[tuple[str, float]] = []
    monkeypatch.setattr(indexer._stopping, "wait", lambda seconds: waits.append(("wait", seconds)))
    report = indexer.run_batch()
    assert report.indexed == 1
    # the gap between the batch and the step; then one after a long step
    assert [seconds for _, seconds in waits] == [polite.gap_seconds] * (1 + gaps_after)
    assert report.rest_seconds == 0


def _quiet(recall: ChatRecall, polite: HostYield) -> None:
    """As if the indexer began, and the host last wrote, long ago."""
    indexer = recall.indexer
    indexer._host_since = indexer._host_wrote_at = -polite.quiet_seconds * 10


def test_while_the_host_writes_maintenance_waits_for_its_interval_and_for_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The maintenance step is a transaction of its own: while the host writes it runs at
    most once per `maintain_every_seconds`; when the host is quiet, after every batch."""
    polite = HostYield(maintain_every_seconds=3600.0)
    recall, host_writes, events, close = _host_and_events(tmp_path, monkeypatch, polite)
    host_writes(16, 0)
    assert not recall.indexer.run_batch().maintenance_deferred
    assert events == ["rest True", "maintain"]  # the first batch maintains: none ran yet
    events.clear()
    host_writes(1, 16)  # active, and the last step was just now
    deferred = recall.indexer.run_batch()
    assert deferred.indexed == 1
    assert deferred.maintenance_deferred
    assert events == []  # no maintenance, and the batch's rest is the report's
    assert deferred.rest_seconds >= polite.min_rest_seconds
    _quiet(recall, polite)  # the host goes quiet: the next batch maintains, with no rest
    quiet = recall.indexer.run_batch()
    assert events == ["maintain"]
    assert not quiet.maintenance_deferred
    assert quiet.rest_seconds == 0  # and having written nothing, nothing to rest for
    close()


def test_while_the_host_writes_a_batch_sizes_itself_to_its_transaction_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host write that meets one of our transactions waits for it, plus its busy
    handler's sleeps (1, 2, 5, 10 ms...): while the host writes, the batch's size adapts to
    the length of its transaction (`HostYield.transaction_seconds`), not of the whole
    batch, and never exceeds `batch_cap`."""
    slow = HostYield(
        quiet_seconds=3600.0, transaction_seconds=1e-9, first_size=16, maintain_every_seconds=3600.0
    )
    recall, host_writes, _, close = _host_and_events(tmp_path, monkeypatch, slow)
    host_writes(100, 0)
    # before it can tell whether the host writes: sized to the target too
    assert recall.indexer.run_batch().batch_size == 16
    _quiet(recall, slow)
    host_writes(1, 100)  # the host writes
    assert recall.indexer.run_batch().batch_size == 8  # that took longer than the target
    assert recall.indexer.run_batch().batch_size == 4
    _quiet(recall, slow)
    recall.indexer._host_writes = recall.dirty.host_writes()  # seen: the host is quiet
    assert recall.indexer.run_batch().batch_size == 64  # full speed: the usual sizing
    close()
    fast = HostYield(quiet_seconds=3600.0, transaction_seconds=60.0, first_size=4, batch_cap=8)
    (tmp_path / "fast").mkdir()
    recall, host_writes, _, close = _host_and_events(tmp_path / "fast", monkeypatch, fast)
    host_writes(100, 0)
    recall.indexer.run_batch()
    _quiet(recall, fast)
    host_writes(1, 100)
    sizes = [recall.indexer.run_batch().batch_size for _ in range(2)]
    assert sizes == [8, 8]  # well under the target: doubled, up to the cap
    close()


def test_host_yield_rests_for_its_duty_and_keeps_up_with_a_writing_host() -> None:
    polite = HostYield(duty=0.02, min_rest_seconds=0.005, batch_cap=64, burst_interval_seconds=0.5)
    assert polite.rest(0.010, active=False) == 0.0
    assert polite.rest(0.010, active=True) == pytest.approx(0.49)  # 10 ms of every 500
    assert polite.rest(0.0, active=True) == 0.005  # never less than a writer's next try
    assert polite.rest(0.001, active=True, since_burst=0.1) == pytest.approx(0.4)  # the interval
    assert polite.rest(0.020, active=True, since_burst=0.1) == pytest.approx(0.98)  # the duty
    # a batch that waited a second for a host transaction: not 49 seconds of rest
    assert polite.rest(1.03, active=True, since_burst=1.03) == polite.max_rest_seconds == 1.0
    assert polite.rest(0.001, active=False, since_burst=0.1) == 0.0
    # an indexer's first half second (not yet known whether the host writes): short gaps
    assert polite.rest(0.020, active=True, writing=False, since_burst=0.1) == 0.005
    assert polite.sizing().maximum == 64
    assert polite.sizing().budget_seconds == polite.transaction_seconds
    assert polite.maintains(None, writing=True)
    assert polite.maintains(0.1, writing=False)
    assert not polite.maintains(0.1, writing=True)
    assert polite.maintains(polite.maintain_every_seconds, writing=True)


def _two_recalls(tmp_path: Path) -> tuple[ChatRecall, ChatRecall, sqlite3.Connection]:
    path = tmp_path / "host.db"
    first = bootstrap.sqlite(path, create_host_schema=True)
    second = bootstrap.sqlite(path)
    host = sqlite3.connect(path)
    host.execute("INSERT INTO chats(id, app_id, title, created_at) VALUES (1, 1, 't', 1)")
    host.executemany(
        "INSERT INTO messages(chat_id, role, content, created_at) VALUES (1, 'user', ?, 2)",
        [(f"message {i}",) for i in range(10)],
    )
    host.commit()
    return first, second, host


def test_a_second_indexer_waits_while_the_first_holds_the_queue(tmp_path: Path) -> None:
    """Two indexers of one database (the app's and `chat-recall index`) would do the same
    work twice and double the time the host's writes meet an indexer's lock."""
    first, second, host = _two_recalls(tmp_path)
    assert first.indexer.run_batch().waiting_for is None
    waiting = second.indexer.run_batch()
    assert waiting.waiting_for == f"process {os.getpid()}"
    assert not waiting.did_work
    assert waiting.rest_seconds == second.indexer.settings.lease.recheck_seconds
    first.close()  # ends its claim: the second need not wait for it to run out
    assert second.indexer.run_batch().waiting_for is None
    assert second.indexer.run_until_idle().batches >= 1
    assert second.dirty.backlog().is_empty
    host.close()
    second.close()


def test_only_the_indexer_holding_the_claim_scans_for_orphans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start-up orphan scan reads every document and removes what it finds: an
    indexer waiting for another one (`chat-recall index` while the app's indexer works)
    would repeat it on every run, beside the other's work."""
    from chat_recall.adapters.sqlite.index_store import SqliteFts5IndexStore

    first, second, host = _two_recalls(tmp_path)
    assert first.indexer.run_batch().waiting_for is None
    scans: list[object] = []
    real = SqliteFts5IndexStore.remove_orphans

    def remove_orphans(self: SqliteFts5IndexStore) -> int:
        scans.append(self)
        return real(self)

    monkeypatch.setattr(SqliteFts5IndexStore, "remove_orphans", remove_orphans)
    assert second.indexer.run_batch().waiting_for is not None
    assert scans == []
    first.close()
    assert second.indexer.run_batch().waiting_for is None
    assert scans == [second.index]
    second.close()
    host.close()


def test_a_claim_left_by_a_process_that_is_gone_is_overruled(tmp_path: Path) -> None:
    first, second, host = _two_recalls(tmp_path)
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    gone = f"{socket.gethostname()}:{int(ended.stdout)}:dead"
    assert first.dirty.claim(gone, 60.0) is None  # as a killed `chat-recall index` left it
    assert first.indexer.run_batch().waiting_for is None  # overruled at once
    assert first.indexer.run_batch().indexed == 0  # everything indexed by the first batch
    assert second.indexer.run_batch().waiting_for == f"process {os.getpid()}"
    first.close()
    second.close()
    host.close()


def test_a_claim_of_an_indexer_dropped_without_stop_is_overruled(tmp_path: Path) -> None:
    first, second, host = _two_recalls(tmp_path)
    assert first.dirty.claim(f"{socket.gethostname()}:{os.getpid()}:dropped", 60.0) is None
    assert first.indexer.run_batch().waiting_for is None  # no live indexer has that name
    first.close()
    second.close()
    host.close()


def test_index_from_the_terminal_says_it_waits_for_the_apps_indexer(tmp_path: Path) -> None:
    from chat_recall.adapters.cli.indexing import drain

    first, second, host = _two_recalls(tmp_path)
    assert first.indexer.run_batch().waiting_for is None
    host.executemany(
        "INSERT INTO messages(chat_id, role, content, created_at) VALUES (1, 'user', ?, 2)",
        [(f"later {i}",) for i in range(5)],
    )
    host.commit()
    notes: list[str] = []

    class Notes:
        def update(self, completed: int, total: int | None, detail: str) -> None:
            notes.append(detail)
            if len(notes) == 2:  # the app's indexer catches up meanwhile
                first.indexer.run_until_idle()

        def close(self) -> None:
            pass

    report = drain(second, Notes())
    assert report.indexed == 0  # the other indexer did the work
    assert notes[0] == f"0 messages (another indexer is at work: process {os.getpid()}; waiting)"
    assert second.dirty.backlog().is_empty
    first.close()
    second.close()
    host.close()


def test_on_a_quiet_host_the_gap_reads_the_next_batch_which_then_uses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gap between a batch and its maintenance step needs no lock: the indexer reads
    the next batch's markers and rows in it (instead of idling), and that batch plans
    from them. The gap still lasts `gap_seconds` at least."""
    from chat_recall.adapters.sqlite.message_repo import SqliteMessageRepo

    polite = HostYield(quiet_seconds=0.0)  # quiet from the start
    recall, host_writes, events, close = _host_and_events(tmp_path, monkeypatch, polite)
    host_writes(100, 0)
    recall.indexer._host_writes = recall.dirty.host_writes()  # seen: the host is quiet
    real_rows = SqliteMessageRepo.source_rows

    def source_rows(self: SqliteMessageRepo, ids: list[int]) -> object:
        events.append(f"rows {len(ids)}")
        return real_rows(self, ids)  # type: ignore[arg-type]

    monkeypatch.setattr(SqliteMessageRepo, "source_rows", source_rows)
    clock = SteppingClock(step=0.0005)
    recall.indexer.clock = clock
    waits: list[float] = []
    monkeypatch.setattr(recall.indexer._stopping, "wait", waits.append)
    first = recall.indexer.run_batch()
    rest = 100 - first.indexed
    assert rest < recall.indexer.batch_size  # the next batch takes the rest
    # its own rows, then in the gap the next batch's, then the maintenance step
    assert events == [f"rows {first.indexed}", f"rows {rest}", "maintain"]
    (gap,) = waits
    assert gap == pytest.approx(polite.gap_seconds - clock.step)  # less the reading (1 step)
    events.clear()
    second = recall.indexer.run_batch()
    assert second.indexed == rest
    assert not any(event.startswith("rows") for event in events)  # from the rows read ahead
    recall.indexer.run_until_idle()
    assert len(recall.index.document_ids(1)) == 100  # type: ignore[arg-type]
    close()


def test_rows_changed_after_they_were_read_ahead_are_indexed_as_they_are_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    polite = HostYield(quiet_seconds=0.0)
    recall, host_writes, _, close = _host_and_events(tmp_path, monkeypatch, polite)
    host_writes(100, 0)
    recall.indexer._host_writes = recall.dirty.host_writes()
    recall.indexer.run_batch()  # and the next batch read ahead
    ahead = recall.indexer._read_ahead
    assert ahead is not None
    changed, deleted = ahead.markers[0].id, ahead.markers[1].id
    host = sqlite3.connect(tmp_path / "host.db")
    with host:
        host.execute("UPDATE messages SET content = 'rewritten words' WHERE id = ?", (changed,))
        host.execute("DELETE FROM messages WHERE id = ?", (deleted,))
    host.close()
    recall.indexer._host_writes = recall.dirty.host_writes()  # still quiet: the ahead is used
    recall.indexer.run_until_idle()
    (document,) = recall.index.documents(1, [changed])  # type: ignore[arg-type]
    assert document.body == "rewritten words"
    assert recall.index.documents(1, [deleted]) == []  # type: ignore[arg-type]
    assert len(recall.index.document_ids(1)) == 99  # type: ignore[arg-type]
    close()
