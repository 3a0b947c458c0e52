"""The relevance evaluation set keeps its shape and its split stays fixed; the shipped
search policy keeps its held-out figures against the design's plain algorithm.

The held-out half was never used for tuning (`split.json` was committed first, and
questions added later were committed before any policy ran on them). The guard: on the
held-out half, for both query forms, the shipped policy returns more evidence than the
plain algorithm beyond noise (the paired 95% bootstrap interval of the difference is
above zero) and is at least level with it on every metric; in every category no metric
drops beyond noise, except the losses listed in KNOWN_LOSSES (none now; measured and
reported in RESULTS.md); and the shipped figures stay above their floors.

The guard holds the questions of the categories it was written for: those of the
categories added later (`ADDED_CATEGORIES`: vague, unanswerable, inflection) measure
layers that do not exist yet and are reported by `evaluate.py`, not guarded here.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence

import pytest

from tests.evaluation.corpus import ADDED_CATEGORIES, CATEGORIES, FORMS, load_apps
from tests.evaluation.evaluate import (
    HALVES,
    METRICS,
    SPLIT_FILE,
    Corpora,
    Row,
    difference,
    evaluate,
    load,
    mean,
    plain,
    read_split,
    select,
    shipped,
)

# (form, category, metric) where the shipped policy loses to the plain algorithm on the
# held-out half beyond noise. None now: the names loss of full questions (chat@1 0.90 ->
# 0.73 on the first 167 questions) is gone since chats rank by how much of the query they
# hold. Kept so that a loss has to be listed here, visibly, and any other one fails.
KNOWN_LOSSES: frozenset[tuple[str, str, str]] = frozenset()

# The shipped policy's held-out figures (217 questions), rounded down.
FLOORS = {
    "full": {"chat@1": 0.74, "chat@3": 0.89, "chat@8": 0.93, "evidence": 0.66, "mrr": 0.84},
    "keywords": {"chat@1": 0.83, "chat@3": 0.93, "chat@8": 0.97, "evidence": 0.72, "mrr": 0.91},
}


def test_the_set_is_large_and_varied() -> None:
    apps = load_apps()
    questions = [(app, q) for app in apps for q in app.questions]
    assert len(apps) >= 6
    assert len(questions) >= 200
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


GUARDED_CATEGORIES = tuple(c for c in CATEGORIES if c not in ADDED_CATEGORIES)


def guarded(rows: Sequence[Row]) -> list[Row]:
    """The rows of questions in none of the added categories."""
    return [row for row in rows if not set(row.tags) & set(ADDED_CATEGORIES)]


@pytest.fixture(scope="module")
def results() -> Mapping[str, Sequence[Row]]:
    corpora = Corpora(memory=True)
    split = read_split()
    return {
        "plain": guarded(evaluate(corpora, plain(), split)),
        "shipped": guarded(evaluate(corpora, shipped(), split)),
    }


def test_the_shipped_policy_beats_the_plain_algorithm_on_the_held_out_half(
    results: Mapping[str, Sequence[Row]],
) -> None:
    for form in FORMS:
        new = select(results["shipped"], "held_out", form)
        old = select(results["plain"], "held_out", form)
        assert difference(new, old, "evidence").low > 0.0, form
        for metric in METRICS:
            assert difference(new, old, metric).value >= 0.0, (form, metric)


def test_no_category_loses_beyond_noise_on_the_held_out_half(
    results: Mapping[str, Sequence[Row]],
) -> None:
    losses = set()
    for form in FORMS:
        for category in GUARDED_CATEGORIES:
            new = select(results["shipped"], "held_out", form, category)
            old = select(results["plain"], "held_out", form, category)
            for metric in METRICS:
                if new and difference(new, old, metric).high < 0.0:
                    losses.add((form, category, metric))
    assert losses == KNOWN_LOSSES


def test_the_shipped_figures_stay_above_their_floors(
    results: Mapping[str, Sequence[Row]],
) -> None:
    for form, floors in FLOORS.items():
        rows = select(results["shipped"], "held_out", form)
        for metric, floor in floors.items():
            value = mean([row.values[METRICS.index(metric)] for row in rows])
            assert value >= floor, (form, metric, value)
