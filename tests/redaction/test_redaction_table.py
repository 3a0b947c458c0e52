"""The issue's table: at least 40 synthetic credentials across the kinds, each replaced
by its typed placeholder wherever it stands, and at least 40 near-misses kept."""

from __future__ import annotations

import pytest

from chat_recall.domain.messages import MessageText
from chat_recall.domain.projection import project_for_read, project_for_search
from chat_recall.domain.projection.text import tidy_lines
from chat_recall.domain.redaction import DEFAULT_REDACTION, placeholder, redact
from tests.redaction.leaks import leaked
from tests.redaction.samples import NearMiss, Positive, kinds, near_misses, positives

POSITIVES = positives()
NEAR_MISSES = near_misses()


def test_the_table_is_as_large_as_the_issue_asks() -> None:
    assert len(POSITIVES) >= 40
    assert len(NEAR_MISSES) >= 40
    assert len(kinds(POSITIVES)) >= 40
    issue_kinds = {
        "openai-api-key",
        "anthropic-api-key",
        "google-api-key",
        "stripe-secret-key",
        "slack-token",
        "github-token",
        "gitlab-token",
        "npm-token",
        "pypi-token",
        "huggingface-token",
        "aws-access-key-id",
        "aws-secret-key",
        "private-key",
        "jwt",
        "password",
        "authorization",
        "secret",
        "api-key",
    }
    assert issue_kinds <= kinds(POSITIVES)


@pytest.mark.parametrize("sample", POSITIVES, ids=lambda s: s.id)
def test_a_credential_becomes_its_typed_placeholder(sample: Positive) -> None:
    redaction = redact(sample.text, DEFAULT_REDACTION)
    assert leaked(sample.secret, redaction.text) == []
    assert placeholder(sample.kind) in redaction.text
    assert redaction.counts.get(sample.kind, 0) >= 1


@pytest.mark.parametrize("sample", POSITIVES, ids=lambda s: s.id)
def test_no_projection_holds_a_credential(sample: Positive) -> None:
    messages = [
        MessageText.user(f"Earlier I pasted this:\n{sample.text}\nkeep it safe"),
        MessageText.assistant(f"Noted.\n{sample.text}\nDone."),
        MessageText.assistant(
            f'<dyad-write-plan title="Setup" summary="{_escape(sample.text)}">'
            f"Plan body {_escape(sample.text)}</dyad-write-plan>"
        ),
        MessageText.assistant(
            f'<dyad-write path="src/env.ts" description="{_escape(sample.text)}">x</dyad-write>'
        ),
        MessageText.assistant(
            f'<dyad-output type="error" message="{_escape(sample.text)}">'
            f"{sample.text}</dyad-output>"
        ),
    ]
    for message in messages:
        for projection in (project_for_search(message), project_for_read(message)):
            assert leaked(sample.secret, projection.text) == [], projection.text
            assert projection.redacted >= 1


@pytest.mark.parametrize("sample", NEAR_MISSES, ids=lambda s: s.label)
def test_a_near_miss_is_kept(sample: NearMiss) -> None:
    redaction = redact(sample.text, DEFAULT_REDACTION)
    assert redaction.text == sample.text
    assert redaction.total == 0
    message = MessageText.user(sample.text)
    assert project_for_search(message).text == tidy_lines(sample.text)
    assert project_for_read(message).text == tidy_lines(sample.text)


def test_counts_are_per_kind_and_carry_no_content() -> None:
    text = "\n".join(sample.text for sample in POSITIVES[:10])
    redaction = redact(text, DEFAULT_REDACTION)
    assert redaction.total >= 10
    assert all(kind.replace("-", "").isalnum() for kind in redaction.counts)
    for sample in POSITIVES[:10]:
        assert leaked(sample.secret, repr(redaction.counts)) == []


def test_redaction_is_idempotent_and_deterministic() -> None:
    text = "\n".join(sample.text for sample in POSITIVES)
    once = redact(text, DEFAULT_REDACTION)
    assert redact(once.text, DEFAULT_REDACTION).total == 0
    assert redact(text, DEFAULT_REDACTION) == once


def _escape(text: str) -> str:
    for raw, entity in (("&", "&amp;"), ('"', "&quot;"), ("<", "&lt;"), (">", "&gt;")):
        text = text.replace(raw, entity)
    return text
