"""`LiteralSearch` finds exactly what `finditer` of the literal trie finds (same places,
same literals, same order), for the redactor's literals and for random sets of short
literals over a tiny alphabet (overlaps, shared prefixes, literals inside literals)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chat_recall.domain.redaction import RedactionPolicy, Redactor
from chat_recall.domain.redaction.literals import LiteralSearch, literal_trie

REDACTOR_LITERALS = sorted(Redactor.of(RedactionPolicy.default())._actions)
REDACTOR_SEARCH = LiteralSearch.of(REDACTOR_LITERALS)
REDACTOR_TRIE = re.compile(literal_trie(REDACTOR_LITERALS))


def _found(matches: object) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in matches]  # type: ignore[attr-defined]


fragments = st.one_of(
    st.sampled_from(REDACTOR_LITERALS),
    st.sampled_from(REDACTOR_LITERALS).map(lambda word: word[1:]),
    st.sampled_from(REDACTOR_LITERALS).map(lambda word: word[:-1]),
    st.text(alphabet=st.characters(max_codepoint=0x17F), max_size=12),
    st.text(alphabet="askeyo-_ .", max_size=6),
)
texts = st.lists(fragments, max_size=12).map("".join)


@settings(max_examples=600, deadline=None)
@given(texts)
def test_the_redactors_literals_are_found_as_the_trie_finds_them(text: str) -> None:
    assert _found(REDACTOR_SEARCH.finditer(text)) == _found(REDACTOR_TRIE.finditer(text))


small_words = st.lists(st.text(alphabet="abc-", min_size=1, max_size=5), min_size=1, max_size=8)
# A host's anchors may hold anything: regular-expression syntax, non-ASCII letters.
ODD = "a.*[(\\|?é-"
odd_words = st.lists(st.text(alphabet=ODD, min_size=1, max_size=4), min_size=1, max_size=6)


@settings(max_examples=600, deadline=None)
@given(
    st.one_of(
        st.tuples(small_words, st.text(alphabet="abcd-", max_size=60)),
        st.tuples(odd_words, st.text(alphabet=ODD + "b", max_size=40)),
    )
)
def test_any_literals_are_found_as_the_trie_finds_them(case: tuple[list[str], str]) -> None:
    words, text = case
    search = LiteralSearch.of(words)
    trie = re.compile(literal_trie(words))
    assert _found(search.finditer(text)) == _found(trie.finditer(text))


def test_a_search_needs_a_literal() -> None:
    with pytest.raises(ValueError, match="at least one"):
        LiteralSearch.of(["", ""])
