"""What each page shows, made from the tools' JSON output as the agent receives it.

Nothing here reads storage: a page's text is the text the tools returned (redacted,
projected, framed), cut into marked and unmarked parts (`domain.search.marks`) and
given links. Links are built here, from the tools' own continuation arguments, so a
page, a search and each window of a chat is a URL a person can keep or share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

import attrs

from chat_recall.domain.search.marks import Part, marked_parts
from chat_recall.domain.text.analysis import TextAnalysis

# The read_chat arguments a chat page's URL carries, by their names in the URL.
READ_PARAMETERS = {
    "around": "around_message_id",
    "before": "before",
    "after": "after",
    "offset": "offset",
    "limit": "limit",
}
# ... and the other way round, for links made from read_chat's continuations.
URL_NAMES = {argument: name for name, argument in READ_PARAMETERS.items()}
# Where a chat was opened from, in a chat page's URL (read_chat's own `after`/`before`
# are message ids there, so the time window travels under other names).
ORIGIN_QUERY = "q"
ORIGIN_AFTER, ORIGIN_BEFORE = "window_after", "window_before"
ORIGIN_CURSOR = "cursor"


@attrs.frozen
class Window:
    """The time window of a search or a listing as the URL gives it: the `after` and
    `before` arguments of search_chats and list_chats (ISO dates), None when open. The
    tools read and check them; a bad one is their error."""

    after: str | None = None
    before: str | None = None

    @classmethod
    def of(cls, after: str | None, before: str | None) -> Window:
        """From a form's fields, where an empty field is an open side."""
        return cls(after or None, before or None)

    def arguments(self) -> dict[str, str]:
        """The tools' `after`/`before` arguments (and the URL's): the bounds given."""
        bounds = (("after", self.after), ("before", self.before))
        return {name: value for name, value in bounds if value is not None}


@attrs.frozen
class Origin:
    """The page a chat was opened from: a search (`query`) or the chats by time (the
    page at `cursor`), within `window`. A chat's links carry it, so its words stay
    marked while paging and "back" returns to that page."""

    query: str | None = None
    window: Window = Window()
    cursor: str | None = None

    @classmethod
    def of_chat_address(cls, parameters: Mapping[str, str]) -> Origin:
        return cls(
            parameters.get(ORIGIN_QUERY) or None,
            Window.of(parameters.get(ORIGIN_AFTER), parameters.get(ORIGIN_BEFORE)),
            parameters.get(ORIGIN_CURSOR) or None,
        )

    def parameters(self) -> dict[str, str]:
        """The origin as a chat page's URL parameters."""
        given = (
            (ORIGIN_QUERY, self.query),
            (ORIGIN_AFTER, self.window.after),
            (ORIGIN_BEFORE, self.window.before),
            (ORIGIN_CURSOR, None if self.query else self.cursor),
        )
        return {name: value for name, value in given if value}

    def href(self, app_id: int) -> str:
        return search_href(app_id, self.query, self.window, cursor=self.cursor)


def search_href(
    app_id: int,
    query: str | None = None,
    window: Window | None = None,
    *,
    cursor: str | None = None,
    limit: int | None = None,
) -> str:
    """The page of an app: with a query its search, without one its chats by time (from
    list_chats' `cursor` on), within `window` either way: a search, a listing and each
    page of it is a link."""
    parameters: dict[str, object] = {"q": query} if query else {}
    parameters.update((window or Window()).arguments())
    if not query:  # a search has no pages; a listing does
        if limit is not None:
            parameters["limit"] = limit
        if cursor:
            parameters["cursor"] = cursor
    return f"/apps/{app_id}" + (f"?{urlencode(parameters)}" if parameters else "")


def chat_href(
    app_id: int,
    chat_id: int,
    read: Mapping[str, int],
    *,
    hit: int | None = None,
    origin: Origin | None = None,
) -> str:
    """A window of a chat: `read` holds read_chat arguments (`around_message_id`, ...);
    `hit` is the message the search found (kept highlighted while paging) and `origin`
    the page it was opened from, for marking the search's words and for the way back."""
    parameters: dict[str, object] = {
        URL_NAMES[name]: value for name, value in read.items() if name in URL_NAMES
    }
    at_hit = hit is not None and read.get("around_message_id") == hit
    if hit is not None and not at_hit:
        parameters["hit"] = hit
    if origin is not None:
        parameters.update(origin.parameters())
    anchor = f"#m{hit}" if at_hit else ""
    return f"/apps/{app_id}/chats/{chat_id}?{urlencode(parameters)}{anchor}"


