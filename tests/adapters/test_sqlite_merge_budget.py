"""The SQLite index's incremental FTS5 merge adapts its page budget per table to the
time its merge transaction took: halved over `MERGE_BUDGET_SECONDS`, doubled under half
of it, within `MERGE_PAGES`; a step that found nothing to merge leaves it as it was.
Time is stepped by hand, never measured."""

from __future__ import annotations

import random
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
from chat_recall.application.indexer import IndexerSettings
from chat_recall.domain.indexing import BatchSizing, HostYield
from chat_recall.domain.model import AppId

# Messages per indexer batch: one size throughout (16-64 all give the figures below).
BATCH = 32


@attrs.define
class SteppingClock:
    """Every reading moves on by `step` seconds: each merge statement 'takes' `step`."""

    step: float
    now: float = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def merge_budgets(
    tmp_path: Path, step: float, batches: int, *, words_per_message: int = 4
) -> list[int]:
    """The budget after each batch. Every batch writes one FTS5 segment; FTS5 merges a
    level once it holds `usermerge` (4) segments, so the first three steps merge nothing.
    Messages of many distinct words make segments of many pages, so that a merge step
    ends on its page budget with work left."""
    words = random.Random(5)
    path = tmp_path / "host.db"
    connection = sqlite3.connect(path)
    connection.executescript(REFERENCE_HOST_DDL)
    connection.execute("INSERT INTO chats(id, app_id, title, created_at) VALUES (1, 1, 't', 1)")
    connection.executemany(
        "INSERT INTO messages(chat_id, role, content, created_at) VALUES (1, 'user', ?, ?)",
        [
            (
                f"message {i} about caching "
                + " ".join(f"t{words.randrange(10**7)}" for _ in range(words_per_message)),
                10 + i,
            )
            for i in range(batches * 300)
        ],
    )
    connection.commit()
    connection.close()
    # Batches of one size: the segments they write (and so what a merge step finds) must
    # not depend on how fast this machine is at the moment (batch sizes adapt to time).
    fixed = BatchSizing(initial=BATCH, minimum=BATCH, maximum=BATCH)
    settings = IndexerSettings(
        sizing=fixed, host_yield=HostYield(first_size=BATCH, batch_cap=BATCH)
    )
    with bootstrap.sqlite(path, settings=settings) as recall:
        store = recall.indexer.index
        assert isinstance(store, SqliteFts5IndexStore)
        store.clock = SteppingClock(step)
        budgets = []
        for _ in range(batches):
            assert recall.indexer.run_batch().did_work
            budgets.append(store.merge_pages(AppId(1)))
        return budgets


def test_a_step_with_nothing_to_merge_leaves_the_budget_as_it_was(tmp_path: Path) -> None:
    # Each step 'takes' twice the budget, but there is nothing to merge yet: a cheap
    # no-op step must not shrink the budget, nor (the bug) a fast one grow it to the
    # maximum before the next real merge.
    _, first, _ = MERGE_PAGES
    for name, step in (("slow", MERGE_BUDGET_SECONDS * 2), ("fast", MERGE_BUDGET_SECONDS / 10)):
        (tmp_path / name).mkdir()
        assert merge_budgets(tmp_path / name, step, batches=3) == [first] * 3


def test_slow_merge_steps_halve_the_budget_down_to_the_minimum(tmp_path: Path) -> None:
    low, first, _ = MERGE_PAGES
    budgets = merge_budgets(tmp_path, MERGE_BUDGET_SECONDS * 2, batches=16)
    assert budgets[0] == first
    assert budgets == sorted(budgets, reverse=True)
    assert budgets[-1] == low


def test_fast_merge_steps_that_end_on_their_budget_double_it(tmp_path: Path) -> None:
    _, first, high = MERGE_PAGES
    budgets = merge_budgets(tmp_path, MERGE_BUDGET_SECONDS / 10, batches=16, words_per_message=400)
    assert budgets[0] == first
    assert budgets == sorted(budgets)
    assert budgets[-1] >= min(high, first * 4)


def test_fast_merge_steps_that_ran_out_of_work_keep_it(tmp_path: Path) -> None:
    # Tiny segments: every merge finishes within its budget. Its speed says nothing about
    # a step that writes the whole budget (the 28.8 ms steps of the module's comment).
    _, first, _ = MERGE_PAGES
    assert merge_budgets(tmp_path, MERGE_BUDGET_SECONDS / 10, batches=16) == [first] * 16
