"""Recall by time (list_chats): which of an app's chats a page lists, and in what order.

A chat's activity is the span of its messages' times (the known roles, readable times:
`ChatActivity`). The storage adapters gather each chat's span inside the storage query
that enforces the app; `select_page` then applies the one policy every adapter shares:
the window, the order, the continuation and the page size. So every engine lists the
same chats in the same order for the same data.
"""

from __future__ import annotations

import enum
import heapq
from collections.abc import Iterable

import attrs

from chat_recall.domain.model import AppId, Chat, ChatId, StoredMessage
from chat_recall.domain.time_window import TimeWindow

MAX_PAGE = 20


class ListOrder(enum.Enum):
    """Newest first: by the last message, latest first. Oldest first: by the first
    message, earliest first. The chat id breaks ties in the same direction."""

    NEWEST = "newest"
    OLDEST = "oldest"


@attrs.frozen
class ChatActivity:
    """A chat's first and last message times (Unix seconds)."""

    chat_id: ChatId
    first_at: int
    last_at: int

    def position(self, order: ListOrder) -> ListPosition:
        """Where this chat stands in `order` (a continuation resumes after it)."""
        at = self.last_at if order is ListOrder.NEWEST else self.first_at
        return ListPosition(order, at, self.chat_id)


@attrs.frozen
class ListPosition:
    """A place in a listing: the time it is ordered by and the chat id; a continuation
    lists what comes after it."""

    order: ListOrder
    at: int
    chat_id: ChatId

    def sort_key(self) -> tuple[int, int]:
        """Ascending in listing order."""
        if self.order is ListOrder.NEWEST:
            return (-self.at, -self.chat_id)
        return (self.at, self.chat_id)

    def text(self) -> str:
        """The position as a continuation carries it: `newest:1714521600:42`."""
        return f"{self.order.value}:{self.at}:{self.chat_id}"

    @classmethod
    def parse(cls, text: str) -> ListPosition:
        """A position from `text()`; ValueError for any other text."""
        order, _, rest = text.partition(":")
        at, _, chat_id = rest.partition(":")
        try:
            return cls(ListOrder(order), int(at), ChatId(int(chat_id)))
        except ValueError:
            raise ValueError("is not a cursor that list_chats returned") from None


@attrs.frozen
class ChatListQuery:
    """One page of an app's chats: those active within `window` (see
    `TimeWindow.overlaps`), in `order`, after `cursor` (a position of the same order),
    at most `limit`, leaving out `exclude_chat_id` (the chat the agent works in)."""

    app_id: AppId
    window: TimeWindow = TimeWindow()
    order: ListOrder = ListOrder.NEWEST
    limit: int = MAX_PAGE
    cursor: ListPosition | None = None
    exclude_chat_id: ChatId | None = None

    def __attrs_post_init__(self) -> None:
        if not 1 <= self.limit <= MAX_PAGE:
            raise ValueError(f"limit must be 1 to {MAX_PAGE}")
        if self.cursor is not None and self.cursor.order is not self.order:
            raise ValueError("the cursor belongs to a listing in the other order")


def select_page(
    activities: Iterable[ChatActivity], query: ChatListQuery
) -> tuple[list[ChatActivity], bool]:
    """The chats of one page, in listing order, and whether more follow. `activities`
    are the app's chats (any order); the excluded chat is left out here too, so an
    adapter may leave it to this policy."""
    after = query.cursor.sort_key() if query.cursor is not None else None

    def wanted(activity: ChatActivity) -> bool:
        return (
            activity.chat_id != query.exclude_chat_id
            and query.window.overlaps(activity.first_at, activity.last_at)
            and (after is None or activity.position(query.order).sort_key() > after)
        )

    picked = heapq.nsmallest(
        query.limit + 1,
        (activity for activity in activities if wanted(activity)),
        key=lambda activity: activity.position(query.order).sort_key(),
    )
    return picked[: query.limit], len(picked) > query.limit


# How much of a first message an opening excerpt reads: what a short excerpt keeps, and
# room around it for the redaction to see a credential whole.
OPENING_READ_CHARS = 4096


def opening(content: str, limit: int = OPENING_READ_CHARS) -> str:
    """The start of a message for a short excerpt: at most `limit` characters, without
    the word the cut splits (no fragment of a credential is left for the redaction to
    miss; it redacts what is kept)."""
    if len(content) <= limit:
        return content
    head = content[: limit + 1]
    cut = max(head.rfind(space) for space in (" ", "\n", "\t", "\r"))
    return head[:cut] if cut > 0 else ""


@attrs.frozen
class ChatSummary:
    """One listed chat: the chat as stored, its activity, how many messages of the
    known roles it holds, and its first user message in chat order (None: it has
    none), read as `read_chat` reads one (a very long text cut)."""

    chat: Chat
    first_at: int
    last_at: int
    message_count: int
    first_user_message: StoredMessage | None


@attrs.frozen
class ChatPage:
    chats: tuple[ChatSummary, ...]
    has_more: bool
