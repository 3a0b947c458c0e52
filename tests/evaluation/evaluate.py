"""Relevance evaluation of search_chats on the synthetic set in `corpus.py`.

Run: python tests/evaluation/evaluate.py
Prints chat recall@1/@3, evidence-message recall (any gold message among the returned
matches) and chat MRR, per query kind, for the design's baseline and each improvement.
"""

from __future__ import annotations

import attrs

from chat_recall.adapters import bootstrap
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.application.tools.search_chats import SearchChats
from chat_recall.domain.search.ranking import SearchPolicy
from tests.evaluation.corpus import APPS, QUERIES

VARIANTS: dict[str, SearchPolicy] = {
    "design baseline": SearchPolicy.design_baseline(),
    "+ morphology": attrs.evolve(SearchPolicy.design_baseline(), morphology=True),
    "+ term coverage": attrs.evolve(SearchPolicy.design_baseline(), coverage_weight=1.0),
    "+ answer evidence": attrs.evolve(SearchPolicy.design_baseline(), answer_evidence=True),
    "+ recency 0.2": attrs.evolve(SearchPolicy.design_baseline(), recency_weight=0.2),
    "+ body evidence first": attrs.evolve(
        SearchPolicy.design_baseline(), prefer_body_evidence=True
    ),
    "shipped default": SearchPolicy.default(),
}


def load() -> tuple[ChatRecall, dict[str, int], dict[str, list[int]]]:
    recall = bootstrap.in_memory()
    chat_ids: dict[str, int] = {}
    message_ids: dict[str, list[int]] = {}
    clock = 1_700_000_000
    for app_id, chats in APPS.items():
        for chat in chats:
            chat_id = recall.host.create_chat(app_id, chat.title, clock)
            chat_ids[chat.key] = chat_id
            message_ids[chat.key] = []
            for message in chat.messages:
                clock += 60
                message_ids[chat.key].append(
                    recall.host.add_message(
                        chat_id,
                        message.role,
                        message.content,
                        clock,
                        is_compaction_summary=message.is_compaction_summary,
                    )
                )
    recall.indexer.run_until_idle()
    return recall, chat_ids, message_ids


def evaluate(
    policy: SearchPolicy,
    recall: ChatRecall,
    chat_ids: dict[str, int],
    message_ids: dict[str, list[int]],
) -> dict[str, dict[str, float]]:
    tool = SearchChats(recall.repo, recall.index, recall.dirty, recall.progress, policy)
    rows: dict[str, list[tuple[int, int, int, float]]] = {"nl": [], "keyword": []}
    for app_id, query in QUERIES:
        output = tool.run(CallContext(app_id), {"query": query.query})
        chats = [r["chat_id"] for r in output["results"]]
        returned = {m["message_id"] for r in output["results"] for m in r["matches"]}
        gold_chat = chat_ids[query.chat]
        gold_messages = {message_ids[query.chat][i] for i in query.evidence}
        rank = chats.index(gold_chat) + 1 if gold_chat in chats else 0
        rows[query.kind].append(
            (
                int(rank == 1),
                int(0 < rank <= 3),
                int(bool(returned & gold_messages)),
                1.0 / rank if rank else 0.0,
            )
        )
    table = {}
    for kind, values in (*rows.items(), ("all", rows["nl"] + rows["keyword"])):
        count = len(values)
        table[kind] = {
            "n": count,
            "chat@1": sum(v[0] for v in values) / count,
            "chat@3": sum(v[1] for v in values) / count,
            "evidence": sum(v[2] for v in values) / count,
            "mrr": sum(v[3] for v in values) / count,
        }
    return table


def main() -> None:
    recall, chat_ids, message_ids = load()
    chats = sum(len(c) for c in APPS.values())
    print(f"{len(QUERIES)} queries over {chats} chats in {len(APPS)} apps")
    print(
        f"{'variant':18} {'kind':8} {'n':>3} {'chat@1':>7} {'chat@3':>7} {'evidence':>9} {'MRR':>6}"
    )
    for name, policy in VARIANTS.items():
        for kind, metrics in evaluate(policy, recall, chat_ids, message_ids).items():
            print(
                f"{name:18} {kind:8} {metrics['n']:>3.0f} {metrics['chat@1']:>7.2f} "
                f"{metrics['chat@3']:>7.2f} {metrics['evidence']:>9.2f} {metrics['mrr']:>6.2f}"
            )


if __name__ == "__main__":
    main()
