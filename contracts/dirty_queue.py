"""`DirtyQueueContract`: host writes mark exactly what the SQLite triggers mark."""

from __future__ import annotations

from chat_recall.contracts.fixtures import (
    APP,
    OTHER_APP,
    USER,
    HarnessLifecycle,
    seed_chat,
)
from chat_recall.contracts.harness import StorageHarness


class DirtyQueueContract(HarnessLifecycle):
    def test_insert_marks_the_message_and_update_marks_it_again(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        _chat_id, (message_id,) = seed_chat(recall.host, APP, "c", [(USER, "draft")])
        first = {m.id: m.seq for m in recall.dirty.pending_messages(100)}
        assert message_id in first
        recall.host.update_message(message_id, "final")
        second = {m.id: m.seq for m in recall.dirty.pending_messages(100)}
        assert second[message_id] != first[message_id]
        assert len(second) == len(first)  # deduplicated, not queued twice

    def test_pending_messages_after_an_id_reads_past_it_in_id_order(
        self, harness: StorageHarness
    ) -> None:
        """The indexer reads the batch after the ones it handed out to planning
        processes past their last id."""
        recall = harness.recall()
        _, ids = seed_chat(recall.host, APP, "c", [(USER, f"m{i}") for i in range(5)])
        after = sorted(ids)[1]
        markers = recall.dirty.pending_messages(2, after=after)
        assert [m.id for m in markers] == sorted(ids)[2:4]
        assert {m.id for m in recall.dirty.pending_messages(10, after=max(ids))} == set()
        everything = {m.id: m.seq for m in recall.dirty.pending_messages(10)}
        assert {m.id: m.seq for m in markers} == {m.id: everything[m.id] for m in markers}

    def test_delete_clears_the_marker(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        _, (message_id,) = seed_chat(recall.host, APP, "c", [(USER, "x")])
        recall.host.delete_message(message_id)
        assert message_id not in {m.id for m in recall.dirty.pending_messages(100)}

    def test_rename_marks_the_chat_and_expanding_marks_its_messages(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        chat_id, ids = seed_chat(recall.host, APP, "old", [(USER, "a"), (USER, "b")])
        recall.indexer.run_until_idle()
        assert recall.dirty.backlog().is_empty
        recall.host.rename_chat(chat_id, "new")
        (marker,) = recall.dirty.pending_chats(10)
        assert marker.id == chat_id
        assert recall.dirty.expand_chat(marker) == 2
        assert {m.id for m in recall.dirty.pending_messages(10)} == set(ids)
        assert recall.dirty.pending_chats(10) == []

    def test_new_chats_messages_are_indexed_once(self, harness: StorageHarness) -> None:
        """Chats written with their messages (as an import does) are indexed once per
        message: a new chat's marker never re-marks messages that marked themselves,
        whatever the batches' order."""
        recall = harness.recall()
        ids = []
        indexed = 0
        for index in range(30):
            ids += seed_chat(recall.host, APP, f"c{index}", [(USER, "a"), (USER, "b")])[1]
            if index % 7 == 0:  # some messages indexed before their chat's turn
                indexed += recall.indexer.run_batch().indexed
        indexed += recall.indexer.run_until_idle().indexed
        assert recall.index.document_ids(APP) == sorted(ids)
        assert indexed == len(ids)

    def test_a_stale_chat_marker_is_not_cleared(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id, _ = seed_chat(recall.host, APP, "old", [(USER, "a")])
        recall.host.rename_chat(chat_id, "new")
        (stale,) = recall.dirty.pending_chats(10)
        recall.host.rename_chat(chat_id, "newer")
        recall.dirty.expand_chat(stale)
        assert [m.id for m in recall.dirty.pending_chats(10)] == [chat_id]

    def test_pending_in_app_ignores_other_apps_and_the_current_chat(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        recall.indexer.run_until_idle()
        current, _ = seed_chat(recall.host, APP, "current", [(USER, "a")])
        seed_chat(recall.host, OTHER_APP, "other app", [(USER, "b")])
        assert recall.dirty.pending_in_app(APP, current) == 0
        assert recall.dirty.pending_in_app(APP, None) == 1
        assert recall.dirty.pending_in_app(OTHER_APP, current) == 1

    def test_mark_all_messages_marks_every_message(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        _, ids_a = seed_chat(recall.host, APP, "a", [(USER, "x"), (USER, "y")])
        _, ids_b = seed_chat(recall.host, OTHER_APP, "b", [(USER, "z")])
        recall.indexer.run_until_idle()
        assert recall.dirty.mark_all_messages() == 3
        assert {m.id for m in recall.dirty.pending_messages(10)} == {*ids_a, *ids_b}
        assert recall.dirty.backlog().messages == 3

    def test_one_indexer_at_a_time_holds_the_claim_to_the_queue(
        self, harness: StorageHarness
    ) -> None:
        queue = harness.recall().dirty
        assert queue.claim("a", 60.0) is None  # free: taken
        assert queue.claim("a", 60.0) is None  # renewed
        assert queue.claim("b", 60.0) == "a"  # live: b waits, takes nothing
        assert queue.claim("b", 60.0, overrule="c") == "a"  # overrules only the named holder
        queue.release("b")  # not b's: no effect
        assert queue.claim("b", 60.0) == "a"
        assert queue.claim("b", 60.0, overrule="a") is None  # a is known gone: taken over
        assert queue.claim("a", 60.0) == "b"
        queue.release("b")
        assert queue.claim("a", -1.0) is None  # free again (taken as one that ran out)
        assert queue.claim("b", 60.0) is None
        queue.release("b")

    def test_a_live_claim_is_seen_by_any_reader(self, harness: StorageHarness) -> None:
        """A process that does not index tells that another one does (search says
        `elsewhere`)."""
        queue = harness.recall().dirty
        assert queue.claimant() is None
        assert queue.claim("a", 60.0) is None
        assert harness.recall().dirty.claimant() == "a"
        queue.release("a")
        assert queue.claimant() is None
        assert queue.claim("b", -1.0) is None  # one that has run out
        assert queue.claimant() is None
