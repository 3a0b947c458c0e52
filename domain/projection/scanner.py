"""A linear-time scanner for assistant markup, modelled on the reference host's
streaming-message parser.

- A tag is `<name ...>` where `name` is in the policy's registry or fully matches its
  tag pattern; any other `<` is prose.
- Attributes are `name="value"` pairs, XML-escaped; the opening tag ends at the first
  `>` outside a quoted value (a `/>` ending makes an empty block). The reference host
  stops at the first `>` of all; being quote-aware only ever moves text from prose
  into a tag, never the other way.
- Tags do not nest: a body is raw text up to the first matching `</name>`. A block left
  unclosed runs to the end of the enclosing text.
- A message cut off inside an opening tag (a `<name` with no `>` after it, or with a
  value whose quote never closes) keeps nothing from the `<` on.
- Keep-class bodies are prose and are scanned again, so markup inside them obeys the
  policy too; that is bounded by the policy's `max_keep_depth`.
- A stray closing tag of a recognised name is removed.

Speed: the scanner never walks text character by character in Python. One compiled
regular expression (`MarkupPolicy.tag_start`) jumps from tag to tag over prose,
including `<` that start no recognised tag (`a < b`, `<div>` in prose); a body is
skipped with one `str.find` of its closing tag and is never copied unless a renderer
asks for it (`Block.body`); attributes are parsed only for rules that show some. Every
search moves forward, so the whole scan is linear in the message length (times the
bounded keep depth).
"""

from __future__ import annotations

import re

import attrs

from chat_recall.domain.projection.policy import BodyRule, MarkupPolicy, TagClass, TagRule

# An opening tag's rest, up to the first `>` outside double quotes; no match when the
# text ends first (inside the tag or inside an unterminated value).
_OPENING = re.compile(r'[^">]*(?:"[^"]*"[^">]*)*>')
_ATTRIBUTE = re.compile(r'([A-Za-z_][\w.:-]*)\s*=\s*"([^"]*)"')
_ENTITY = re.compile(r"&(quot|lt|gt|amp|apos);")
_ENTITIES = {"quot": '"', "lt": "<", "gt": ">", "amp": "&", "apos": "'"}


def unescape_attribute(value: str) -> str:
    """Undo the XML escaping of an attribute value, in one pass."""
    if "&" not in value:
        return value
    return _ENTITY.sub(lambda match: _ENTITIES[match.group(1)], value)


def parse_attributes(source: str) -> tuple[tuple[str, str], ...]:
    """The `name="value"` pairs of an opening tag, first occurrence of a name wins."""
    seen: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(source):
        seen.setdefault(match.group(1), unescape_attribute(match.group(2)))
    return tuple(seen.items())


@attrs.frozen
class Block:
    """One tag occurrence. `children` holds the scanned body of a keep block whose
    body is prose; `body` is the raw body, cut from the source only when asked for.
    `attributes` holds the parsed opening tag when the rule shows any attribute."""

    name: str
    rule: TagRule
    attributes: tuple[tuple[str, str], ...]
    source: str = attrs.field(repr=False)
    body_start: int
    body_end: int
    closed: bool
    children: tuple[Segment, ...] | None = None

    @property
    def body(self) -> str:
        return self.source[self.body_start : self.body_end]

    def attribute(self, name: str) -> str | None:
        for key, value in self.attributes:
            if key == name:
                return value
        return None


# Prose is its own text (a str, not a wrapper: a frozen object per run of prose cost
# a tenth of scanning a message).
Segment = str | Block


def scan(text: str, policy: MarkupPolicy) -> tuple[Segment, ...]:
    """Split assistant content into prose and tag blocks."""
    return _scan(text, policy, 0, len(text), 0)


def _scan(text: str, policy: MarkupPolicy, start: int, end: int, depth: int) -> tuple[Segment, ...]:
    segments: list[Segment] = []
    prose_start = pos = start
    tag_start = policy.tag_start
    while (found := tag_start.search(text, pos, end)) is not None:
        lt = found.start()
        name = found.group(2)
        rule = policy.recognised_rule(name)
        if rule is None:
            pos = lt + 1  # the pattern may over-approximate; the policy decides
            continue
        name_end = found.end()
        if found.group(1):  # `</name`: a stray closer is removed, anything else is prose
            if name_end < end and text[name_end] == ">":
                if lt > prose_start:
                    segments.append(text[prose_start:lt])
                prose_start = pos = name_end + 1
            else:
                pos = lt + 1
            continue
        if lt > prose_start:
            segments.append(text[prose_start:lt])
        opening = _OPENING.match(text, name_end, end)
        if opening is None:
            # Cut off inside an opening tag: nothing after "<" may leak.
            return tuple(segments)
        block, pos = _block(text, policy, name, rule, name_end, opening.end() - 1, end, depth)
        segments.append(block)
        prose_start = pos
    if end > prose_start:
        segments.append(text[prose_start:end])
    return tuple(segments)


def _block(
    text: str,
    policy: MarkupPolicy,
    name: str,
    rule: TagRule,
    attributes_start: int,
    opening_end: int,
    end: int,
    depth: int,
) -> tuple[Block, int]:
    if rule.tag_class is TagClass.KEEP and depth >= policy.max_keep_depth:
        rule = policy.unknown_rule
    opening = text[attributes_start:opening_end]
    attributes = parse_attributes(opening) if rule.shows_attributes else ()
    body_start = opening_end + 1
    if opening.rstrip().endswith("/"):
        return Block(name, rule, attributes, text, body_start, body_start, True, ()), body_start
    closing = f"</{name}>"
    close_at = text.find(closing, body_start, end)
    closed = close_at >= 0
    body_end = close_at if closed else end
    after = close_at + len(closing) if closed else end
    children = None
    if rule.tag_class is TagClass.KEEP and rule.body is BodyRule.TEXT:
        children = _scan(text, policy, body_start, body_end, depth + 1)
    return Block(name, rule, attributes, text, body_start, body_end, closed, children), after
