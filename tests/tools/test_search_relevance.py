"""The relevance rules of search_chats (issue 14), on both adapters: one term per word
family, possessives and clitics, answer evidence in both directions, slots for
answers."""

from __future__ import annotations

from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.search_chats import CURRENT_WITHIN_SECONDS
from chat_recall.domain.search.query_builder import build_query
from chat_recall.domain.text.analysis import TextAnalysis
from tests.tools.conftest import ASSISTANT, USER, chat
from tests.tools.test_search_chats import chat_ids, search


def matched_ids(output: dict) -> list[int]:  # type: ignore[type-arg]
    return [m["message_id"] for r in output["results"] for m in r["matches"]]


def test_a_word_finds_its_inflections_as_one_term(recall: ChatRecall) -> None:
    _, (meets,) = chat(recall, 1, "Notes", ["She meets the designer on Monday."])
    _, (meeting,) = chat(recall, 1, "Other", ["The meeting moved to Tuesday."])
    recall.indexer.run_until_idle()
    assert set(matched_ids(search(recall, "meet"))) == {meets, meeting}


def test_a_rare_word_is_not_outweighed_by_the_forms_of_a_common_one(recall: ChatRecall) -> None:
    for index in range(6):
        chat(recall, 1, f"Day {index}", [f"going to go, goes and went, going again {index}"])
    _, (jean,) = chat(recall, 1, "Diary", ["Jean was tired after the long week."])
    recall.indexer.run_until_idle()
    output = search(recall, "What did Jean go through?")
    assert matched_ids(output)[0] == jean


def test_possessives_and_clitics_search_the_word_itself(recall: ChatRecall) -> None:
    _, (caroline,) = chat(recall, 1, "Friends", ["Caroline and her friends met in 2019."])
    recall.indexer.run_until_idle()
    for query in ("Caroline's friends", "Caroline’s friends", "caroline ʼs"):
        assert caroline in matched_ids(search(recall, query)), query


def test_clitic_forms_reduce_to_their_word() -> None:
    plan = build_query("Caroline's group don't we'll it's can't O'Brien", TextAnalysis.plain())
    assert [term.phrase for term in plan.terms] == [("caroline",), ("group",), ("o", "brien")]
    plan = build_query("don't", TextAnalysis.plain())
    assert [term.phrase for term in plan.terms] == [("do",)]  # stopwords kept when alone


def test_question_framing_words_do_not_count() -> None:
    plan = build_query("Can you please remind me what happened with the invoices?")
    assert [term.phrase for term in plan.terms] == [("invoices",)]


def test_a_question_brings_its_reply_whoever_asks(recall: ChatRecall) -> None:
    _, ids = chat(
        recall,
        1,
        "Guests",
        [
            (USER, "Agencies want their clients in projects."),
            (ASSISTANT, "Should guests see archived projects?"),
            (USER, "No, hide them completely."),
        ],
    )
    _, peer = chat(
        recall,
        1,
        None,
        [
            (USER, "How long has your band been together?"),
            (ASSISTANT, "Since university, about eight years."),
        ],
    )
    recall.indexer.run_until_idle()
    assert ids[2] in matched_ids(search(recall, "guests archived projects"))
    assert peer[1] in matched_ids(search(recall, "band together"))


def test_a_reply_takes_the_slot_before_its_question(recall: ChatRecall) -> None:
    _, ids = chat(
        recall,
        1,
        "Payouts",
        [
            (USER, "Sellers get their money how? Weekly?"),
            (ASSISTANT, "Payouts run every Monday."),
            (USER, "And sellers in their first month, same money schedule?"),
            (ASSISTANT, "New accounts wait seven days on their first payouts."),
        ],
    )
    recall.indexer.run_until_idle()
    (result,) = search(recall, "sellers money")["results"]
    shown = [m["message_id"] for m in result["matches"]]
    assert sorted(shown) == [ids[1], ids[3]]  # both replies; their questions give up the slots


def test_a_statement_does_not_bring_the_reply(recall: ChatRecall) -> None:
    _, ids = chat(
        recall,
        1,
        None,
        [(USER, "My pottery class starts on Thursday."), (ASSISTANT, "That's great news!")],
    )
    recall.indexer.run_until_idle()
    assert matched_ids(search(recall, "pottery class")) == [ids[0]]


def test_each_result_says_which_query_words_its_chat_holds(recall: ChatRecall) -> None:
    chat(
        recall, 1, "Payments", ["We use Stripe Connect for seller payouts.", "Weekly, on Mondays."]
    )
    chat(recall, 1, "Other", ["Stripe webhooks retry for three days."])
    recall.indexer.run_until_idle()
    output = search(recall, "Stripe payouts schedule")
    assert [r["matched_terms"] for r in output["results"]] == [["Stripe", "payouts"], ["Stripe"]]
    assert output["unmatched_terms"] == ["schedule"]
    assert "query_note" not in output


