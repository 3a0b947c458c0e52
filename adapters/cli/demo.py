"""`chat-recall demo`: a realistic sample history in a temporary SQLite database,
indexed by the real indexer and searched through the real FTS5 adapter."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from adapters import bootstrap
from adapters.cli.sample_history import SAMPLE_APPS
from domain.projection import project_for_read
from domain.query import MatchQuery, ScopedQuery
from domain.text import reading_text


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "demo", help="index a sample history in a temporary SQLite database and search it"
    )
    parser.add_argument("--query", default="sessions JWT", help="words to search for")
    parser.set_defaults(handler=run)


def run(arguments: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "demo.db"
        recall = bootstrap.sqlite(path, create_host_schema=True)
        try:
            return _demo(recall, arguments.query, path)
        finally:
            recall.close()


def _demo(recall: Any, query_text: str, path: Path) -> int:
    for app_id, chats in SAMPLE_APPS.items():
        for title, messages in chats:
            chat_id = recall.host.create_chat(app_id, title, 1_700_000_000)
            for offset, message in enumerate(messages):
                recall.host.add_message(
                    chat_id,
                    message.role,
                    message.content,
                    1_700_000_100 + offset * 60,
                    is_compaction_summary=message.is_compaction_summary,
                )
    report = recall.indexer.run_until_idle()
    print(f"database: {path} (temporary)")
    print(
        f"indexed {report.indexed} messages in {report.batches} batches "
        f"(longest {report.longest_batch_seconds * 1000:.1f} ms); "
        f"{report.deleted} had nothing searchable"
    )
    app_id = 1
    query = ScopedQuery(MatchQuery.of_words(*query_text.split()), app_id)
    candidates = recall.index.search(query)
    print(f"\nsearch in app {app_id} for {query_text!r}: {len(candidates)} matching messages")
    documents = {
        d.message_id: d for d in recall.index.documents(app_id, [c.message_id for c in candidates])
    }
    for candidate in candidates[:5]:
        document = documents[candidate.message_id]
        print(
            f"  bm25 {candidate.bm25:8.4f}  chat {candidate.chat_id} "
            f"({reading_text(document.title)!r}) message {candidate.message_id} "
            f"[{candidate.role.value}]"
        )
        print(f"      {reading_text(document.body)[:160]}")
    if not candidates:
        return 0
    top = candidates[0]
    window = recall.repo.around(app_id, top.chat_id, top.message_id, 1, 1)
    print(f"\nreading around message {top.message_id} of chat {top.chat_id}:")
    for message in window.messages:
        marker = ">" if message.id == top.message_id else " "
        text = project_for_read(message.text, recall.policy).text
        print(f" {marker} [{message.role.value} #{message.id}] {text}")
    return 0
