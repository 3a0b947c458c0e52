"""`ToolsNeverWriteContract`: search_chats, read_chat and list_chats (and their
failures) leave the adapter's storage exactly as they found it, even with indexing work
pending."""

from __future__ import annotations

from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.contracts.fixtures import (
    APP,
    ASSISTANT,
    MISSING_CHAT,
    OTHER_APP,
    USER,
    HarnessLifecycle,
    seed_chat,
)
from chat_recall.contracts.harness import StorageHarness


def observed(recall: ChatRecall) -> object:
    """What the ports show of the storage (used when the harness has no dump)."""
    return (
        recall.dirty.backlog(),
        recall.dirty.pending_messages(10_000),
        recall.dirty.pending_chats(10_000),
        [
            (app, recall.index.stats(app), recall.index.document_ids(app))
            for app in (APP, OTHER_APP)
        ],
        recall.index.projection_stamp(),
    )


class ToolsNeverWriteContract(HarnessLifecycle):
    def test_tool_calls_leave_the_storage_untouched(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat_id, ids = seed_chat(
            recall.host, APP, "Auth", [(USER, "sessions or jwt?"), (ASSISTANT, "sessions")]
        )
        recall.indexer.run_until_idle()
        current, (in_flight,) = seed_chat(recall.host, APP, "Now", [(USER, "pending sessions")])
        recall.host.update_message(ids[0], "sessions or jwt, again?")  # work left pending
        state = harness.storage_state or (lambda: observed(recall))
        before = state()
        calls: list[tuple[str, dict[str, object]]] = [
            ("search_chats", {"query": "sessions"}),
            ("search_chats", {"query": "!!!"}),
            ("search_chats", {"query": "x", "limit": 99}),
            ("read_chat", {"chat_id": chat_id, "around_message_id": ids[1]}),
            ("read_chat", {"chat_id": chat_id, "offset": 0, "limit": 5}),
            ("read_chat", {"chat_id": current}),
            ("read_chat", {"chat_id": MISSING_CHAT}),
            ("read_chat", {"chat_id": chat_id, "before": 2}),
            ("list_chats", {"include_current": True}),
            ("list_chats", {"after": "1970-01-01T00:10:00Z", "order": "oldest", "limit": 1}),
            ("list_chats", {"after": "last week"}),
            ("no_such_tool", {}),
        ]
        context = CallContext(APP, current, in_flight)
        outcomes = [recall.call_tool(name, context, arguments) for name, arguments in calls]
        assert [outcome.is_error for outcome in outcomes] == [
            False,
            False,
            True,
            False,
            False,
            False,
            True,
            True,
            False,
            False,
            True,
            True,
        ]
        assert state() == before
