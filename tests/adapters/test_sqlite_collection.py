"""While a write transaction of ours is open, the garbage collector does not run on its
own (a full collection in a large heap would hold the lock tens of milliseconds), and
collection is back afterwards unless the host had it off."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite.database import SqliteDatabase


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generation of every collection that starts while the fixture is active."""
    started: list[int] = []

    def record(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.callbacks.append(record)
    yield started
    gc.callbacks.remove(record)


@pytest.fixture
def database(tmp_path: Path) -> Iterator[SqliteDatabase]:
    recall = bootstrap.sqlite(tmp_path / "host.db", create_host_schema=True)
    yield recall.indexer.unit_of_work.database  # type: ignore[attr-defined]
    recall.close()


def cyclic_garbage(count: int) -> None:
    for _ in range(count):
        cycle: list[Any] = []
        cycle.append(cycle)


def test_no_collection_runs_inside_a_write_transaction_and_it_runs_after(
    database: SqliteDatabase, collections: list[int]
) -> None:
    assert gc.isenabled()
    with database.writing() as connection:
        connection.execute("SELECT 1")
        cyclic_garbage(50_000)  # ~70 collections' worth of allocations at the defaults
        during = list(collections)
        enabled_inside = gc.isenabled()
    cyclic_garbage(50_000)
    assert during == []
    assert not enabled_inside
    assert gc.isenabled()
    assert collections  # collection is back once the transaction ended


def test_a_failed_transaction_gives_collection_back(database: SqliteDatabase) -> None:
    enabled_inside: list[bool] = []

    def failing_batch() -> None:
        with database.writing():
            enabled_inside.append(gc.isenabled())
            raise RuntimeError("a failed batch")

    with pytest.raises(RuntimeError):
        failing_batch()
    assert enabled_inside == [False]
    assert gc.isenabled()


def test_a_host_that_had_collection_off_keeps_it_off(database: SqliteDatabase) -> None:
    gc.disable()
    try:
        with database.writing():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
