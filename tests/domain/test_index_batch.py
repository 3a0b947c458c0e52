"""`IndexBatch.without`: what an indexer counts when some of its markers were stale."""

from __future__ import annotations

from chat_recall.domain.host_values import UnreadableReason
from chat_recall.domain.messages import Role
from chat_recall.domain.model import (
    AppId,
    ChatId,
    IndexBatch,
    IndexDocument,
    MessageId,
    MessageMarker,
    QuarantinedRow,
)


def _document(message_id: int) -> IndexDocument:
    return IndexDocument(
        MessageId(message_id), ChatId(1), AppId(1), Role.USER, 1, False, False, "", "text"
    )


def test_the_rows_of_stale_markers_are_left_out_and_the_rest_kept() -> None:
    reason = next(iter(UnreadableReason))
    batch = IndexBatch(
        upserts=(_document(1), _document(2)),
        deletes=(MessageId(3), MessageId(4)),
        cleared=tuple(MessageMarker(MessageId(i), 7) for i in (1, 2, 3, 4, 5)),
        quarantined=(QuarantinedRow(MessageId(5), AppId(1), ChatId(1), reason),),
        redactions=2,
    )
    applied = batch.without({MessageId(2), MessageId(3), MessageId(5)})
    assert [d.message_id for d in applied.upserts] == [1]
    assert applied.deletes == (4,)
    assert [m.id for m in applied.cleared] == [1, 4]
    assert applied.quarantined == ()
    assert applied.redactions == 2
    assert batch.without(set()) is batch
