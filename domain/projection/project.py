"""Role-aware projections of a message: what search indexes and what read returns.

- User text is never parsed for markup: it is kept as written.
- Assistant content is scanned (see `scanner`) and each tag obeys the policy table.
- Both projections keep the text as written (`tidy_lines`: lines, indentation and tabs;
  only trailing whitespace and runs of blank lines go), so code in a message, the most
  common thing people come back for, reads as it was written in an excerpt and in a
  read. The read projection adds concise tool/error summaries (never payload bodies)
  where the search projection keeps only what is worth finding.
- Credentials become typed placeholders (`[redacted aws-secret-key]`, see
  `domain.redaction`) before anything is clipped, capped, indexed or excerpted, so no
  cut can leave part of a secret behind. A text far longer than the cap is redacted
  only in the head and tail windows the cap can keep (see `_windowed`).
- Both are bounded to `PROJECTION_MAX_BYTES` of UTF-8 (head and tail kept).
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping

import attrs

from chat_recall.domain.messages import MessageText, Role
from chat_recall.domain.projection.policy import DEFAULT_POLICY, BodyRule, MarkupPolicy, TagClass
from chat_recall.domain.projection.scanner import Block, Segment, parse_attributes, scan
from chat_recall.domain.projection.text import (
    cap_utf8,
    clip_chars,
    collapse_whitespace,
    redactable,
    tidy_lines,
    without_controls,
)
from chat_recall.domain.redaction import Redaction, Redactor
from chat_recall.domain.redaction.redactor import assemble

# Bump whenever projection output changes for the same input and policy: the derived
# index is rebuilt in the background when the stored version differs.
PROJECTION_VERSION = 5

# The cap is in UTF-8 bytes, the unit of every output budget; a capped projection keeps
# its first PROJECTION_MAX_BYTES - PROJECTION_TAIL_BYTES bytes and its last
# PROJECTION_TAIL_BYTES bytes around a marker.
PROJECTION_MAX_BYTES = 32 * 1024
PROJECTION_TAIL_BYTES = 8 * 1024

# Redaction of texts longer than this many characters looks only at the windows the
# byte cap can keep. `_REACH` is more than any redacted span plus the context its rules
# read (private key blocks are capped at 20,000 characters, named values at 4,096,
# context at 280), so a span that crosses a window's trusted edge is still seen whole.
_WINDOWED_ABOVE = 256 * 1024
_REACH = 32 * 1024
_SLACK_BYTES = 256

_QA = re.compile(r"<qa\b([^>]*)>(.*?)</qa>", re.DOTALL)
_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_URL_CAP = 300


class ProjectionMode(enum.Enum):
    SEARCH = "search"
    READ = "read"


@attrs.frozen
class Projection:
    """The cleaned text of one message, whether the byte cap cut it, and how many
    credentials of each kind were replaced by placeholders (counts, never content)."""

    text: str
    truncated: bool = False
    redactions: Mapping[str, int] = attrs.field(factory=dict)

    @classmethod
    def bounded(cls, text: str, redactions: Mapping[str, int] | None = None) -> Projection:
        """`text` within the projection's byte bound; `redactions` in kind order."""
        capped, truncated = cap_utf8(text, PROJECTION_MAX_BYTES, PROJECTION_TAIL_BYTES)
        return cls(capped, truncated, dict(sorted(redactions.items())) if redactions else {})

    @property
    def redacted(self) -> int:
        """How many values were redacted."""
        return sum(self.redactions.values())

    @property
    def is_empty(self) -> bool:
        return not self.text


def project_for_search(message: MessageText, policy: MarkupPolicy = DEFAULT_POLICY) -> Projection:
    """The text the search index holds for a message."""
    return _project(message.role, message.content, policy, ProjectionMode.SEARCH)


def project_content_for_search(
    role: Role, content: str, policy: MarkupPolicy = DEFAULT_POLICY
) -> Projection:
    """`project_for_search` of a message given by its role and content (the indexer
    reads them off a stored message; a `MessageText` per message costs as much as a
    tenth of a short message's projection)."""
    return _project(role, content, policy, ProjectionMode.SEARCH)


