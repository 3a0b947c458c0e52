"""`chat-recall install`: add the index to an existing host database."""

from __future__ import annotations

import argparse

from chat_recall.adapters.cli import database, options
from chat_recall.domain.wording import counted


def arguments(parser: argparse.ArgumentParser) -> None:
    options.add_database(parser)
    options.add_language(parser)
    options.add_semantic(parser)


def run(arguments: argparse.Namespace) -> int:
    admin = database.admin(arguments)

    report = admin.install(options.language(arguments))
    if report.previous_version == report.version:
        done = f"already installed (schema version {report.version}); triggers recreated"
    else:
        done = f"installed (schema version {report.version})"
    print(
        f"{done} in {report.seconds:.1f} s; "
        f"{counted(report.messages_to_index, 'message')} to index (run: chat-recall index); "
        f"language: {report.language.value}"
    )
    print(f"write lock: {report.write_lock.summary()}")
    semantic = database.apply_semantic(arguments)
    if semantic is not None:
        print(semantic)
    return 0
