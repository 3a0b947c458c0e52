"""`ImportTargetContract`: imported chats reach the host's rows with links that make a
re-import an update. Not part of `StorageContracts`: an adapter with an import target
opts in with its own class (every shipped adapter does)."""

from __future__ import annotations

import json

from chat_recall.application.importing import OnConflict
from chat_recall.contracts.fixtures import APP, OTHER_APP, HarnessLifecycle
from chat_recall.contracts.harness import StorageHarness
from chat_recall.domain.imports import (
    ChatChange,
    ImportedChat,
    ImportedMessage,
    SourceApp,
    SourceFormat,
    plan_sync,
)
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId

SOURCE = SourceApp(SourceFormat.CHATGPT, "user-abc", "ChatGPT account user-abc")


def _message(source_id: str, text: str, at: int, role: Role = Role.USER) -> ImportedMessage:
    return ImportedMessage(source_id, role, text, at)


def _chat(source_id: str, *messages: ImportedMessage, title: str = "Imported") -> ImportedChat:
    return ImportedChat(SourceFormat.CHATGPT, source_id, SOURCE, title, 1_000, messages)


class ImportTargetContract(HarnessLifecycle):
    def test_a_new_chat_is_written_in_order_and_linked(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        target = recall.imports
        chat = _chat(
            "conv-1",
            _message("m1", "first question", 1_001),
            _message("m2", "an answer", 1_002, Role.ASSISTANT),
        )
        assert target.linked_chats(SourceFormat.CHATGPT, ["conv-1"]) == {}
        assert target.apply([plan_sync(chat, APP, None)], {SOURCE: APP}) == []
        link = target.linked_chats(SourceFormat.CHATGPT, ["conv-1", "conv-2"])["conv-1"]
        assert (link.app_id, link.fingerprint) == (APP, chat.fingerprint)
        assert [m.source_id for m in link.messages] == ["m1", "m2"]
        stored = recall.repo.page(APP, link.chat_id, 0, 10).messages
        assert [(m.id, m.role, m.content, m.created_at) for m in stored] == [
            (link.messages[0].message_id, Role.USER, "first question", 1_001),
            (link.messages[1].message_id, Role.ASSISTANT, "an answer", 1_002),
        ]
        assert recall.repo.chat(APP, link.chat_id).title == "Imported"
        assert target.linked_apps([SOURCE]) == {SOURCE: APP}
        again = plan_sync(chat, APP, link)
        assert again.change is ChatChange.UNCHANGED
        assert not again.writes

    def test_an_update_keeps_the_ids_of_the_messages_it_keeps(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        target = recall.imports
        first = _chat(
            "conv-1",
            _message("m1", "keep me", 1_001),
            _message("m2", "edit me", 1_002, Role.ASSISTANT),
            _message("m3", "drop me", 1_003),
        )
        target.apply([plan_sync(first, APP, None)], {})
        link = target.linked_chats(SourceFormat.CHATGPT, ["conv-1"])["conv-1"]
        kept, edited, _ = (m.message_id for m in link.messages)
        newer = _chat(
            "conv-1",
            _message("m1", "keep me", 1_001),
            _message("m2", "edited", 1_002, Role.ASSISTANT),
            _message("m4", "new one", 1_004),
            title="Renamed",
        )
        sync = plan_sync(newer, OTHER_APP, link)
        assert (len(sync.add), len(sync.rewrite), len(sync.remove)) == (1, 1, 1)
        assert target.apply([sync], {}) == []
        moved = target.linked_chats(SourceFormat.CHATGPT, ["conv-1"])["conv-1"]
        assert (moved.chat_id, moved.app_id, moved.fingerprint) == (
            link.chat_id,
            OTHER_APP,
            newer.fingerprint,
        )
        stored = recall.repo.page(OTHER_APP, link.chat_id, 0, 10).messages
        assert [(m.content, m.id in (kept, edited)) for m in stored] == [
            ("keep me", True),
            ("edited", True),
            ("new one", False),
        ]
        assert recall.repo.chat(OTHER_APP, link.chat_id).title == "Renamed"
        assert plan_sync(newer, OTHER_APP, moved).change is ChatChange.UNCHANGED

    def test_new_apps_are_above_every_app_and_deleted_chats_are_forgotten(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        target = recall.imports
        recall.host.create_chat(AppId(41), "the host's own", 1)
        assert target.new_app_id() == 42
        chat = _chat("conv-9", _message("m", "x", 1_001))
        target.apply([plan_sync(chat, AppId(42), None)], {SOURCE: AppId(57)})
        assert target.new_app_id() == 58
        link = target.linked_chats(SourceFormat.CHATGPT, ["conv-9"])["conv-9"]
        recall.host.delete_chat(link.chat_id)
        assert target.linked_chats(SourceFormat.CHATGPT, ["conv-9"]) == {}
        other_format = target.linked_chats(SourceFormat.CLAUDE, ["conv-9"])
        assert other_format == {}

    def test_json_lines_keep_their_ids_and_report_conflicts(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        lines = [
            json.dumps({"type": "chat", "id": 7, "app_id": 1, "title": "t", "created_at": 5}),
            json.dumps(
                {
                    "type": "message",
                    "id": 9,
                    "chat_id": 7,
                    "role": "user",
                    "content": "hi",
                    "created_at": 6,
                }
            ),
            "not json",
        ]
        report = recall.imports.write_lines(lines, OnConflict.FAIL)
        assert (report.chats, report.messages, len(report.errors)) == (1, 1, 1)
        assert report.errors[0].startswith("line 3: ")
        assert recall.repo.page(APP, 7, 0, 10).messages[0].content == "hi"  # type: ignore[arg-type]
        again = recall.imports.write_lines(lines[:2], OnConflict.FAIL)
        assert (again.conflicts, again.chats) == (2, 0)
        skipped = recall.imports.write_lines(lines[:2], OnConflict.IGNORE)
        assert (skipped.ignored, skipped.errors) == (2, ())
