"""search_chats with the semantic layer, through the public API: off until turned on,
`matched_by`, `confident`, consent before any text leaves, and no secret embedded or
sent (the redaction samples)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import chat_recall
from chat_recall.domain.messages import Role
from tests.redaction.samples import positives
from tests.semantic.test_embedders import StubService

CHATS = {
    "Weekend cooking": "Tonight we make spaghetti carbonara with pancetta, eggs and parmesan.",
    "Deploys": "We ship the backend to Fly.io with a blue green rollout.",
    "Auth": "Passwords are gone: users sign in with passkeys.",
}


def seed(recall: chat_recall.ChatRecall, app_id: int = 1) -> dict[str, int]:
    ids = {}
    for n, (title, text) in enumerate(CHATS.items()):
        chat = recall.host.create_chat(chat_recall.AppId(app_id), title, 1000 * (n + 1))
        recall.host.add_message(chat, Role.USER, text, 1000 * (n + 1) + 1)
        ids[title] = chat
    recall.wait_until_indexed(60)
    return ids


def search(recall: chat_recall.ChatRecall, query: str) -> Any:
    return json.loads(recall.search_chats(chat_recall.CallContext(app_id=1), {"query": query}))


def test_the_layer_is_off_until_turned_on() -> None:
    with chat_recall.in_memory() as recall:
        seed(recall)
        assert recall.vectors.vector_model() is None
        assert recall.vectors.vector_coverage(None).embedded == 0
        found = search(recall, "passkeys")
        assert found["confident"] is True
        assert [r["matched_by"] for r in found["results"]] == ["words"]
        assert search(recall, "pasta dinner")["results"] == []  # no word, no meaning


def test_meaning_finds_a_chat_that_shares_no_word_with_the_query() -> None:
    with chat_recall.in_memory(semantic=chat_recall.Semantic.local()) as recall:
        chats = seed(recall)
        coverage = recall.vectors.vector_coverage(chat_recall.AppId(1))
        assert (coverage.model, coverage.embedded, coverage.pending) == (
            "wordllama-l2-supercat-256",
            3,
            0,
        )
        found = search(recall, "pasta dinner")
        assert found["results"][0]["chat_id"] == chats["Weekend cooking"]
        assert found["results"][0]["matched_by"] == "meaning"
        assert found["results"][0]["matches"][0]["matched_by"] == "meaning"
        assert found["results"][0]["matches"][0]["excerpt"].startswith("Tonight we make")
        worded = search(recall, "passkeys")
        assert worded["results"][0]["chat_id"] == chats["Auth"]
        assert worded["results"][0]["matched_by"] in ("words", "both")
        again = recall.search_chats(chat_recall.CallContext(app_id=1), {"query": "pasta dinner"})
        assert json.loads(again) == found  # deterministic


def test_nothing_fits_is_said_plainly_with_a_few_weak_candidates() -> None:
    with chat_recall.in_memory(semantic=chat_recall.Semantic.local()) as recall:
        seed(recall)
        found = search(recall, "what is our pricing for enterprise customers")
        assert found["confident"] is False
        assert len(found["results"]) <= 3
        assert all(r["weak"] is True for r in found["results"])
        assert "no answer rather than guess" in found["confidence_note"]


def test_words_alone_say_when_nothing_fits() -> None:
    with chat_recall.in_memory() as recall:
        seed(recall)
        found = search(recall, "kubernetes autoscaling quotas for enterprise tenants")
        assert found["confident"] is False
        assert "confidence_note" in found


def test_the_choice_is_recorded_and_off_drops_the_vectors(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    with chat_recall.sqlite(
        path, create_host_schema=True, semantic=chat_recall.Semantic.local()
    ) as recall:
        seed(recall)
        assert recall.vectors.vector_coverage(None).embedded == 3
    with chat_recall.sqlite(path) as recall:  # a later process: the recorded choice
        assert search(recall, "pasta dinner")["results"][0]["matched_by"] == "meaning"
    with chat_recall.sqlite(path, semantic=chat_recall.Semantic.off()) as recall:
        assert recall.vectors.vector_model() is None
        assert recall.vectors.vector_coverage(None).embedded == 0
        assert search(recall, "pasta dinner")["results"] == []
    with chat_recall.sqlite(path) as recall:
        assert search(recall, "pasta dinner")["results"] == []


@pytest.fixture
def service() -> Any:
    stub = StubService()
    yield stub
    stub.close()


def remote(service: StubService) -> chat_recall.Semantic:
    return chat_recall.Semantic.openai_compatible(service.base_url, "stub-embed")


def test_no_text_leaves_without_consent(service: StubService) -> None:
    with chat_recall.in_memory(semantic=remote(service)) as recall:
        seed(recall)
        found = search(recall, "pasta dinner")
        assert "could not run (embedding_unavailable)" in found["meaning_note"]
        assert service.requests == []  # not even the dimension probe


def test_the_approver_sees_where_text_goes_before_any_leaves(service: StubService) -> None:
    shown: list[str] = []

    def approve(disclosure: str) -> bool:
        shown.append(disclosure)
        assert service.requests == []
        return True

    tools = chat_recall.ToolSettings(semantic_approver=approve)
    with chat_recall.in_memory(semantic=remote(service), tools=tools) as recall:
        seed(recall)
        assert len(shown) == 1
        assert f"{service.base_url}/embeddings" in shown[0]
        assert "leaves this machine" in shown[0]
        assert recall.vectors.vector_coverage(None).embedded == 3
        search(recall, "pasta dinner")
        assert service.requests[-1]["body"]["input"] == ["pasta dinner"]


def test_a_consent_recorded_for_that_destination_counts(service: StubService) -> None:
    semantic = chat_recall.Semantic.openai_compatible(
        service.base_url, "stub-embed", consented=True
    )
    with chat_recall.in_memory(semantic=semantic) as recall:
        seed(recall)
        assert recall.vectors.vector_coverage(None).embedded == 3


def test_no_secret_is_embedded_or_sent(service: StubService) -> None:
    samples = positives()
    semantic = chat_recall.Semantic.openai_compatible(
        service.base_url, "stub-embed", consented=True
    )
    with chat_recall.in_memory(semantic=semantic) as recall:
        chat = recall.host.create_chat(chat_recall.AppId(1), "Keys", 1000)
        for n, sample in enumerate(samples):
            recall.host.add_message(chat, Role.USER, sample.text, 1001 + n)
        recall.wait_until_indexed(120)
        for sample in samples[:5]:
            search(recall, f"where is {sample.secret}")
    sent = "\n".join(text for request in service.requests for text in request["body"]["input"])
    assert len(service.requests) > 5
    for sample in samples:
        assert sample.secret not in sent, sample.kind
    assert "[redacted" in sent


def test_confidence_judges_a_chat_by_its_best_message_even_when_its_mean_points_away() -> None:
    """A long chat of many topics can hold the one message that answers while the mean
    of its messages points elsewhere: the layer returns it whatever its chat-level
    similarity, the fusion leaves it out of the places below the floor, and confidence
    judges it by that message."""
    from chat_recall.application.semantic import SemanticSearch
    from chat_recall.contracts.fixtures import APP, USER, seed_chat
    from chat_recall.contracts.vector_store import WordHashEmbedder, embed_all
    from chat_recall.domain.search.fusion import FusionPolicy, LexicalEvidence
    from chat_recall.domain.semantic import MeaningQuery, QueryWord

    with chat_recall.in_memory() as recall:
        topics = ["flour sugar butter", "tyres brakes engine", "tents rope lantern"]
        texts = [(USER, topic) for topic in topics * 3] + [(USER, "passkeys replace passwords")]
        long_chat, _ = seed_chat(recall.host, APP, "Everything", texts)
        seed_chat(recall.host, APP, "Garden", [(USER, "roses tulips compost")])
        embed_all(recall, WordHashEmbedder())
        policy = FusionPolicy(similarity_floor=0.5, semantic_bar=0.6)
        layer = SemanticSearch(WordHashEmbedder(), recall.vectors, fusion=policy)
        query = MeaningQuery(
            "passkeys passwords", (QueryWord("passkeys", 1.0), QueryWord("passwords", 1.0))
        )
        meaning = layer.meaning(APP, query, None)
        (found,) = [chat for chat in meaning.chats if chat.chat_id == long_chat]
        assert found.similarity < policy.similarity_floor
        assert found.best[0].similarity >= policy.semantic_bar
        assert long_chat not in [chat.chat_id for chat in policy.candidates(meaning.chats)]
        assert policy.confident(LexicalEvidence(words=2, unmatched=2), meaning.chats)
