"""The server drops every connection (a restart, an idle timeout, an administrator):
the pool replaces dead connections at checkout, so the next host write, indexer batch and
search simply work; nothing is lost or applied twice. (A connection lost in the middle of
a write is a typed `IndexUnavailable`, never retried blindly since whether it committed
is unknown: the indexer records it and retries the batch, like any failure.)"""

from __future__ import annotations

import json

from chat_recall.adapters import bootstrap
from chat_recall.application.indexer import IndexerSettings
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.errors import IndexUnavailable
from chat_recall.domain.indexing import RetryBackoff
from chat_recall.domain.messages import Role
from tests.postgres_server import terminate_other_connections

# The worker's retry backoff starts at 0.5 s; these tests retry quickly.
FAST_RETRY = IndexerSettings(backoff=RetryBackoff(first_seconds=0.01, max_seconds=0.1))


def _found(text: str) -> list[int]:
    return [m["message_id"] for r in json.loads(text)["results"] for m in r["matches"]]


def test_indexing_survives_a_lost_connection(postgres_dsn: str) -> None:
    with bootstrap.postgres(postgres_dsn, create_host_schema=True, settings=FAST_RETRY) as recall:
        chat_id = recall.host.create_chat(1, "c", 1)
        first = recall.host.add_message(chat_id, Role.USER, "before the restart", 2)
        recall.indexer.run_until_idle()
        second = recall.host.add_message(chat_id, Role.USER, "after the restart", 3)
        assert terminate_other_connections(postgres_dsn) >= 1
        failures = 0
        for _ in range(5):
            try:
                report = recall.indexer.run_batch()
            except IndexUnavailable:
                failures += 1
                continue
            if not report.did_work and recall.dirty.backlog().is_empty:
                break
        assert failures == 0  # the dead connections were replaced before use
        assert recall.dirty.backlog().is_empty
        output = recall.search_chats(CallContext(1), {"query": "restart"})
        assert sorted(_found(output)) == [first, second]  # each once, none lost


def test_the_background_indexer_recovers_from_a_lost_connection(postgres_dsn: str) -> None:
    with bootstrap.postgres(postgres_dsn, create_host_schema=True, settings=FAST_RETRY) as recall:
        recall.start()
        chat_id = recall.host.create_chat(1, "c", 1)
        recall.host.add_message(chat_id, Role.USER, "written before", 2)
        recall.notify()
        assert recall.wait_until_indexed(timeout=30)
        assert terminate_other_connections(postgres_dsn) >= 1
        later = recall.host.add_message(chat_id, Role.USER, "written after the kill", 3)
        recall.notify()
        assert recall.wait_until_indexed(timeout=60)
        output = recall.search_chats(CallContext(1), {"query": "kill"})
        assert _found(output) == [later]
