"""Recall by time: a window of moments, and the ISO 8601 dates and times that name them.

The tools take `after` and `before` as an agent writes them (`2024-05-01`,
`2024-05-01T14:30:00Z`): `moment` turns either into Unix seconds by one rule, so a
listing and a search read the same text as the same moment. A date is the start of
that day in UTC, and a time without an offset is UTC (as the host times chat-recall
reads are, `domain.host_values`). `after` is inclusive and `before` exclusive, so
`after=2024-05-06, before=2024-05-13` is one week, with nothing counted twice when
consecutive windows are asked for.
"""

from __future__ import annotations

import datetime
import math

import attrs

from chat_recall.domain.host_values import MAX_SECONDS, MIN_SECONDS

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)

MOMENT_FORMS = "an ISO 8601 date or date and time, e.g. 2024-05-01 or 2024-05-01T14:30:00Z"


def moment(text: str) -> int:
    """Unix seconds of an ISO 8601 date or date and time; ValueError (saying what is
    accepted) for any other text or a moment outside the years 1 to 9999."""
    value = text.strip()
    try:  # a date alone reads as its midnight
        parsed = datetime.datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"must be {MOMENT_FORMS}") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.UTC)
    try:
        seconds = math.floor((parsed - _EPOCH).total_seconds())
    except OverflowError:  # an offset pushing it past the years 1 to 9999
        raise ValueError("must fall within the years 1 to 9999") from None
    if not MIN_SECONDS <= seconds <= MAX_SECONDS:
        raise ValueError("must fall within the years 1 to 9999")
    return seconds


@attrs.frozen
class TimeWindow:
    """Moments from `after` (inclusive) up to `before` (exclusive), Unix seconds; an
    open side is None, and the unbounded window holds every moment."""

    after: int | None = None
    before: int | None = None

    def __attrs_post_init__(self) -> None:
        if self.after is not None and self.before is not None and self.after >= self.before:
            raise ValueError("after must be earlier than before")

    @classmethod
    def of_text(cls, after: str | None, before: str | None) -> TimeWindow:
        """The window two tool arguments name (see `moment`); ValueError naming the
        argument that is wrong."""
        bounds = []
        for name, text in (("after", after), ("before", before)):
            try:
                bounds.append(None if text is None else moment(text))
            except ValueError as error:
                raise ValueError(f"{name} {error}") from None
        return cls(*bounds)

    @property
    def bounded(self) -> bool:
        return self.after is not None or self.before is not None

    def span(self) -> tuple[int, int]:
        """The window as `low <= moment < high` for a storage query (an open side is
        the end of the range every stored time falls in)."""
        low = MIN_SECONDS if self.after is None else self.after
        high = MAX_SECONDS + 1 if self.before is None else self.before
        return low, high

    def holds(self, moment: int) -> bool:
        """Whether one moment lies within the window."""
        return (self.after is None or moment >= self.after) and (
            self.before is None or moment < self.before
        )

    def overlaps(self, first: int, last: int) -> bool:
        """Whether a span of activity from `first` to `last` (inclusive) meets the
        window: it began before the window ends and lasted until it began."""
        return (self.after is None or last >= self.after) and (
            self.before is None or first < self.before
        )
