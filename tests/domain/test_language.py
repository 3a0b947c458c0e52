"""`Language` and a text analysis with a stemmer of chat-recall's own (the Snowball
languages), through a toy stemmer: the domain's rules, not any library's stems."""

from __future__ import annotations

import attrs
import pytest

from chat_recall.domain.errors import InvalidArguments
from chat_recall.domain.text.analysis import (
    Stemming,
    TextAnalysis,
    language_of_name,
)
from chat_recall.domain.text.language import Language


@attrs.frozen
class EndingStemmer:
    """Drops `en`, `e` or `s` from the end; `ß` becomes `ss` (a rewrite before the
    end, as German Snowball does); `odd` stems to two words."""

    language: Language = Language.GERMAN
    version: str = "0.1"

    def stem(self, word: str) -> str:
        if word == "odd":
            return "o d"
        word = word.replace("ß", "ss")
        for ending in ("en", "e", "s"):
            if word.endswith(ending) and len(word) > len(ending) + 2:
                return word[: -len(ending)]
        return word


GERMAN = TextAnalysis.of(Language.GERMAN, EndingStemmer())


def test_a_language_is_named_in_any_case_and_an_unknown_one_lists_the_names() -> None:
    assert Language.named(" German ") is Language.GERMAN
    with pytest.raises(InvalidArguments, match=r"unknown language 'klingon'.*german"):
        Language.named("klingon")
    assert not Language.ENGLISH.snowball
    assert not Language.NONE.snowball
    assert Language.DUTCH.snowball


def test_english_and_none_are_the_analyses_that_were_there_before() -> None:
    assert TextAnalysis.of(Language.ENGLISH) == TextAnalysis.default()
    assert TextAnalysis.of(Language.NONE) == TextAnalysis.plain()
    assert TextAnalysis.default().name == "porter"
    assert TextAnalysis.plain().name == "unicode61"
    with pytest.raises(ValueError, match="needs a german stemmer"):
        TextAnalysis.of(Language.GERMAN)
    with pytest.raises(ValueError, match="needs a french stemmer"):
        TextAnalysis.of(Language.FRENCH, EndingStemmer())


def test_every_analysis_name_reads_back_as_its_language() -> None:
    for language in Language:
        stemmer = EndingStemmer(language) if language.snowball else None
        analysis = TextAnalysis.of(language, stemmer)
        assert analysis.language is language
        assert language_of_name(analysis.name) is language
    assert GERMAN.name == "snowball german 0.1"
    assert language_of_name("snowball klingon 1.0") is None
    assert language_of_name("something else") is None


def test_a_word_and_its_inflections_are_one_term() -> None:
    assert GERMAN.terms("Rechnung Rechnungen") == ["rechnung", "rechnung"]
    assert GERMAN.term("straße") == GERMAN.term("strasse") == "strass"
    assert GERMAN.phrase(("rechnungen", "gehen")) == ("rechnung", "geh")


def test_the_written_text_is_one_stem_per_token_and_tokenizes_back_to_the_terms() -> None:
    text = "Die Rechnungen gehen raus, odd or not: Straße 14"
    written = GERMAN.written_text(text)
    assert written == "die rechnung geh rau odd or not strass 14"
    assert TextAnalysis.plain().terms(written) == GERMAN.terms(text)
    # a stem that would tokenize as two words is not written: the token stands
    assert GERMAN.written("odd") == "odd"


def test_the_engine_stage_is_applied_after_the_written_stems() -> None:
    porter_over = TextAnalysis(Stemming.PORTER, EndingStemmer())
    assert porter_over.term("meetings") == "meet"  # EndingStemmer: meeting; Porter: meet
    assert porter_over.name == "snowball german 0.1 porter"
    assert porter_over.token_for("meet") == "meet"
    # the FTS5 engine is given vocabulary terms as they are when it does not stem
    assert GERMAN.token_for("databas") == "databas"
    assert GERMAN.engine_term("rechnungen") == "rechnungen"


def test_find_terms_stems_every_token_even_where_the_stem_rewrites_its_middle() -> None:
    text = "Die Straße und die Rechnungen"
    found = GERMAN.find_terms(text, frozenset({"strass", "rechnung"}))
    assert [(text[start:end], term) for start, end, term in found] == [
        ("Straße", "strass"),
        ("Rechnungen", "rechnung"),
    ]


def test_a_prefix_covers_stems_shorter_than_it() -> None:
    assert GERMAN.covers_prefix("rechnunge", "rechnung")
    assert GERMAN.covers_prefix("rech", "rechnung")
    assert not GERMAN.covers_prefix("rechnunge", "rech")  # more than the slack shorter
    assert "rechnung" in GERMAN.prefix_forms("rechnunge")
