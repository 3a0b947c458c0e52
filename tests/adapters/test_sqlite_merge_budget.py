"""The SQLite index's incremental FTS5 merge adapts its page budget per table to the
time its merge statement took: halved over `MERGE_BUDGET_SECONDS`, doubled under half
of it, within `MERGE_PAGES`. Time is stepped by hand, never measured."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import attrs

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite.index_store import (
    MERGE_BUDGET_SECONDS,
    MERGE_PAGES,
    SqliteFts5IndexStore,
)
from chat_recall.adapters.sqlite.schema import REFERENCE_HOST_DDL
from chat_recall.domain.model import AppId


@attrs.define
class SteppingClock:
    """Every reading moves on by `step` seconds: each merge statement 'takes' `step`."""

    step: float
    now: float = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def merge_budgets(tmp_path: Path, step: float, batches: int) -> list[int]:
    path = tmp_path / "host.db"
    connection = sqlite3.connect(path)
    connection.executescript(REFERENCE_HOST_DDL)
    connection.execute("INSERT INTO chats(id, app_id, title, created_at) VALUES (1, 1, 't', 1)")
    connection.executemany(
        "INSERT INTO messages(chat_id, role, content, created_at) VALUES (1, 'user', ?, ?)",
        [(f"message {i} about caching", 10 + i) for i in range(batches * 300)],
    )
    connection.commit()
    connection.close()
    with bootstrap.sqlite(path) as recall:
        store = recall.indexer.index
        assert isinstance(store, SqliteFts5IndexStore)
        store.clock = SteppingClock(step)
        budgets = []
        for _ in range(batches):
            recall.indexer.run_batch()
            budgets.append(store.merge_pages(AppId(1)))
        return budgets


def test_slow_merge_steps_halve_the_budget_down_to_the_minimum(tmp_path: Path) -> None:
    low, first, _ = MERGE_PAGES
    budgets = merge_budgets(tmp_path, MERGE_BUDGET_SECONDS * 2, batches=6)
    assert budgets[0] == first // 2
    assert budgets == sorted(budgets, reverse=True)
    assert budgets[-1] == low


def test_fast_merge_steps_double_the_budget_up_to_the_maximum(tmp_path: Path) -> None:
    _, first, high = MERGE_PAGES
    budgets = merge_budgets(tmp_path, MERGE_BUDGET_SECONDS / 10, batches=6)
    assert budgets[0] == first * 2
    assert budgets == sorted(budgets)
    assert budgets[-1] == min(high, first * 2**6)
