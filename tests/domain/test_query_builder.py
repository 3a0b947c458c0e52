"""How the agent's query text compiles (`domain.search.query_builder.build_query`): one
scored term per word family, no invented forms, question framing dropped, possessives
and clitics reduced to the word (issue 14, failures 1, 2 and 4), on the query alone."""

from __future__ import annotations

import pytest

from chat_recall.domain.search.query_builder import MAX_TERMS, QueryPlan, build_query
from chat_recall.domain.text.analysis import TextAnalysis

STEMMED = TextAnalysis.default()
PLAIN = TextAnalysis.plain()

JEAN = "What did Jean go through before meeting Maria?"
CAROLINE = "How long has Caroline's group of friends been together?"
# What the suffix generator once produced for these two questions.
INVENTED = frozenset(
    {"meetinginging", "meetes", "jeaned", "mariaing", "friendsss", "togethered", "longed"}
)


def every_string(plan: QueryPlan) -> set[str]:
    """Every token and term the plan holds: what reaches the index or the ranking."""
    strings: set[str] = set()
    for term in plan.terms:
        strings.update(term.phrase, term.terms)
    for phrase in (*plan.match.phrases, *plan.exact_phrases):
        strings.update(phrase)
    return strings


def phrases(plan: QueryPlan) -> list[tuple[str, ...]]:
    return [term.phrase for term in plan.terms]


def terms(plan: QueryPlan) -> list[tuple[str, ...]]:
    return [term.terms for term in plan.terms]


def test_a_full_question_compiles_to_one_term_per_content_word() -> None:
    plan = build_query(JEAN, STEMMED)
    assert phrases(plan) == [("jean",), ("go",), ("meeting",), ("maria",)]
    assert terms(plan) == [("jean",), ("go",), ("meet",), ("maria",)]
    assert [term.word for term in plan.terms] == ["Jean", "go", "meeting", "Maria"]
    # What the index is asked: four one-word phrases, not 17 OR phrases of forms.
    assert plan.match.phrases == (("jean",), ("go",), ("meeting",), ("maria",))
    assert plan.wanted == frozenset({"jean", "go", "meet", "maria"})
    # The whole question is the exact-phrase bonus's phrase, not one more OR phrase.
    assert plan.exact_phrases == (
        ("what", "did", "jean", "go", "through", "before", "meeting", "maria"),
    )


def test_a_possessive_question_compiles_to_its_content_words() -> None:
    plan = build_query(CAROLINE, STEMMED)
    assert phrases(plan) == [("long",), ("caroline",), ("group",), ("friends",), ("together",)]
    assert terms(plan) == [("long",), ("carolin",), ("group",), ("friend",), ("togeth",)]
    assert plan.match.phrases == (
        ("long",),
        ("caroline",),
        ("group",),
        ("friends",),
        ("together",),
    )


@pytest.mark.parametrize("question", [JEAN, CAROLINE])
@pytest.mark.parametrize("analysis", [STEMMED, PLAIN], ids=["porter", "plain"])
def test_no_form_is_invented(question: str, analysis: TextAnalysis) -> None:
    plan = build_query(question, analysis)
    assert not every_string(plan) & INVENTED
    # Every phrase sent to the index is made of the question's own tokens, and every
    # scored term is one of those tokens as the analysis sees it.
    tokens = {token for phrase in plan.exact_phrases for token in phrase}
    assert all(set(phrase) <= tokens for phrase in plan.match.phrases)
    assert all(term.terms == analysis.phrase(term.phrase) for term in plan.terms)
    assert len(plan.match.phrases) == len(plan.terms) <= MAX_TERMS


def test_a_word_and_its_inflections_are_one_term() -> None:
    query = "meeting meets meet connected connections connecting going go"
    plan = build_query(query, STEMMED)
    assert terms(plan) == [("meet",), ("connect",), ("go",)]
    # The first form written stands for the family.
    assert phrases(plan) == [("meeting",), ("connected",), ("going",)]
    assert [term.word for term in plan.terms] == ["meeting", "connected", "going"]
    # Without stemming each form is its own term: the design's plain algorithm.
    assert len(build_query(query, PLAIN).terms) == 8


def test_porter_leaves_some_irregular_forms_apart() -> None:
    # Porter (as FTS5's `porter` tokenizer) stems `goes` to `goe`; `gone`, `went`, `met`
    # are their own stems. One term per family is what the stemmer makes of it.
    assert terms(build_query("go goes going gone went", STEMMED)) == [
        ("go",),
        ("goe",),
        ("gone",),
        ("went",),
    ]


