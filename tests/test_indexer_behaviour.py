"""The indexer's batch budget and its background worker, without sleeps."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import attrs
import pytest

from chat_recall.adapters import bootstrap
from chat_recall.application.indexer import IndexerSettings
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.indexing import BatchSizing
from chat_recall.domain.messages import Role
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


def test_while_the_host_writes_the_batch_and_the_maintenance_step_each_get_a_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Back to back, a host write that waited for the batch would find the lock taken
    again by the maintenance step; a rest between them lets it in first."""
    from chat_recall.adapters.sqlite.index_store import SqliteFts5IndexStore

    path = tmp_path / "host.db"
    recall = bootstrap.sqlite(path, create_host_schema=True)
    host = sqlite3.connect(path)  # the host's own connection, as an app has it

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
    host_writes(20, 0)
    first = recall.indexer.run_batch()  # nothing to compare yet: no host activity seen
    assert events == ["maintain"]
    assert first.rest_seconds == 0
    events.clear()
    host_writes(1, 20)  # the host wrote since: it is active
    second = recall.indexer.run_batch()
    assert second.indexed > 0
    assert events == ["rest True", "maintain"]  # the batch's rest comes before maintenance
    assert second.rest_seconds > 0  # and the maintenance step's after it
    host.close()
    recall.close()
