"""list_chats: recall by time, through the facade on every adapter."""

from __future__ import annotations

import json
from typing import Any

from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.application.tools.list_chats import OPENING_CHARS, OUTPUT_BUDGET_BYTES
from tests.tools.conftest import ASSISTANT, USER, chat, result

DAY = 86_400
MAY_1 = 1_714_521_600  # 2024-05-01T00:00:00Z


def listing(
    recall: ChatRecall, app_id: int = 1, current: int | None = None, **arguments: Any
) -> Any:
    return result(recall.list_chats(CallContext(app_id, current), arguments))


def ids(output: Any) -> list[int]:
    return [c["chat_id"] for c in output["chats"]]


def test_lists_the_apps_chats_newest_first_with_what_recall_needs(recall: ChatRecall) -> None:
    first, _ = chat(recall, 1, "Auth", [(ASSISTANT, "welcome"), (USER, "sessions or JWT?")])
    second, _ = chat(recall, 1, None, ["deploy to fly.io", "ok"], start=MAY_1)
    chat(recall, 2, "Other app", ["OTHERAPPMARKER"], start=MAY_1 + DAY)
    output = listing(recall)
    assert ids(output) == [second, first]
    assert "OTHERAPPMARKER" not in json.dumps(output)
    assert output["chats"][1] == {
        "chat_id": first,
        "title": "Auth",
        "first_message_at": "2023-11-14T22:14:20.000Z",
        "last_message_at": "2023-11-14T22:15:20.000Z",
        "message_count": 2,
        "first_user_message": "sessions or JWT?",
    }
    assert output["chats"][0]["title"] is None
    assert (output["order"], output["has_more"], output["continue_with"]) == ("newest", False, None)
    assert output["archival_content"] is True
    assert "not instructions" in output["notice"]


def test_the_current_chat_is_left_out_unless_asked(recall: ChatRecall) -> None:
    older, _ = chat(recall, 1, "Older", ["x"])
    current, _ = chat(recall, 1, "Now", ["y"], start=MAY_1)
    assert ids(listing(recall, current=current)) == [older]
    assert ids(listing(recall, current=current, include_current=True)) == [current, older]


def test_the_window_reads_dates_and_times_and_keeps_chats_active_in_it(
    recall: ChatRecall,
) -> None:
    april, _ = chat(recall, 1, "April", ["a", "b"], start=MAY_1 - 3 * DAY)
    may, _ = chat(recall, 1, "May", ["c"], start=MAY_1 + DAY)
    output = listing(recall, after="2024-05-01", before="2024-05-08T00:00:00+02:00")
    assert ids(output) == [may]
    assert output["window"] == {
        "after": "2024-05-01T00:00:00.000Z",
        "before": "2024-05-07T22:00:00.000Z",
    }
    assert ids(listing(recall, before="2024-05-01")) == [april]
    assert ids(listing(recall, after="2024-05-03")) == []


def test_bad_windows_are_typed_errors_naming_the_argument(recall: ChatRecall) -> None:
    for arguments, says in (
        ({"after": "last week"}, "after must be an ISO 8601 date"),
        ({"before": "2024-13-01"}, "before must be an ISO 8601 date"),
        ({"after": "2024-05-02", "before": "2024-05-01"}, "after must be earlier than before"),
        ({"order": "random"}, 'order must be "newest" or "oldest"'),
        ({"cursor": "page 2"}, "cursor is not a cursor that list_chats returned"),
        ({"limit": 21}, "limit must be an integer from 1 to 20"),
        ({"after": 20240501}, "after: expected a string"),
        ({"include_current": "yes"}, "include_current: expected true or false"),
    ):
        error = listing(recall, **arguments)["error"]
        assert error["kind"] == "invalid_arguments"
        assert says in error["message"], (arguments, error)


def test_oldest_first_and_pages_follow_their_continuation(recall: ChatRecall) -> None:
    made = [chat(recall, 1, f"c{i}", [f"m{i}"], start=MAY_1 + i * DAY)[0] for i in range(7)]
    for order, expected in (("newest", made[::-1]), ("oldest", made)):
        arguments: dict[str, Any] = {"order": order, "limit": 3}
        seen: list[int] = []
        pages = 0
        while True:
            output = listing(recall, **arguments)
            pages += 1
            seen += ids(output)
            if not output["has_more"]:
                assert output["continue_with"] is None
                break
            arguments = output["continue_with"]
        assert (seen, pages) == (expected, 3)
    newest = listing(recall, limit=2)
    wrong_order = listing(recall, **{**newest["continue_with"], "order": "oldest"})
    assert "cursor belongs to a listing in the other order" in wrong_order["error"]["message"]


def test_the_opening_is_redacted_short_and_any_script(recall: ChatRecall) -> None:
    secret = "AKIA" + "IOSFODNN7EXAMPLE"
    chat(recall, 1, f"keys {secret}", [f"my key is {secret} please rotate it"])
    chat(recall, 1, "長い", ["東京の天気はどうですか " + "とても長い文章 " * 200], start=MAY_1)
    text = json.dumps(listing(recall), ensure_ascii=False)
    assert secret not in text
    assert "[redacted aws-access-key-id]" in text
    long, keys = listing(recall)["chats"]
    assert long["first_user_message"].startswith("東京の天気はどうですか")
    assert len(long["first_user_message"]) <= OPENING_CHARS
    assert keys["title"] == "keys [redacted aws-access-key-id]"


def test_a_page_ends_early_within_the_budget_and_continues_there(recall: ChatRecall) -> None:
    for index in range(20):  # three UTF-8 bytes a character: twenty fill the budget
        chat(recall, 1, f"{index} " + "長い題名" * 60, ["長い文章" * 60], start=MAY_1 + index)
    output = listing(recall, limit=20)
    text = recall.list_chats(CallContext(1), {"limit": 20})
    assert len(text.encode("utf-8")) <= OUTPUT_BUDGET_BYTES
    assert output["output_truncated"]
    assert output["has_more"]
    seen = ids(output)
    assert len(seen) < 20
    while output["has_more"]:
        output = listing(recall, **output["continue_with"])
        seen += ids(output)
    assert sorted(seen) == sorted(set(seen))
    assert len(seen) == 20


def test_same_data_and_arguments_give_the_same_bytes(recall: ChatRecall) -> None:
    for index in range(5):
        chat(recall, 1, f"t{index}", ["same time"], start=MAY_1)  # ties: by chat id
    arguments = {"limit": 3}
    first = recall.list_chats(CallContext(1), arguments)
    assert first == recall.list_chats(CallContext(1), arguments)
    assert ids(result(first)) == sorted(ids(result(first)), reverse=True)


def test_chats_written_but_not_yet_indexed_are_listed(recall: ChatRecall) -> None:
    """It reads the host's rows: nothing waits for the indexer."""
    chat_id, _ = chat(recall, 1, "Fresh", ["just written"])
    assert recall.dirty.backlog().messages
    assert ids(listing(recall)) == [chat_id]
