"""`chat-recall uninstall`: remove every derived object; host tables are untouched."""

from __future__ import annotations

import argparse

from chat_recall.adapters.cli import database, options
from chat_recall.domain.wording import counted


def arguments(parser: argparse.ArgumentParser) -> None:
    options.add_database(parser)


def run(arguments: argparse.Namespace) -> int:
    admin = database.admin(arguments)

    path = database.target(arguments)
    report = admin.uninstall()
    if not report.dropped:
        print(f"nothing to remove: chat-recall is not installed in {path}")
    else:
        print(
            f"removed {counted(len(report.dropped), 'chat-recall object')} "
            "(tables, triggers, indexes) "
            f"in {report.seconds:.1f} s; host tables untouched"
        )
    if report.forced:
        print(
            f"{counted(len(report.forced), 'damaged object')} could not be dropped and were "
            f"removed from the schema ({', '.join(report.forced)}); their pages stay allocated "
            "until the host runs VACUUM"
        )
    print(f"write lock: {report.write_lock.summary()}")
    return 0
