"""The indexer's pacing, batch sizes, claim and background worker, without sleeps."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.pacing import LockPacer
from chat_recall.application.indexer import IndexerSettings
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.indexing import BatchSizing
from chat_recall.domain.messages import Role
from chat_recall.domain.pacing import PacingRule, retry_gap
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


def test_the_pacing_rule_bounds_a_waiting_host_write_and_keeps_the_index_moving() -> None:
    """A writer that began waiting while we held the lock `held` seconds tries again
    within `retry_gap(held)` of our release (SQLite's busy handler: 1, 2, 5, 10 ms...):
    while the host writes, the rest after each transaction covers that gap, and is as
    long as the transaction at least, so the index holds the lock at most half the time
    and never less than its floor."""
    assert retry_gap(0.0005) == 0.001  # tries at 0, 1 ms: the next within 1 ms
    assert retry_gap(0.002) == 0.002  # tries at 1, 3 ms
    assert retry_gap(0.003) == 0.002
    assert retry_gap(0.004) == 0.005  # tries at 3, 8 ms
    assert retry_gap(0.015) == 0.010  # tries at 8, 18 ms
    assert retry_gap(10.0) == 0.100  # long after: every 100 ms
    rule = PacingRule()
    for held in (0.0005, 0.002, 0.003, 0.008, rule.limit_seconds, 0.05):
        rest = rule.rest(held, writing=True)
        assert rest >= held
        assert rest >= retry_gap(held) + rule.rest_margin_seconds
    assert rule.rest(0.010, writing=False) == rule.quiet_rest_seconds  # nobody waits
    # past the limit even a quiet host's first write may be waiting: it is let in
    assert rule.rest(0.020, writing=False) >= retry_gap(0.020)
    assert rule.budget(writing=True) < rule.budget(writing=False)
    assert 1 / 3 <= rule.writing_share_floor <= 1 / 2
    assert rule.writing(None, since_start=0.0)  # the first look: careful
    assert not rule.writing(None, since_start=rule.first_look_seconds)
    assert rule.writing(rule.writing_seconds / 2, since_start=100.0)
    assert not rule.writing(rule.writing_seconds, since_start=100.0)


@attrs.define
class ManualClock:
    now: float = 100.0

    def __call__(self) -> float:
        return self.now


def test_every_transaction_begins_after_the_rest_the_last_one_earned() -> None:
    clock = ManualClock()
    slept: list[float] = []
    rule = PacingRule(first_look_seconds=0.0)
    pacer = LockPacer(rule, clock=clock, sleep=slept.append)
    pacer.begin()  # the first: nothing to wait for
    clock.now += 0.010
    pacer.end(0.010)
    pacer.begin()  # at once: the quiet host's rest
    assert slept == [pytest.approx(rule.quiet_rest_seconds)]
    pacer.host_wrote()  # the host commits: writing from now on
    assert pacer.writing()
    assert pacer.budget() == rule.writing_budget_seconds
    clock.now += 0.003
    pacer.end(0.003)
    clock.now += 0.001  # planning the next batch meanwhile counts towards the rest
    pacer.begin()
    assert slept[-1] == pytest.approx(rule.rest(0.003, writing=True) - 0.001)
    clock.now += rule.writing_seconds + 1  # the host went quiet
    assert not pacer.writing()


def test_a_commit_by_the_host_sets_the_writing_pace(tmp_path: Path) -> None:
    """The host's commits move `PRAGMA data_version` on our connection; ours do not."""
    path = tmp_path / "host.db"
    recall = bootstrap.sqlite(
        path,
        create_host_schema=True,
        settings=IndexerSettings(pacing=PacingRule(first_look_seconds=0.0)),
    )
    pacer = recall.index.database.pacer  # type: ignore[attr-defined]
    chat_id = recall.host.create_chat(1, "c", 1)
    recall.host.add_message(chat_id, Role.USER, "our own", 2)
    recall.indexer.run_until_idle()
    assert not pacer.writing()
    host = sqlite3.connect(path)
    with host:
        host.execute(
            "INSERT INTO messages(chat_id, role, content) VALUES (?, 'user', 'x')", (chat_id,)
        )
    host.close()
    recall.indexer.run_until_idle()
    assert pacer.writing()
    recall.close()


def test_while_the_host_writes_a_batch_sizes_itself_to_the_writing_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host write that meets one of our transactions waits for it: while the host
    writes, parts are sized to the writing budget (a quarter of the quiet one), shrink
    while they take longer, and a quiet host gets the quiet size back."""
    rule = PacingRule(first_look_seconds=0.0)
    recall, host = _recall_and_host(tmp_path, IndexerSettings(pacing=rule))
    pacer = recall.index.database.pacer  # type: ignore[attr-defined]
    clock = ManualClock(time.monotonic())  # on from the pacer's own
    pacer.clock = clock
    host(200)  # the host writes: seen at the next transaction
    quiet_size = BatchSizing().initial
    writing_size = BatchSizing().at(rule.writing_budget_seconds).initial
    assert writing_size == quiet_size // 4
    within = rule.writing_budget_seconds * 0.75  # neither over budget nor under half
    monkeypatch.setattr(pacer, "last_seconds", lambda: within)
    first = recall.indexer.run_batch()
    assert first.batch_size == quiet_size  # a batch is planned whole, and written in parts
    assert first.indexed == quiet_size
    assert recall.indexer.batch_size == writing_size
    monkeypatch.setattr(pacer, "last_seconds", lambda: 1.0)  # every transaction takes long
    recall.indexer.run_batch()
    assert recall.indexer.batch_size == 1  # halved part after part
    clock.now += rule.writing_seconds  # the host went quiet
    assert recall.indexer.batch_size == quiet_size
    recall.close()


def _recall_and_host(
    tmp_path: Path, settings: IndexerSettings
) -> tuple[ChatRecall, Callable[[int], None]]:
    """A recall and a host that writes on its own connection, as an app does."""
    path = tmp_path / "host.db"
    recall = bootstrap.sqlite(path, create_host_schema=True, settings=settings)

    def host(count: int) -> None:
        connection = sqlite3.connect(path)
        with connection:
            connection.execute(
                "INSERT OR IGNORE INTO chats(id, app_id, title, created_at) VALUES (1, 1, 't', 1)"
            )
            connection.executemany(
                "INSERT INTO messages(chat_id, role, content, created_at) VALUES (1, 'user', ?, 2)",
                [(f"message {i}",) for i in range(count)],
            )
        connection.close()

    return recall, host


def test_the_idle_worker_finds_host_writes_nobody_told_it_of(tmp_path: Path) -> None:
    """A host in another process cannot call `notify()`: the idle worker looks at
    `DirtyQueue.host_writes` every `watch_seconds`, and indexes what it finds."""
    settings = IndexerSettings(watch_seconds=0.01, poll_interval_seconds=3600)
    recall, host = _recall_and_host(tmp_path, settings)
    recall.start()
    assert recall.indexer.wait_until_idle(timeout=30)
    host(3)  # no notify()
    deadline = time.monotonic() + 30
    while not recall.dirty.backlog().is_empty and time.monotonic() < deadline:
        recall.indexer.wait_until_idle(timeout=0.05)
    assert recall.dirty.backlog().is_empty
    assert len(recall.index.document_ids(1)) == 3  # type: ignore[arg-type]
    recall.close()


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


def test_the_next_batch_is_read_before_the_maintenance_step_and_then_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between a batch's write and its maintenance step no lock is needed, and the pacer
    rests anyway: the indexer reads the next batch's markers and rows in it, and that
    batch plans from them."""
    from chat_recall.adapters.sqlite.index_store import SqliteFts5IndexStore
    from chat_recall.adapters.sqlite_host.message_repo import SqliteMessageRepo

    quiet = PacingRule(first_look_seconds=0.0, writing_seconds=0.0)  # never taken as writing
    recall, host = _recall_and_host(tmp_path, IndexerSettings(pacing=quiet))
    pacer = recall.index.database.pacer  # type: ignore[attr-defined]
    within = quiet.quiet_budget_seconds * 0.75  # the size stays, however loaded the machine
    monkeypatch.setattr(pacer, "last_seconds", lambda: within)
    # A first batch of the initial size, then a few left: they fit the next batch even
    # if a loaded machine made the first transaction run long (the size halves).
    total = BatchSizing().initial + 8
    host(total)
    events: list[str] = []
    real_rows, real_maintain = SqliteMessageRepo.source_rows, SqliteFts5IndexStore.maintain

    def source_rows(self: SqliteMessageRepo, ids: list[int]) -> object:
        events.append(f"rows {len(ids)}")
        return real_rows(self, ids)  # type: ignore[arg-type]

    def maintain(self: SqliteFts5IndexStore) -> object:
        events.append("maintain")
        return real_maintain(self)

    monkeypatch.setattr(SqliteMessageRepo, "source_rows", source_rows)
    monkeypatch.setattr(SqliteFts5IndexStore, "maintain", maintain)
    first = recall.indexer.run_batch()
    rest = total - first.indexed
    assert 0 < rest <= recall.indexer.batch_size  # the next batch takes the rest
    # its own rows, then the next batch's, then the maintenance step
    assert events == [f"rows {first.indexed}", f"rows {rest}", "maintain"]
    events.clear()
    second = recall.indexer.run_batch()
    assert second.indexed == rest
    assert second.drained
    assert not any(event.startswith("rows") for event in events[:1])  # from the rows read
    recall.indexer.run_until_idle()
    assert len(recall.index.document_ids(1)) == total  # type: ignore[arg-type]
    recall.close()


def test_rows_changed_after_they_were_read_ahead_are_indexed_as_they_are_now(
    tmp_path: Path,
) -> None:
    settings = IndexerSettings(pacing=PacingRule(first_look_seconds=0.0))
    recall, host = _recall_and_host(tmp_path, settings)
    host(100)
    recall.indexer.run_batch()  # and the next batch read ahead
    ahead = recall.indexer.planner._read  # type: ignore[attr-defined]
    assert ahead is not None
    changed, deleted = ahead.markers[0].id, ahead.markers[1].id
    connection = sqlite3.connect(tmp_path / "host.db")
    with connection:
        connection.execute(
            "UPDATE messages SET content = 'rewritten words' WHERE id = ?", (changed,)
        )
        connection.execute("DELETE FROM messages WHERE id = ?", (deleted,))
    connection.close()
    recall.indexer.run_until_idle()
    (document,) = recall.index.documents(1, [changed])  # type: ignore[arg-type]
    assert document.body == "rewritten words"
    assert recall.index.documents(1, [deleted]) == []  # type: ignore[arg-type]
    assert len(recall.index.document_ids(1)) == 99  # type: ignore[arg-type]
    recall.close()
