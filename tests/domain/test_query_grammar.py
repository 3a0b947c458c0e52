"""The query grammar (`build_query`), prefixes under stemming (`TextAnalysis`), and the
candidates of "did you mean" (`domain.search.suggestions`), on the query alone."""

from __future__ import annotations

import pytest

from chat_recall.domain.query import TermCount
from chat_recall.domain.search import suggestions
from chat_recall.domain.search.query_builder import (
    MAX_PREFIX_TERMS,
    TermKind,
    build_query,
    expansions,
)
from chat_recall.domain.text import index_text, tokenize
from chat_recall.domain.text.analysis import TextAnalysis
from chat_recall.domain.text.porter import porter_stem
from tests.evaluation.corpus import load_apps

STEMMED = TextAnalysis.default()
PLAIN = TextAnalysis.plain()


def kinds(query: str) -> list[tuple[str, TermKind]]:
    return [(term.word, term.kind) for term in build_query(query).terms]


def test_quotes_make_a_phrase_and_the_rest_are_words() -> None:
    plan = build_query('"cookie sessions" redis')
    assert kinds('"cookie sessions" redis') == [
        ('"cookie sessions"', TermKind.PHRASE),
        ("redis", TermKind.WORD),
    ]
    assert plan.match.phrases == (("cookie", "sessions"), ("redis",))
    assert kinds("\u201ccookie sessions\u201d") == [('"cookie sessions"', TermKind.PHRASE)]
    # A quoted phrase keeps its stopwords: they are part of what is looked for.
    assert build_query('"the end of it" finale').match.phrases[0] == ("the", "end", "of", "it")


def test_a_star_after_a_word_of_three_letters_or_more_is_a_prefix() -> None:
    plan = build_query("sess* deploy")
    assert kinds("sess* deploy") == [("sess*", TermKind.PREFIX), ("deploy", TermKind.WORD)]
    assert plan.prefixes == ("sess",)
    assert plan.match.phrases == (("deploy",),)  # the prefix waits for the vocabulary
    assert kinds("ab*") == [("ab", TermKind.WORD)]  # too short: a word
    assert kinds("login.t*") == [("login.t", TermKind.WORD)]  # not one word: a word


def test_a_leading_dash_excludes_and_two_dashes_are_a_word() -> None:
    plan = build_query('deploy -staging -"cookie jar" -sess* --force')
    assert kinds('deploy -staging -"cookie jar" -sess* --force') == [
        ("deploy", TermKind.WORD),
        ("--force", TermKind.WORD),
    ]
    assert plan.match.excluded == (("staging",), ("cookie", "jar"))
    assert plan.excluded_prefixes == ("sess",)
    assert plan.prefixes == ("sess",)
    only = build_query("-staging")
    assert only.is_empty
    assert not only.terms
    assert only.match.excluded == (("staging",),)


@pytest.mark.parametrize(
    "query", ['"', '"unclosed phrase', "a*b", "*", "-", "- -", '""', "**x", "x-y", "NEAR(a b)"]
)
def test_anything_else_is_words_never_an_error(query: str) -> None:
    plan = build_query(query)
    assert all(term.kind is TermKind.WORD for term in plan.terms)
    assert not plan.match.excluded


def test_a_query_without_syntax_compiles_as_before() -> None:
    plan = build_query("session expiry for login.ts")
    assert plan.match.phrases == (("session",), ("expiry",), ("login", "ts"))
    assert plan.exact_phrases == (("session", "expiry", "for", "login", "ts"),)
    assert not plan.match.excluded
    assert not plan.prefixes


def test_a_prefix_expands_to_the_most_common_terms_it_covers() -> None:
    found = [TermCount(f"sess{n:02d}", n) for n in range(40)] + [TermCount("other", 99)]
    terms = expansions("sess", found, STEMMED)
    assert len(terms) == MAX_PREFIX_TERMS
    assert terms == tuple(f"sess{n:02d}" for n in range(40 - MAX_PREFIX_TERMS, 40))
    plan = build_query("sess* -sess10*").with_vocabulary(
        {"sess": found, "sess10": [TermCount("sess10", 10)]}
    )
    assert plan.terms[0].terms == terms
    assert plan.match.terms == terms
    assert plan.match.excluded_terms == ("sess10",)


@pytest.mark.parametrize(
    ("prefix", "word"),
    [
        ("deploy", "deploy"),
        ("deploy", "deploying"),
        ("deploy", "deployment"),
        ("authenticat", "authentication"),
        ("authenticat", "authenticate"),
        ("sess", "sessions"),
        ("migrat", "migrations"),
        ("generat", "generated"),
    ],
)
def test_a_prefix_covers_the_stems_of_the_words_that_begin_with_it(prefix: str, word: str) -> None:
    stem = porter_stem(word)
    assert STEMMED.covers_prefix(prefix, stem)
    assert stem.startswith(prefix) or stem in STEMMED.prefix_forms(prefix)
    assert PLAIN.covers_prefix(prefix, word)


def test_a_prefix_covers_no_unrelated_word() -> None:
    for prefix, stem in [("deploy", "deplor"), ("sess", "see"), ("auth", "author_x")]:
        if stem.startswith(prefix):
            continue
        assert not STEMMED.covers_prefix(prefix, stem), (prefix, stem)


def test_every_stem_of_the_evaluation_vocabulary_has_a_token_that_stems_to_it() -> None:
    """FTS5 stems every query token: a vocabulary term reaches it as such a token."""
    tokens = {
        token
        for app in load_apps()
        for chat in app.chats
        for text in (chat.title or "", *(m.content for m in chat.messages))
        for token in tokenize(index_text(text))
    }
    for stem in {porter_stem(token) for token in tokens}:
        token = STEMMED.token_for(stem)
        assert token is not None, stem
        assert porter_stem(token) == stem, stem
    assert PLAIN.token_for("databas") == "databas"


def test_suggestion_candidates_are_one_edit_away_under_the_analysis() -> None:
    found = suggestions.candidates("authentcation", STEMMED)
    assert porter_stem("authentication") in found  # a letter inserted
    assert porter_stem("authentcation") not in found  # never the word itself
    assert porter_stem("authentication") in suggestions.candidates("authenticaiton", STEMMED)
    assert "sessions" in suggestions.candidates("sesions", PLAIN)
    assert list(found) == sorted(found)
    assert not suggestions.suggestible("v2")
    assert not suggestions.suggestible("abc")
    assert suggestions.suggestible("sesion")


def test_the_nearest_candidates_are_the_most_common() -> None:
    found = [TermCount("a", 1), TermCount("b", 5), TermCount("c", 5), TermCount("d", 0)]
    assert suggestions.nearest(found) == ["b", "c", "a"]
