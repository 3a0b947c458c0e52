"""Role-aware projections of a message: what search indexes and what read returns.

- User text is never parsed for markup: it is kept as written, whitespace normalised.
- Assistant content is scanned (see `scanner`) and each tag obeys the policy table.
- The search projection is one line of searchable text; the read projection keeps line
  structure and adds concise tool/error summaries, never payload bodies.
- Both are bounded to `PROJECTION_MAX_BYTES` of UTF-8 (head and tail kept).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator

import attrs

from chat_recall.domain.messages import MessageText, Role
from chat_recall.domain.projection.policy import DEFAULT_POLICY, BodyRule, MarkupPolicy, TagClass
from chat_recall.domain.projection.scanner import Block, Prose, Segment, parse_attributes, scan
from chat_recall.domain.projection.text import (
    cap_utf8,
    clip_chars,
    collapse_whitespace,
    tidy_lines,
    valid_unicode,
)

# Bump whenever projection output changes for the same input and policy: the derived
# index is rebuilt in the background when the stored version differs.
PROJECTION_VERSION = 1

# The cap is in UTF-8 bytes, the unit of every output budget; a capped projection keeps
# its first PROJECTION_MAX_BYTES - PROJECTION_TAIL_BYTES bytes and its last
# PROJECTION_TAIL_BYTES bytes around a marker.
PROJECTION_MAX_BYTES = 32 * 1024
PROJECTION_TAIL_BYTES = 8 * 1024

_QA = re.compile(r"<qa\b([^>]*)>(.*?)</qa>", re.DOTALL)
_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_URL_CAP = 300


class ProjectionMode(enum.Enum):
    SEARCH = "search"
    READ = "read"


@attrs.frozen
class Projection:
    """The cleaned text of one message and whether the byte cap cut it."""

    text: str
    truncated: bool = False

    @classmethod
    def bounded(cls, text: str) -> Projection:
        capped, truncated = cap_utf8(text, PROJECTION_MAX_BYTES, PROJECTION_TAIL_BYTES)
        return cls(capped, truncated)

    @property
    def is_empty(self) -> bool:
        return not self.text


def project_for_search(message: MessageText, policy: MarkupPolicy = DEFAULT_POLICY) -> Projection:
    """The text the search index holds for a message."""
    return _project(message, policy, ProjectionMode.SEARCH)


def project_for_read(message: MessageText, policy: MarkupPolicy = DEFAULT_POLICY) -> Projection:
    """The text read_chat returns for a message: line structure and concise summaries."""
    return _project(message, policy, ProjectionMode.READ)


def _project(message: MessageText, policy: MarkupPolicy, mode: ProjectionMode) -> Projection:
    if message.role is Role.USER:
        raw = message.content
    else:
        raw = "\n".join(_render(scan(message.content, policy), mode))
    normalise = collapse_whitespace if mode is ProjectionMode.SEARCH else tidy_lines
    return Projection.bounded(normalise(valid_unicode(raw)))


def _render(segments: tuple[Segment, ...], mode: ProjectionMode) -> Iterator[str]:
    for segment in segments:
        if isinstance(segment, Prose):
            yield segment.text
        else:
            yield from _render_block(segment, mode)


def _render_block(block: Block, mode: ProjectionMode) -> Iterator[str]:
    rule = block.rule
    if rule.tag_class is TagClass.DROP:
        return
    line = _metadata_line(block, mode)
    if rule.tag_class is TagClass.KEEP:
        if line is not None:
            yield line
        yield from _keep_body(block, mode)
        return
    url = _url_body(block) if rule.body is BodyRule.URL else None
    if line is None and url is None and mode is ProjectionMode.SEARCH:
        return  # bulky output with nothing concise to say
    label = rule.label or block.name
    line = line or f"[{label}]"
    if url is not None:
        line = f"{line[:-1]} {url}]"
    elif mode is ProjectionMode.READ and block.body.strip():
        lines = block.body.strip().count("\n") + 1
        line = f"{line[:-1]} ({lines} line{'s' if lines != 1 else ''} omitted)]"
    yield line


def _metadata_line(block: Block, mode: ProjectionMode) -> str | None:
    """`[label subject: detail]` from allowlisted attributes, or None when a keep or
    bulky tag has no attribute worth a line."""
    rule = block.rule
    fields = [_field(block, name, rule.attr_cap, named=rule.named) for name in rule.subject]
    if mode is ProjectionMode.READ:
        fields += [_field(block, name, rule.attr_cap, named=True) for name in rule.read_fields]
    subject = [field for field in fields if field]
    detail = [v for v in (_attribute_text(block, n, rule.attr_cap) for n in rule.detail) if v]
    if not subject and not detail and rule.tag_class is not TagClass.META:
        return None
    parts = [rule.label or block.name.removeprefix("dyad-")]
    if subject:
        parts.append(" " + rule.joiner.join(subject))
    if detail:
        parts.append(": " + " — ".join(detail))
    return "[" + "".join(parts) + "]"


def _field(block: Block, name: str, cap: int, *, named: bool) -> str:
    value = _attribute_text(block, name, cap)
    return f"{name}: {value}" if value and named else value


def _attribute_text(block: Block, name: str, cap: int) -> str:
    value = block.attribute(name)
    return clip_chars(collapse_whitespace(value), cap) if value else ""


def _keep_body(block: Block, mode: ProjectionMode) -> Iterator[str]:
    rule = block.rule
    if rule.body is BodyRule.QA:
        yield from _questionnaire(block.body)
        return
    cap = rule.body_cap
    if rule.body is BodyRule.DROP:
        cap = rule.read_body_cap if mode is ProjectionMode.READ else None
        if cap is None:
            return
        yield clip_chars(block.body.strip(), cap)
        return
    body = "\n".join(_render(block.children or (), mode))
    yield clip_chars(body.strip(), cap) if cap is not None else body


def _questionnaire(body: str) -> Iterator[str]:
    for match in _QA.finditer(body):
        question = dict(parse_attributes(match.group(1))).get("question", "")
        answer = match.group(2).strip()
        yield f"Q: {collapse_whitespace(question)} A: {collapse_whitespace(answer)}"


def _url_body(block: Block) -> str | None:
    found = _URL.search(block.body)
    return clip_chars(found.group(), _URL_CAP) if found else None
