"""The scanner's and the text helpers' fast paths give exactly what the plain
definitions give: the tag-start expression never misses a recognised name, and the
ASCII shortcuts agree with the general path."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chat_recall.domain.projection import DEFAULT_POLICY, DEFAULT_RULES, MarkupPolicy
from chat_recall.domain.projection.policy import TAG_NAME, UNKNOWN_TAG_RULE
from chat_recall.domain.projection.text import cap_utf8, valid_unicode
from chat_recall.domain.text import index_text


def host_policy(pattern: str, flags: int = re.IGNORECASE) -> MarkupPolicy:
    return MarkupPolicy(
        rules={"note": DEFAULT_RULES["dyad-status"], "x:y": DEFAULT_RULES["dyad-status"]},
        tag_pattern=re.compile(pattern, flags),
        unknown_rule=UNKNOWN_TAG_RULE,
    )


POLICIES = [
    DEFAULT_POLICY,
    host_policy(r"acme-[\w-]*"),
    host_policy(r"a|ab"),  # the longer alternative must still be found
    host_policy(r"^acme.*$"),  # anchors: embedded as is they would miss names
    host_policy(r"(acme)-\w+"),  # groups of its own
    host_policy(r"(?i)acme.*", 0),  # a global flag cannot be embedded
    host_policy(r"ac(?=m)me[\w-]*"),  # a lookaround
    host_policy(r"acme\W*x", re.ASCII),  # `\W` differs under re.ASCII
    host_policy(r"[A-Z]+", 0),
    host_policy(r"acme-.*"),  # `.` reads past the name
    host_policy(r"acme[a-z ]*"),  # so does a class with a space
]
NAMES = st.one_of(
    st.from_regex(TAG_NAME, fullmatch=True),
    st.sampled_from([*DEFAULT_RULES, "thinking", "DYAD-Write", "acme-x", "acmeéx", "ab", "a"]),
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(range(len(POLICIES))), NAMES, st.sampled_from(["", "/"]))
def test_the_tag_start_expression_finds_every_recognised_name(
    index: int, name: str, slash: str
) -> None:
    policy = POLICIES[index]
    text = f"a <b < {name}: <{slash}{name}>"
    # The scanner retries from every `<` the expression stops at, so it is enough that
    # the expression matches at the tag itself, whatever precedes it.
    found = policy.tag_start.match(text, text.rindex("<"))
    if policy.recognises(name):
        assert found is not None
        assert (found.group(1), found.group(2)) == (slash, name)


def test_the_default_policy_jumps_over_every_other_angle_bracket() -> None:
    prose = "if a < b && c<d { return <div className='x'><Button/></div>; } </span> <thin>"
    assert DEFAULT_POLICY.tag_start.search(prose) is None


@pytest.mark.parametrize(
    "policy",
    [POLICIES[3], POLICIES[4], POLICIES[5], POLICIES[6], POLICIES[7], *POLICIES[9:]],
    ids=["anchors", "groups", "global flag", "lookaround", "\\W", "dot", "space"],
)
def test_patterns_that_could_read_past_a_name_get_the_plain_form(policy: MarkupPolicy) -> None:
    """Embedded, these would depend on what follows the name, or make each `<` cost up
    to the rest of the line (quadratic over a long line)."""
    assert policy.tag_start.pattern == f"<(/?)({TAG_NAME})"


@pytest.mark.parametrize("policy", [POLICIES[0], POLICIES[1], POLICIES[2], POLICIES[8]])
def test_patterns_of_name_characters_are_embedded(policy: MarkupPolicy) -> None:
    assert policy.tag_start.pattern != f"<(/?)({TAG_NAME})"


ASCII = st.text(alphabet=st.characters(max_codepoint=127), max_size=60)


@settings(max_examples=300, deadline=None)
@given(ASCII)
def test_the_ascii_shortcuts_agree_with_the_general_path(text: str) -> None:
    # "é" sends the same text through the general (non-ASCII) path.
    assert index_text(text + "é") == index_text(text) + "é"
    assert valid_unicode(text + "é") == valid_unicode(text) + "é"
    assert index_text(text) == re.sub("[\x00-\x08\x0b-\x1f\x7f]", " ", text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40), st.integers(1, 60))
def test_the_byte_cap_only_cuts_what_is_too_long(text: str, cap: int) -> None:
    text = valid_unicode(text)
    capped, truncated = cap_utf8(text, cap + 8, 4)
    assert truncated == (len(text.encode("utf-8")) > cap + 8)
    if not truncated:
        assert capped == text
