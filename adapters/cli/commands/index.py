"""`chat-recall index`: restore drifted triggers and registry rows, then index everything
pending, with progress."""

from __future__ import annotations

import argparse

from chat_recall.adapters.cli import database, options


def arguments(parser: argparse.ArgumentParser) -> None:
    options.add_database(parser)
    options.add_quiet(parser)


def run(arguments: argparse.Namespace) -> int:
    from chat_recall.adapters.cli.indexing import drain, summary
    from chat_recall.adapters.cli.progress import reporter

    with database.open_recall(arguments) as recall:
        for line in recall.repair():  # triggers and registry rows lost to drift
            print(f"repaired: {line}")
        report = drain(recall, reporter("indexing", quiet=arguments.quiet))
    print(summary(report))
    if not arguments.quiet:
        print(f"write lock: {recall.write_lock.summary()}")
    return 0
