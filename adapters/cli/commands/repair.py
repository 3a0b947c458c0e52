"""`chat-recall repair`: restore what drifted in place (triggers a host migration
dropped, lost app registry rows); damaged index data needs `rebuild`."""

from __future__ import annotations

import argparse

from chat_recall.adapters.cli import database, options


def arguments(parser: argparse.ArgumentParser) -> None:
    options.add_database(parser)


def run(arguments: argparse.Namespace) -> int:
    admin = database.admin(arguments)
    report = admin.repair()
    for line in report.done:
        print(f"repaired: {line}")
    if not report.done:
        print("nothing to repair (run chat-recall status for damaged index data)")
    return 0
