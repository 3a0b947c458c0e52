"""search_chats with after/before: the same moments as list_chats, applied in storage."""

from __future__ import annotations

from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from tests.tools.conftest import chat, result

MAY_1 = 1_714_521_600  # 2024-05-01T00:00:00Z
DAY = 86_400


def search(recall: ChatRecall, **arguments: object) -> dict:  # type: ignore[type-arg]
    return result(recall.search_chats(CallContext(1), {"query": "invoice", **arguments}))  # type: ignore[no-any-return]


def test_a_window_keeps_messages_written_in_it_however_strong_the_others(
    recall: ChatRecall,
) -> None:
    april, _ = chat(recall, 1, "April", ["one invoice question"], start=MAY_1 - 10 * DAY)
    for index in range(12):  # stronger, newer matches outside the window
        chat(recall, 1, f"Invoice {index}", ["invoice invoice invoice"], start=MAY_1 + DAY)
    recall.indexer.run_until_idle()
    inside = search(recall, before="2024-05-01", limit=1)
    assert [r["chat_id"] for r in inside["results"]] == [april]
    assert inside["window"] == {"after": None, "before": "2024-05-01T00:00:00.000Z"}
    later = search(recall, after="2024-05-01T12:00:00+02:00")
    assert april not in [r["chat_id"] for r in later["results"]]
    assert later["window"]["after"] == "2024-05-01T10:00:00.000Z"
    assert "window" not in search(recall)  # left out when none was given
    empty = search(recall, after="2030-01-01")
    assert empty["results"] == []
    assert empty["unmatched_terms"] == ["invoice"]


def test_window_arguments_are_read_as_list_chats_reads_them(recall: ChatRecall) -> None:
    for arguments, says in (
        ({"after": "soon"}, "after must be an ISO 8601 date"),
        ({"after": "2024-05-02", "before": "2024-05-01"}, "after must be earlier than before"),
    ):
        for tool, extra in (("search_chats", {"query": "x"}), ("list_chats", {})):
            output = result(recall.call_tool(tool, CallContext(1), {**extra, **arguments}).output)
            assert output["error"]["kind"] == "invalid_arguments"
            assert says in output["error"]["message"]
