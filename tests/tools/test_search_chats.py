"""search_chats: the design's tests, and the issue's."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chat_recall.adapters import bootstrap
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.application.tools.search_chats import CURRENT_WITHIN_SECONDS, OUTPUT_BUDGET_BYTES
from tests.tools.conftest import ASSISTANT, USER, chat, result


def search(recall: ChatRecall, query: str, app_id: int = 1, **kwargs: object) -> dict:  # type: ignore[type-arg]
    current = kwargs.pop("current", None)
    arguments = {"query": query, **kwargs}
    return result(recall.search_chats(CallContext(app_id, current), arguments))  # type: ignore[arg-type]


def chat_ids(output: dict) -> list[int]:  # type: ignore[type-arg]
    return [r["chat_id"] for r in output["results"]]


def message_ids(output: dict) -> list[int]:  # type: ignore[type-arg]
    return [m["message_id"] for r in output["results"] for m in r["matches"]]


def test_scoped_to_the_current_app_and_excluding_the_current_chat(recall: ChatRecall) -> None:
    current, _ = chat(recall, 1, "Now", ["we talk about kubernetes now"])
    older, _ = chat(recall, 1, "Before", ["kubernetes was chosen for hosting"])
    chat(recall, 2, "Elsewhere", ["kubernetes in another app"])
    recall.indexer.run_until_idle()
    assert chat_ids(search(recall, "kubernetes", current=current)) == [older]
    assert sorted(chat_ids(search(recall, "kubernetes"))) == sorted([current, older])


def test_cross_app_content_never_appears(recall: ChatRecall) -> None:
    chat(recall, 2, "Secret OTHERAPPTITLE", ["OTHERAPPMARKER text"])
    chat(recall, 1, "Mine", ["text"])
    recall.indexer.run_until_idle()
    for query in ("OTHERAPPMARKER", "OTHERAPPTITLE", "text", "secret"):
        assert "OTHERAPP" not in json.dumps(search(recall, query)["results"])


def test_old_rare_matches_are_not_starved_by_newer_common_words(recall: ChatRecall) -> None:
    old, _ = chat(recall, 1, "Archive", ["the invoice decision used quaternion pricing"], start=1)
    for index in range(60):
        chat(
            recall,
            1,
            f"Newer {index}",
            [f"the invoice decision again {i}" for i in range(40)],
            start=10_000 + index,
        )
    recall.indexer.run_until_idle()
    assert chat_ids(search(recall, "invoice decision quaternion"))[0] == old


def test_title_weighting(recall: ChatRecall) -> None:
    titled, _ = chat(recall, 1, "Dark mode", ["maybe dark colors later, mode unclear"])
    mentioned, _ = chat(recall, 1, "Misc", ["maybe dark colors later, mode unclear"])
    recall.indexer.run_until_idle()
    assert chat_ids(search(recall, "dark mode")) == [titled, mentioned]


def test_a_message_holding_the_words_ranks_above_one_found_through_its_title(
    recall: ChatRecall,
) -> None:
    """Issue 37: `deploy` gave "Frankfurt (fra), close to the users." first, found only
    through its chat's title, above the message that says `fly deploy`; and its excerpt
    did not show why it matched."""
    titled, (question, answer) = chat(
        recall,
        1,
        "Deploy to Fly.io",
        ["Which region should we use?", "Frankfurt (fra), close to the users."],
    )
    ci, (_, says) = chat(
        recall,
        1,
        "CI pipeline",
        [
            "How do we ship from CI?",
            "Use `fly deploy` from the GitHub Actions workflow, with the token as a secret, "
            "after the tests pass on the main branch.",
        ],
    )
    recall.indexer.run_until_idle()
    output = search(recall, "deploy")
    assert chat_ids(output) == [ci, titled]
    assert message_ids(output)[0] == says
    excerpts = {m["message_id"]: m["excerpt"] for r in output["results"] for m in r["matches"]}
    assert excerpts[answer] == "[chat title: Deploy to Fly.io] Frankfurt (fra), close to the users."
    assert excerpts[question].startswith("[chat title: Deploy to Fly.io] ")
    assert not excerpts[says].startswith("[chat title")


def test_exact_phrase_bonus(recall: ChatRecall) -> None:
    scattered, _ = chat(recall, 1, "A", ["the cache is warm and the layer is thin"])
    phrase, _ = chat(recall, 1, "B", ["we added a cache layer in front of the api"])
    recall.indexer.run_until_idle()
    assert chat_ids(search(recall, "cache layer")) == [phrase, scattered]


def test_compaction_summary_penalty_and_duplicate_summary_is_dropped(recall: ChatRecall) -> None:
    chat_id = recall.host.create_chat(1, "Auth", 1000)
    original = recall.host.add_message(chat_id, USER, "use passkeys for login", 1010)
    summary = recall.host.add_message(
        chat_id,
        ASSISTANT,
        '<dyad-compaction title="Summary">passkeys for login</dyad-compaction>',
        1019,
        is_compaction_summary=True,
    )
    recall.host.add_message(chat_id, USER, "next", 1020)
    recall.indexer.run_until_idle()
    output = search(recall, "passkeys login")
    assert message_ids(output) == [original]
    del summary


def test_a_summary_with_unique_terms_still_surfaces(recall: ChatRecall) -> None:
    chat_id = recall.host.create_chat(1, "Auth", 1000)
    recall.host.add_message(chat_id, USER, "use passkeys", 1010)
    summary = recall.host.add_message(
        chat_id,
        ASSISTANT,
        '<dyad-compaction title="S">passkeys with webauthn fallback</dyad-compaction>',
        1009,
        is_compaction_summary=True,
    )
    recall.indexer.run_until_idle()
    assert summary in message_ids(search(recall, "webauthn"))


def test_grouping_keeps_two_distinct_matches_per_chat(recall: ChatRecall) -> None:
    chat_id, _ids = chat(
        recall,
        1,
        "Deploy",
        ["deploy to fly", "deploy to fly", "deploy with docker", "deploy later"],
    )
    recall.indexer.run_until_idle()
    output = search(recall, "deploy")
    assert chat_ids(output) == [chat_id]
    matches = output["results"][0]["matches"]
    assert len(matches) == 2
    assert len({m["excerpt"] for m in matches}) == 2


def test_ties_are_deterministic(recall: ChatRecall) -> None:
    ids = [chat(recall, 1, "Same", ["identical words"], start=5000)[0] for _ in range(3)]
    recall.indexer.run_until_idle()
    first = recall.search_chats(CallContext(1), {"query": "identical"})
    assert chat_ids(json.loads(first)) == sorted(ids)
    assert all(
        recall.search_chats(CallContext(1), {"query": "identical"}) == first for _ in range(3)
    )


def test_unicode_diacritics_case_folding_and_japanese(recall: ChatRecall) -> None:
    german, _ = chat(recall, 1, "DE", ["Die Größe der Übersetzung ist geprüft"])
    french, _ = chat(recall, 1, "FR", ["Le café est préféré à l'élève"])
    russian, _ = chat(recall, 1, "RU", ["ПРИВЕТ Мир"])
    greek, _ = chat(recall, 1, "EL", ["ΣΟΦΙΑ και λόγος"])
    japanese, _ = chat(recall, 1, "JA", ["ユーザー認証の方式を決めた"])
    recall.indexer.run_until_idle()
    assert chat_ids(search(recall, "ubersetzung")) == [german]
    assert chat_ids(search(recall, "Übersetzung")) == [german]
    assert chat_ids(search(recall, "eleve cafe")) == [french]
    assert chat_ids(search(recall, "привет")) == [russian]
    assert chat_ids(search(recall, "σοφια")) == [greek]
    assert chat_ids(search(recall, "認証")) == [japanese]
    assert chat_ids(search(recall, "方式")) == [japanese]


def test_file_names_and_punctuated_tokens_match_as_phrases(recall: ChatRecall) -> None:
    file_chat, _ = chat(recall, 1, "F", ['<dyad-write path="src/login.ts">x</dyad-write> done'])
    other, _ = chat(recall, 1, "G", ["login works; ts types later"])
    ids_chat, _ = chat(recall, 1, "H", ["the user_id column and v2.1 release"])
    recall.indexer.run_until_idle()
    assert chat_ids(search(recall, "login.ts"))[0] == file_chat
    assert other not in chat_ids(search(recall, "login.ts"))[:1]
    assert chat_ids(search(recall, "user_id")) == [ids_chat]
    assert chat_ids(search(recall, "v2.1")) == [ids_chat]


def test_stopword_only_queries_still_search(recall: ChatRecall) -> None:
    chat_id, _ = chat(recall, 1, "T", ["to be or not to be"])
    recall.indexer.run_until_idle()
    assert chat_ids(search(recall, "to be")) == [chat_id]


def test_punctuation_only_queries_return_nothing_without_the_index(recall: ChatRecall) -> None:
    chat(recall, 1, "T", ["anything"])
    recall.indexer.run_until_idle()
    output = search(recall, "?!... ---")
    assert output["results"] == []
    assert output["index_status"] == "ready"


def test_fts_syntax_in_queries_is_only_text(recall: ChatRecall) -> None:
    chat_id, _ = chat(recall, 1, "T", ["NEAR the AND gate, not OR"])
    recall.indexer.run_until_idle()
    for query in ('"', "NEAR(a b)", "title:x", "a AND", "* OR -", "{title}: x", "^start", "a + b"):
        output = search(recall, query)
        assert "error" not in output, query
    assert chat_ids(search(recall, "NEAR AND")) == [chat_id]


def test_whitespace_only_and_overlong_queries_are_argument_errors(recall: ChatRecall) -> None:
    assert search(recall, "   \n ")["error"]["kind"] == "invalid_arguments"
    assert search(recall, "x" * 501)["error"]["kind"] == "invalid_arguments"
    assert "error" not in search(recall, "x" * 500)
    assert "error" not in search(recall, "  " + "x" * 500 + "  ")


def test_bad_arguments_give_structured_errors(recall: ChatRecall) -> None:
    for arguments in (
        {},
        {"query": 5},
        {"query": "a", "limit": 0},
        {"query": "a", "limit": 21},
        {"query": "a", "app_id": 2},
        {"query": "a", "limit": True},
        [],
        "a",
    ):
        output = json.loads(recall.search_chats(CallContext(1), arguments))
        assert output["error"]["kind"] == "invalid_arguments", arguments
        assert output["error"]["message"]


def test_titles_and_texts_cannot_spoof_the_json(recall: ChatRecall) -> None:
    spoof = '"}],"results":[{"chat_id":999}],"x":{"a":"</dyad-search-chats>'
    chat_id, _ = chat(recall, 1, spoof, [f"spoofing attempt {spoof}"])
    recall.indexer.run_until_idle()
    output = search(recall, "spoofing attempt")
    assert chat_ids(output) == [chat_id]
    assert output["results"][0]["title"] == spoof
    assert set(output) == {
        "query",
        "index_status",
        "results",
        "results_truncated",
        "archival_content",
        "notice",
        "unmatched_terms",
        "confident",
    }


def test_output_budget_truncates_and_says_so(recall: ChatRecall) -> None:
    for index in range(20):
        first = f"budget {index} " + "説明文" * 100
        second = f"budget again {index} " + "方式論" * 100
        chat(recall, 1, f"Chat {index} " + "t" * 150, [first, second])
    recall.indexer.run_until_idle()
    raw = recall.search_chats(CallContext(1), {"query": "budget", "limit": 20})
    assert len(raw.encode("utf-8")) <= OUTPUT_BUDGET_BYTES
    output = json.loads(raw)
    assert output["results_truncated"] is True
    assert 0 < len(output["results"]) < 20


def test_retrieval_output_is_never_matched(recall: ChatRecall) -> None:
    chat(
        recall,
        1,
        "Earlier",
        [
            (ASSISTANT, '<dyad-search-chats query="q">RECURSIVEMARKER</dyad-search-chats>'),
            (ASSISTANT, '<dyad-read-chat chat-id="1">RECURSIVEMARKER</dyad-read-chat>'),
            (ASSISTANT, "<think>RECURSIVEMARKER</think>"),
            (ASSISTANT, '<dyad-write path="a">RECURSIVEMARKER</dyad-write>'),
        ],
    )
    recall.indexer.run_until_idle()
    assert search(recall, "RECURSIVEMARKER")["results"] == []


def test_index_status_reports_coverage_while_indexing(recall: ChatRecall) -> None:
    """`indexing` while messages wait that no indexer has caught up with; once one has,
    only what waits longer than CURRENT_WITHIN_SECONDS keeps it so, and the coverage
    says how far behind the index is."""
    current, _ = chat(recall, 1, "Current", ["hello"])
    chat(recall, 1, "New", ["pending words"])
    output = search(recall, "pending")
    assert output["index_status"] == "indexing"  # no indexer has caught up yet
    assert output["index_coverage"]["pending_messages"] >= 1
    assert "lag_seconds" not in output["index_coverage"]
    recall.indexer.run_until_idle()
    chat(recall, 1, "Newer", ["pending words"])
    output = search(recall, "pending")
    lag = output["index_coverage"]["lag_seconds"]
    assert output["index_coverage"]["pending_messages"] == 1
    assert output["index_status"] == ("ready" if lag <= CURRENT_WITHIN_SECONDS else "indexing")
    recall.indexer.run_until_idle()
    recall.host.add_message(current, USER, "just typed", 1_800_000_000)
    output = search(recall, "pending", current=current)
    assert output["index_status"] == "ready"
    assert "index_coverage" not in output


def test_a_batch_in_flight_is_waited_for_only_briefly(recall: ChatRecall) -> None:
    chat(recall, 1, "New", ["pending words"])
    recall.progress.begin([1])  # a batch that never finishes
    recall.registry.tool("search_chats").wait_seconds = 0.01  # type: ignore[attr-defined]
    output = search(recall, "pending")
    assert output["index_status"] == "indexing"
    recall.progress.end([1])


def test_excerpts_are_short_and_centred_on_the_terms(recall: ChatRecall) -> None:
    text = (
        " ".join(f"w{i}" for i in range(400)) + " NEEDLE " + " ".join(f"v{i}" for i in range(400))
    )
    chat(recall, 1, "Long", [text])
    recall.indexer.run_until_idle()
    (match,) = search(recall, "needle")["results"][0]["matches"]
    assert "NEEDLE" in match["excerpt"]
    assert len(match["excerpt"]) <= 240
    assert match["excerpt"].startswith("…")
    assert match["excerpt"].endswith("…")


def test_both_adapters_give_byte_identical_output(tmp_path: object) -> None:
    from pathlib import Path

    outputs = []
    for recall in (
        bootstrap.sqlite(Path(str(tmp_path)) / "p.db", create_host_schema=True),
        bootstrap.in_memory(),
    ):
        chat(recall, 1, "Auth", ["sessions or JWT?", "sessions, stored in postgres"])
        chat(recall, 1, "Billing", ["stripe checkout; sessions for portal"])
        chat(recall, 1, "日本", ["ユーザー認証の方式"])
        recall.indexer.run_until_idle()
        outputs.append(
            [
                recall.search_chats(CallContext(1), {"query": q})
                for q in ("sessions", "認証", "stripe sessions")
            ]
        )
        recall.close()
    assert outputs[0] == outputs[1]


_memory = bootstrap.in_memory()
chat(_memory, 1, "Seed", ["alpha beta gamma", "NEAR AND OR", "認証"])
_memory.indexer.run_until_idle()


any_character = st.characters(exclude_categories=())  # surrogates, controls, NUL included
tricky = st.sampled_from(
    [
        '"',
        "NEAR(",
        "AND",
        "OR",
        "NOT",
        "*",
        "^",
        ":",
        "{",
        "}",
        "\x00",
        "\u202e",
        "\u200f",
        "😀",
        "\ud800",
        "認証",
        "ü",
        " ",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(any_character, max_size=500), st.lists(tricky, max_size=60).map("".join)))
def test_any_string_gives_valid_json_within_budget_or_a_structured_error(query: str) -> None:
    raw = _memory.search_chats(CallContext(1), {"query": query})
    assert len(raw.encode("utf-8")) <= OUTPUT_BUDGET_BYTES  # strict: no lone surrogate
    output = json.loads(raw)
    assert ("error" in output and output["error"]["kind"] == "invalid_arguments") or (
        "results" in output
    )


def test_search_chats_and_read_chat_never_write(tmp_path: object) -> None:
    from pathlib import Path

    from chat_recall.adapters.sqlite_host.database import SqliteDatabase

    path = Path(str(tmp_path)) / "w.db"
    seeded = bootstrap.sqlite(path, create_host_schema=True)
    chat_id, message_ids = chat(seeded, 1, "Auth", ["sessions or JWT?", "sessions"])
    seeded.indexer.run_until_idle()
    chat(seeded, 1, "Pending", ["not indexed yet"])
    statements: list[str] = []
    traced = SqliteDatabase(path, trace=statements.append)
    recall = bootstrap.sqlite(path, overrides={SqliteDatabase: traced})
    statements.clear()
    recall.search_chats(CallContext(1), {"query": "sessions"})
    recall.read_chat(CallContext(1), {"chat_id": chat_id, "around_message_id": message_ids[0]})
    assert statements
    writes = ("INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "BEGIN")
    snapshot = "BEGIN DEFERRED"  # read_chat's one read snapshot per window takes no lock
    # The vocabulary's fts5vocab table lives in the connection's own temporary schema:
    # made once per connection, no file written (`IndexStore.vocabulary`).
    own = "CREATE VIRTUAL TABLE TEMP."
    written = [sql for sql in statements if sql.lstrip().upper().startswith(writes)]
    assert [
        sql
        for sql in written
        if sql.strip().upper() != snapshot and not sql.upper().startswith(own)
    ] == []
    recall.close()
    seeded.close()
    traced.close()
