"""The credential shapes chat-recall recognises, as data.

A `SecretRule` is a kind (the placeholder's label), a regular expression, an optional
check and the literal anchors a match starts with. When the expression has a group
named `secret`, only that group is replaced; otherwise the whole match is. Boundaries
are lookarounds in the expressions, so a key is never the head or tail of a longer
word.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Iterable

import attrs

from chat_recall.domain.redaction.literals import lazy

_KIND = lazy(r"[a-z0-9]+(?:-[a-z0-9]+)*")


class Check(enum.Enum):
    """What a candidate must pass besides its shape."""

    NONE = "none"  # the shape (a registered prefix) is distinctive on its own
    RANDOM = "random"  # machine-made: mixed character classes, a digit, entropy
    JWT = "jwt"  # the first segment decodes to a JSON header with alg/typ/enc
    AWS_CONTEXT = "aws-context"  # random, and AWS or a key id within 240 characters


def _valid_kind(instance: object, attribute: object, value: str) -> None:
    if not _KIND().fullmatch(value):
        raise ValueError(f"kind must be lower-case words joined by '-', got {value!r}")


def check_pattern(value: str) -> None:
    """Raise ValueError unless `value` compiles, cannot match the empty string and
    names no group but `secret`."""
    try:
        compiled = re.compile(value)
    except re.error as error:
        raise ValueError(f"pattern {value!r} does not compile: {error}") from error
    if compiled.match(""):
        raise ValueError(f"pattern {value!r} matches the empty string")
    extra = set(compiled.groupindex) - {"secret"}
    if extra:
        raise ValueError(f"pattern {value!r}: the only named group allowed is 'secret'")


def _valid_pattern(instance: object, attribute: object, value: str) -> None:
    # The catalogue's own patterns are checked by the tests (tests/redaction/
    # test_catalogue.py), not on every start: compiling all of them was a noticeable share
    # of a command-line search. Any other pattern is checked when its rule is
    # built.
    if value not in _BUILT_IN_PATTERNS:
        check_pattern(value)


def _anchors(value: Iterable[str]) -> tuple[str, ...]:
    anchors = tuple(value)
    if any(not anchor for anchor in anchors):
        raise ValueError("an anchor must be a non-empty literal")
    return anchors


@attrs.frozen
class SecretRule:
    """One credential shape: what is replaced and by which placeholder."""

    kind: str = attrs.field(validator=_valid_kind)
    pattern: str = attrs.field(validator=_valid_pattern)
    check: Check = Check.NONE
    # Literal texts every match starts with. With anchors, the rule is tried only where
    # one of them occurs (one fast pass finds them all); without, it is searched for
    # over the whole text.
    anchors: tuple[str, ...] = attrs.field(default=(), converter=_anchors)

    @property
    def placeholder(self) -> str:
        return placeholder(self.kind)


def placeholder(kind: str) -> str:
    """The text a redacted value becomes: `[redacted <kind>]`."""
    return f"[redacted {kind}]"


_PLACEHOLDER = lazy(r"\[redacted [a-z0-9]+(?:-[a-z0-9]+)*\]")


def count_placeholders(text: str) -> int:
    """How many placeholders `text` holds (for content-free telemetry)."""
    return len(_PLACEHOLDER().findall(text))


Shape = tuple[str, str, str, Check]  # kind, anchors (space-separated), pattern, check


def _shape(kind: str, anchors: str, pattern: str, check: Check = Check.NONE) -> Shape:
    return (kind, anchors, pattern, check)


def _rule(kind: str, anchors: str, pattern: str, check: Check) -> SecretRule:
    return SecretRule(kind, pattern, check, tuple(anchors.split()))


# Token boundaries: a provider key is never the tail or head of a longer word.
_L = r"(?<![A-Za-z0-9_])"
_LH = r"(?<![A-Za-z0-9_-])"
_R = r"(?![A-Za-z0-9_])"
_RH = r"(?![A-Za-z0-9_-])"


@functools.cache
def provider_rules() -> tuple[SecretRule, ...]:
    """The built-in provider shapes, built on first use. Ordered: where two rules match
    at the same place, the earlier (more specific) wins."""
    return tuple(_rule(*shape) for shape in CATALOGUE)


# The built-in provider shapes, as data (strings only: nothing is compiled at import).
CATALOGUE: tuple[Shape, ...] = (
    _shape(
        "anthropic-api-key",
        "sk-ant-",
        _LH + r"sk-ant-(?:api|admin|sid|oat)\d{2}-[A-Za-z0-9_-]{32,}" + _RH,
    ),
    _shape("openrouter-api-key", "sk-or-", _LH + r"sk-or-v1-[a-f0-9]{64}" + _RH),
    _shape(
        "openai-api-key",
        "sk-",
        _LH + r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}" + _RH,
        Check.RANDOM,
    ),
    _shape("openai-api-key", "sk-", _LH + r"sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}" + _RH),
    _shape("api-key", "sk-", _LH + r"sk-[A-Za-z0-9_-]{20,}" + _RH, Check.RANDOM),
    _shape(
        "stripe-secret-key",
        "sk_live_ sk_test_ rk_live_ rk_test_",
        _L + r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}" + _R,
    ),
    _shape("stripe-webhook-secret", "whsec_", _L + r"whsec_[A-Za-z0-9+/=]{24,}" + _R),
    _shape("github-token", "ghp_ gho_ ghu_ ghs_ ghr_", _L + r"gh[pousr]_[A-Za-z0-9]{36,255}" + _R),
    _shape("github-token", "github_pat_", _L + r"github_pat_[A-Za-z0-9_]{60,255}" + _R),
    _shape(
        "gitlab-token",
        "glpat- gldt- glrt- glptt- glft- glsoat- glimt- glcbt- gloas- glagent-",
        _LH + r"gl(?:pat|dt|rt|ptt|ft|soat|imt|cbt|oas|agent)-[A-Za-z0-9_-]{20,}" + _RH,
    ),
    _shape("slack-token", "xox", _LH + r"xox[abposre]-(?:[0-9]+-)*[A-Za-z0-9-]{10,}" + _RH),
    _shape("slack-token", "xapp-", _LH + r"xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+" + _RH),
    _shape(
        "slack-webhook",
        "hooks.slack.com/",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/-]{20,})",
    ),
    _shape(
        "discord-webhook",
        "discord.com/api/webhooks/ discordapp.com/api/webhooks/",
        r"discord(?:app)?\.com/api/webhooks/(?P<secret>\d+/[A-Za-z0-9_-]{40,})",
    ),
    _shape("npm-token", "npm_", _L + r"npm_[A-Za-z0-9]{36}" + _R),
    _shape("pypi-token", "pypi-AgE", _LH + r"pypi-AgE[A-Za-z0-9_-]{50,}" + _RH),
    _shape(
        "huggingface-token",
        "hf_ api_org_",
        _L + r"(?:hf|api_org)_[A-Za-z0-9]{30,}" + _R,
        Check.RANDOM,
    ),
    _shape("google-api-key", "AIza", _LH + r"AIza[0-9A-Za-z_-]{35}" + _RH),
    _shape("google-oauth-secret", "GOCSPX-", _LH + r"GOCSPX-[0-9A-Za-z_-]{28}" + _RH),
    _shape("google-oauth-token", "ya29.", _LH + r"ya29\.[0-9A-Za-z_-]{30,}" + _RH),
    _shape("google-oauth-token", "1//0", r"(?<![\w/])1//0[0-9A-Za-z_-]{40,}" + _RH),
    _shape(
        "aws-access-key-id",
        "AKIA ASIA ABIA ACCA",
        r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])",
    ),
    _shape(
        "aws-session-token",
        "IQoJb3JpZ2luX2Vj FwoGZXIvYXdz FQoGZXIvYXdz",
        r"(?<![A-Za-z0-9+/])(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdz|FQoGZXIvYXdz)[A-Za-z0-9+/]{100,}={0,2}",
    ),
    _shape(
        "jwt",
        "eyJ eyA",
        _LH + r"ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+){0,2}",
        Check.JWT,
    ),
    # No anchor: tried only within 240 characters of "aws", "amazon" or a key id.
    _shape(
        "aws-secret-key",
        "",
        r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])",
        Check.AWS_CONTEXT,
    ),
    _shape("sendgrid-api-key", "SG.", _LH + r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + _RH),
    _shape("twilio-api-key", "SK", _L + r"SK[0-9a-f]{32}" + _R),
    _shape("mailgun-api-key", "key-", _LH + r"key-[0-9a-f]{32}" + _RH),
    _shape(
        "telegram-bot-token",
        ":AA",
        r"(?<=\d):(?P<secret>AA[A-Za-z0-9_-]{33})" + _RH,
    ),
    _shape(
        "shopify-token",
        "shpat_ shpca_ shppa_ shpss_",
        _L + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _R,
    ),
    _shape("digitalocean-token", "dop_v1_ doo_v1_ dor_v1_", _L + r"do[opr]_v1_[a-f0-9]{64}" + _R),
    _shape("linear-api-key", "lin_api_ lin_oauth_", _L + r"lin_(?:api|oauth)_[A-Za-z0-9]{40}" + _R),
    _shape(
        "notion-token",
        "secret_ ntn_",
        _L + r"(?:secret|ntn)_[A-Za-z0-9]{43,}" + _R,
        Check.RANDOM,
    ),
    _shape("replicate-token", "r8_", _L + r"r8_[A-Za-z0-9]{37}" + _R),
    _shape("groq-api-key", "gsk_", _L + r"gsk_[A-Za-z0-9]{52}" + _R),
    _shape("xai-api-key", "xai-", _LH + r"xai-[A-Za-z0-9]{80}" + _RH),
    _shape("perplexity-api-key", "pplx-", _LH + r"pplx-[A-Za-z0-9]{48}" + _RH),
    _shape("databricks-token", "dapi", _L + r"dapi[a-f0-9]{32}(?:-\d)?" + _R),
    _shape("postman-api-key", "PMAK-", _LH + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}" + _RH),
    _shape(
        "supabase-token",
        "sbp_ sb_secret_",
        _L + r"(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,})" + _RH,
    ),
    _shape("figma-token", "figd_", _L + r"figd_[A-Za-z0-9_-]{40,}" + _RH),
    _shape("heroku-api-key", "HRKU-", _LH + r"HRKU-[A-Za-z0-9_-]{60}" + _RH),
    _shape(
        "doppler-token",
        "dp.",
        _L + r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}" + _R,
    ),
    _shape("atlassian-token", "ATATT3", _L + r"ATATT3[A-Za-z0-9_=-]{180,}" + _RH),
    _shape("square-token", "sq0atp- sq0csp-", _LH + r"sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}" + _RH),
    _shape("age-secret-key", "AGE-SECRET-KEY-1", _LH + r"AGE-SECRET-KEY-1[0-9A-Z]{58}" + _R),
)

_BUILT_IN_PATTERNS = frozenset(shape[2] for shape in CATALOGUE)
