"""A batch's write transaction runs as many statements for 40 messages as for 4, on
both SQLite-backed engines: each statement run is a return to Python, and a wait for
the GIL, with the host's write lock held (`executemany` is one run per row)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite_host.engines import Engine
from chat_recall.application.indexer import IndexerSettings
from chat_recall.contracts.fixtures import APP, ASSISTANT, USER, seed_chat
from chat_recall.domain.indexing import BatchSizing
from chat_recall.domain.pacing import PacingRule


def statements_per_write(tmp_path: Path, engine: Engine, messages: int) -> int:
    """The most statements one write transaction ran while one batch indexed a chat
    of `messages` messages."""
    path = tmp_path / f"{engine.value}-{messages}.db"
    # one batch for them all, however slow the machine
    settings = IndexerSettings(
        sizing=BatchSizing(budget_seconds=10.0),
        pacing=PacingRule(
            quiet_budget_seconds=10.0, writing_budget_seconds=10.0, limit_seconds=10.0
        ),
    )
    recall = bootstrap.sqlite(path, create_host_schema=True, engine=engine, settings=settings)
    roles = [USER, ASSISTANT]
    seed_chat(
        recall.host,
        APP,
        "statements",
        [(roles[n % 2], f"apricot message {n}") for n in range(messages)],
    )
    database = recall.index.database  # type: ignore[attr-defined]
    traced: list[str] = []
    with database.writing() as connection:  # the indexer's connection (this thread)
        connection.set_trace_callback(traced.append)
    report = recall.indexer.run_batch()
    connection.set_trace_callback(None)
    assert report.indexed == messages
    recall.close()
    counts: list[int] = []
    for statement in traced:
        if statement.startswith("--"):  # run inside SQLite by one of ours (FTS5's own)
            continue
        if statement.startswith("BEGIN"):
            counts.append(0)
        elif counts:
            counts[-1] += 1
    return max(counts)


@pytest.mark.parametrize("engine", [Engine.SQLITE, Engine.TANTIVY])
def test_a_batch_writes_in_as_many_statements_whatever_its_size(
    tmp_path: Path, engine: Engine
) -> None:
    few = statements_per_write(tmp_path, engine, 4)
    assert few > 3  # the trace sees the transaction's statements
    assert statements_per_write(tmp_path, engine, 40) == few
