"""`chat-recall status`: what the index holds, what is pending, and whether it is sound.

The data comes from the adapter (`admin.status`); this module only presents it: as
JSON (every field), or as plain words for a person (`render.status_text`), with every
figure and check under `--verbose`."""

from __future__ import annotations

import argparse
import functools

from chat_recall.adapters.cli import database, options, render
from chat_recall.adapters.cli.exits import Exit


def arguments(parser: argparse.ArgumentParser) -> None:
    options.add_database(parser)
    options.add_format(parser)
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="with --format text, also every figure and check (default: plain words only)",
    )
    parser.epilog = "Exit code 4 when problems were found."


def run(arguments: argparse.Namespace) -> int:
    admin = database.admin(arguments)
    from chat_recall.application.conversion import unstructure

    fmt = render.resolve(arguments.format)
    report = admin.status()
    data = unstructure(report)
    if fmt == "text":
        text = render.status_text(data, functools.partial(options.command_line, arguments))
        if arguments.verbose:
            text = f"{render.report_text(data)}\n{text}"
        print(text, end="")
    else:
        print(render.as_json({**data, "healthy": report.healthy}, fmt))
    return Exit.OK if report.healthy else Exit.UNHEALTHY
