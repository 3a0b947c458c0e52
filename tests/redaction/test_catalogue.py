"""The built-in catalogue is data checked here rather than on every start: each of its
patterns passes the checks a host's pattern passes when its rule is built, compiles as
the redactor renames it, and is compiled only when a text holds one of its anchors."""

from __future__ import annotations

import pytest

from chat_recall.domain.redaction import RedactionPolicy, Redactor
from chat_recall.domain.redaction.rules import CATALOGUE, check_pattern, provider_rules


@pytest.mark.parametrize("shape", CATALOGUE, ids=[shape[0] for shape in CATALOGUE])
def test_every_built_in_pattern_passes_the_host_rule_checks(shape: tuple[str, ...]) -> None:
    check_pattern(shape[2])


def test_the_rules_are_the_catalogue_in_order() -> None:
    rules = provider_rules()
    assert [(r.kind, r.pattern, r.check, " ".join(r.anchors)) for r in rules] == [
        (kind, pattern, check, " ".join(anchors.split()))
        for kind, anchors, pattern, check in CATALOGUE
    ]


def test_every_rule_compiles_as_the_redactor_renames_it() -> None:
    redactor = Redactor.build(RedactionPolicy())
    rules = {
        id(a): a
        for actions in redactor._actions.values()
        for a in actions
        if not isinstance(a, str)
    }
    rules |= {id(rule): rule for rule in redactor._aws_rules}
    assert len(rules) == len(CATALOGUE)
    for rule in rules.values():
        assert rule.pattern.pattern == rule.source


def _compiled(rule: object) -> bool:
    """Whether the rule's pattern was compiled (a slotted cached property holds it)."""
    try:
        object.__getattribute__(rule, "pattern")  # no fallback to computing it
    except AttributeError:
        return False
    return True


def test_a_rule_is_compiled_only_where_a_text_holds_its_anchor() -> None:
    redactor = Redactor.build(RedactionPolicy())
    rules = {
        id(a): a
        for actions in redactor._actions.values()
        for a in actions
        if not isinstance(a, str)
    }
    assert redactor.redact("sessions in Postgres").text == "sessions in Postgres"
    assert not any(_compiled(rule) for rule in rules.values())
    key = "ghp_" + "a1B2c3D4e5" * 4
    assert redactor.redact(f"token {key}").text == "token [redacted github-token]"
    compiled = {rule.rule.kind for rule in rules.values() if _compiled(rule)}
    assert "github-token" in compiled
    assert len(compiled) < 5
