"""The pure-Python Porter stemmer is FTS5's `porter` tokenizer, term for term, as the
running SQLite indexes it: over every word of the evaluation set and the scale
fixture's vocabulary, over generated inflections of English stems, at the byte-length
limits, and over arbitrary text."""

from __future__ import annotations

import itertools
import random
import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from chat_recall.adapters.snowball import analysis_for
from chat_recall.domain.text import index_text, tokenize
from chat_recall.domain.text.analysis import TextAnalysis
from chat_recall.domain.text.language import Language
from chat_recall.domain.text.porter import MAX_BYTES, porter_stem
from chat_recall.domain.text.unicode61 import fold
from tests.benchmarks.fixture import vocabulary
from tests.evaluation.corpus import load_apps

TOKENIZER = "porter unicode61 remove_diacritics 2"
# A Snowball analysis: its `find_terms` stems every token instead of scanning prefixes.
GERMAN = analysis_for(Language.GERMAN)


def _oracle() -> sqlite3.Connection:
    connection = sqlite3.connect(":memory:")
    connection.text_factory = bytes
    connection.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '{TOKENIZER}')")
    connection.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    return connection


def sqlite_terms(texts: list[str]) -> list[list[str]]:
    """The terms FTS5 indexes for each text, in order."""
    connection = _oracle()
    connection.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", list(enumerate(texts, start=1)))
    terms: list[list[str]] = [[] for _ in texts]
    for doc, term in connection.execute("SELECT doc, term FROM v ORDER BY doc, offset"):
        terms[doc - 1].append(term.decode("utf-8", "surrogateescape"))
    return terms


def python_terms(text: str) -> list[str]:
    return [porter_stem(token) for token in tokenize(text)]


def assert_same(words: list[str]) -> None:
    expected = sqlite_terms(words)
    mismatches = [
        (word, want, python_terms(word))
        for word, want in zip(words, expected, strict=True)
        if python_terms(word) != want
    ]
    assert not mismatches, mismatches[:20]


def test_every_word_of_the_evaluation_set_stems_as_sqlite_does() -> None:
    words = sorted(
        {
            token
            for app in load_apps()
            for chat in app.chats
            for message in chat.messages
            for token in tokenize(index_text(message.content))
        }
    )
    assert len(words) > 2000
    assert_same(words)


def test_the_scale_fixture_vocabulary_stems_as_sqlite_does() -> None:
    assert_same(vocabulary(6000, random.Random(7)))


STEMS = (
    "connect relate generate hop hope fil fall control agree feed plaster bled sing "
    "conflat troubl siz tann fail fizz motor cry happy sky rational valenc hesit digit "
    "conform radic formal sensitiv sensibl triplic electr hope goodness adjust depend "
    "adopt homolog commun activ angular homolog bowdler effect irrit replac ador ward "
    "meet go caroline friend togeth long organ univers gener news gentl sign pay "
    "refund host seller deploy authent passkey ration tradit bake cake y yy by ay"
).split()
SUFFIXES = (
    "",
    "s",
    "es",
    "ies",
    "sses",
    "ed",
    "eed",
    "ing",
    "ings",
    "ly",
    "ational",
    "tional",
    "enci",
    "anci",
    "izer",
    "logi",
    "bli",
    "alli",
    "entli",
    "eli",
    "ousli",
    "ization",
    "ation",
    "ator",
    "alism",
    "iveness",
    "fulness",
    "ousness",
    "aliti",
    "iviti",
    "biliti",
    "icate",
    "ative",
    "alize",
    "iciti",
    "ical",
    "ful",
    "ness",
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "sion",
    "tion",
    "ion",
    "ou",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
    "e",
    "ll",
    "y",
)


def test_generated_inflections_stem_as_sqlite_does() -> None:
    words = [stem + suffix for stem, suffix in itertools.product(STEMS, SUFFIXES)]
    words += [a + b for a, b in itertools.product(SUFFIXES, repeat=2) if a + b]
    assert_same(words)


def test_the_byte_length_limits_are_fts5s() -> None:
    words = []
    for size in (1, 2, 3, 4, MAX_BYTES - 1, MAX_BYTES, MAX_BYTES + 1, MAX_BYTES + 5):
        for ending in ("ing", "sses", "ational", "é", "日本"):
            word = ("x" * size + ending)[-size:] if size > len(ending) else ending[:size]
            words.append(word)
        words.append("ü" * (size // 2 + 1) + "ing")
    assert_same(words)


LETTERS = "aeiouybcdgklmnprstvwxz"


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(alphabet=LETTERS, min_size=1, max_size=14), min_size=1, max_size=8))
def test_random_ascii_words_stem_as_sqlite_does(words: list[str]) -> None:
    assert_same(words)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_text_stems_as_sqlite_does(text: str) -> None:
    stored = index_text(text)
    assert python_terms(stored) == sqlite_terms([stored])[0]


WORDS = st.lists(st.text(alphabet=LETTERS + "ÉéüÜ\u0301’'-", min_size=1, max_size=12), max_size=5)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80), WORDS, WORDS)
def test_find_terms_finds_exactly_the_tokens_whose_term_is_wanted(
    text: str, wanted_words: list[str], other_words: list[str]
) -> None:
    stored = index_text(" ".join([text, *wanted_words, *other_words, *wanted_words]))
    for analysis in (TextAnalysis.default(), TextAnalysis.plain(), GERMAN):
        wanted = frozenset(term for word in wanted_words for term in analysis.terms(word))
        found = analysis.find_terms(stored, wanted)
        expected = [term for term in analysis.terms(stored) if term in wanted]
        if analysis == TextAnalysis.plain() and any(fold(ch) == "" for ch in stored):
            continue  # the plain scan skips tokens holding dropped characters (known)
        assert [term for _, _, term in found] == expected
        for start, end, term in found:
            assert analysis.terms(stored[start:end]) == [term]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80), WORDS, WORDS)
def test_ascii_text_finds_the_terms_the_table_finds(
    text: str, wanted_words: list[str], other_words: list[str]
) -> None:
    """ASCII text takes a fast path that never loads the unicode61 table; the same text
    with a separator outside ASCII appended takes the table's path."""
    stored = index_text(" ".join([text, *wanted_words, *other_words]))
    if not stored.isascii():
        stored = index_text(text)
    for analysis in (TextAnalysis.default(), TextAnalysis.plain(), GERMAN):
        wanted = frozenset(term for word in wanted_words for term in analysis.terms(word))
        wanted |= frozenset(analysis.terms(stored)[:2])
        assert analysis.find_terms(stored, wanted) == analysis.find_terms(
            stored + " \u3000", wanted
        )
