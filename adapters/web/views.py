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


def search_href(app_id: int, query: str | None = None) -> str:
    """The search page of an app, with its query: a search is a link."""
    return f"/apps/{app_id}" + (f"?{urlencode({'q': query})}" if query else "")


def chat_href(
    app_id: int,
    chat_id: int,
    read: Mapping[str, int],
    *,
    hit: int | None = None,
    query: str | None = None,
) -> str:
    """A window of a chat: `read` holds read_chat arguments (`around_message_id`, ...);
    `hit` is the message the search found (kept highlighted while paging) and `query`
    the search, for marking its words and for the way back to the results."""
    parameters: dict[str, object] = {
        URL_NAMES[name]: value for name, value in read.items() if name in URL_NAMES
    }
    at_hit = hit is not None and read.get("around_message_id") == hit
    if hit is not None and not at_hit:
        parameters["hit"] = hit
    if query:
        parameters["q"] = query
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
class SearchView:
    query: str
    results: tuple[ResultView, ...]
    truncated: bool
    unmatched_terms: tuple[str, ...]
    notes: tuple[str, ...]  # the tool's own notes (nothing matched, index behind)


def _matched_by(result: Mapping[str, Any]) -> tuple[str, ...]:
    found = result.get("matched_by")
    if found is None:
        return ()
    if isinstance(found, str):
        return (found,)
    return tuple(str(item) for item in found)


def search_view(app_id: int, payload: Mapping[str, Any], marker: Marker) -> SearchView:
    """The results page of one search_chats output."""
    query = str(payload["query"])
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
                    query=query,
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
                href=matches[0].href if matches else chat_href(app_id, chat_id, {"offset": 0}),
            )
        )
    notes = tuple(str(payload[name]) for name in ("query_note", "index_note") if payload.get(name))
    return SearchView(
        query=query,
        results=tuple(results),
        truncated=bool(payload["results_truncated"]),
        unmatched_terms=tuple(payload.get("unmatched_terms", ())),
        notes=notes,
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
    back: str  # the results this chat was opened from (or the app's search page)
    truncated: bool


def _step(
    app_id: int,
    chat_id: int,
    continuation: Mapping[str, Any] | None,
    label: str,
    rel: str,
    hit: int | None,
    query: str | None,
) -> Step | None:
    if not continuation:
        return None
    read = {name: int(value) for name, value in continuation.items() if name != "chat_id"}
    return Step(label, chat_href(app_id, chat_id, read, hit=hit, query=query), rel)


def chat_view(
    app_id: int,
    payload: Mapping[str, Any],
    marker: Marker,
    *,
    hit: int | None,
    read: Mapping[str, int],
) -> ChatView:
    """One read_chat window; `hit` (the message a search found) is highlighted, and the
    earlier/later links are read_chat's own `continue_before`/`continue_after`."""
    chat = payload["chat"]
    chat_id = int(chat["chat_id"])
    span = payload["range"]
    query = marker.query
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
            app_id, chat_id, payload["continue_before"], "Earlier messages", "prev", hit, query
        ),
        later=_step(
            app_id, chat_id, payload["continue_after"], "Later messages", "next", hit, query
        ),
        start=None
        if from_start
        else Step(
            "From the start",
            chat_href(app_id, chat_id, {"offset": 0}, hit=hit, query=query),
            "first",
        ),
        back=search_href(app_id, query),
        truncated=bool(payload["output_truncated"]),
    )


def app_entries(statuses: Sequence[tuple[int, int, int]]) -> tuple[AppEntry, ...]:
    """(app id, documents, pending) -> the picker's entries."""
    return tuple(
        AppEntry(app_id, documents, pending, search_href(app_id))
        for app_id, documents, pending in statuses
    )