def test_question_and_auxiliary_words_are_dropped_when_other_terms_remain() -> None:
    plan = build_query("Please tell me what happened with the refunds?", STEMMED)
    assert phrases(plan) == [("refunds",)]
    framed = build_query(
        "Please tell me what happened with the refunds?", STEMMED, question_words=False
    )
    assert phrases(framed) == [("please",), ("tell",), ("happened",), ("refunds",)]
    # A query of stopwords only stays a search for them, never an empty one.
    only = build_query("what did you do", STEMMED)
    assert phrases(only) == [("what",), ("did",), ("you",), ("do",)]
    assert not only.is_empty


def test_a_query_without_any_token_is_empty() -> None:
    assert build_query("?! ...", STEMMED).is_empty
    assert build_query("", STEMMED).is_empty


@pytest.mark.parametrize("apostrophe", ["'", "\u2019"], ids=["ascii", "typographic"])
def test_possessives_search_the_name(apostrophe: str) -> None:
    plan = build_query(f"Caroline{apostrophe}s", STEMMED)
    assert phrases(plan) == [("caroline",)]
    assert [term.word for term in plan.terms] == ["Caroline"]
    assert plan.exact_phrases == ()  # one word: no exact-phrase bonus for `caroline s`


def test_a_typographic_apostrophe_compiles_like_an_ascii_one() -> None:
    ascii_plan = build_query(CAROLINE, STEMMED)
    typographic = build_query(CAROLINE.replace("'", "\u2019"), STEMMED)
    assert typographic.terms == ascii_plan.terms
    assert typographic.match == ascii_plan.match
    assert typographic.exact_phrases == ascii_plan.exact_phrases


@pytest.mark.parametrize(
    ("word", "base"),
    [("don't", "do"), ("we'll", "we"), ("it's", "it"), ("can't", "can"), ("won't", "will")],
)
@pytest.mark.parametrize("apostrophe", ["'", "\u2019"], ids=["ascii", "typographic"])
def test_clitics_are_cut_from_their_word(word: str, base: str, apostrophe: str) -> None:
    written = word.replace("'", apostrophe)
    assert phrases(build_query(written, STEMMED)) == [(base,)]
    # The base is a stopword: with a subject it goes.
    assert phrases(build_query(f"{written} deploy", STEMMED)) == [("deploy",)]


def test_an_apostrophe_inside_a_name_is_not_a_clitic() -> None:
    assert phrases(build_query("O'Brien", STEMMED)) == [("o", "brien")]


def test_without_clitics_a_possessive_is_the_phrase_of_its_parts() -> None:
    plan = build_query("Caroline's group", STEMMED, clitics=False)
    assert phrases(plan) == [("caroline", "s"), ("group",)]


def test_words_with_the_same_terms_are_one_query_term_and_terms_are_capped() -> None:
    plan = build_query("Refunds refunds REFUNDS refund", STEMMED)
    assert phrases(plan) == [("refunds",)]
    # One word has no exact-phrase bonus: the whole query is its one term.
    assert build_query("Refunds?", STEMMED).exact_phrases == ()
    assert build_query("login.ts", STEMMED).exact_phrases == ()
    many = " ".join(f"word{i}" for i in range(MAX_TERMS + 5))
    assert phrases(build_query(many, STEMMED)) == [(f"word{i}",) for i in range(MAX_TERMS)]


def test_a_file_name_is_the_phrase_of_its_parts() -> None:
    plan = build_query("login.ts user_id v2.1", STEMMED)
    assert phrases(plan) == [("login", "ts"), ("user", "id"), ("v2", "1")]


def test_an_unspaced_japanese_question_is_cut_into_words() -> None:
    plan = build_query("東京都の天気予報", STEMMED)
    # Ideograph runs as overlapping pairs; the particle `の` (hiragana) is dropped.
    assert [term.word for term in plan.terms] == ["東京", "京都", "天気", "気予", "予報"]
    assert phrases(plan) == [("東", "京"), ("京", "都"), ("天", "気"), ("気", "予"), ("予", "報")]
    # The question whole keeps the exact-phrase bonus.
    assert plan.exact_phrases == (("東", "京", "都", "の", "天", "気", "予", "報"),)
    mixed = build_query("ログイン画面を直して", STEMMED)
    assert [term.word for term in mixed.terms] == ["ログイン", "画面", "直"]  # katakana whole
    # Without segmentation it is one long phrase, which almost nothing holds.
    whole = build_query("東京都の天気予報", STEMMED, segment_unspaced=False)
    assert phrases(whole) == [("東", "京", "都", "の", "天", "気", "予", "報")]
