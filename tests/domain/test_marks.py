"""What a reader's view marks as the query's words (`domain.search.marks`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chat_recall.domain.search.marks import Part, marked_parts
from chat_recall.domain.text.analysis import TextAnalysis

STEMMED = TextAnalysis.default()


def _marked(text: str, query: str, analysis: TextAnalysis = STEMMED) -> list[str]:
    return [part.text for part in marked_parts(text, query, analysis) if part.marked]


def test_the_words_the_index_matched_are_marked_in_any_inflection_and_case() -> None:
    text = "Sessions expire; JWTs make revocation hard. A session's cookie."
    assert _marked(text, "session JWT revocation") == ["Sessions", "JWTs", "revocation", "session"]


def test_without_stemming_only_the_words_themselves() -> None:
    assert _marked("sessions and session", "session", TextAnalysis.plain()) == ["session"]


def test_words_the_search_dropped_are_not_marked() -> None:
    # "the" and "please" are dropped from a query that has other words; so not marked
    assert _marked("please find the ledger", "please the ledger") == ["ledger"]


def test_accents_and_case_fold_as_the_index_folds_them() -> None:
    assert _marked("Café and CAFE and cafés", "cafe") == ["Café", "CAFE", "cafés"]


def test_without_a_query_word_nothing_is_marked() -> None:
    assert marked_parts("some text", "...", STEMMED) == (Part("some text"),)
    assert marked_parts("", "word", STEMMED) == (Part(""),)


@given(st.text(max_size=200), st.text(max_size=40))
def test_the_parts_give_the_text_back_exactly(text: str, query: str) -> None:
    parts = marked_parts(text, query, STEMMED)
    assert "".join(part.text for part in parts) == text
    assert all(part.text for part in parts) or parts == (Part(""),)
