"""What a host configures: its own shapes, allow-listed values, kinds switched off; and
any change of the redaction policy changes the projection stamp (the index rebuilds)."""

from __future__ import annotations

import pytest

from chat_recall.domain.indexing import projection_stamp
from chat_recall.domain.messages import MessageText
from chat_recall.domain.projection import DEFAULT_POLICY, project_for_read, project_for_search
from chat_recall.domain.redaction import (
    DEFAULT_REDACTION,
    Check,
    RedactionPolicy,
    SecretRule,
    redact,
)
from tests.redaction.samples import positives

ACME = "acme_" + "0123456789abcdef" * 2


def test_a_host_pattern_is_redacted_with_its_kind() -> None:
    policy = DEFAULT_REDACTION.with_pattern("acme-token", r"acme_[0-9a-f]{32}")
    assert redact(f"token {ACME} here", policy).text == "token [redacted acme-token] here"
    assert redact(f"token {ACME} here", DEFAULT_REDACTION).text == f"token {ACME} here"


def test_a_host_pattern_may_name_the_part_to_replace_and_use_flags() -> None:
    policy = DEFAULT_REDACTION.with_rules(
        SecretRule("employee-pin", r"(?i)badge pin:\s*(?P<secret>\d{6})"),
        SecretRule("acme-token", r"acme_[0-9a-f]{32}"),
    )
    redaction = redact(f"Badge PIN: 123456 and {ACME}", policy)
    assert redaction.text == "Badge PIN: [redacted employee-pin] and [redacted acme-token]"
    assert redaction.counts == {"acme-token": 1, "employee-pin": 1}


@pytest.mark.parametrize(
    ("kind", "pattern"),
    [
        ("Bad Kind", r"x+"),
        ("ok", r"("),
        ("ok", r"x*"),
        ("ok", r"(?P<other>x)"),
    ],
)
def test_a_bad_host_rule_is_refused_when_it_is_built(kind: str, pattern: str) -> None:
    with pytest.raises(ValueError, match=r"kind|pattern"):
        SecretRule(kind, pattern, Check.NONE)


def test_allow_listed_values_are_kept_everywhere() -> None:
    aws = next(p for p in positives() if p.kind == "aws-access-key-id")
    policy = DEFAULT_REDACTION.allowing(aws.secret)
    assert redact(aws.text, policy).text == aws.text
    assert redact(f"aws_access_key_id = {aws.secret}", policy).total == 0
    assert redact(aws.text, DEFAULT_REDACTION).total == 1


def test_a_kind_can_be_switched_off() -> None:
    aws = next(p for p in positives() if p.kind == "aws-access-key-id")
    password = next(p for p in positives() if p.text.startswith("DB_PASSWORD="))
    policy = DEFAULT_REDACTION.without_kinds("aws-access-key-id", "password")
    assert redact(aws.text, policy).text == aws.text
    assert redact(password.text, policy).text == password.text


def test_the_markup_policy_carries_the_redaction_into_both_projections() -> None:
    policy = DEFAULT_POLICY.with_redaction(
        DEFAULT_REDACTION.with_pattern("acme-token", "acme_[0-9a-f]{32}")
    )
    message = MessageText.assistant(
        f'<dyad-write path="a" description="uses {ACME}">x</dyad-write>'
    )
    for project in (project_for_search, project_for_read):
        projection = project(message, policy)
        assert ACME not in projection.text
        assert projection.redactions == {"acme-token": 1}


def test_every_change_of_the_redaction_policy_changes_the_projection_stamp() -> None:
    variants = [
        DEFAULT_REDACTION,
        DEFAULT_REDACTION.with_pattern("acme-token", "acme_[0-9a-f]{32}"),
        DEFAULT_REDACTION.allowing("AKIA" + "IOSFODNN7EXAMPLE"),
        DEFAULT_REDACTION.without_kinds("jwt"),
    ]
    stamps = {projection_stamp(DEFAULT_POLICY.with_redaction(v)) for v in variants}
    assert len(stamps) == len(variants)
    assert projection_stamp(DEFAULT_POLICY) == projection_stamp(
        DEFAULT_POLICY.with_redaction(RedactionPolicy())
    )
