"""A query in the install's language, on every engine: the hostels app of the evaluation
(German, French, Spanish, Italian and Dutch managers, an English owner) indexed under
each language. The in-memory twin answers exactly as SQLite FTS5 (byte-identical
search_chats output); tantivy and PostgreSQL match the same messages."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from chat_recall.adapters.snowball import analysis_for
from chat_recall.adapters.sqlite_host.engines import Engine
from chat_recall.domain.query import MatchQuery, ScopedQuery
from chat_recall.domain.search.ranking import SearchPolicy
from chat_recall.domain.text.language import Language
from tests.evaluation.apps import hostels
from tests.evaluation.corpus import FORMS
from tests.evaluation.evaluate import Corpus, load, search_tool

LANGUAGES = [Language.GERMAN, Language.FRENCH, Language.SPANISH, Language.ITALIAN, Language.DUTCH]
WINDOW = 10_000  # more than the app's messages: every match, whatever its score


def _questions(language: Language) -> list[str]:
    """The hostels questions of `language` and the English controls, in both forms."""
    return [
        question.text(form)
        for question in hostels.QUESTIONS
        if question.language in (language.value, "english")
        for form in FORMS
    ]


def _matches(corpus: Corpus, query: str) -> set[int]:
    search = ScopedQuery(MatchQuery.of_words(*query.split()), hostels.APP.id, window=WINDOW)
    return {candidate.message_id for candidate in corpus.recall.index.search(search)}


@pytest.fixture(params=LANGUAGES, ids=[language.value for language in LANGUAGES])
def language(request: pytest.FixtureRequest) -> Language:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def sqlite_corpus(language: Language) -> Iterator[Corpus]:
    corpus = load(analysis=analysis_for(language), apps=[hostels.APP])
    yield corpus
    corpus.recall.close()


def test_the_twin_answers_as_sqlite_under_every_language(
    language: Language, sqlite_corpus: Corpus
) -> None:
    memory = load(memory=True, analysis=analysis_for(language), apps=[hostels.APP])
    sqlite_search = search_tool(sqlite_corpus, SearchPolicy.default())
    memory_search = search_tool(memory, SearchPolicy.default())
    for query in _questions(language):
        expected = sqlite_search(hostels.APP.id, query)
        assert json.dumps(memory_search(hostels.APP.id, query)) == json.dumps(expected), query
    asked = next(q for q in hostels.QUESTIONS if q.language == language.value)
    found = sqlite_search(hostels.APP.id, asked.keywords)
    assert found["results"], asked.keywords  # the inflected message is found


def test_tantivy_matches_what_sqlite_matches(language: Language, sqlite_corpus: Corpus) -> None:
    tantivy = load(analysis=analysis_for(language), apps=[hostels.APP], engine=Engine.TANTIVY)
    try:
        for query in _questions(language):
            assert _matches(tantivy, query) == _matches(sqlite_corpus, query), query
    finally:
        tantivy.recall.close()


def test_postgres_matches_what_sqlite_matches(
    language: Language, sqlite_corpus: Corpus, postgres_dsn: str
) -> None:
    postgres = load(analysis=analysis_for(language), apps=[hostels.APP], postgres=postgres_dsn)
    try:
        for query in _questions(language):
            assert _matches(postgres, query) == _matches(sqlite_corpus, query), query
    finally:
        postgres.recall.close()
