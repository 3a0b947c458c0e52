"""The query syntax people type, "did you mean", and notes that name why nothing was
found (issue 37), through search_chats as an agent calls it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite_host.engines import Engine
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from tests.tools.conftest import ASSISTANT, USER, chat, result


def search(recall: ChatRecall, query: str, app_id: int = 1, current: int | None = None) -> Any:
    return result(recall.search_chats(CallContext(app_id, current), {"query": query}))


def found(output: Any) -> set[int]:
    return {m["message_id"] for r in output["results"] for m in r["matches"]}


def history(recall: ChatRecall) -> dict[str, int]:
    _, (apart, together) = chat(
        recall,
        1,
        "Auth",
        [
            (USER, "Should the session live in a cookie or in local storage?"),
            (ASSISTANT, "A cookie session: httpOnly, and the session store is Postgres."),
        ],
    )
    _, (staging, production) = chat(
        recall,
        1,
        "Deploys",
        [
            (USER, "We deploy to staging first, then deploy again after review."),
            (ASSISTANT, "Deploy to production on Fridays is off limits."),
        ],
    )
    _, (authentication,) = chat(
        recall, 1, "Login", [(USER, "Authentication goes through passkeys now.")]
    )
    recall.indexer.run_until_idle()
    return {
        "apart": apart,
        "together": together,
        "staging": staging,
        "production": production,
        "authentication": authentication,
    }


def test_a_quoted_phrase_finds_the_words_together_and_in_order(recall: ChatRecall) -> None:
    ids = history(recall)
    assert found(search(recall, '"cookie session"')) == {ids["together"]}
    assert found(search(recall, "\u201ccookie session\u201d")) == {ids["together"]}
    assert found(search(recall, '"session cookie"')) == set()
    # Unquoted, the words are found apart and in any order.
    assert {ids["apart"], ids["together"]} <= found(search(recall, "session cookie"))
    output = search(recall, '"cookie session"')
    assert output["results"][0]["matched_terms"] == ['"cookie session"']


def test_a_prefix_finds_every_word_that_begins_with_it(recall: ChatRecall) -> None:
    ids = history(recall)
    assert found(search(recall, "sess*")) == {ids["apart"], ids["together"]}
    assert found(search(recall, "authenticat*")) == {ids["authentication"]}
    assert ids["production"] in found(search(recall, "deploy*"))
    output = search(recall, "zzzq*")
    assert output["results"] == []
    assert output["unmatched_terms"] == ["zzzq*"]


def test_a_leading_dash_leaves_out_the_messages_that_hold_the_word(recall: ChatRecall) -> None:
    ids = history(recall)
    assert found(search(recall, "deploy -staging")) == {ids["production"]}
    assert found(search(recall, 'deploy -"deploy again"')) == {ids["production"]}
    assert found(search(recall, "cookie -sess*")) == set()
    assert found(search(recall, "deploy --staging")) == {ids["staging"], ids["production"]}


def test_a_misspelt_word_gets_the_nearest_words_the_app_uses(recall: ChatRecall) -> None:
    history(recall)
    output = search(recall, "authentcation")
    assert output["results"] == []
    assert output["did_you_mean"] == {"authentcation": ["authentication"]}
    assert "Did you mean authentication?" in output["query_note"]
    # The suggestion works as written.
    assert search(recall, output["did_you_mean"]["authentcation"][0])["results"]
    assert search(recall, "sesion cookie")["did_you_mean"] == {"sesion": ["session"]}
    assert "did_you_mean" not in search(recall, "xylophonequartet")


def test_suggestions_never_come_from_another_app_a_deleted_message_or_the_current_chat(
    recall: ChatRecall,
) -> None:
    chat(recall, 2, "Theirs", ["Kubernetes everywhere"])
    _, (gone,) = chat(recall, 1, "Mine", ["Terraform modules"])
    current, _ = chat(recall, 1, "Now", ["Ansible playbooks"])
    recall.indexer.run_until_idle()
    recall.host.delete_message(gone)
    for typo in ("kubernetis", "terrafrom", "ansibel"):
        assert "did_you_mean" not in search(recall, typo, current=current), typo


def test_an_app_with_no_indexed_chats_says_so_by_its_id(recall: ChatRecall) -> None:
    history(recall)
    output = search(recall, "authentication", app_id=99)
    assert output["results"] == []
    assert output["query_note"].startswith("App 99, the app this search is scoped to, has no")
    assert "App 1" not in output["query_note"]


def test_words_only_in_the_current_chat_are_told_apart_from_words_nowhere(
    recall: ChatRecall,
) -> None:
    ids = history(recall)
    current, _ = chat(recall, 1, "Now", ["We picked the okapi framework."])
    recall.indexer.run_until_idle()
    only = search(recall, "okapi", current=current)
    assert only["query_note"].startswith("The query's words (okapi) occur only in the current")
    mixed = search(recall, "okapi zebrafish", current=current)
    assert "okapi occur only in the current chat" in mixed["query_note"]
    assert "zebrafish in no earlier chat" in mixed["query_note"]
    nowhere = search(recall, "zebrafish", current=current)
    assert nowhere["query_note"].startswith("None of the query's words (zebrafish) occurs")
    assert ids  # the app has chats: none of these is the empty-app note


def test_words_whose_messages_all_hold_an_excluded_word_say_so(recall: ChatRecall) -> None:
    history(recall)
    output = search(recall, "passkeys -authentication")
    assert output["results"] == []
    assert output["unmatched_terms"] == []
    assert output["query_note"].startswith("Every message holding the query's words (passkeys)")
    assert search(recall, "-passkeys")["query_note"].startswith("The query only excludes")


def test_the_syntax_gives_byte_identical_output_in_sqlite_and_in_memory(tmp_path: Path) -> None:
    queries = ['"cookie session"', "sess* -staging", "authentcation", "deploy -staging"]
    outputs = []
    for recall in (
        bootstrap.sqlite(tmp_path / "s.db", create_host_schema=True),
        bootstrap.in_memory(),
    ):
        history(recall)
        outputs.append([recall.search_chats(CallContext(1), {"query": q}) for q in queries])
        recall.close()
    assert outputs[0] == outputs[1]


def test_the_syntax_works_on_the_tantivy_engine(tmp_path: Path) -> None:
    recall = bootstrap.sqlite(tmp_path / "t.db", create_host_schema=True, engine=Engine.TANTIVY)
    try:
        ids = history(recall)
        assert found(search(recall, '"cookie session"')) == {ids["together"]}
        assert found(search(recall, "sess*")) == {ids["apart"], ids["together"]}
        assert found(search(recall, "deploy -staging")) == {ids["production"]}
        assert search(recall, "authentcation")["did_you_mean"] == {
            "authentcation": ["authentication"]
        }
    finally:
        recall.close()


@pytest.mark.parametrize("query", ['"', '"a', "*", "-", '-""', "a* -*", "-- -x"])
def test_stray_syntax_is_words_or_nothing_never_an_error(recall: ChatRecall, query: str) -> None:
    history(recall)
    assert "error" not in search(recall, query)
