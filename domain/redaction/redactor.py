"""Replace every credential in a text by a typed placeholder, in one left-to-right
assembly over spans found by one fast scan and a few cheap checks.

Python's regular expressions try the branches of an alternation one after another at
every position, so matching fifty key shapes and a dozen named forms directly costs
fifty tries per character. Instead:

1. one search for literals (`LiteralSearch`: a trie, tried only where a literal's
   rarest character stands) finds in the lower-cased text every anchor a rule can
   start with (`sk-`, `ghp_`, `akia`, `eyj`, ...), every trigger of a named
   form (`pass`, `token`, `api_key`, `authorization`, `bearer`, `--`, ...) and the
   words that make a 40-character string an AWS secret key ("aws", "amazon", a key id);
2. only at those hits are the rules matched, on the original text, case-sensitive, with
   their boundaries and checks; the anchorless `aws-secret-key` only within 240
   characters of its context words;
3. private key blocks (`-----BEGIN`) and `://user:password@` URLs are searched only
   when their literal occurs; host rules without anchors are one combined search.

Overlapping spans merge into one placeholder whose kind is the most specific finding
(host, then key blocks, then provider shapes, then URLs, then named values), so a
secret is replaced whole whichever check saw it. A value listed in the policy's
`allowed_values` is kept.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from functools import lru_cache

import attrs

from chat_recall.domain.redaction import assignments
from chat_recall.domain.redaction.checks import is_jwt, looks_random
from chat_recall.domain.redaction.literals import LiteralSearch, lazy
from chat_recall.domain.redaction.policy import RedactionPolicy
from chat_recall.domain.redaction.rules import Check, SecretRule, placeholder

_KEY_BLOCK = lazy(
    r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
    r"(?:[\s\S]{0,20000}?-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
    r"|(?:[A-Za-z0-9+/=\s]|\\[nr]|[A-Za-z-]{1,30}: [^\n]{0,200})*)"
    r"|Private-Lines: \d+(?:\s|\\[nr])+(?:[A-Za-z0-9+/=]+(?:\s|\\[nr])*)+"
)
_URL_PASSWORD = lazy(r"://[^\s/?#@:\"'<>\\]*:(?P<secret>[^\s/?#\"'<>\\]+)@(?=[A-Za-z0-9\[])")
_AWS_WORDS = ("aws", "amazon", "akia", "asia")  # found in the lower-cased text
_AWS_CONTEXT = lazy(r"(?i)aws|amazon|(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}")
_AWS_CONTEXT_CHARS = 240

# Lower number = more specific kind when spans overlap.
_HOST, _KEY, _PROVIDER, _URL, _NAMED = range(5)


@attrs.frozen
class Redaction:
    """A redacted text and how many values of each kind were replaced (no content)."""

    text: str
    counts: Mapping[str, int] = attrs.field(factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@attrs.frozen
class Span:
    """A value to replace: `text[start:end]` becomes `[redacted <kind>]`."""

    start: int
    end: int
    kind: str
    rank: int


_Span = Span


_GLOBAL_FLAGS = lazy(r"\(\?([aiLmsux]+)\)")


def _renamed(rule: SecretRule, index: int) -> str:
    """The rule's pattern as one branch of a combined expression: its `secret` group
    renamed, and leading global flags (`(?i)...`) scoped to the branch."""
    pattern = rule.pattern.replace("(?P<secret>", f"(?P<s{index}>")
    flags = _GLOBAL_FLAGS().match(pattern) if pattern.startswith("(?") else None
    if flags is not None:
        pattern = f"(?{flags.group(1)}:{pattern[flags.end() :]})"
    return pattern


@attrs.frozen
class _Rule:
    rule: SecretRule
    source: str  # the rule's pattern, renamed (`_renamed`)
    rank: int
    secret_group: str
    order: int  # host rules first, then the catalogue's order (specific before generic)

    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        """Compiled when a text first holds one of the rule's anchors: most texts (a
        search query) never need most rules."""
        return re.compile(self.source)

    def accepted(self, match: re.Match[str], text: str) -> _Span | None:
        """The span this rule replaces in `match`, if its check passes."""
        group = self.secret_group
        use_group = group in match.re.groupindex and match.group(group) is not None
        start, end = match.span(group) if use_group else match.span()
        if not _passes(self.rule.check, text, start, end):
            return None
        return _Span(start, end, self.rule.kind, self.rank)


_FORM = "form"
_AWS = "aws"
Action = _Rule | str


def _action_order(action: Action) -> int:
    if isinstance(action, _Rule):
        return action.order
    return 1_000_000 if action == _FORM else 1_000_001


@attrs.frozen
class Redactor:
    """A policy compiled once: `redact(text)`."""

    policy: RedactionPolicy
    _actions: Mapping[str, tuple[Action, ...]]
    _aws_rules: tuple[_Rule, ...]
    _searched: tuple[_Rule, ...]
    _search: re.Pattern[str] | None
    # The search for every literal, once compiled (`_triggers`): a one-element cell,
    # empty until a text first needs it.
    _trie: list[LiteralSearch] = attrs.field(factory=list, eq=False, repr=False)

    @classmethod
    def of(cls, policy: RedactionPolicy) -> Redactor:
        return _compiled(policy)

    @classmethod
    def build(cls, policy: RedactionPolicy) -> Redactor:
        rules = [(rule, _HOST) for rule in policy.extra_rules]
        rules += [(rule, _PROVIDER) for rule in policy.provider_rules]
        compiled = [
            _Rule(rule, _renamed(rule, i), rank, f"s{i}", i) for i, (rule, rank) in enumerate(rules)
        ]
        literal_actions: dict[str, list[Action]] = {}
        for item in compiled:
            for anchor in item.rule.anchors:
                literal_actions.setdefault(anchor.lower(), []).append(item)
        for trigger in assignments.TRIGGERS:
            literal_actions.setdefault(trigger, []).append(_FORM)
        aws_rules = tuple(c for c in compiled if c.rule.check is Check.AWS_CONTEXT)
        if aws_rules:
            for word in _AWS_WORDS:
                literal_actions.setdefault(word, []).append(_AWS)
        # A hit on the longest literal stands for every literal it starts with; rules
        # are tried in catalogue order, then the named forms, then the AWS context.
        actions = {
            literal: tuple(
                sorted(
                    (  # the literals `literal` starts with: its prefixes (one lookup each)
                        action
                        for end in range(1, len(literal) + 1)
                        for action in literal_actions.get(literal[:end], ())
                    ),
                    key=_action_order,
                )
            )
            for literal in literal_actions
        }
        searched = tuple(
            c for c in compiled if not c.rule.anchors and c.rule.check is not Check.AWS_CONTEXT
        )
        search = None
        if searched:
            search = re.compile("|".join(f"(?P<r{i}>{c.source})" for i, c in enumerate(searched)))
        return cls(
            policy,
            actions,
            aws_rules,
            searched,
            search,
        )

    def redact(self, text: str) -> Redaction:
        return assemble(text, self.spans(text), 0, len(text))

    def spans(self, text: str) -> list[Span]:
        """The values to replace, in text order, merged, allow-listed ones left out."""
        if not text:
            return []
        found = self._spans(text)
        if not found:  # most texts
            return []
        allowed = self.policy.allowed_values
        if allowed:
            found = [s for s in found if text[s.start : s.end] not in allowed]
        return list(_merged(found)) if found else []

    def _spans(self, text: str) -> list[_Span]:
        """Every span found, unmerged, in the order the checks find them (a list, not a
        chain of generators: most texts yield nothing, and each layer costs)."""
        found: list[_Span] = []
        self._triggered(text, _lowered(text), found)
        if self._search is not None:
            found.extend(self._searched_spans(text))
        if "-----BEGIN" in text or "Private-Lines:" in text:
            for match in _KEY_BLOCK().finditer(text):
                found.append(_Span(match.start(), match.end(), "private-key", _KEY))
        if "://" in text:
            for match in _URL_PASSWORD().finditer(text):
                found.append(_Span(match.start("secret"), match.end("secret"), "password", _URL))
        return found

    def _triggers(self) -> LiteralSearch:
        """The search that finds every literal, compiled on first use."""
        if not self._trie:
            self._trie.append(LiteralSearch.of(self._actions))
        return self._trie[0]

    def _triggered(self, text: str, lowered: str, found: list[_Span]) -> None:
        if (
            len(lowered) <= _SHORT
            and not self._trie
            and not any(literal in lowered for literal in self._actions)
        ):
            # No literal occurs, so the trie would find nothing: no need to compile it.
            # Once compiled, the trie is the cheaper check, so it is used from then on.
            return
        disabled = self.policy.disabled_kinds
        resume = 0
        aws_windows: list[list[int]] = []
        reach = _AWS_CONTEXT_CHARS + 40
        for hit in self._triggers().finditer(lowered):
            at = hit.start()
            matched_rule = False
            for action in self._actions[hit.group()]:
                if isinstance(action, _Rule):
                    if matched_rule or at < resume:
                        continue
                    match = action.pattern.match(text, at)
                    span = None if match is None else action.accepted(match, text)
                    if span is not None:
                        found.append(span)
                        resume, matched_rule = span.end, True
                elif action == _FORM:
                    finding = assignments.find_at(text, lowered, at)
                    if finding is not None and finding.kind not in disabled:
                        found.append(_Span(finding.start, finding.end, finding.kind, _NAMED))
                else:
                    start, end = max(0, at - reach), hit.end() + reach
                    if aws_windows and start <= aws_windows[-1][1]:
                        aws_windows[-1][1] = end
                    else:
                        aws_windows.append([start, end])
        for start, end in aws_windows:
            for rule in self._aws_rules:
                for match in rule.pattern.finditer(text, start, min(end, len(text))):
                    span = rule.accepted(match, text)
                    if span is not None:
                        found.append(span)

    def _searched_spans(self, text: str) -> Iterator[_Span]:
        """Unanchored host rules: the leftmost candidate of their combined search; if
        its check fails, the later rules are tried at the same place one by one."""
        assert self._search is not None
        position = 0
        while (match := self._search.search(text, position)) is not None:
            at = match.start()
            index = int(str(match.lastgroup)[1:])
            span = None
            for rule in self._searched[index:]:
                found = match if rule is self._searched[index] else rule.pattern.match(text, at)
                span = None if found is None else rule.accepted(found, text)
                if span is not None:
                    break
            if span is None:
                position = at + 1
                continue
            yield span
            position = max(span.end, at + 1)


# A text this short (a search query, a title) is checked for the literals one by one
# before the trie is used: the trie costs more to compile than most short processes (a
# CLI search redacting its query) spend redacting.
_SHORT = 256


def _lowered(text: str) -> str:
    """`text.lower()` with the same length and offsets (only U+0130 lower-cases to two
    characters)."""
    return text.replace("\u0130", "I").lower()


def _passes(check: Check, text: str, start: int, end: int) -> bool:
    value = text[start:end]
    if check is Check.NONE:
        return True
    if check is Check.RANDOM:
        return looks_random(value)
    if check is Check.JWT:
        return is_jwt(value)
    window = text[max(0, start - _AWS_CONTEXT_CHARS) : end + _AWS_CONTEXT_CHARS]
    return looks_random(value, min_entropy=4.2) and _AWS_CONTEXT().search(window) is not None


def _merged(spans: list[_Span]) -> Iterator[_Span]:
    """Overlapping spans as one, with the most specific kind; in text order."""
    ordered = sorted(spans, key=lambda s: (s.start, -s.end, s.rank))
    current = ordered[0]
    for span in ordered[1:]:
        if span.start < current.end:
            best = current if current.rank <= span.rank else span
            current = _Span(current.start, max(current.end, span.end), best.kind, best.rank)
        else:
            yield current
            current = span
    yield current


@lru_cache(maxsize=32)
def _compiled(policy: RedactionPolicy) -> Redactor:
    return Redactor.build(policy)


def assemble(text: str, spans: list[Span], start: int, end: int) -> Redaction:
    """`text[start:end]` with `spans` (merged, in order, inside the range) replaced."""
    if not spans:  # most texts hold no credential
        return Redaction(text[start:end])
    pieces: list[str] = []
    counts: Counter[str] = Counter()
    position = start
    for span in spans:
        pieces.append(text[position : span.start])
        pieces.append(placeholder(span.kind))
        counts[span.kind] += 1
        position = span.end
    pieces.append(text[position:end])
    return Redaction("".join(pieces), dict(sorted(counts.items())))


def redact(text: str, policy: RedactionPolicy) -> Redaction:
    """`text` with every credential the policy recognises replaced by a placeholder."""
    return Redactor.of(policy).redact(text)
