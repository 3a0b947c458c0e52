"""The one conversion of host values: timestamp formats, the auto-detect rule, ranges,
and text; any stored value reads as a time, a text, or a reason, never an exception."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chat_recall.domain.host_values import (
    MAX_SECONDS,
    MILLISECONDS_FROM,
    MIN_SECONDS,
    HostValue,
    InvalidText,
    TimestampFormat,
    Unreadable,
    UnreadableReason,
    content_text,
    iso_time,
    readable_number_ranges,
    safe_unix_seconds,
    title_text,
    unix_seconds,
)

AUTO, SECONDS, MILLIS, ISO = (
    TimestampFormat.AUTO,
    TimestampFormat.UNIX_SECONDS,
    TimestampFormat.UNIX_MILLISECONDS,
    TimestampFormat.ISO_8601,
)
R = UnreadableReason


@pytest.mark.parametrize(
    ("value", "timestamps", "expected"),
    [
        (1_700_000_000, AUTO, 1_700_000_000),
        (1_700_000_000.9, AUTO, 1_700_000_000),
        ("1700000000", AUTO, 1_700_000_000),
        (" 1700000000 ", SECONDS, 1_700_000_000),
        (1_700_000_000_123, AUTO, 1_700_000_000),
        (1_700_000_000_123, MILLIS, 1_700_000_000),
        ("1700000000123", AUTO, 1_700_000_000),
        (MILLISECONDS_FROM - 1, AUTO, MILLISECONDS_FROM - 1),  # seconds: the year 5138
        (MILLISECONDS_FROM, AUTO, MILLISECONDS_FROM // 1000),  # milliseconds: 1973
        (-5, AUTO, -5),
        (0, AUTO, 0),
        ("2024-01-01 10:00:00", AUTO, 1_704_103_200),
        ("2024-01-01T10:00:00Z", ISO, 1_704_103_200),
        ("2024-01-01T12:00:00+02:00", ISO, 1_704_103_200),
        ("2024-01-01T10:00:00.999", AUTO, 1_704_103_200),
        ("2024-01-01", AUTO, 1_704_067_200),
        ("0001-01-01T00:00:00Z", ISO, MIN_SECONDS),
        ("9999-12-31T23:59:59Z", ISO, MAX_SECONDS),
        (None, AUTO, R.TIMESTAMP_MISSING),
        ("", AUTO, R.TIMESTAMP_UNPARSEABLE),
        ("   ", SECONDS, R.TIMESTAMP_UNPARSEABLE),
        ("yesterday", AUTO, R.TIMESTAMP_UNPARSEABLE),
        ("2024-01-01 10:00:00", SECONDS, R.TIMESTAMP_UNPARSEABLE),
        (1_700_000_000, ISO, R.TIMESTAMP_UNPARSEABLE),
        (b"\x01", AUTO, R.TIMESTAMP_UNPARSEABLE),
        (InvalidText(3), AUTO, R.TIMESTAMP_UNPARSEABLE),
        (float("nan"), AUTO, R.TIMESTAMP_UNPARSEABLE),
        (float("inf"), SECONDS, R.TIMESTAMP_UNPARSEABLE),
        ("inf", SECONDS, R.TIMESTAMP_UNPARSEABLE),
        (1_700_000_000_000, SECONDS, R.TIMESTAMP_OUT_OF_RANGE),  # year 55840
        (MAX_SECONDS + 1, SECONDS, R.TIMESTAMP_OUT_OF_RANGE),
        (MIN_SECONDS - 1, SECONDS, R.TIMESTAMP_OUT_OF_RANGE),
        (10**400, AUTO, R.TIMESTAMP_OUT_OF_RANGE),
        (1e300, MILLIS, R.TIMESTAMP_OUT_OF_RANGE),
        ("0001-01-01T00:00:00+01:00", ISO, R.TIMESTAMP_OUT_OF_RANGE),
    ],
)
def test_timestamps(value: HostValue, timestamps: TimestampFormat, expected: int | R) -> None:
    if isinstance(expected, R):
        with pytest.raises(Unreadable) as raised:
            unix_seconds(value, timestamps)
        assert raised.value.reason is expected
        assert safe_unix_seconds(value, timestamps) is None
    else:
        assert unix_seconds(value, timestamps) == expected


def test_iso_time_covers_the_whole_range_and_nothing_beyond() -> None:
    assert iso_time(1_704_103_200) == "2024-01-01T10:00:00.000Z"
    assert iso_time(MIN_SECONDS) == "0001-01-01T00:00:00.000Z"
    assert iso_time(MAX_SECONDS) == "9999-12-31T23:59:59.000Z"
    assert iso_time(MAX_SECONDS + 1) is None
    assert iso_time(None) is None


def test_text_values() -> None:
    assert content_text("hi") == "hi"
    assert content_text(None) == ""
    assert title_text(None) is None
    for value, reason in [
        (InvalidText(4), R.CONTENT_NOT_UTF8),
        (b"x", R.CONTENT_NOT_TEXT),
        (5, R.CONTENT_NOT_TEXT),
    ]:
        with pytest.raises(Unreadable) as raised:
            content_text(value)
        assert raised.value.reason is reason
    with pytest.raises(Unreadable) as title:
        title_text(InvalidText(1))
    assert title.value.reason is R.TITLE_NOT_UTF8


HOST_VALUES = st.one_of(
    st.none(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),
    st.binary(),
    st.builds(InvalidText, st.integers(0, 100)),
    st.builds(lambda moment, sep: moment.isoformat(sep=sep), st.datetimes(), st.sampled_from(" T")),
)


@given(HOST_VALUES, st.sampled_from(TimestampFormat))
def test_any_stored_value_is_a_time_in_range_or_a_reason(
    value: HostValue, timestamps: TimestampFormat
) -> None:
    seconds = safe_unix_seconds(value, timestamps)
    if seconds is None:
        with pytest.raises(Unreadable, match=r"^timestamp_"):
            unix_seconds(value, timestamps)
        return
    assert MIN_SECONDS <= seconds <= MAX_SECONDS
    assert iso_time(seconds) is not None
    numbers = readable_number_ranges(timestamps)
    if isinstance(value, int) and not isinstance(value, bool):
        assert any(low <= value <= high for low, high in numbers)


def test_a_cut_text_drops_the_characters_and_words_its_cut_splits() -> None:
    from chat_recall.domain.host_values import CutText, Unreadable

    head = "first words and a tokën".encode()[:-1]  # the cut splits `ë` and the word
    tail = "ë2secret last words".encode()[1:]  # ... and starts inside `ë`
    text = CutText(head, tail, 10**8, "utf-8").text()
    assert text == "first words and a […] last words"
    utf16 = CutText("ab cd".encode("utf-16-le"), "ef gh".encode("utf-16-le"), 10**8, "utf-16-le")
    assert utf16.text() == "ab […] gh"
    with pytest.raises(Unreadable):
        CutText(b"valid \xff\xfe words ", b" end", 10**8, "utf-8").text()
    assert CutText.of("short") == "short"
    long = "a " * (3 << 20)
    cut = CutText.of(long)
    assert isinstance(cut, CutText)
    assert cut.size == len(long)


def _reading(value: HostValue, timestamps: TimestampFormat) -> int | R:
    try:
        return unix_seconds(value, timestamps)
    except Unreadable as unreadable:
        return unreadable.reason


@given(
    st.one_of(
        st.integers(),
        st.integers(MIN_SECONDS * 1000 - 5, MAX_SECONDS * 1000 + 5),
        st.sampled_from([MILLISECONDS_FROM - 1, MILLISECONDS_FROM, -MILLISECONDS_FROM]),
        st.sampled_from([MIN_SECONDS - 1, MIN_SECONDS, MAX_SECONDS, MAX_SECONDS + 1]),
    ),
    st.sampled_from(TimestampFormat),
)
def test_a_stored_integer_reads_as_the_same_number_stored_as_text(
    value: int, timestamps: TimestampFormat
) -> None:
    """Integers take a shortcut past the general conversion: same time, same reason."""
    expected = _reading(f" {value} ", timestamps)
    if timestamps is ISO:
        expected = R.TIMESTAMP_UNPARSEABLE  # a number is never an ISO 8601 text
    assert _reading(value, timestamps) == expected
