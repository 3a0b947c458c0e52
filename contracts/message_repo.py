"""`MessageRepoContract`: the read side of the host's chats and messages."""

from __future__ import annotations

import attrs
import pytest

from chat_recall.contracts.fixtures import (
    APP,
    ASSISTANT,
    EMPTY_APP,
    MISSING_CHAT,
    MISSING_MESSAGE,
    OTHER_APP,
    USER,
    HarnessLifecycle,
    seed_chat,
)
from chat_recall.contracts.harness import StorageHarness
from chat_recall.domain.errors import NotFound
from chat_recall.domain.listing import ChatActivity, ChatListQuery, ChatPage, ListOrder
from chat_recall.domain.model import AppId, ChatId
from chat_recall.domain.time_window import TimeWindow


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

    def test_list_chats_lists_the_apps_chats_by_their_activity(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        host = recall.host
        older, _ = seed_chat(host, APP, "Older", [(USER, "first ask"), (ASSISTANT, "ok")], 100)
        newer = host.create_chat(APP, "Newer", 200)
        host.add_message(newer, ASSISTANT, "assistant speaks first", 210)
        host.add_message(newer, USER, "then the user", 220)
        host.add_message(newer, USER, "and again", 230)
        seed_chat(host, OTHER_APP, "Foreign", [(USER, "another app")], 900)
        host.create_chat(APP, "Empty", 950)  # no message: no activity to list it by
        page = recall.repo.list_chats(ChatListQuery(APP))
        assert not page.has_more
        assert [s.chat.id for s in page.chats] == [newer, older]
        first, second = page.chats
        assert (first.chat.title, first.chat.app_id) == ("Newer", APP)
        assert (first.first_at, first.last_at, first.message_count) == (210, 230, 3)
        assert first.first_user_message is not None
        assert first.first_user_message.content == "then the user"
        assert (second.first_at, second.last_at, second.message_count) == (101, 102, 2)
        assert recall.repo.list_chats(ChatListQuery(EMPTY_APP)) == ChatPage((), False)

    def test_list_chats_reads_each_kind_of_stored_time(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id = recall.host.create_chat(APP, "mixed", 1_700_000_000)
        recall.host.add_message(chat_id, USER, "in seconds", 1_700_000_000)
        recall.host.add_message(chat_id, ASSISTANT, "in milliseconds", 1_700_000_100_000)
        (summary,) = recall.repo.list_chats(ChatListQuery(APP)).chats
        assert (summary.first_at, summary.last_at) == (1_700_000_000, 1_700_000_100)

    def test_list_chats_leaves_out_the_excluded_chat(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        kept, _ = seed_chat(recall.host, APP, "a", [(USER, "x")], 100)
        current, _ = seed_chat(recall.host, APP, "b", [(USER, "y")], 200)
        page = recall.repo.list_chats(ChatListQuery(APP, exclude_chat_id=current))
        assert [s.chat.id for s in page.chats] == [kept]

    def test_list_chats_window_keeps_chats_active_within_it(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        host = recall.host
        spans = {}
        for title, times in (("early", (100, 150)), ("across", (180, 400)), ("late", (300, 350))):
            chat_id = host.create_chat(APP, title, times[0])
            for time in times:
                host.add_message(chat_id, USER, title, time)
            spans[title] = chat_id

        def listed(after: int | None, before: int | None) -> list[str]:
            page = recall.repo.list_chats(ChatListQuery(APP, TimeWindow(after, before)))
            names = {chat_id: title for title, chat_id in spans.items()}
            return [names[s.chat.id] for s in page.chats]

        assert listed(None, None) == ["across", "late", "early"]
        assert listed(150, None) == ["across", "late", "early"]  # after is inclusive
        assert listed(151, None) == ["across", "late"]
        assert listed(None, 180) == ["early"]  # before is exclusive
        assert listed(200, 300) == ["across"]  # active throughout, no message inside
        assert listed(401, None) == []

    def test_list_chats_oldest_first_orders_by_the_first_message(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        host = recall.host
        long_running = host.create_chat(APP, "long", 100)
        host.add_message(long_running, USER, "start", 100)
        host.add_message(long_running, USER, "end", 900)
        short, _ = seed_chat(host, APP, "short", [(USER, "x")], 400)
        newest = recall.repo.list_chats(ChatListQuery(APP))
        oldest = recall.repo.list_chats(ChatListQuery(APP, order=ListOrder.OLDEST))
        assert [s.chat.id for s in newest.chats] == [long_running, short]
        assert [s.chat.id for s in oldest.chats] == [long_running, short]
        within = ChatListQuery(APP, TimeWindow(None, 1000), ListOrder.OLDEST)
        assert recall.repo.list_chats(within) == oldest

    def test_list_chats_continues_after_its_cursor_deterministically(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        chat_ids = []
        for index in range(5):  # two pairs share their times: the chat id breaks the tie
            chat_id, _ = seed_chat(recall.host, APP, f"c{index}", [(USER, "x")], 100 * (index // 2))
            chat_ids.append(chat_id)
        for order, expected in (
            (ListOrder.NEWEST, [chat_ids[4], chat_ids[3], chat_ids[2], chat_ids[1], chat_ids[0]]),
            (ListOrder.OLDEST, chat_ids),
        ):
            seen: list[ChatId] = []
            query = ChatListQuery(APP, order=order, limit=2)
            while True:
                page = recall.repo.list_chats(query)
                assert page == recall.repo.list_chats(query)  # same data, same page
                seen += [s.chat.id for s in page.chats]
                if not page.has_more:
                    break
                last = page.chats[-1]
                cursor = ChatActivity(last.chat.id, last.first_at, last.last_at).position(order)
                query = attrs.evolve(query, cursor=cursor)
            assert seen == expected

    def test_list_chats_forgets_deleted_chats_and_messages(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        gone, _ = seed_chat(recall.host, APP, "gone", [(USER, "x")], 100)
        kept, (question, answer) = seed_chat(
            recall.host, APP, "kept", [(USER, "q"), (ASSISTANT, "a")], 200
        )
        recall.host.delete_chat(gone)
        recall.host.delete_message(question)
        (summary,) = recall.repo.list_chats(ChatListQuery(APP)).chats
        assert (summary.chat.id, summary.message_count) == (kept, 1)
        assert summary.first_user_message is None
        assert (summary.first_at, summary.last_at) == (202, 202)
        del answer