def when(iso: str | None) -> str:
    """`2023-11-14T22:13:20.000Z` -> `2023-11-14 22:13 UTC` (the tools' times are UTC)."""
    if not iso:
        return "unknown time"
    return f"{iso[:10]} {iso[11:16]} UTC"


@attrs.frozen
class Marker:
    """Cuts the tools' texts into parts with the query's words marked, with the
    analysis of the index the tools searched."""

    analysis: TextAnalysis
    query: str | None

    def parts(self, text: str) -> tuple[Part, ...]:
        if not self.query:
            return (Part(text),)
        return marked_parts(text, self.query, self.analysis)


@attrs.frozen
class AppEntry:
    app_id: int
    documents: int
    pending: int
    href: str


@attrs.frozen
class IndexLine:
    """The index status line of a page (`ChatRecall.status` of the app)."""

    state: str
    documents: int
    pending: int
    indexer: str
    note: str | None


@attrs.frozen
class MatchView:
    message_id: int
    role: str
    created_at: str | None
    when: str
    parts: tuple[Part, ...]
    cut: bool
    href: str


@attrs.frozen
class ResultView:
    chat_id: int
    title: str
    last_message_at: str | None
    when: str
    matched_terms: tuple[str, ...]
    # How the chat matched when the tool says (`matched_by`: words, meaning, ...);
    # empty when the tool output has no such field: then the words are the reason.
    matched_by: tuple[str, ...]
    matches: tuple[MatchView, ...]
    href: str


@attrs.frozen
class WindowView:
    """The time window as the tool read it (its `window` output), for saying which
    moments a page covers: each bound as a time, None when open."""

    after: str | None
    before: str | None

    @classmethod
    def of(cls, window: Mapping[str, Any] | None) -> WindowView | None:
        """None for no window or an unbounded one."""
        after, before = (window or {}).get("after"), (window or {}).get("before")
        if after is None and before is None:
            return None
        return cls(after and when(after), before and when(before))


@attrs.frozen
class SearchView:
    query: str
    results: tuple[ResultView, ...]
    truncated: bool
    unmatched_terms: tuple[str, ...]
    notes: tuple[str, ...]  # the tool's own notes (nothing matched, index behind)
    window: WindowView | None  # the messages searched were written within it


def _matched_by(result: Mapping[str, Any]) -> tuple[str, ...]:
    found = result.get("matched_by")
    if found is None:
        return ()
    if isinstance(found, str):
        return (found,)
    return tuple(str(item) for item in found)


def search_view(
    app_id: int, payload: Mapping[str, Any], marker: Marker, window: Window | None = None
) -> SearchView:
    """The results page of one search_chats output, asked within `window` (as the URL
    gave it: each chat link carries it back)."""
    query = str(payload["query"])
    origin = Origin(query, window or Window())
    results = []
    for result in payload["results"]:
        chat_id = int(result["chat_id"])
        matches = tuple(
            MatchView(
                message_id=int(match["message_id"]),
                role=str(match["role"]),
                created_at=match["created_at"],
                when=when(match["created_at"]),
                parts=marker.parts(str(match["excerpt"])),
                cut=bool(match["projection_truncated"]),
                href=chat_href(
                    app_id,
                    chat_id,
                    {"around_message_id": int(match["message_id"])},
                    hit=int(match["message_id"]),
                    origin=origin,
                ),
            )
            for match in result["matches"]
        )
        results.append(
            ResultView(
                chat_id=chat_id,
                title=result["title"] or "Untitled chat",
                last_message_at=result["last_message_at"],
                when=when(result["last_message_at"]),
                matched_terms=tuple(result["matched_terms"]),
                matched_by=_matched_by(result),
                matches=matches,
                href=matches[0].href
                if matches
                else chat_href(app_id, chat_id, {"offset": 0}, origin=origin),
            )
        )
    notes = tuple(str(payload[name]) for name in ("query_note", "index_note") if payload.get(name))
    return SearchView(
        query=query,
        results=tuple(results),
        truncated=bool(payload["results_truncated"]),
        unmatched_terms=tuple(payload.get("unmatched_terms", ())),
        notes=notes,
        window=WindowView.of(payload.get("window")),
    )


@attrs.frozen
class ListedChatView:
    chat_id: int
    title: str
    first_message_at: str | None
    last_message_at: str | None
    first_when: str
    last_when: str
    count: int
    opening: str | None  # the opening of its first user message, as the tool gave it
    href: str  # the chat from its first message


@attrs.frozen
class ListingView:
    """An app's chats by time, newest first: one list_chats page."""

    chats: tuple[ListedChatView, ...]
    window: WindowView | None  # the chats were active within it
    more: Step | None  # the next page: list_chats' own `continue_with`
    truncated: bool