def project_for_read(message: MessageText, policy: MarkupPolicy = DEFAULT_POLICY) -> Projection:
    """The text read_chat returns for a message: line structure and concise summaries."""
    return _project(message.role, message.content, policy, ProjectionMode.READ)


def redact_title(title: str | None, policy: MarkupPolicy = DEFAULT_POLICY) -> Redaction:
    """A chat title as it may be indexed and returned (titles are searchable and shown):
    see `redact_text`."""
    return redact_text(title or "", policy)


def redact_text(text: str, policy: MarkupPolicy = DEFAULT_POLICY) -> Redaction:
    """A short text as it may leave through a tool or a command (a title, an error
    message that repeats what a caller sent): valid Unicode without control characters
    (`without_controls`), no invisible character inside a credential, credentials
    redacted."""
    return policy.redactor.redact(without_controls(redactable(text)))


def _project(role: Role, content: str, policy: MarkupPolicy, mode: ProjectionMode) -> Projection:
    redactor = policy.redactor
    counts: Counter[str] | None = None  # what rendering redacted (clipped values)
    if role is Role.USER:
        raw = redactable(content)
    else:
        renderer = _Renderer(mode, redactor)
        raw = redactable(renderer.render(scan(content, policy)))
        counts = renderer.counts
    windowed = _windowed(raw, redactor, tidy_lines)
    found: Mapping[str, int] = {}
    if windowed is None:
        spans = redactor.spans(raw)
        if spans:
            redaction = assemble(raw, spans, 0, len(raw))
            raw, found = redaction.text, redaction.counts
        text = tidy_lines(raw)
    else:
        text, found = windowed
    if counts:
        counts.update(found)
        found = counts
    if mode is ProjectionMode.READ:  # returned as it is (search text is `sanitize`d)
        text = without_controls(text)
    return Projection.bounded(text, found)


Normalise = Callable[[str], str]


def _windowed(
    raw: str, redactor: Redactor, normalise: Normalise
) -> tuple[str, Counter[str]] | None:
    """For a very long text, the redacted and normalised head and tail that the byte
    cap keeps, joined: `cap_utf8` then gives exactly what it gives for the whole text
    redacted, at the cost of the windows. None when the text is short or the windows
    would meet (then the whole text is redacted).

    A window of `size + _REACH` characters is redacted whole, and only its part up to
    `size` (extended to the end of a span crossing it) is used; a span that a window's
    far edge cuts lies beyond that part. The window doubles until its normalised part
    holds the bytes the cap keeps on that side, with slack."""
    if len(raw) <= _WINDOWED_ABOVE:
        return None
    head = _head(raw, redactor, normalise, PROJECTION_MAX_BYTES - PROJECTION_TAIL_BYTES)
    tail = _tail(raw, redactor, normalise, PROJECTION_TAIL_BYTES)
    if head is None or tail is None or head[2] >= tail[2]:
        return None
    return head[0] + "\n" + tail[0], head[1] + tail[1]


def _head(
    raw: str, redactor: Redactor, normalise: Normalise, need: int
) -> tuple[str, Counter[str], int] | None:
    size = 2 * need
    while size + _REACH < len(raw) // 2:
        window = raw[: size + _REACH]
        spans = [span for span in redactor.spans(window) if span.start < size]
        stop = max(size, spans[-1].end) if spans else size
        redaction = assemble(window, spans, 0, stop)
        text = normalise(redaction.text)
        if len(text.encode("utf-8")) > need + _SLACK_BYTES:
            return text, Counter(redaction.counts), stop
        size *= 2
    return None


def _tail(
    raw: str, redactor: Redactor, normalise: Normalise, need: int
) -> tuple[str, Counter[str], int] | None:
    size = 2 * need
    while size + _REACH < len(raw) // 2:
        offset = len(raw) - size - _REACH
        window = raw[offset:]
        spans = [span for span in redactor.spans(window) if span.end > _REACH]
        begin = min(_REACH, spans[0].start) if spans else _REACH
        redaction = assemble(window, spans, begin, len(window))
        text = normalise(redaction.text)
        if len(text.encode("utf-8")) > need + _SLACK_BYTES:
            return text, Counter(redaction.counts), offset + begin
        size *= 2
    return None


