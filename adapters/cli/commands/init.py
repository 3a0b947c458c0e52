"""`chat-recall init`: a new standalone database (reference host tables and the index)."""

from __future__ import annotations

import argparse

from chat_recall.adapters.cli import database, options
from chat_recall.domain.wording import counted


def arguments(parser: argparse.ArgumentParser) -> None:
    options.add_database(parser, schema=False)
    options.add_language(parser)
    options.add_semantic(parser)
    parser.epilog = (
        "init creates the reference schema (tables chats and messages). For a host "
        "database with tables of its own, use: chat-recall install --schema mapping.json"
    )


def run(arguments: argparse.Namespace) -> int:
    admin = database.admin(arguments)

    path = database.target(arguments)
    report = admin.initialise(options.language(arguments))
    if report.created_file:
        what = f"created {path} with the reference host tables"
    elif report.created_host_tables:
        what = f"added the reference host tables to {path}"
    else:
        what = f"{path} already has the reference host tables"
    install = report.install
    if install.previous_version == install.version:
        index = f"the index was already installed (schema version {install.version})"
    else:
        index = f"installed the index (schema version {install.version})"
    print(
        f"{what}; {index}; {counted(install.messages_to_index, 'message')} to index; "
        f"language: {install.language.value}"
    )
    semantic = database.apply_semantic(arguments)
    if semantic is not None:
        print(semantic)
    return 0