def listing_view(
    app_id: int, payload: Mapping[str, Any], window: Window, cursor: str | None
) -> ListingView:
    """The page of one list_chats output, asked within `window` from `cursor` (as the
    URL gave them: each chat link carries them, for the way back to this page)."""
    origin = Origin(None, window, cursor)
    chats = tuple(
        ListedChatView(
            chat_id=int(chat["chat_id"]),
            title=chat["title"] or "Untitled chat",
            first_message_at=chat["first_message_at"],
            last_message_at=chat["last_message_at"],
            first_when=when(chat["first_message_at"]),
            last_when=when(chat["last_message_at"]),
            count=int(chat["message_count"]),
            opening=chat["first_user_message"],
            href=chat_href(app_id, int(chat["chat_id"]), {"offset": 0}, origin=origin),
        )
        for chat in payload["chats"]
    )
    following = payload["continue_with"]
    more = None
    if following:  # the arguments of the next call, as the URL of the next page
        limit = following.get("limit")
        href = search_href(
            app_id,
            window=Window(following.get("after"), following.get("before")),
            cursor=following.get("cursor"),
            limit=None if limit is None else int(limit),
        )
        more = Step("More chats", href, "next")
    return ListingView(
        chats=chats,
        window=WindowView.of(payload["window"]),
        more=more,
        truncated=bool(payload["output_truncated"]),
    )


@attrs.frozen
class MessageView:
    message_id: int
    role: str
    created_at: str | None
    when: str
    parts: tuple[Part, ...]
    cut: bool
    hit: bool


@attrs.frozen
class Step:
    """A link to the next window of the chat, earlier or later."""

    label: str
    href: str
    rel: str


@attrs.frozen
class ChatView:
    chat_id: int
    title: str
    when: str
    first_when: str
    last_when: str
    count: int
    messages: tuple[MessageView, ...]
    earlier: Step | None
    later: Step | None
    start: Step | None  # the chat from its first message, when earlier ones are not shown
    back: str  # the page this chat was opened from: its search results or chats by time
    truncated: bool


def _step(
    app_id: int,
    chat_id: int,
    continuation: Mapping[str, Any] | None,
    label: str,
    rel: str,
    hit: int | None,
    origin: Origin,
) -> Step | None:
    if not continuation:
        return None
    read = {name: int(value) for name, value in continuation.items() if name != "chat_id"}
    return Step(label, chat_href(app_id, chat_id, read, hit=hit, origin=origin), rel)


def chat_view(
    app_id: int,
    payload: Mapping[str, Any],
    marker: Marker,
    *,
    hit: int | None,
    read: Mapping[str, int],
    origin: Origin,
) -> ChatView:
    """One read_chat window; `hit` (the message a search found) is highlighted, the
    earlier/later links are read_chat's own `continue_before`/`continue_after`, and
    every link carries `origin`, the page the chat was opened from."""
    chat = payload["chat"]
    chat_id = int(chat["chat_id"])
    span = payload["range"]
    messages = tuple(
        MessageView(
            message_id=int(message["message_id"]),
            role=str(message["role"]),
            created_at=message["created_at"],
            when=when(message["created_at"]),
            parts=marker.parts(str(message["text"])),
            cut=bool(message["truncated"]),
            hit=hit is not None and int(message["message_id"]) == hit,
        )
        for message in payload["messages"]
    )
    # "From the start" when earlier messages exist and the window is not a page from 0.
    from_start = read.get("offset") == 0 and "around_message_id" not in read
    from_start = from_start or not payload["continue_before"]
    return ChatView(
        chat_id=chat_id,
        title=chat["title"] or "Untitled chat",
        when=when(chat["created_at"]),
        first_when=when(span["first_created_at"]),
        last_when=when(span["last_created_at"]),
        count=int(span["count"]),
        messages=messages,
        earlier=_step(
            app_id, chat_id, payload["continue_before"], "Earlier messages", "prev", hit, origin
        ),
        later=_step(
            app_id, chat_id, payload["continue_after"], "Later messages", "next", hit, origin
        ),
        start=None
        if from_start
        else Step(
            "From the start",
            chat_href(app_id, chat_id, {"offset": 0}, hit=hit, origin=origin),
            "first",
        ),
        back=origin.href(app_id),
        truncated=bool(payload["output_truncated"]),
    )


def app_entries(statuses: Sequence[tuple[int, int, int]]) -> tuple[AppEntry, ...]:
    """(app id, documents, pending) -> the picker's entries."""
    return tuple(
        AppEntry(app_id, documents, pending, search_href(app_id))
        for app_id, documents, pending in statuses
    )
