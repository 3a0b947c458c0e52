"""The indexer's batch budget and its background worker, without sleeps."""

from __future__ import annotations

import attrs

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