@attrs.define
class _Renderer:
    """Renders scanned segments. Every value that is clipped is redacted first, so a
    clip never leaves the head of a secret that a later pass would no longer see whole;
    the joined text is redacted once more by the caller."""

    mode: ProjectionMode
    redactor: Redactor
    counts: Counter[str] = attrs.field(factory=Counter)

    def clip(self, text: str, limit: int) -> str:
        if len(text) <= limit:
            return text  # nothing is cut: the pass over the joined text redacts it
        redaction = self.redactor.redact(redactable(text))
        self.counts.update(redaction.counts)
        return clip_chars(redaction.text, limit)

    def render(self, segments: tuple[Segment, ...]) -> str:
        """Prose as written, and each block's lines on lines of their own: what follows
        a tag on its line starts the next line, without the spaces before it. A block
        that renders nothing leaves the prose around it joined, one space kept."""
        parts: list[str] = []
        after_block = False  # the next prose continues the line a block ended
        after_drop = True  # the next prose's leading spaces would double a space
        for segment in segments:
            if isinstance(segment, str):
                if after_block or after_drop:
                    segment = segment.lstrip(" \t")
                if not segment:
                    continue
                if after_block and segment[0] != "\n":
                    parts.append("\n")
                parts.append(segment)
                after_block = after_drop = False
                continue
            lines = list(self._block(segment))
            if not lines:
                after_drop = after_drop or not parts or parts[-1][-1:] in (" ", "\t", "\n")
                continue
            if parts and parts[-1][-1:] != "\n":
                parts.append("\n")
            parts.append("\n".join(lines))
            after_block, after_drop = True, False
        return "".join(parts)

    def _block(self, block: Block) -> Iterator[str]:
        rule = block.rule
        mode = self.mode
        if rule.tag_class is TagClass.DROP:
            return
        line = self._metadata_line(block)
        if rule.tag_class is TagClass.KEEP:
            if line is not None:
                yield line
            yield from self._keep_body(block)
            return
        url = self._url_body(block) if rule.body is BodyRule.URL else None
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

    def _metadata_line(self, block: Block) -> str | None:
        """`[label subject: detail]` from allowlisted attributes, or None when a keep or
        bulky tag has no attribute worth a line."""
        rule = block.rule
        fields = [self._field(block, name, named=rule.named) for name in rule.subject]
        if self.mode is ProjectionMode.READ:
            fields += [self._field(block, name, named=True) for name in rule.read_fields]
        subject = [field for field in fields if field]
        detail = [v for v in (self._attribute_text(block, n) for n in rule.detail) if v]
        if not subject and not detail and rule.tag_class is not TagClass.META:
            return None
        parts = [rule.label or block.name.removeprefix("dyad-")]
        if subject:
            parts.append(" " + rule.joiner.join(subject))
        if detail:
            parts.append(": " + " — ".join(detail))
        return "[" + "".join(parts) + "]"

    def _field(self, block: Block, name: str, *, named: bool) -> str:
        value = self._attribute_text(block, name)
        return f"{name}: {value}" if value and named else value

    def _attribute_text(self, block: Block, name: str) -> str:
        value = block.attribute(name)
        return self.clip(collapse_whitespace(value), block.rule.attr_cap) if value else ""

    def _keep_body(self, block: Block) -> Iterator[str]:
        rule = block.rule
        if rule.body is BodyRule.QA:
            yield from _questionnaire(block.body)
            return
        cap = rule.body_cap
        if rule.body is BodyRule.DROP:
            cap = rule.read_body_cap if self.mode is ProjectionMode.READ else None
            if cap is None:
                return
            yield self.clip(block.body.strip(), cap)
            return
        body = self.render(block.children or ())
        yield self.clip(body.strip(), cap) if cap is not None else body

    def _url_body(self, block: Block) -> str | None:
        found = _URL.search(block.body)
        return self.clip(found.group(), _URL_CAP) if found else None


def _questionnaire(body: str) -> Iterator[str]:
    for match in _QA.finditer(body):
        question = dict(parse_attributes(match.group(1))).get("question", "")
        answer = match.group(2).strip()
        yield f"Q: {collapse_whitespace(question)} A: {collapse_whitespace(answer)}"
