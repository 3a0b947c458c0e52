"""The Snowball stemmers (PyStemmer) behind the `Stemmer` port, and how the analysis of
a language reaches SQLite FTS5: as written stems that FTS5's own tokenizer gives back
one for one."""

from __future__ import annotations

import sqlite3
import sys
import threading

import pytest

from chat_recall.adapters.snowball import EXTRA, SnowballStemmer, analysis_for, chosen_analysis
from chat_recall.domain.errors import InvalidArguments, MissingExtra
from chat_recall.domain.text.analysis import TextAnalysis
from chat_recall.domain.text.language import Language

# (language, the form a question asks, the form a message writes): Porter joins none.
FAMILIES = [
    (Language.GERMAN, "Rechnung", "Rechnungen"),
    (Language.GERMAN, "Schlüssel", "Schlüsseln"),
    (Language.FRENCH, "animal", "animaux"),
    (Language.FRENCH, "bureau", "bureaux"),
    (Language.SPANISH, "excursión", "excursiones"),
    (Language.SPANISH, "autobús", "autobuses"),
    (Language.ITALIAN, "colazione", "colazioni"),
    (Language.ITALIAN, "bicicletta", "biciclette"),
    (Language.DUTCH, "boeking", "boekingen"),
    (Language.DUTCH, "handdoek", "handdoeken"),
]

# Words of many scripts and shapes, folded as FTS5 folds them.
SAMPLE = (
    "Rechnungen Straße Häuser ŒUVRE animaux réservations excursiones colazioni "
    "boekingen ontbijten книгами σπίτια evlerde İstanbul Ǆungla ﬁne café e\u0301 日本語 "
    "x86_64 v2.1 don't O'Brien 3.14 a_b ⅷ ½ ﬀ naïve coöperate ĳs ǈ"
)


@pytest.mark.parametrize(("language", "asked", "written"), FAMILIES)
def test_a_word_and_its_inflection_are_one_term(
    language: Language, asked: str, written: str
) -> None:
    analysis = analysis_for(language)
    assert analysis.terms(asked) == analysis.terms(written)
    porter = TextAnalysis.default()
    assert porter.terms(asked) != porter.terms(written)  # English stems do not join them


def test_english_and_none_need_no_stemmer() -> None:
    assert analysis_for(Language.ENGLISH) == TextAnalysis.default()
    assert analysis_for(Language.NONE) == TextAnalysis.plain()


@pytest.mark.parametrize("language", [language for language in Language if language.snowball])
def test_every_language_writes_stems_that_fts5_tokenizes_back_as_its_terms(
    language: Language,
) -> None:
    """The SQLite engine indexes `written_text` under plain unicode61: what FTS5 makes
    of it must be the analysis's terms, token for token."""
    analysis = analysis_for(language)
    connection = sqlite3.connect(":memory:")
    connection.execute(
        "CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'unicode61 remove_diacritics 2')"
    )
    connection.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    connection.execute("INSERT INTO t(rowid, x) VALUES (1, ?)", (analysis.written_text(SAMPLE),))
    indexed = [row[0] for row in connection.execute("SELECT term FROM v ORDER BY offset")]
    assert indexed == analysis.terms(SAMPLE)


def test_one_stemmer_stems_alike_from_many_threads() -> None:
    stemmer = SnowballStemmer.of(Language.GERMAN)
    words = [f"rechnung{ending}" for ending in ("", "en", "s")] * 200
    results: list[list[str]] = []

    def stem_all() -> None:
        results.append([stemmer.stem(word) for word in words])

    threads = [threading.Thread(target=stem_all) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(result == results[0] for result in results)
    assert len(results) == 4
    assert set(results[0]) == {"rechnung"}


def test_stemmers_are_equal_by_language_and_version() -> None:
    assert SnowballStemmer.of(Language.GERMAN) == SnowballStemmer.of(Language.GERMAN)
    assert hash(analysis_for(Language.GERMAN)) == hash(analysis_for(Language.GERMAN))
    assert SnowballStemmer.of(Language.GERMAN) != SnowballStemmer.of(Language.DUTCH)


def test_without_pystemmer_a_snowball_language_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # import fails
    with pytest.raises(MissingExtra, match=r"pip install 'chat-recall\[snowball\]'") as raised:
        analysis_for(Language.GERMAN)
    assert raised.value.extra == EXTRA
    assert analysis_for(Language.ENGLISH) == TextAnalysis.default()  # needs nothing


def test_the_analysis_chosen_at_start() -> None:
    german = analysis_for(Language.GERMAN)
    assert chosen_analysis(None, None, None) == TextAnalysis.default()
    assert chosen_analysis(None, None, german.name) == german
    assert chosen_analysis(None, None, "porter") == TextAnalysis.default()
    assert chosen_analysis(None, Language.FRENCH, german.name) == analysis_for(Language.FRENCH)
    assert chosen_analysis(german, None, "porter") == german
    with pytest.raises(InvalidArguments, match="german, the language french"):
        chosen_analysis(german, Language.FRENCH, None)
    # a record of another release's stems is read as its language, stemmed as now
    older = german.name.rsplit(" ", 1)[0] + " 0.9"
    assert chosen_analysis(None, None, older) == german
