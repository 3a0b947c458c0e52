"""The live-host benchmark's agent dates a waiting marker by the host write that set it:
the check of every answer's `index_status` is only as good as that date."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from tests.benchmarks.live_host import CURRENT_WITHIN_SECONDS, Agent, Shared


def told(shared: Shared, message_id: int, at: float) -> None:
    """What the host tells after a write (`host_writes`)."""
    index = shared.writes.value
    shared.written_ids[index] = message_id
    shared.written_at[index] = at
    shared.writes.value = index + 1


def test_a_marker_is_dated_only_by_writes_into_the_same_copy(tmp_path: Path) -> None:
    """Every phase writes into a fresh copy of the fixture, so an id comes back: the new
    copy's marker of message 7 is not as old as the write of 7 into an earlier copy,
    neither before the host told of its new write (it committed a moment ago) nor
    after."""
    path = tmp_path / "copy.db"
    copy = sqlite3.connect(path)
    copy.execute("CREATE TABLE chat_recall_dirty_messages(message_id INTEGER PRIMARY KEY)")
    copy.commit()
    shared = Shared(capacity=8)
    told(shared, 7, time.monotonic() - 60)  # into the copy of a phase before
    agent = Agent(
        None,  # type: ignore[arg-type]  # (only searches use it)
        path,
        shared,
        mcp_style=False,
        first_write=shared.writes.value,
    )
    copy.execute("INSERT INTO chat_recall_dirty_messages VALUES (7)")  # committed, not yet told
    copy.commit()
    assert agent.oldest_waiting() <= CURRENT_WITHIN_SECONDS
    told(shared, 7, time.monotonic())
    assert agent.oldest_waiting() <= CURRENT_WITHIN_SECONDS
    told(shared, 8, time.monotonic() - 5)  # a write of this copy still waiting
    copy.execute("INSERT INTO chat_recall_dirty_messages VALUES (8)")
    copy.commit()
    assert agent.oldest_waiting() > CURRENT_WITHIN_SECONDS
    copy.close()
