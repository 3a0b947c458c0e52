"""The relevance evaluation set keeps its shape, and its split stays fixed."""

from __future__ import annotations

import json
from collections import Counter

from tests.evaluation.corpus import CATEGORIES, load_apps
from tests.evaluation.evaluate import HALVES, SPLIT_FILE, load, read_split


def test_the_set_is_large_and_varied() -> None:
    apps = load_apps()
    questions = [(app, q) for app in apps for q in app.questions]
    assert len(apps) >= 6
    assert len(questions) >= 150
    assert len({q.id for _, q in questions}) == len(questions)
    for app, question in questions:
        assert question.full.strip(), question.id
        assert question.keywords.strip(), question.id
        assert question.full != question.keywords, question.id
        assert set(app.tags(question)) <= set(CATEGORIES), question.id
    split = read_split()
    per_half = Counter((split[q.id], tag) for app, q in questions for tag in app.tags(q))
    for category in CATEGORIES:
        for half in HALVES:
            assert per_half[(half, category)] >= 2, (half, category)
    peer = [app for app in apps if any(chat.peer for chat in app.chats)]
    assert len(peer) >= 2
    assert all(len(app.chats) >= 25 for app in apps)


def test_every_question_is_in_exactly_one_half_of_the_committed_split() -> None:
    data = json.loads(SPLIT_FILE.read_text(encoding="utf-8"))
    ids = {q.id for app in load_apps() for q in app.questions}
    assert set(data) == set(HALVES)
    tuning, held_out = set(data["tuning"]), set(data["held_out"])
    assert not tuning & held_out
    assert tuning | held_out == ids
    assert abs(len(tuning) - len(held_out)) <= len(ids) // 10


def test_every_evidence_label_is_a_loaded_message() -> None:
    corpus = load(memory=True)
    for app in corpus.apps:
        for question in app.questions:
            for label in question.evidence:
                assert (app.id, label) in corpus.message_ids, (question.id, label)
            for key in app.gold_chats(question):
                assert (app.id, key) in corpus.chat_ids, (question.id, key)
