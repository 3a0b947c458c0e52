"""`HostWriterContract`: host-side writes behave as a host's own writes do, and every
one of them is seen by the read side and the dirty queue."""

from __future__ import annotations

import pytest

from chat_recall.contracts.fixtures import (
    APP,
    ASSISTANT,
    MISSING_CHAT,
    MISSING_MESSAGE,
    USER,
    HarnessLifecycle,
)
from chat_recall.contracts.harness import StorageHarness
from chat_recall.domain.errors import ChatRecallError, InvalidArguments, NotFound
from chat_recall.domain.model import ChatId, MessageId


class HostWriterContract(HarnessLifecycle):
    def test_created_rows_are_read_back_as_written(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id = recall.host.create_chat(APP, "Payments", 1_700_000_000)
        message_id = recall.host.add_message(
            chat_id, ASSISTANT, "Stripe it is.", 1_700_000_060, is_compaction_summary=True
        )
        chat = recall.repo.chat(APP, chat_id)
        assert (chat.id, chat.app_id, chat.title, chat.created_at) == (
            chat_id,
            APP,
            "Payments",
            1_700_000_000,
        )
        (message,) = recall.repo.page(APP, chat_id, 0, 10).messages
        assert (message.id, message.chat_id, message.role, message.content) == (
            message_id,
            chat_id,
            ASSISTANT,
            "Stripe it is.",
        )
        assert (message.created_at, message.is_compaction_summary) == (1_700_000_060, True)

    def test_explicit_ids_are_kept_and_generated_ids_do_not_collide(
        self, harness: StorageHarness
    ) -> None:
        host = harness.recall().host
        chat_id = host.create_chat(APP, "c", 1, chat_id=ChatId(500))
        assert chat_id == 500
        assert host.add_message(chat_id, USER, "x", 2, message_id=MessageId(900)) == 900
        later = host.add_message(chat_id, USER, "y", 3)
        assert later not in (900,)
        assert host.create_chat(APP, "d", 4) != 500

    def test_an_id_in_use_or_a_missing_chat_is_refused(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id = recall.host.create_chat(APP, "c", 1)
        message_id = recall.host.add_message(chat_id, USER, "x", 2)
        with pytest.raises(ChatRecallError):
            recall.host.create_chat(APP, "again", 3, chat_id=chat_id)
        with pytest.raises(ChatRecallError):
            recall.host.add_message(chat_id, USER, "again", 3, message_id=message_id)
        with pytest.raises(ChatRecallError):
            recall.host.add_message(MISSING_CHAT, USER, "orphan", 3)
        assert [m.content for m in recall.repo.page(APP, chat_id, 0, 10).messages] == ["x"]

    def test_updates_renames_and_deletes_are_seen_and_marked(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id = recall.host.create_chat(APP, "old", 1)
        keep = recall.host.add_message(chat_id, USER, "draft", 2)
        drop = recall.host.add_message(chat_id, USER, "gone soon", 3)
        recall.indexer.run_until_idle()
        recall.host.update_message(keep, "final")
        recall.host.rename_chat(chat_id, "new")
        recall.host.delete_message(drop)
        assert recall.dirty.pending_in_app(APP, None) > 0
        assert recall.repo.chat(APP, chat_id).title == "new"
        (message,) = recall.repo.page(APP, chat_id, 0, 10).messages
        assert (message.id, message.content) == (keep, "final")

    def test_deleting_a_chat_deletes_its_messages(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id = recall.host.create_chat(APP, "c", 1)
        ids = [recall.host.add_message(chat_id, USER, f"m{i}", 2 + i) for i in range(3)]
        recall.host.delete_chat(chat_id)
        with pytest.raises(NotFound):
            recall.repo.chat(APP, chat_id)
        assert recall.repo.source_rows(ids) == []

    def test_writes_to_missing_rows_change_nothing(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id = recall.host.create_chat(APP, "c", 1)
        recall.host.add_message(chat_id, USER, "x", 2)
        recall.indexer.run_until_idle()
        recall.host.update_message(MISSING_MESSAGE, "y")
        recall.host.delete_message(MISSING_MESSAGE)
        recall.host.rename_chat(MISSING_CHAT, "z")
        recall.host.delete_chat(MISSING_CHAT)
        assert recall.dirty.backlog().is_empty
        assert [m.content for m in recall.repo.page(APP, chat_id, 0, 10).messages] == ["x"]

    def test_a_role_may_be_given_as_its_value(self, harness: StorageHarness) -> None:
        """`add_message(chat, "user", ...)`, as hosts write it; an unknown role is an
        argument error that names the roles there are, and writes nothing."""
        recall = harness.recall()
        chat_id = recall.host.create_chat(APP, "Roles", 1_700_000_000)
        recall.host.add_message(chat_id, "user", "asked", 1_700_000_060)
        recall.host.add_message(chat_id, "assistant", "answered", 1_700_000_120)
        roles = [m.role for m in recall.repo.page(APP, chat_id, 0, 10).messages]
        assert roles == [USER, ASSISTANT]
        for wrong in ("User", "bot", ""):
            with pytest.raises(InvalidArguments, match="'user' or 'assistant'"):
                recall.host.add_message(chat_id, wrong, "never written", 1_700_000_180)
        assert len(recall.repo.page(APP, chat_id, 0, 10).messages) == 2
