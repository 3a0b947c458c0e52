"""`MessageRepoContract`: the read side of the host's chats and messages."""

from __future__ import annotations

import pytest

from chat_recall.contracts.fixtures import (
    APP,
    ASSISTANT,
    MISSING_CHAT,
    MISSING_MESSAGE,
    OTHER_APP,
    USER,
    HarnessLifecycle,
    seed_chat,
)
from chat_recall.contracts.harness import StorageHarness
from chat_recall.domain.errors import NotFound
from chat_recall.domain.model import AppId


class MessageRepoContract(HarnessLifecycle):
    def test_chat_is_found_only_within_its_app(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id, _ = seed_chat(recall.host, APP, "Auth", [(USER, "hello")])
        chat = recall.repo.chat(APP, chat_id)
        assert (chat.id, chat.app_id, chat.title) == (chat_id, 1, "Auth")
        with pytest.raises(NotFound) as other_app:
            recall.repo.chat(OTHER_APP, chat_id)
        with pytest.raises(NotFound) as missing:
            recall.repo.chat(APP, MISSING_CHAT)
        assert str(other_app.value) == str(missing.value)

    def test_source_rows_join_the_chat_and_skip_missing_ids(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id, (first, second) = seed_chat(
            recall.host, AppId(7), "Billing", [(USER, "use stripe"), (ASSISTANT, "ok")]
        )
        rows = recall.repo.source_rows([second, first, MISSING_MESSAGE])
        assert [row.message.id for row in rows] == [first, second]
        assert {(row.app_id, row.title, row.message.chat_id) for row in rows} == {
            (7, "Billing", chat_id)
        }
        assert rows[0].message.content == "use stripe"

    def test_source_rows_of_a_deleted_chat_are_gone(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id, ids = seed_chat(recall.host, APP, "t", [(USER, "x")])
        recall.host.delete_chat(chat_id)
        assert recall.repo.source_rows(ids) == []

    def test_page_orders_by_time_then_id_with_compaction_summaries_first(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        host = recall.host
        chat_id = host.create_chat(APP, "c", 100)
        a = host.add_message(chat_id, USER, "first", 110)
        b = host.add_message(chat_id, ASSISTANT, "second", 120)
        trigger = host.add_message(chat_id, USER, "third (triggers compaction)", 130)
        summary = host.add_message(chat_id, ASSISTANT, "summary", 129, is_compaction_summary=True)
        same_time = host.add_message(chat_id, ASSISTANT, "reply", 130)
        window = recall.repo.page(APP, chat_id, 0, 10)
        assert [m.id for m in window.messages] == [a, b, summary, trigger, same_time]
        assert window.messages[2].is_compaction_summary
        assert not window.has_more_before
        assert not window.has_more_after

    def test_page_bounds_and_flags(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id, ids = seed_chat(recall.host, APP, "c", [(USER, f"m{i}") for i in range(7)])
        window = recall.repo.page(APP, chat_id, 2, 3)
        assert [m.id for m in window.messages] == ids[2:5]
        assert window.has_more_before
        assert window.has_more_after
        last = recall.repo.page(APP, chat_id, 5, 3)
        assert [m.id for m in last.messages] == ids[5:]
        assert not last.has_more_after
        assert recall.repo.page(APP, chat_id, 50, 3).messages == ()

    def test_page_of_another_apps_chat_is_not_found(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id, _ = seed_chat(recall.host, APP, "c", [(USER, "secret")])
        with pytest.raises(NotFound):
            recall.repo.page(OTHER_APP, chat_id, 0, 10)

    def test_snapshot_excludes_the_in_flight_message_and_after(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        chat_id, ids = seed_chat(recall.host, APP, "c", [(USER, f"m{i}") for i in range(5)])
        window = recall.repo.page(APP, chat_id, 0, 10, before_message_id=ids[3])
        assert [m.id for m in window.messages] == ids[:3]
        assert not window.has_more_after
        with pytest.raises(NotFound):
            recall.repo.around(APP, chat_id, ids[4], 1, 1, before_message_id=ids[3])

    def test_around_returns_the_target_and_its_neighbours(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id, ids = seed_chat(recall.host, APP, "c", [(USER, f"m{i}") for i in range(9)])
        window = recall.repo.around(APP, chat_id, ids[4], 2, 3)
        assert [m.id for m in window.messages] == ids[2:8]
        assert window.has_more_before
        assert window.has_more_after
        edge = recall.repo.around(APP, chat_id, ids[0], 3, 0)
        assert [m.id for m in edge.messages] == [ids[0]]
        assert not edge.has_more_before
        assert edge.has_more_after

    def test_around_missing_foreign_or_mismatched_ids_are_not_found(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        chat_a, ids_a = seed_chat(recall.host, APP, "a", [(USER, "x")])
        chat_b, _ = seed_chat(recall.host, APP, "b", [(USER, "y")])
        chat_c, ids_c = seed_chat(recall.host, OTHER_APP, "c", [(USER, "z")])
        messages = []
        for app_id, chat_id, message_id in (
            (APP, chat_b, ids_a[0]),  # mismatched chat
            (APP, chat_c, ids_c[0]),  # another app's chat
            (OTHER_APP, chat_a, ids_a[0]),  # wrong app
            (APP, chat_a, MISSING_MESSAGE),  # missing
        ):
            with pytest.raises(NotFound) as raised:
                recall.repo.around(app_id, chat_id, message_id, 1, 1)
            messages.append(str(raised.value))
        assert len(set(messages)) == 1

    def test_last_message_at_is_scoped_and_set_based(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_a, _ = seed_chat(recall.host, APP, "a", [(USER, "x"), (USER, "y")], start=500)
        chat_b, _ = seed_chat(recall.host, APP, "b", [(USER, "z")], start=900)
        chat_c, _ = seed_chat(recall.host, OTHER_APP, "c", [(USER, "w")], start=100)
        latest = recall.repo.last_message_at(APP, [chat_a, chat_b, chat_c])
        assert latest == {chat_a: 502, chat_b: 901}

    def test_next_message_ids_follow_the_chat_order_within_the_app(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        host = recall.host
        chat_id = host.create_chat(APP, "c", 100)
        question = host.add_message(chat_id, USER, "q", 110)
        answer = host.add_message(chat_id, ASSISTANT, "a", 120)
        summary = host.add_message(chat_id, ASSISTANT, "s", 115, is_compaction_summary=True)
        other_chat, (foreign,) = seed_chat(recall.host, OTHER_APP, "x", [(USER, "z")])
        found = recall.repo.next_message_ids(
            APP, [question, summary, answer, foreign, MISSING_MESSAGE]
        )
        assert found == {question: summary, summary: answer}
        assert recall.repo.next_message_ids(OTHER_APP, [question]) == {}
        del other_chat
