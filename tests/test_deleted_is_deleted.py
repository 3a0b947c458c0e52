"""Deleted is deleted, whatever the indexer is doing: deletes (of messages, of whole
chats, with the id reused at once, with a second indexer running in between) commit
while a batch is in flight, deterministically interleaved; neither tool ever returns
the deleted content, during the batch or after the index drained. Both adapters. The
scenario lives in `tests/benchmarks/race_deletes.py` (runnable for larger counts)."""

from __future__ import annotations

import pytest

from tests.benchmarks.race_deletes import run

ATTEMPTS = 150


@pytest.mark.parametrize("adapter", ["sqlite", "memory"])
def test_no_delete_during_an_in_flight_batch_ever_comes_back(adapter: str) -> None:
    outcome = run(ATTEMPTS, adapters=[adapter])[adapter]
    assert outcome.attempts >= ATTEMPTS
    assert outcome.details == ()
    assert outcome.resurrected == 0