def test_words_found_only_in_the_current_chat_are_unmatched(recall: ChatRecall) -> None:
    current, _ = chat(recall, 1, "Now", ["passkeys everywhere"])
    chat(recall, 1, "Old", ["login with email codes"])
    recall.indexer.run_until_idle()
    output = search(recall, "passkeys login", current=current)
    assert output["unmatched_terms"] == ["passkeys"]


def test_a_query_none_of_whose_words_occur_says_so_plainly(recall: ChatRecall) -> None:
    chat(recall, 1, "Auth", ["We use passkeys with email codes as the fallback."])
    recall.indexer.run_until_idle()
    output = search(recall, "How do people sign in?")
    assert output["results"] == []
    assert output["unmatched_terms"] == ["people", "sign"]
    assert "None of the query's words (people, sign) occurs" in output["query_note"]


def test_a_word_found_nowhere_yet_is_not_called_absent_while_messages_wait(
    recall: ChatRecall,
) -> None:
    chat_id, _ = chat(recall, 1, "Auth", ["We use passkeys with email codes as the fallback."])
    recall.indexer.run_until_idle()
    recall.host.add_message(chat_id, USER, "we chose the okapi framework", 1_700_100_000)
    waiting = search(recall, "okapi")
    lag = waiting["index_coverage"]["lag_seconds"]  # just caught up: current, or nearly
    assert waiting["index_status"] == ("ready" if lag <= CURRENT_WITHIN_SECONDS else "indexing")
    assert "occurs in this app's earlier chats" not in waiting["query_note"]
    assert "1 more message not searchable yet" in waiting["query_note"]
    recall.indexer.run_until_idle()
    assert "query_note" not in search(recall, "okapi")


def test_a_long_message_shows_the_window_where_its_terms_are(recall: ChatRecall) -> None:
    filler = " ".join(f"word{i}" for i in range(400))
    chat(recall, 1, "Long", [f"{filler} the refunds now expire after thirty days {filler}"])
    recall.indexer.run_until_idle()
    (match,) = search(recall, "refund expiry days")["results"][0]["matches"]
    assert "refunds now expire after thirty days" in match["excerpt"]
    assert match["excerpt"].startswith("…")


def _refund_windows(recall: ChatRecall, later: str) -> tuple[int, int]:
    """An earlier and a later chat on the refund window, among unrelated ones."""
    for index in range(6):
        chat(recall, 1, None, [f"Shipping labels and parcel sizes, batch {index}."])
    older, _ = chat(
        recall,
        1,
        None,
        ["Refund window: 14 days for buyers, counted from delivery."],
        start=1_700_000_000,
    )
    newer, _ = chat(recall, 1, None, [later], start=1_710_000_000)
    recall.indexer.run_until_idle()
    return older, newer


def test_a_later_chat_on_the_same_thing_edges_out_the_one_it_superseded(
    recall: ChatRecall,
) -> None:
    # The later message is longer, so it scores a little lower on its own.
    older, newer = _refund_windows(
        recall, "Refund window: 30 days for all buyers, counted from delivery."
    )
    assert chat_ids(search(recall, "refund window buyers"))[:2] == [newer, older]


def test_a_later_chat_missing_a_query_word_does_not_supersede(recall: ChatRecall) -> None:
    older, newer = _refund_windows(
        recall, "Refund window: 30 days for all sellers, counted from delivery."
    )
    assert chat_ids(search(recall, "refund window buyers"))[:2] == [older, newer]


def test_an_unbroken_japanese_question_is_cut_into_words(recall: ChatRecall) -> None:
    plan = build_query("大さじと小さじは何ミリリットル？")
    assert [term.word for term in plan.terms] == ["大", "小", "何", "ミリリットル"]
    plan = build_query("「適量」や「少々」は栄養計算でどう扱っていますか？")
    assert [term.word for term in plan.terms] == ["適量", "少々", "栄養", "養計", "計算", "扱"]
    assert [term.word for term in build_query("大さじ").terms] == ["大"]  # and 大さじ exactly
    _, (units,) = chat(
        recall, 1, "和食", ["大さじ（15ml）と小さじ（5ml）を計量単位として追加しました。"]
    )
    chat(recall, 1, "Other", ["Tablespoons and teaspoons in millilitres."])
    recall.indexer.run_until_idle()
    assert matched_ids(search(recall, "大さじと小さじは何ミリリットル？"))[0] == units
    assert matched_ids(search(recall, "大さじ"))[0] == units
