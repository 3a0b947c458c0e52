"""The relevance evaluation as a floor: the shipped policy is never worse than the
design's baseline on the evaluation set, and keeps the recall it reached."""

from __future__ import annotations

from chat_recall.domain.search.ranking import SearchPolicy
from tests.evaluation.evaluate import evaluate, load


def test_the_shipped_policy_beats_the_design_baseline() -> None:
    recall, chat_ids, message_ids = load()
    baseline = evaluate(SearchPolicy.design_baseline(), recall, chat_ids, message_ids)
    shipped = evaluate(SearchPolicy.default(), recall, chat_ids, message_ids)
    for kind in ("nl", "keyword", "all"):
        for metric in ("chat@1", "chat@3", "evidence", "mrr"):
            assert shipped[kind][metric] >= baseline[kind][metric], (kind, metric)
    assert shipped["all"]["evidence"] >= 0.85
    assert shipped["all"]["chat@3"] >= 0.95
    assert shipped["nl"]["evidence"] > baseline["nl"]["evidence"]
