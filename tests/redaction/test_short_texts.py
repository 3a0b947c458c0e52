"""A short text is checked for the redactor's literals one by one before the trie
expression is compiled (a CLI search redacts its query without compiling it): the
spans are exactly those the trie finds."""

from __future__ import annotations

from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from chat_recall.domain.redaction import RedactionPolicy, Redactor
from chat_recall.domain.redaction import redactor as redactor_module
from tests.redaction.samples import positives

REDACTOR = Redactor.of(RedactionPolicy.default())
LITERALS = sorted(REDACTOR._actions)
SECRETS = [positive.secret for positive in positives()]

fragments = st.one_of(
    st.sampled_from(LITERALS),
    st.sampled_from(SECRETS),
    st.text(alphabet=st.characters(max_codepoint=0x17F), max_size=12),
    st.sampled_from([" ", "=", ": ", "\n", "://u:", "@", "-----BEGIN", "\u0130"]),
)
short_texts = st.lists(fragments, max_size=8).map("".join)


@settings(max_examples=500, deadline=None)
@given(short_texts)
def test_short_texts_give_the_spans_the_trie_gives(text: str) -> None:
    with mock.patch.object(redactor_module, "_SHORT", -1):  # the trie for every text
        expected = REDACTOR.spans(text)
    assert REDACTOR.spans(text) == expected


def test_short_texts_lose_their_secrets() -> None:
    short = [p for p in positives() if len(p.text) <= redactor_module._SHORT]
    assert len(short) > 20
    for positive in short:
        assert positive.secret not in REDACTOR.redact(positive.text).text, positive.id
