"""`chat-recall import`: history from the exports people have (ChatGPT, Claude, Claude
Code) and chat-recall's own JSON Lines, into the host tables, with progress. The format
of each path is recognised from its content unless `--from` names it; a zip archive is
read as it is. The rules are in the README ("Import your history"). What was imported is
then indexed as `chat-recall index` does, and the command ends as that one ends."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator

from chat_recall.adapters.cli import database, options
from chat_recall.adapters.cli.exits import Exit

CONFLICTS = ("fail", "ignore", "replace")
FORMATS = ("chatgpt", "claude", "claude-code", "jsonl")
MAX_REPORTED = 20


def arguments(parser: argparse.ArgumentParser) -> None:
    options.add_database(parser)
    parser.add_argument(
        "paths",
        metavar="PATH",
        nargs="+",
        help=(
            "an export: a zip archive as downloaded, its folder, its conversations.json, "
            "Claude Code's projects folder (~/.claude/projects) or one of its sessions, or "
            "a JSON Lines file (- for standard input)"
        ),
    )
    parser.add_argument(
        "--from",
        dest="format",
        choices=FORMATS,
        help="what the paths hold (default: recognised from their content)",
    )
    parser.add_argument(
        "--app",
        metavar="ID",
        type=options.IntRange(None, None),
        help=(
            "put every imported chat in this app (default: one app per account, Claude "
            "project or Claude Code project directory, the one it went to before if it "
            "was imported before; JSON Lines name their own)"
        ),
    )
    parser.add_argument(
        "--on-conflict",
        choices=CONFLICTS,
        default="fail",
        help=(
            "JSON Lines: a line whose id exists already: fail (report it, keep the rest), "
            "ignore (skip it) or replace (update the row) (default: fail)"
        ),
    )
    options.add_quiet(parser)
    options.add_planning(parser)
    parser.epilog = (
        "Importing the same export again changes nothing; a newer one updates the chats "
        "that changed and adds the new ones. A missing database is created with the "
        "reference schema (not with --schema), and removed again if nothing could be "
        "imported. Exit code 1 when any conversation or line was refused; the rest stays "
        "imported."
    )


def plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def run(arguments: argparse.Namespace) -> int:
    from chat_recall.adapters.cli.progress import reporter
    from chat_recall.adapters.importers.files import StandardInput, files_of
    from chat_recall.adapters.importers.formats import importer_of, recognised
    from chat_recall.application.importing import (
        ImportHistory,
        ImportProgress,
        ImportRecord,
        ImportReport,
        ImportTarget,
        OnConflict,
    )
    from chat_recall.domain.imports import SourceFormat
    from chat_recall.domain.model import AppId

    sources = [files_of(path) for path in arguments.paths]
    chosen = None if arguments.format is None else SourceFormat(arguments.format)
    piped = SourceFormat.JSONL  # standard input is read once: it can only be JSON Lines
    readers = [
        (
            importer_of(chosen or piped)
            if chosen or isinstance(files, StandardInput)
            else recognised(files),
            files,
        )
        for files in sources
    ]
    progress = reporter("importing", quiet=arguments.quiet)

    def records() -> Iterator[ImportRecord]:
        for importer, files in readers:
            yield from importer.read(files)

    def on_progress(step: ImportProgress) -> None:
        if step.lines is not None:
            progress.update(step.lines.bytes, step.lines_bytes, f"{step.lines.lines:,} lines")
        else:
            progress.update(step.chats_done, step.chats_total, plural(step.chats_done, "chat"))

    def write(target: ImportTarget) -> ImportReport:
        app = None if arguments.app is None else AppId(arguments.app)
        use_case = ImportHistory(
            target, app, OnConflict(arguments.on_conflict), on_progress=on_progress
        )
        return use_case.run(records())

    admin = database.admin(arguments)
    try:
        report = admin.import_history(write)
    finally:
        progress.close()
        for files in sources:
            close = getattr(files, "close", None)
            if close is not None:
                close()
    _print(report, arguments)
    if report.wrote:
        _index(arguments)
    return Exit.FAILED if report.failed else Exit.OK


def _index(arguments: argparse.Namespace) -> None:
    """Index what was imported, and end as `chat-recall index` ends: once caught up with
    what was pending, whatever the host writes meanwhile."""
    from chat_recall.adapters.cli.indexing import drain, summary
    from chat_recall.adapters.cli.progress import reporter

    with database.open_recall(arguments) as recall:
        report = drain(recall, reporter("indexing", quiet=arguments.quiet))
    print(summary(report))


def _problem(text: str) -> None:
    """A refused record on standard error: what was read may hold a credential, so it
    is redacted like history."""
    from chat_recall.domain.projection import redact_text

    print(f"chat-recall: {redact_text(text).text}", file=sys.stderr)


def _print(report: object, arguments: argparse.Namespace) -> None:
    from chat_recall.application.importing import ImportReport

    assert isinstance(report, ImportReport)
    for problem in report.refused[:MAX_REPORTED]:
        _problem(str(problem))
    if len(report.refused) > MAX_REPORTED:
        more = len(report.refused) - MAX_REPORTED
        print(f"chat-recall: {plural(more, 'more record')} refused", file=sys.stderr)
    lines = report.lines
    if lines is not None:
        for error in lines.errors[:MAX_REPORTED]:
            _problem(error)
        if len(lines.errors) > MAX_REPORTED:
            more = len(lines.errors) - MAX_REPORTED
            print(f"chat-recall: {more:,} more bad lines", file=sys.stderr)
        if lines.conflicts:
            print(
                f"chat-recall: {lines.conflicts:,} lines name ids that exist already; to "
                "import over them use --on-conflict ignore or --on-conflict replace",
                file=sys.stderr,
            )
        ignored = f", {lines.ignored:,} skipped as already there" if lines.ignored else ""
        print(
            f"imported {plural(lines.chats, 'chat')} and {plural(lines.messages, 'message')}"
            f"{ignored}; {plural(len(lines.errors), 'bad line')}"
        )
    for choice in report.apps:
        state = "a new app" if choice.new else "the app it went to before"
        if arguments.app is not None:
            state = "as asked"
        print(f"{choice.source.label}: app {choice.app_id} ({state})")
    chats = report.added + report.updated + report.unchanged
    if chats or lines is None:
        print(
            f"{plural(chats, 'chat')}: {report.added:,} new, {report.updated:,} updated, "
            f"{report.unchanged:,} unchanged; {plural(report.messages_added, 'message')} "
            f"added, {report.messages_updated:,} updated, {report.messages_removed:,} removed"
        )
    if not report.wrote and not report.unchanged and not (lines and lines.ignored):
        print(f"chat-recall: nothing was imported into {arguments.db}", file=sys.stderr)
