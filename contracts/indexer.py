"""`IndexerContract`: end to end, host writes through the indexer into search."""

from __future__ import annotations

from chat_recall.application.tools.search_chats import CURRENT_WITHIN_SECONDS
from chat_recall.contracts.fixtures import (
    APP,
    ASSISTANT,
    USER,
    HarnessLifecycle,
    seed_chat,
)
from chat_recall.contracts.harness import StorageHarness
from chat_recall.domain.indexing import build_document
from chat_recall.domain.model import AppId, MessageId
from chat_recall.domain.projection import TagClass, TagRule
from chat_recall.domain.query import MatchQuery, ScopedQuery


def found(harness: StorageHarness, word: str, app_id: AppId = APP) -> list[MessageId]:
    query = ScopedQuery(MatchQuery.of_words(word), app_id)
    return [c.message_id for c in harness.recall().index.search(query)]


class IndexerContract(HarnessLifecycle):
    def test_index_equals_the_projection_of_the_source_rows(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        _, ids = seed_chat(
            recall.host,
            APP,
            "Auth",
            [
                (USER, "Sessions or JWT?"),
                (ASSISTANT, 'Sessions. <dyad-write path="a.ts">SECRETCODE</dyad-write>'),
                (ASSISTANT, "<think>only thinking</think>"),
            ],
        )
        recall.indexer.run_until_idle()
        assert recall.dirty.backlog().is_empty
        expected = {
            row.message.id: build_document(row, recall.policy)
            for row in recall.repo.source_rows(ids)
        }
        indexed = {d.message_id: d for d in recall.index.documents(APP, ids)}
        assert set(indexed) == {mid for mid, doc in expected.items() if doc is not None}
        assert ids[2] not in indexed  # an empty projection is not indexed
        for message_id, document in indexed.items():
            reference = expected[message_id]
            assert reference is not None
            assert (document.title, document.body) == (reference.title, reference.body)
        assert found(harness, "SECRETCODE") == []

    def test_updates_and_title_changes_are_reindexed(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id, (message_id,) = seed_chat(recall.host, APP, "Before", [(USER, "draft words")])
        recall.indexer.run_until_idle()
        recall.host.update_message(message_id, "final wording")
        recall.host.rename_chat(chat_id, "Renamed")
        recall.indexer.run_until_idle()
        assert found(harness, "draft") == []
        assert found(harness, "wording") == [message_id]
        assert found(harness, "renamed") == [message_id]
        assert found(harness, "before") == []

    def test_small_batches_resume_without_losing_work(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        ids = []
        for index in range(25):
            texts = [(USER, f"marker{index} common")] + [(USER, "filler words")] * 19
            ids += seed_chat(recall.host, APP, f"c{index}", texts)[1]
        recall.indexer.run_batch()  # 500 messages: more than any one batch takes
        assert not recall.dirty.backlog().is_empty
        recall.indexer.run_until_idle()
        assert recall.index.document_ids(APP) == sorted(ids)
        assert found(harness, "marker24") == [ids[24 * 20]]

    def test_a_write_during_indexing_is_not_lost(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        _, (message_id,) = seed_chat(recall.host, APP, "c", [(USER, "first version")])
        markers = recall.dirty.pending_messages(10)
        recall.host.update_message(message_id, "second version")
        # A batch that read the old marker must not clear the new one.
        with recall.unit_of_work.transaction() as writer:
            writer.clear(markers)
        assert message_id in {m.id for m in recall.dirty.pending_messages(10)}
        recall.indexer.run_until_idle()
        assert found(harness, "second") == [message_id]

    def test_a_policy_change_rebuilds_while_old_rows_answer(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        sql = "<dyad-execute-sql>SELECT frobnicate</dyad-execute-sql> ok"
        _, (message_id,) = seed_chat(recall.host, APP, "c", [(ASSISTANT, sql)])
        recall.indexer.run_until_idle()
        assert found(harness, "frobnicate") == []
        recall.indexer.policy = recall.policy.with_rules(
            {"dyad-execute-sql": TagRule(TagClass.KEEP)}
        )
        recall.indexer.prepare()
        assert recall.dirty.backlog().messages == 1
        assert found(harness, "ok") == [message_id]  # old rows still answer
        recall.indexer.run_until_idle()
        assert found(harness, "frobnicate") == [message_id]

    def test_status_reports_indexing_until_the_backlog_drains(
        self, harness: StorageHarness
    ) -> None:
        """Pending messages that no indexer has caught up with since: `indexing`; once
        one has, only what is older than `CURRENT_WITHIN_SECONDS` keeps it so, and the
        status says how far behind the index is."""
        recall = harness.recall()
        current, _ = seed_chat(recall.host, APP, "current", [(USER, "now")])
        assert recall.dirty.caught_up_ago() is None  # no indexer has caught up yet
        assert recall.status(APP).state == "indexing"
        recall.indexer.run_until_idle()
        assert recall.status(APP).state == "ready"
        assert recall.status(APP).lag_seconds is None  # nothing pending
        recall.host.add_message(current, USER, "in the current chat", 5000)
        assert recall.status(APP, current).state == "ready"
        status = recall.status(APP)
        assert status.pending == 1
        assert status.lag_seconds is not None
        current_within = status.lag_seconds <= CURRENT_WITHIN_SECONDS
        assert status.state == ("ready" if current_within else "indexing")

    def test_caught_up_is_recorded_for_every_process_and_never_moves_back(
        self, harness: StorageHarness
    ) -> None:
        queue = harness.recall().dirty
        queue.note_caught_up(0.0)
        recent = queue.caught_up_ago()
        assert recent is not None
        assert 0.0 <= recent < 60.0
        queue.note_caught_up(3600.0)  # an older moment: the record stays
        later = queue.caught_up_ago()
        assert later is not None
        assert later < 60.0

    def test_the_background_worker_drains_and_stops(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        seed_chat(recall.host, APP, "c", [(USER, "background words")])
        recall.indexer.start()
        assert recall.indexer.wait_until_idle(timeout=30.0)
        assert found(harness, "background") != []
        assert recall.dirty.backlog().is_empty
        assert recall.indexer.stop(timeout=30.0)
        assert not recall.indexer.running

    def test_a_restart_continues_from_the_stored_state(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        _, ids = seed_chat(recall.host, APP, "c", [(USER, f"restart{i}") for i in range(5)])
        recall.indexer.run_batch()
        if not harness.capabilities.durable:
            recall.indexer.run_until_idle()
            assert found(harness, "restart4") == [ids[4]]
            return
        reopened = harness.reopen()
        reopened.indexer.run_until_idle()
        query = ScopedQuery(MatchQuery.of_words("restart4"), APP)
        assert [c.message_id for c in reopened.index.search(query)] == [ids[4]]
