"""The SQLite index's incremental FTS5 merge: one transaction per written table and
maintenance step, made of small merge statements (`MERGE_STEP_PAGES` each) until
nothing is left to merge or `MERGE_BUDGET_SECONDS` have passed. Time is stepped by
hand, never measured."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import attrs
import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite.index_store import (
    MERGE_BUDGET_SECONDS,
    MERGE_SEGMENTS_PER_LEVEL,
    MERGE_STATEMENTS,
    SqliteFts5IndexStore,
)
from chat_recall.adapters.sqlite_host.schema import REFERENCE_HOST_DDL
from chat_recall.application.indexer import IndexerSettings
from chat_recall.domain.indexing import BatchSizing
from chat_recall.domain.model import AppId
from chat_recall.domain.pacing import PacingRule

# Messages per indexer batch: one size throughout, so the segments written (and what a
# merge finds) do not depend on how fast this machine is at the moment.
BATCH = 32


@attrs.define
class SteppingClock:
    """Every reading moves on by `step` seconds: each merge statement 'takes' `step`."""

    step: float
    now: float = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def indexed(tmp_path: Path, batches: int, *, words_per_message: int = 400) -> Path:
    """A database with `batches` batches' worth of messages of many distinct words, so
    that each batch writes a segment of many pages."""
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
            for i in range(batches * BATCH)
        ],
    )
    connection.commit()
    connection.close()
    return path


def merge_statements(
    monkeypatch: pytest.MonkeyPatch, path: Path, step: float, batches: int
) -> list[int]:
    """Per batch, how many merge statements of its maintenance step merged something."""
    fixed = BatchSizing(initial=BATCH, minimum=BATCH, maximum=BATCH)
    # Nor may a batch shrink or be split (its time budget and limit are far away here).
    unhurried = PacingRule(
        quiet_budget_seconds=60.0, writing_budget_seconds=60.0, limit_seconds=60.0
    )
    settings = IndexerSettings(sizing=attrs.evolve(fixed, budget_seconds=60.0), pacing=unhurried)
    counts: list[int] = []
    with bootstrap.sqlite(path, settings=settings) as recall:
        store = recall.indexer.index
        assert isinstance(store, SqliteFts5IndexStore)
        store.clock = SteppingClock(step)
        merge = SqliteFts5IndexStore._merge

        def counted(self: SqliteFts5IndexStore, app_id: AppId) -> int:
            counts.append(merge(self, app_id))
            return counts[-1]

        monkeypatch.setattr(SqliteFts5IndexStore, "_merge", counted)
        for _ in range(batches):  # each writes one segment
            assert recall.indexer.run_batch().did_work
    return counts


def segments(path: Path) -> int:
    connection = sqlite3.connect(path)
    try:
        table = connection.execute("SELECT fts_table FROM chat_recall_apps").fetchone()[0]
        return int(
            connection.execute(f'SELECT count(DISTINCT segid) FROM "{table}_idx"').fetchone()[0]
        )
    finally:
        connection.close()


def test_nothing_to_merge_yet_takes_no_merging_statement(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # FTS5 merges a level once it holds `usermerge` segments: before then there is
    # nothing to merge, and the step stops at its first statement.
    below = MERGE_SEGMENTS_PER_LEVEL - 1
    path = indexed(tmp_path, below)
    counts = merge_statements(monkeypatch, path, MERGE_BUDGET_SECONDS / 10, batches=below)
    assert counts == [0] * below


def test_a_step_stops_once_its_time_budget_has_passed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Every statement 'takes' half the budget: a step that has work runs two of them.
    path = indexed(tmp_path, 12)
    counts = merge_statements(monkeypatch, path, MERGE_BUDGET_SECONDS / 2, batches=12)
    assert counts[:3] == [0, 0, 0]
    assert max(counts) == 2
    assert counts.count(2) >= 2


def test_a_step_with_time_to_spare_merges_until_nothing_is_left(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A clock that hardly moves: each step merges everything there is (at most
    # MERGE_STATEMENTS statements), so the segments stay few.
    path = indexed(tmp_path, 12)
    counts = merge_statements(monkeypatch, path, MERGE_BUDGET_SECONDS / 1000, batches=12)
    assert max(counts) > 2
    assert all(count < MERGE_STATEMENTS for count in counts)
    assert segments(path) < MERGE_SEGMENTS_PER_LEVEL


def merge_settings(path: Path) -> dict[str, int]:
    connection = sqlite3.connect(path)
    try:
        table = connection.execute("SELECT fts_table FROM chat_recall_apps").fetchone()[0]
        rows = connection.execute(
            f"SELECT k, v FROM \"{table}_config\" WHERE k IN ('automerge', 'usermerge')"
        )
        return {key: int(value) for key, value in rows}
    finally:
        connection.close()


def test_an_app_table_merges_in_our_steps_only_and_gathers_segments_per_level(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = indexed(tmp_path, 1)
    merge_statements(monkeypatch, path, MERGE_BUDGET_SECONDS / 10, batches=1)
    assert merge_settings(path) == {"automerge": 0, "usermerge": MERGE_SEGMENTS_PER_LEVEL}


def test_a_table_made_before_the_setting_gets_it_at_its_first_merge_step(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A table made by an earlier version: FTS5's default `usermerge` (no config row).
    path = indexed(tmp_path, 2)
    merge_statements(monkeypatch, path, MERGE_BUDGET_SECONDS / 10, batches=1)
    connection = sqlite3.connect(path)
    table = connection.execute("SELECT fts_table FROM chat_recall_apps").fetchone()[0]
    connection.execute(f"DELETE FROM \"{table}_config\" WHERE k = 'usermerge'")
    connection.commit()
    connection.close()
    assert merge_settings(path) == {"automerge": 0}
    merge_statements(monkeypatch, path, MERGE_BUDGET_SECONDS / 10, batches=1)
    assert merge_settings(path) == {"automerge": 0, "usermerge": MERGE_SEGMENTS_PER_LEVEL}


def test_each_transaction_of_a_step_is_spaced_and_the_last_ones_length_reported(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The reclaim and each table's merge are transactions of their own, each begun
    after the pacer's rest (back to back, a host write that waited for one would meet
    the next too), and the step reports how long its last one held the lock. A step
    that took no transaction reports none."""
    path = indexed(tmp_path, 1)
    with bootstrap.sqlite(path) as recall:
        recall.indexer.run_until_idle()
        store = recall.indexer.index
        assert isinstance(store, SqliteFts5IndexStore)
        assert store.maintain().held_seconds == 0.0  # nothing written, nothing deleted
        events: list[str] = []
        monkeypatch.setattr(store.database.pacer, "begin", lambda: events.append("rest"))
        reclaim, merge = SqliteFts5IndexStore._reclaim_step, SqliteFts5IndexStore._merge

        def reclaiming(self: SqliteFts5IndexStore) -> tuple[int, bool]:
            events.append("reclaim")
            return reclaim(self)

        def merging(self: SqliteFts5IndexStore, app_id: AppId) -> int:
            events.append(f"merge {app_id}")
            return merge(self, app_id)

        monkeypatch.setattr(SqliteFts5IndexStore, "_reclaim_step", reclaiming)
        monkeypatch.setattr(SqliteFts5IndexStore, "_merge", merging)
        host = sqlite3.connect(path)
        host.execute("INSERT INTO chats(id, app_id, title, created_at) VALUES (2, 2, 'u', 1)")
        host.execute("INSERT INTO messages(chat_id, role, content) VALUES (2, 'user', 'new')")
        host.execute("INSERT INTO messages(chat_id, role, content) VALUES (1, 'user', 'more')")
        host.execute("DELETE FROM messages WHERE id = 1")
        host.commit()
        host.close()
        # as after a batch that wrote both apps' tables, with a delete left to reclaim
        store._written.update({AppId(1), AppId(2)})
        done = store.maintain()
        assert events == ["reclaim", "rest", "merge 1", "rest", "merge 2", "rest"]
        assert done.reclaimed == 1
        assert done.held_seconds > 0.0
