"""Property: no marker placed in a non-keep body ever reaches a projection."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chat_recall.domain.messages import MessageText
from chat_recall.domain.projection import (
    DEFAULT_RULES,
    PROJECTION_MAX_BYTES,
    TagClass,
    project_for_read,
    project_for_search,
)

MARKER = "ZQXMARK"
NON_KEEP = sorted(n for n, rule in DEFAULT_RULES.items() if rule.tag_class is not TagClass.KEEP)
KEEP_TEXT = sorted(
    name
    for name, rule in DEFAULT_RULES.items()
    if rule.tag_class is TagClass.KEEP and rule.body.value == "text"
)
UNKNOWN = ["dyad-future-thing", "dyad-x", "thinking", "DYAD-WRITE", "Think"]

# Prose never contains the marker: no capital Z in its alphabet.
prose = st.text(alphabet="abcdefgh ijk\n\t<>/=\"'`&;.-_:", max_size=40)
attribute_value = st.text(alphabet="abc <>&\"'=/ ", max_size=12).map(
    lambda v: v.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
)


def escape(value: str) -> str:
    for raw, entity in (("&", "&amp;"), ('"', "&quot;"), ("<", "&lt;"), (">", "&gt;")):
        value = value.replace(raw, entity)
    return value


@st.composite
def opening(draw: st.DrawFn, name: str, *, secret: bool) -> str:
    names = draw(st.lists(st.sampled_from(["path", "title", "query", "description", "x-y"])))
    attributes = [f'{key}="{draw(attribute_value)}"' for key in names]
    if secret:
        attributes.append(f'secret="{escape(draw(attribute_value) + MARKER)}"')
    spacing = draw(st.sampled_from([" ", "\n", "  "]))
    return f"<{name}{spacing}{' '.join(attributes)}>"


@st.composite
def non_keep_block(draw: st.DrawFn, *, closed: bool = True) -> str:
    name = draw(st.sampled_from(NON_KEEP + UNKNOWN))
    close = f"</{name}>"
    filler = prose.filter(lambda text: close not in text and not text.endswith(f"</{name}"))
    before = draw(filler)
    nested_options = ["", f"<{name}>", "<think>", '<dyad-write path="n">', "</dyad-grep>"]
    nested = draw(st.sampled_from([option for option in nested_options if close not in option]))
    body = f"{before}{nested} {MARKER} {draw(filler)}"
    block = f"{draw(opening(name, secret=True))}{body}{close if closed else ''}"
    if draw(st.booleans()):
        block = f"```\n{block}\n```"
    return block


@st.composite
def keep_block(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(KEEP_TEXT))
    close = f"</{name}>"
    parts = draw(st.lists(st.one_of(prose, non_keep_block()), max_size=3))
    body = "".join(parts) + draw(st.sampled_from(["", draw(non_keep_block(closed=False))]))
    if close in body:
        body = body.replace(close, "")
    return f"{draw(opening(name, secret=False))}{body}{close}"


# A block left unclosed (a message cut off mid-stream) can only be the last piece:
# without nesting, anything after it belongs to its body.
assistant_message = st.tuples(
    st.lists(st.one_of(prose, non_keep_block(), keep_block()), min_size=1, max_size=8),
    st.one_of(st.just(""), non_keep_block(closed=False)),
).map(lambda pieces: "".join(pieces[0]) + pieces[1])


@settings(max_examples=400, deadline=None)
@given(assistant_message)
def test_no_marker_from_a_non_keep_body_reaches_any_projection(content: str) -> None:
    message = MessageText.assistant(content)
    for projection in (project_for_search(message), project_for_read(message)):
        assert MARKER not in projection.text
        assert len(projection.text.encode("utf-8")) <= PROJECTION_MAX_BYTES


@settings(max_examples=200, deadline=None)
@given(assistant_message, st.sampled_from(["", '<dyad-write path="a', "<think", "<"]))
def test_truncated_streams_leak_nothing(content: str, cut: str) -> None:
    message = MessageText.assistant(content + cut)
    assert MARKER not in project_for_search(message).text


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.booleans())
def test_projection_is_deterministic_for_any_text(content: str, is_user: bool) -> None:
    message = MessageText.user(content) if is_user else MessageText.assistant(content)
    assert project_for_search(message) == project_for_search(message)
    assert project_for_read(message) == project_for_read(message)
