"""`chat-recall index`: restore drifted triggers and registry rows, then index everything
pending, with progress; `--retry-quarantined` first retries the rows set aside as
unreadable (after the host fixed them or its mapping)."""

from __future__ import annotations

import argparse

from chat_recall.adapters.cli import database, options


def arguments(parser: argparse.ArgumentParser) -> None:
    options.add_database(parser)
    options.add_quiet(parser)
    options.add_planning(parser)
    parser.add_argument(
        "--retry-quarantined",
        action="store_true",
        help=(
            "index again the rows `status` lists as quarantined (unreadable), e.g. after "
            "fixing their values; rows that still cannot be read stay quarantined "
            "(default: off; a change of the schema mapping retries them anyway)"
        ),
    )


def run(arguments: argparse.Namespace) -> int:
    from chat_recall.adapters.cli.indexing import drain, summary
    from chat_recall.adapters.cli.progress import reporter

    with database.open_recall(arguments) as recall:
        for line in recall.repair():  # triggers and registry rows lost to drift
            print(f"repaired: {line}")
        if arguments.retry_quarantined:
            print(f"retrying {recall.dirty.requeue_quarantined()} quarantined rows")
        report = drain(recall, reporter("indexing", quiet=arguments.quiet))
    print(summary(report))
    if not arguments.quiet:
        print(f"write lock: {recall.write_lock.summary()}")
    return 0
