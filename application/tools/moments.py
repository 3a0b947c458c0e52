"""The `after` and `before` arguments the tools take to recall by time: declared,
read and echoed in one place, so list_chats and search_chats accept the same text and
read it as the same moment (`domain.time_window.moment`)."""

from __future__ import annotations

from typing import Any

import attrs

from chat_recall.application.tools.arguments import optional_text
from chat_recall.application.tools.output import iso_time
from chat_recall.domain.time_window import TimeWindow, moment

# Long enough for any ISO 8601 date and time with fractions and an offset.
MOMENT_CHARS = 40
FORMS = (
    "an ISO 8601 date (2024-05-01, meaning its start) or date and time "
    "(2024-05-01T14:30:00Z); UTC unless an offset is given"
)


def moment_argument(description: str) -> Any:
    """An optional `after`/`before` argument: `description` says what it bounds."""
    return optional_text(f"{description}: {FORMS}.", max_length=MOMENT_CHARS, check=moment)


def window_of(after: str | None, before: str | None) -> TimeWindow:
    """The window the two arguments name; ValueError (naming the argument) when one is
    no moment or `after` is not earlier than `before`."""
    return TimeWindow.of_text(after, before)


@attrs.frozen
class WindowOut:
    """The window as it was read: each bound as a UTC time, null when open."""

    after: str | None
    before: str | None

    @classmethod
    def of(cls, window: TimeWindow) -> WindowOut:
        return cls(iso_time(window.after), iso_time(window.before))
