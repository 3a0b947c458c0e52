"""`chat-recall demo`: a realistic sample history in a temporary SQLite database,
indexed by the real indexer and searched through the real FTS5 adapter."""

from __future__ import annotations

import argparse
import functools
import json
import tempfile
from pathlib import Path
from typing import Any

from chat_recall.adapters import bootstrap
from chat_recall.adapters.cli.sample_history import SAMPLE_APPS
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.model import AppId
from chat_recall.domain.wording import counted


def arguments(parser: argparse.ArgumentParser) -> None:
    from chat_recall.adapters.cli.commands import serve

    parser.add_argument(
        "--query",
        default="sessions JWT revocation",
        help="words to search for (default: sessions JWT revocation)",
    )
    parser.add_argument(
        "--serve",
        action="store_true",
        help=(
            "open the sample history in the search page (chat-recall serve) instead of "
            "printing the tools' JSON; needs the web extra (default: print)"
        ),
    )
    serve.add_address(parser)


def run(arguments: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "demo.db"
        recall = bootstrap.sqlite(path, create_host_schema=True)
        try:
            if arguments.serve:
                return _serve(recall, arguments, path)
            return _demo(recall, arguments.query, path)
        finally:
            recall.close()


def _serve(recall: Any, arguments: argparse.Namespace, path: Path) -> int:
    """The sample history, indexed, in the search page (every app: the page lists them)."""
    from chat_recall.adapters.cli.commands import serve
    from chat_recall.adapters.sqlite_host.admin import registered_apps

    missing = serve.missing_extra()
    if missing is not None:
        return missing
    write_sample(recall)
    recall.indexer.run_until_idle()
    print(f"database: {path} (temporary, removed when the page stops)")
    return serve.serve(
        recall,
        functools.partial(registered_apps, recall),
        app=None,
        host=arguments.host,
        port=arguments.port,
        fresh=False,
    )


def write_sample(recall: Any) -> None:
    """The sample history (`sample_history.SAMPLE_APPS`), written as a host would."""
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


def _demo(recall: Any, query_text: str, path: Path) -> int:
    write_sample(recall)
    report = recall.indexer.run_until_idle()
    print(f"database: {path} (temporary)")
    print(
        f"indexed {counted(report.indexed, 'message')} in "
        f"{counted(report.batches, 'batch', 'batches')} "
        f"(longest {report.longest_batch_seconds * 1000:.1f} ms); "
        f"{report.deleted} had nothing searchable"
    )
    context = CallContext(app_id=AppId(1))
    print(f"\nsearch_chats({{'query': {query_text!r}}}) in app 1 returns:")
    found = json.loads(recall.search_chats(context, {"query": query_text}))
    print(json.dumps(found, ensure_ascii=False, indent=2))
    if not found.get("results"):
        return 0
    top = found["results"][0]
    arguments = {
        "chat_id": top["chat_id"],
        "around_message_id": top["matches"][0]["message_id"],
        "before": 1,
        "after": 1,
    }
    print(f"\nread_chat({arguments}) returns:")
    print(
        json.dumps(json.loads(recall.read_chat(context, arguments)), ensure_ascii=False, indent=2)
    )
    return 0
