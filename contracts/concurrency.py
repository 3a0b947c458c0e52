"""`ConcurrencyContract`: a host writer, the indexer and readers at the same time.

Whatever the interleaving, a reader never fails, never sees a message the host deleted
before the read began, never sees another app's rows, and reads every chat in order;
when the writers stop and the indexer drains, the index equals the host rows. The
threads run a fixed number of operations (no sleeps, no timing assumptions).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

from chat_recall.application.tools.context import CallContext
from chat_recall.contracts.fixtures import APP, OTHER_APP, USER, HarnessLifecycle
from chat_recall.contracts.harness import StorageHarness
from chat_recall.domain.indexing import build_document
from chat_recall.domain.model import MessageId

WRITES = 120
READS = 60


class ConcurrencyContract(HarnessLifecycle):
    def test_writer_indexer_and_readers_at_once(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id = recall.host.create_chat(APP, "Busy chat", 1_700_000_000)
        foreign = recall.host.create_chat(OTHER_APP, "Other app", 1_700_000_000)
        recall.host.add_message(foreign, USER, "concurrent foreign words", 1_700_000_001)
        deleted: set[MessageId] = set()
        deleted_lock = threading.Lock()
        writing_done = threading.Event()
        failures: list[BaseException] = []

        def guarded(work: Callable[[], None]) -> Callable[[], None]:
            def run() -> None:
                try:
                    work()
                except BaseException as error:  # reported by the main thread
                    failures.append(error)

            return run

        def write() -> None:
            try:
                for index in range(WRITES):
                    message_id = recall.host.add_message(
                        chat_id, USER, f"concurrent words number{index}", 1_700_000_010 + index
                    )
                    if index % 3 == 0:
                        recall.host.delete_message(message_id)
                        with deleted_lock:
                            deleted.add(message_id)
            finally:
                writing_done.set()

        def index() -> None:
            while not writing_done.is_set():
                recall.indexer.run_batch()

        def read() -> None:
            context = CallContext(APP)
            for _ in range(READS):
                with deleted_lock:
                    gone = set(deleted)
                outcome = recall.call_tool("search_chats", context, {"query": "concurrent"})
                assert not outcome.is_error, outcome.output
                payload = json.loads(outcome.output)
                shown = {m["message_id"] for r in payload["results"] for m in r["matches"]}
                assert not shown & gone, "a message deleted before the search was returned"
                assert {r["chat_id"] for r in payload["results"]} <= {chat_id}
                page = recall.call_tool("read_chat", context, {"chat_id": chat_id, "limit": 20})
                assert not page.is_error, page.output
                messages = json.loads(page.output)["messages"]
                keys = [(m["created_at"], m["message_id"]) for m in messages]
                assert keys == sorted(keys)
                assert not {m["message_id"] for m in messages} & gone

        threads = [threading.Thread(target=guarded(work)) for work in (write, index, read, read)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        assert not any(thread.is_alive() for thread in threads)
        if failures:
            raise failures[0]
        recall.indexer.run_until_idle()
        remaining = [m.id for m in recall.repo.page(APP, chat_id, 0, 2 * WRITES).messages]
        rows = recall.repo.source_rows(remaining)
        expected = sorted(
            row.message.id
            for row in rows
            if row.app_id == APP and build_document(row, recall.policy) is not None
        )
        assert recall.index.document_ids(APP) == expected
        assert not set(expected) & deleted
