"""What a host can configure: extra credential shapes, values that are never redacted,
kinds it switches off. The policy is a value; its fingerprint is part of the projection
stamp, so changing it re-projects the index."""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from chat_recall.domain.redaction.assignments import FORMS_PATTERN
from chat_recall.domain.redaction.rules import Check, SecretRule, provider_rules

# Bump when the built-in detection changes (rules, checks, forms): it is part of every
# fingerprint, so a new version re-projects indexes built by the old one.
REDACTION_VERSION = 2


def _rules(value: Iterable[SecretRule]) -> tuple[SecretRule, ...]:
    return tuple(value)


def _strings(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


@attrs.frozen
class RedactionPolicy:
    """Which credentials projections replace with `[redacted <kind>]`.

    - `extra_rules`: the host's own shapes (`SecretRule(kind, pattern)`), matched
      anywhere in the text, before the built-in ones.
    - `allowed_values`: exact values never redacted (documented example keys, test
      fixtures); compared with the value a rule would replace.
    - `disabled_kinds`: built-in kinds the host does not want redacted.
    """

    extra_rules: tuple[SecretRule, ...] = attrs.field(default=(), converter=_rules)
    allowed_values: frozenset[str] = attrs.field(default=frozenset(), converter=_strings)
    disabled_kinds: frozenset[str] = attrs.field(default=frozenset(), converter=_strings)

    @classmethod
    def default(cls) -> RedactionPolicy:
        return DEFAULT_REDACTION

    def with_rules(self, *rules: SecretRule) -> RedactionPolicy:
        """This policy with more host rules."""
        return attrs.evolve(self, extra_rules=(*self.extra_rules, *rules))

    def with_pattern(self, kind: str, pattern: str) -> RedactionPolicy:
        """This policy with one more host rule (`pattern` may name a `secret` group)."""
        return self.with_rules(SecretRule(kind, pattern, Check.NONE))

    def allowing(self, *values: str) -> RedactionPolicy:
        """This policy with values that are never redacted."""
        return attrs.evolve(self, allowed_values=self.allowed_values | set(values))

    def without_kinds(self, *kinds: str) -> RedactionPolicy:
        """This policy with some built-in kinds switched off."""
        return attrs.evolve(self, disabled_kinds=self.disabled_kinds | set(kinds))

    @property
    def provider_rules(self) -> tuple[SecretRule, ...]:
        return tuple(r for r in provider_rules() if r.kind not in self.disabled_kinds)

    def fingerprint(self) -> str:
        """A digest of the built-in rules (and their version) and the host's choices."""
        import hashlib  # here: only the indexer's stamp needs it, not every CLI start

        text = repr(
            (
                REDACTION_VERSION,
                [(r.kind, r.pattern, r.check.value) for r in provider_rules()],
                FORMS_PATTERN,
                [(r.kind, r.pattern, r.check.value) for r in self.extra_rules],
                sorted(self.allowed_values),
                sorted(self.disabled_kinds),
            )
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


DEFAULT_REDACTION = RedactionPolicy()
