"""read_chat: a bounded read of one same-app chat, around a message or by page.

Scope is enforced in storage (the repo joins chats on the app). Reading the current
chat stops before the in-flight message. Page fields sent together with
`around_message_id` do not fail the call: the around-read runs and the output lists
them in `ignored_arguments`. Models often send every field with its default; refusing
would cost a turn while the around-read is exactly what was asked for, and the report
keeps it visible. `before`/`after` without `around_message_id` are an error, because
there is no read they could mean.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from chat_recall.application.tools.arguments import parse_arguments
from chat_recall.application.tools.context import CallContext
from chat_recall.application.tools.output import ARCHIVAL_NOTICE, dumps, iso_time, size, unstructure
from chat_recall.domain.model import ID_MAX, Chat, MessageWindow, StoredMessage
from chat_recall.domain.ports import MessageRepo
from chat_recall.domain.projection import MarkupPolicy, project_for_read
from chat_recall.domain.projection.text import cap_utf8, clip_chars, valid_unicode

OUTPUT_BUDGET_BYTES = 20 * 1024
MESSAGE_BUDGET_BYTES = 4 * 1024
MESSAGE_TAIL_BYTES = 1024
TITLE_CHARS = 200
DEFAULT_AROUND = 3
DEFAULT_PAGE_LIMIT = 10


Validator = Callable[[Any, "attrs.Attribute[Any]", Any], None]


def _positive(name: str) -> Validator:
    def check(instance: object, attribute: object, value: int | None) -> None:
        if value is not None and not 1 <= value <= ID_MAX:
            raise ValueError(f"{name} must be a positive integer of at most {ID_MAX} (2^63-1)")

    return check


def _between(name: str, low: int, high: int, default: str) -> Validator:
    def check(instance: object, attribute: object, value: int | None) -> None:
        if value is not None and not low <= value <= high:
            raise ValueError(f"{name} must be an integer from {low} to {high}{default}")

    return check


@attrs.frozen
class ReadChatArguments:
    chat_id: int = attrs.field(validator=_positive("chat_id"))
    around_message_id: int | None = attrs.field(
        default=None,
        validator=_positive("around_message_id"),
    )
    before: int | None = attrs.field(
        default=None,
        validator=_between("before", 0, 10, " (default 3)"),
    )
    after: int | None = attrs.field(
        default=None,
        validator=_between("after", 0, 10, " (default 3)"),
    )
    offset: int | None = attrs.field(
        default=None,
        validator=_between("offset", 0, 10**9, ""),
    )
    limit: int | None = attrs.field(
        default=None,
        validator=_between("limit", 1, 20, " (default 10)"),
    )

    def __attrs_post_init__(self) -> None:
        if self.around_message_id is None and (self.before is not None or self.after is not None):
            raise ValueError(
                "before/after need around_message_id; for a chronological page use "
                "offset and limit instead"
            )

    @property
    def ignored(self) -> list[str]:
        if self.around_message_id is None:
            return []
        return [name for name in ("offset", "limit") if getattr(self, name) is not None]


@attrs.frozen
class ChatMeta:
    chat_id: int
    title: str | None
    created_at: str


@attrs.frozen
class MessageOut:
    message_id: int
    role: str
    created_at: str
    text: str
    truncated: bool


@attrs.frozen
class RangeOut:
    first_message_id: int | None
    last_message_id: int | None
    first_created_at: str | None
    last_created_at: str | None
    count: int
    offset: int | None


@attrs.frozen
class ReadChatOutput:
    chat: ChatMeta
    mode: str
    range: RangeOut
    messages: list[MessageOut]
    has_more_before: bool
    has_more_after: bool
    continue_before: dict[str, int] | None
    continue_after: dict[str, int] | None
    output_truncated: bool
    ignored_arguments: list[str]
    archival_content: bool
    notice: str


@attrs.define
class ReadChat:
    repo: MessageRepo
    policy: MarkupPolicy

    def run(self, context: CallContext, raw_arguments: object) -> Any:
        """The result payload; raises ChatRecallError for bad arguments or storage."""
        return self.read(context, parse_arguments(raw_arguments, ReadChatArguments))

    def read(self, context: CallContext, arguments: ReadChatArguments) -> Any:
        chat = self.repo.chat(context.app_id, arguments.chat_id)
        in_flight = context.message_id if arguments.chat_id == context.chat_id else None
        if arguments.around_message_id is not None:
            before = DEFAULT_AROUND if arguments.before is None else arguments.before
            after = DEFAULT_AROUND if arguments.after is None else arguments.after
            window = self.repo.around(
                context.app_id,
                chat.id,
                arguments.around_message_id,
                before,
                after,
                before_message_id=in_flight,
            )
            return self._around(chat, window, arguments, before, after)
        offset = arguments.offset or 0
        limit = arguments.limit or DEFAULT_PAGE_LIMIT
        window = self.repo.page(context.app_id, chat.id, offset, limit, before_message_id=in_flight)
        return self._page(chat, window, offset, limit)

    def _messages(self, window: MessageWindow) -> list[MessageOut]:
        return [self._message(message) for message in window.messages]

    def _message(self, message: StoredMessage) -> MessageOut:
        projection = project_for_read(message.text, self.policy)
        text, clipped = cap_utf8(projection.text, MESSAGE_BUDGET_BYTES, MESSAGE_TAIL_BYTES)
        return MessageOut(
            message_id=message.id,
            role=message.role.value,
            created_at=iso_time(message.created_at),
            text=text,
            truncated=projection.truncated or clipped,
        )

    def _around(
        self,
        chat: Chat,
        window: MessageWindow,
        arguments: ReadChatArguments,
        before: int,
        after: int,
    ) -> Any:
        messages = self._messages(window)
        target = arguments.around_message_id
        more_before, more_after = window.has_more_before, window.has_more_after
        truncated = False
        while True:
            first, last = messages[0].message_id, messages[-1].message_id
            payload = self._payload(
                chat,
                "around",
                messages,
                (more_before, more_after),
                continue_before={
                    "chat_id": chat.id,
                    "around_message_id": first,
                    "before": max(before, 1),
                    "after": 0,
                },
                continue_after={
                    "chat_id": chat.id,
                    "around_message_id": last,
                    "before": 0,
                    "after": max(after, 1),
                },
                offset=None,
                ignored=arguments.ignored,
                truncated=truncated,
            )
            if size(dumps(payload)) <= OUTPUT_BUDGET_BYTES or len(messages) == 1:
                return payload
            # Drop the message farthest from the target; the target always stays.
            position = next(i for i, m in enumerate(messages) if m.message_id == target)
            if position >= len(messages) - 1 - position:
                messages, more_before = messages[1:], True
            else:
                messages, more_after = messages[:-1], True
            truncated = True

    def _page(self, chat: Chat, window: MessageWindow, offset: int, limit: int) -> Any:
        messages = self._messages(window)
        more_after = window.has_more_after
        truncated = False
        while True:
            payload = self._payload(
                chat,
                "page",
                messages,
                (window.has_more_before, more_after),
                continue_before={
                    "chat_id": chat.id,
                    "offset": max(offset - limit, 0),
                    "limit": max(min(limit, offset), 1),
                },
                continue_after={
                    "chat_id": chat.id,
                    "offset": offset + len(messages),
                    "limit": limit,
                },
                offset=offset,
                ignored=[],
                truncated=truncated,
            )
            if size(dumps(payload)) <= OUTPUT_BUDGET_BYTES or len(messages) <= 1:
                return payload
            messages, more_after, truncated = messages[:-1], True, True

    def _payload(
        self,
        chat: Chat,
        mode: str,
        messages: list[MessageOut],
        more: tuple[bool, bool],
        *,
        continue_before: dict[str, int],
        continue_after: dict[str, int],
        offset: int | None,
        ignored: list[str],
        truncated: bool,
    ) -> Any:
        first = messages[0] if messages else None
        last = messages[-1] if messages else None
        more_before, more_after = more
        output = ReadChatOutput(
            chat=ChatMeta(
                chat_id=chat.id,
                title=clip_chars(valid_unicode(chat.title), TITLE_CHARS) if chat.title else None,
                created_at=iso_time(chat.created_at),
            ),
            mode=mode,
            range=RangeOut(
                first_message_id=first.message_id if first else None,
                last_message_id=last.message_id if last else None,
                first_created_at=first.created_at if first else None,
                last_created_at=last.created_at if last else None,
                count=len(messages),
                offset=offset,
            ),
            messages=messages,
            has_more_before=more_before,
            has_more_after=more_after,
            continue_before=continue_before if more_before else None,
            continue_after=continue_after if more_after else None,
            output_truncated=truncated,
            ignored_arguments=ignored,
            archival_content=True,
            notice=ARCHIVAL_NOTICE,
        )
        return unstructure(output)
