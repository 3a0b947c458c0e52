"""`chat-recall import`: chats and messages from JSON Lines (a file, or - for standard
input) into the host tables, with progress. The format is in the README."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from chat_recall.adapters.cli import database, options
from chat_recall.adapters.cli.exits import Exit
from chat_recall.domain.errors import InvalidArguments

CONFLICTS = ("fail", "ignore", "replace")
MAX_REPORTED_LINES = 20


def arguments(parser: argparse.ArgumentParser) -> None:
    options.add_database(parser)
    parser.add_argument(
        "file", metavar="FILE", help="a JSON Lines file, or - to read standard input"
    )
    parser.add_argument(
        "--on-conflict",
        choices=CONFLICTS,
        default="fail",
        help=(
            "a line whose id exists already: fail (report it, keep the rest), ignore "
            "(skip it) or replace (update the row) (default: fail)"
        ),
    )
    options.add_quiet(parser)
    parser.epilog = (
        "A missing database is created with the reference schema (not with --schema), and "
        "removed again if nothing could be imported. Exit code 1 when any line was refused; "
        "the accepted lines stay imported."
    )


def _source(name: str) -> tuple[TextIO, int | None, Callable[[], object]]:
    """The lines to read, their size in bytes (None for standard input), and how to
    let go of them (standard input is left open)."""
    if name == "-":
        stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="surrogateescape")
        return stdin, None, stdin.detach
    source = Path(name)
    try:
        handle = open(source, encoding="utf-8", errors="surrogateescape")  # noqa: SIM115
        return handle, source.stat().st_size, handle.close
    except OSError as error:
        raise InvalidArguments(f"cannot read {name}: {error.strerror or error}") from error


def run(arguments: argparse.Namespace) -> int:
    from chat_recall.adapters.cli.progress import reporter

    admin = database.admin(arguments)
    from chat_recall.adapters.sqlite.importer import LinesReport, OnConflict

    lines, size, release = _source(arguments.file)
    progress = reporter("importing", quiet=arguments.quiet)

    def on_batch(report: LinesReport) -> None:
        progress.update(report.bytes, size, f"{report.lines:,} lines")

    try:
        report = admin.import_file(
            database.target(arguments),
            database.schema(arguments),
            lines,
            on_conflict=OnConflict(arguments.on_conflict),
            create=True,
            on_batch=on_batch,
        )
    finally:
        progress.close()
        release()
    label = "standard input" if arguments.file == "-" else arguments.file
    if report.errors:  # a bad line's value may be a credential: redacted like history
        from chat_recall.domain.projection import redact_text

        for problem in report.errors[:MAX_REPORTED_LINES]:
            print(f"chat-recall: {label}: {redact_text(problem).text}", file=sys.stderr)
    if len(report.errors) > MAX_REPORTED_LINES:
        print(
            f"chat-recall: {label}: {len(report.errors) - MAX_REPORTED_LINES:,} more bad lines",
            file=sys.stderr,
        )
    if report.conflicts:
        print(
            f"chat-recall: {report.conflicts:,} lines name ids that exist already; to import "
            "over them use --on-conflict ignore or --on-conflict replace",
            file=sys.stderr,
        )
    ignored = f", {report.ignored:,} skipped as already there" if report.ignored else ""
    print(
        f"imported {report.chats:,} chats and {report.messages:,} messages{ignored}; "
        f"{len(report.errors):,} bad lines"
    )
    if not (report.chats or report.messages or report.ignored):
        print(f"chat-recall: nothing was imported into {arguments.db}", file=sys.stderr)
    return Exit.FAILED if report.errors else Exit.OK
