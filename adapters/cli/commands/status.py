"""`chat-recall status`: what the index holds, what is pending, and whether it is sound.

The data comes from the adapter (`admin.status`); this module only presents it, in any
format, so fields added to the report show up here without changes."""

from __future__ import annotations

import argparse

from chat_recall.adapters.cli import database, options, render
from chat_recall.adapters.cli.exits import Exit
from chat_recall.domain.wording import counted


def arguments(parser: argparse.ArgumentParser) -> None:
    options.add_database(parser)
    options.add_format(parser)
    parser.epilog = "Exit code 4 when problems were found."


def run(arguments: argparse.Namespace) -> int:
    admin = database.admin(arguments)
    from chat_recall.application.conversion import unstructure

    fmt = render.resolve(arguments.format)
    report = admin.status(database.target(arguments), database.schema(arguments))
    data = unstructure(report)
    if fmt == "text":
        verdict = "ok" if report.healthy else f"{counted(len(report.problems), 'problem')} found"
        print(render.report_text(data) + f"status: {verdict}")
    else:
        print(render.as_json({**data, "healthy": report.healthy}, fmt))
    return Exit.OK if report.healthy else Exit.UNHEALTHY
