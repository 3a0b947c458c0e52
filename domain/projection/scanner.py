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

Every search moves forward, so the whole scan is linear in the message length (times
the bounded keep depth).
"""

from __future__ import annotations

import re

import attrs

from chat_recall.domain.projection.policy import BodyRule, MarkupPolicy, TagClass, TagRule

_NAME = re.compile(r"[A-Za-z][\w-]*")
_ATTRIBUTE = re.compile(r'([A-Za-z_][\w.:-]*)\s*=\s*"([^"]*)"')
_ENTITY = re.compile(r"&(quot|lt|gt|amp|apos);")
_ENTITIES = {"quot": '"', "lt": "<", "gt": ">", "amp": "&", "apos": "'"}


def unescape_attribute(value: str) -> str:
    """Undo the XML escaping of an attribute value, in one pass."""
    return _ENTITY.sub(lambda match: _ENTITIES[match.group(1)], value)


def parse_attributes(source: str) -> tuple[tuple[str, str], ...]:
    """The `name="value"` pairs of an opening tag, first occurrence of a name wins."""
    seen: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(source):
        seen.setdefault(match.group(1), unescape_attribute(match.group(2)))
    return tuple(seen.items())


@attrs.frozen
class Prose:
    text: str


@attrs.frozen
class Block:
    """One tag occurrence. `children` holds the scanned body of a keep block whose
    body is prose; other blocks carry the raw `body`."""

    name: str
    rule: TagRule
    attributes: tuple[tuple[str, str], ...]
    body: str
    closed: bool
    children: tuple[Prose | Block, ...] | None = None

    def attribute(self, name: str) -> str | None:
        for key, value in self.attributes:
            if key == name:
                return value
        return None


Segment = Prose | Block


def scan(text: str, policy: MarkupPolicy) -> tuple[Segment, ...]:
    """Split assistant content into prose and tag blocks."""
    return _Scanner(text, policy).scan(0, len(text), depth=0)


@attrs.define
class _Scanner:
    text: str
    policy: MarkupPolicy

    def scan(self, start: int, end: int, depth: int) -> tuple[Segment, ...]:
        text = self.text
        segments: list[Segment] = []
        prose_start = pos = start
        while (lt := text.find("<", pos, end)) >= 0:
            if text.startswith("/", lt + 1):
                skip_to = self._stray_close_end(lt, end)
                if skip_to is None:
                    pos = lt + 1
                    continue
                self._flush(segments, prose_start, lt)
                prose_start = pos = skip_to
                continue
            name_match = _NAME.match(text, lt + 1, end)
            if name_match is None or not self.policy.recognises(name_match.group()):
                pos = lt + 1
                continue
            self._flush(segments, prose_start, lt)
            name = name_match.group()
            opening_end = self._opening_end(name_match.end(), end)
            if opening_end < 0:
                # Cut off inside an opening tag: nothing after "<" may leak.
                return tuple(segments)
            block, pos = self._block(name, name_match.end(), opening_end, end, depth)
            segments.append(block)
            prose_start = pos
        self._flush(segments, prose_start, end)
        return tuple(segments)

    def _flush(self, segments: list[Segment], start: int, end: int) -> None:
        if end > start:
            segments.append(Prose(self.text[start:end]))

    def _opening_end(self, start: int, end: int) -> int:
        """The `>` that ends an opening tag: the first one outside double quotes, or -1
        when the text ends first (inside the tag or inside an unterminated value)."""
        text = self.text
        pos = start
        gt = text.find(">", pos, end)
        while gt >= 0:
            quote = text.find('"', pos, gt)
            if quote < 0:
                return gt
            quote_end = text.find('"', quote + 1, end)
            if quote_end < 0:
                return -1
            pos = quote_end + 1
            if gt < pos:
                gt = text.find(">", pos, end)
        return -1

    def _stray_close_end(self, lt: int, end: int) -> int | None:
        name_match = _NAME.match(self.text, lt + 2, end)
        if name_match is None or not self.policy.recognises(name_match.group()):
            return None
        if not self.text.startswith(">", name_match.end()) or name_match.end() >= end:
            return None
        return name_match.end() + 1

    def _block(
        self, name: str, attributes_start: int, opening_end: int, end: int, depth: int
    ) -> tuple[Block, int]:
        text = self.text
        opening = text[attributes_start:opening_end]
        attributes = parse_attributes(opening)
        rule = self.policy.rule_for(name)
        if rule.tag_class is TagClass.KEEP and depth >= self.policy.max_keep_depth:
            rule = self.policy.unknown_rule
        body_start = opening_end + 1
        if opening.rstrip().endswith("/"):
            return Block(name, rule, attributes, "", closed=True, children=()), body_start
        closing = f"</{name}>"
        close_at = text.find(closing, body_start, end)
        closed = close_at >= 0
        body_end = close_at if closed else end
        after = close_at + len(closing) if closed else end
        children = None
        if rule.tag_class is TagClass.KEEP and rule.body is BodyRule.TEXT:
            children = self.scan(body_start, body_end, depth + 1)
        return Block(name, rule, attributes, text[body_start:body_end], closed, children), after
