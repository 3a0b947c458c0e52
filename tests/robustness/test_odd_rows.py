"""One odd row never stops the index or crashes a tool (issue 11's table, reproduced):
text and millisecond times, '', bytes that are not UTF-8, wrong types. Each is indexed
when the declared timestamp format reads it, set aside in quarantine with its reason
otherwise, and shown safely by read_chat; every other row keeps being indexed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chat_recall.adapters.telemetry import RecordingTelemetry
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.host_values import TimestampFormat, UnreadableReason
from chat_recall.domain.messages import Role
from chat_recall.domain.ports import Telemetry
from chat_recall.domain.telemetry import IndexBatchEvent, RowsQuarantinedEvent
from tests.robustness.odd_rows import NotUtf8, Storage, Stored

SECONDS = 1_700_000_000  # 2023-11-14T22:13:20Z
CONTEXT = CallContext(1)


def seed(recall: ChatRecall) -> tuple[int, list[int]]:
    chat_id = recall.host.create_chat(1, "Auth", SECONDS)
    ids = [
        recall.host.add_message(chat_id, Role.USER, "sessions or tokens?", SECONDS + 60),
        recall.host.add_message(chat_id, Role.ASSISTANT, "sessions in Postgres", SECONDS + 120),
    ]
    return chat_id, ids


def seed_in(
    storage: Storage, recall: ChatRecall, timestamps: TimestampFormat
) -> tuple[int, list[int]]:
    """`seed`, with the times stored in the declared format."""
    chat_id = recall.host.create_chat(1, "Auth", SECONDS)
    times: list[Stored] = {
        TimestampFormat.ISO_8601: ["2023-11-14T22:14:20Z", "2023-11-14T22:15:20Z"],
        TimestampFormat.UNIX_MILLISECONDS: [(SECONDS + 60) * 1000, (SECONDS + 120) * 1000],
    }.get(timestamps, [SECONDS + 60, SECONDS + 120])
    ids = [
        storage.insert(chat_id, "user", "sessions or tokens?", times[0]),
        storage.insert(chat_id, "assistant", "sessions in Postgres", times[1]),
    ]
    return chat_id, ids


def search(recall: ChatRecall, query: str) -> Any:
    return json.loads(recall.search_chats(CONTEXT, {"query": query}))


def found_ids(recall: ChatRecall, query: str) -> set[int]:
    output = search(recall, query)
    return {m["message_id"] for chat in output["results"] for m in chat["matches"]}


def read(recall: ChatRecall, **arguments: int) -> Any:
    output = json.loads(recall.read_chat(CONTEXT, arguments))
    assert "error" not in output, output
    return output


def quarantined(recall: ChatRecall) -> dict[int, UnreadableReason]:
    return {row.message_id: row.reason for row in recall.index.quarantine(100).rows}


# (stored created_at, declared format) -> what the time reads as (None: quarantined for)
TIMES: list[tuple[Stored, TimestampFormat, str | UnreadableReason]] = [
    ("2024-01-01 10:00:00", TimestampFormat.AUTO, "2024-01-01T10:00:00.000Z"),
    ("2024-01-01 10:00:00", TimestampFormat.ISO_8601, "2024-01-01T10:00:00.000Z"),
    ("2024-01-01 10:00:00", TimestampFormat.UNIX_SECONDS, UnreadableReason.TIMESTAMP_UNPARSEABLE),
    (SECONDS * 1000 + 500, TimestampFormat.AUTO, "2023-11-14T22:13:20.000Z"),
    (SECONDS * 1000, TimestampFormat.UNIX_MILLISECONDS, "2023-11-14T22:13:20.000Z"),
    (SECONDS * 1000, TimestampFormat.UNIX_SECONDS, UnreadableReason.TIMESTAMP_OUT_OF_RANGE),
    (SECONDS * 1000, TimestampFormat.ISO_8601, UnreadableReason.TIMESTAMP_UNPARSEABLE),
    ("", TimestampFormat.AUTO, UnreadableReason.TIMESTAMP_UNPARSEABLE),
    ("", TimestampFormat.UNIX_SECONDS, UnreadableReason.TIMESTAMP_UNPARSEABLE),
    (NotUtf8(), TimestampFormat.AUTO, UnreadableReason.TIMESTAMP_UNPARSEABLE),
    (b"\x00\x01", TimestampFormat.AUTO, UnreadableReason.TIMESTAMP_UNPARSEABLE),
    (1e300, TimestampFormat.AUTO, UnreadableReason.TIMESTAMP_OUT_OF_RANGE),
]


@pytest.mark.parametrize(("stored", "timestamps", "expected"), TIMES)
def test_an_odd_time_is_read_in_the_declared_format_or_quarantined(
    storage: Storage,
    stored: Stored,
    timestamps: TimestampFormat,
    expected: str | UnreadableReason,
) -> None:
    recall = storage.open(timestamps)
    chat_id, ids = seed_in(storage, recall, timestamps)
    odd = storage.insert(chat_id, "user", "sessions with an odd time", stored)
    report = recall.indexer.run_until_idle()  # never raises
    assert recall.dirty.backlog().is_empty
    assert report.indexed == 2 + (not isinstance(expected, UnreadableReason))
    assert ids[0] in found_ids(recall, "tokens")  # every other row is indexed
    page = read(recall, chat_id=chat_id)
    times = {m["message_id"]: m["created_at"] for m in page["messages"]}
    assert set(times) == {*ids, odd}
    around = read(recall, chat_id=chat_id, around_message_id=odd, before=1, after=1)
    assert odd in [m["message_id"] for m in around["messages"]]
    output = search(recall, "sessions")
    assert output["results"][0]["last_message_at"] is not None
    if isinstance(expected, UnreadableReason):
        assert quarantined(recall) == {odd: expected}
        assert times[odd] is None  # a safe value, not a traceback
        assert odd not in found_ids(recall, "odd")
    else:
        assert quarantined(recall) == {}
        assert times[odd] == expected
        assert odd in found_ids(recall, "odd")


ODD_CONTENT: list[tuple[Stored, UnreadableReason]] = [
    (NotUtf8(), UnreadableReason.CONTENT_NOT_UTF8),
    (b"sessions as a blob", UnreadableReason.CONTENT_NOT_TEXT),
]


@pytest.mark.parametrize(("content", "reason"), ODD_CONTENT)
def test_unreadable_content_is_quarantined_and_shown_as_a_placeholder(
    storage: Storage, content: Stored, reason: UnreadableReason
) -> None:
    recall = storage.open()
    chat_id, ids = seed(recall)
    odd = storage.insert(chat_id, "assistant", content, SECONDS + 90)
    later = recall.host.add_message(chat_id, Role.USER, "after the odd row", SECONDS + 200)
    recall.indexer.run_until_idle()
    assert recall.dirty.backlog().is_empty  # the backlog drains
    assert quarantined(recall) == {odd: reason}
    assert later in found_ids(recall, "odd row")
    for arguments in ({"chat_id": chat_id}, {"chat_id": chat_id, "around_message_id": odd}):
        text = recall.read_chat(CONTEXT, arguments)
        assert "broken" not in text  # no byte of the unreadable value leaks
        messages = {m["message_id"]: m for m in json.loads(text)["messages"]}
        assert messages[odd]["text"] == f"[chat-recall cannot show this: {reason.description}]"
        assert messages[ids[1]]["text"] == "sessions in Postgres"


def test_an_unreadable_title_quarantines_its_chat_and_reads_as_a_placeholder(
    storage: Storage,
) -> None:
    recall = storage.open()
    chat_id, ids = seed(recall)
    other = recall.host.create_chat(1, "Other", SECONDS)
    elsewhere = recall.host.add_message(other, Role.USER, "sessions elsewhere", SECONDS + 5)
    recall.indexer.run_until_idle()
    storage.set_title(chat_id, NotUtf8())
    recall.indexer.run_until_idle()
    assert quarantined(recall) == dict.fromkeys(ids, UnreadableReason.TITLE_NOT_UTF8)
    assert found_ids(recall, "sessions") == {elsewhere}  # stale documents went too
    title = read(recall, chat_id=chat_id)["chat"]["title"]
    assert title == "[chat-recall cannot show this: its chat title is not valid UTF-8]"


def test_a_fixed_row_leaves_quarantine_and_a_deleted_one_is_forgotten(storage: Storage) -> None:
    recall = storage.open()
    chat_id, _ = seed(recall)
    fixed = storage.insert(chat_id, "user", NotUtf8(), SECONDS + 300)
    gone = storage.insert(chat_id, "user", NotUtf8(), SECONDS + 301)
    recall.indexer.run_until_idle()
    assert recall.index.quarantine(10).total == 2
    storage.set_content(fixed, "repaired sessions text")
    recall.host.delete_message(gone)
    recall.indexer.run_until_idle()
    assert recall.index.quarantine(10).total == 0
    assert fixed in found_ids(recall, "repaired")


def test_a_mapping_change_retries_quarantined_rows(storage: Storage) -> None:
    recall = storage.open(TimestampFormat.UNIX_SECONDS)
    chat_id, _ = seed(recall)
    in_ms = storage.insert(chat_id, "user", "millisecond sessions", SECONDS * 1000)
    recall.indexer.run_until_idle()
    assert quarantined(recall) == {in_ms: UnreadableReason.TIMESTAMP_OUT_OF_RANGE}
    recall.close()
    again = storage.open(TimestampFormat.UNIX_MILLISECONDS)
    again.indexer.run_until_idle()
    assert quarantined(again) == {}
    assert in_ms in found_ids(again, "millisecond")


def test_requeue_retries_quarantined_rows_on_request(storage: Storage) -> None:
    recall = storage.open()
    chat_id, _ = seed(recall)
    odd = storage.insert(chat_id, "user", NotUtf8(), SECONDS + 5)
    recall.indexer.run_until_idle()
    assert recall.dirty.requeue_quarantined() == 1
    assert recall.dirty.backlog().messages == 1
    recall.indexer.run_until_idle()
    assert quarantined(recall) == {odd: UnreadableReason.CONTENT_NOT_UTF8}


def test_a_projection_failure_quarantines_only_that_row(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chat_recall.domain import indexing

    real = indexing.projections.project_content_for_search

    def fragile(role: Any, content: Any, policy: Any) -> Any:
        if "POISON" in content:
            raise RecursionError("a projection bug")
        return real(role, content, policy)

    monkeypatch.setattr(indexing.projections, "project_content_for_search", fragile)
    recall = storage.open()
    chat_id, ids = seed(recall)
    poison = recall.host.add_message(chat_id, Role.USER, "POISON sessions", SECONDS + 5)
    recall.indexer.run_until_idle()
    assert quarantined(recall) == {poison: UnreadableReason.PROJECTION_FAILED}
    assert set(ids) <= found_ids(recall, "sessions")


def test_quarantine_is_reported_in_telemetry(storage: Storage) -> None:
    telemetry = RecordingTelemetry()
    recall = storage.open(overrides={Telemetry: telemetry})
    chat_id, _ = seed(recall)
    storage.insert(chat_id, "user", NotUtf8(), SECONDS + 5)
    storage.insert(chat_id, "user", "fine", "")
    recall.indexer.run_until_idle()
    events = [e for e in telemetry.events if isinstance(e, RowsQuarantinedEvent)]
    assert sorted((e.reason, e.count) for e in events) == [
        ("content_not_utf8", 1),
        ("timestamp_unparseable", 1),
    ]
    assert sum(e.quarantined for e in telemetry.events if isinstance(e, IndexBatchEvent)) == 2


def test_status_lists_quarantined_rows_with_their_reason(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from chat_recall.adapters.cli.main import main

    storage = Storage("sqlite", tmp_path / "status.db")
    recall = storage.open()
    chat_id, _ = seed(recall)
    odd = storage.insert(chat_id, "user", NotUtf8(), SECONDS + 5)
    recall.close()
    assert main(["index", "--db", str(storage.path)]) == 0
    capsys.readouterr()
    main(["status", "--db", str(storage.path), "--format", "text"])
    status = capsys.readouterr().out
    assert "Set aside as unreadable: 1 message " in status
    assert f"  message {odd}, app 1: its text is not valid UTF-8\n" in status


def test_index_retries_quarantined_rows_on_request(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """A row fixed where the triggers could not see it (written with them dropped, as a
    table-rebuilding migration does) is retried by `index --retry-quarantined`; a row
    still unreadable is retried and stays quarantined, never lost."""
    import sqlite3

    from chat_recall.adapters.cli.main import main

    storage = Storage("sqlite", tmp_path / "retry.db")
    recall = storage.open()
    chat_id, _ = seed(recall)
    fixed = storage.insert(chat_id, "user", NotUtf8(), SECONDS + 5)
    broken = storage.insert(chat_id, "user", NotUtf8(), SECONDS + 6)
    recall.close()
    assert main(["index", "--db", str(storage.path), "-q"]) == 0
    connection = sqlite3.connect(storage.path)
    connection.execute("DROP TRIGGER chat_recall_message_update")
    connection.execute("UPDATE messages SET content = 'fixed by the host' WHERE id = ?", (fixed,))
    connection.commit()
    connection.close()
    capsys.readouterr()
    assert main(["index", "--db", str(storage.path), "-q", "--retry-quarantined"]) == 0
    assert "retrying 2 quarantined rows" in capsys.readouterr().out
    main(["status", "--db", str(storage.path), "--format", "text"])
    status = capsys.readouterr().out
    assert "Set aside as unreadable: 1 message " in status
    assert f"  message {broken}, app 1: its text is not valid UTF-8\n" in status
    with storage.open() as recall:
        found = json.loads(recall.search_chats(CallContext(1), {"query": "fixed by the host"}))
    assert [m["message_id"] for r in found["results"] for m in r["matches"]] == [fixed]
