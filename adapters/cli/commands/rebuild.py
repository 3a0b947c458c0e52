"""`chat-recall rebuild`: drop the derived index and build it again from the host rows."""

from __future__ import annotations

import argparse

from chat_recall.adapters.cli import database, options


def arguments(parser: argparse.ArgumentParser) -> None:
    options.add_database(parser)
    options.add_quiet(parser)
    options.add_planning(parser)


def run(arguments: argparse.Namespace) -> int:
    from chat_recall.adapters.cli.indexing import drain, summary
    from chat_recall.adapters.cli.progress import reporter

    admin = database.admin(arguments)
    from chat_recall.application.write_lock import WriteLockStats

    path, schema = database.target(arguments), database.schema(arguments)
    engine = database.recorded_engine(arguments)  # rebuilt with the same engine
    language = admin.recorded_language(path, schema)  # and the same language
    removed = admin.uninstall(path, schema, keep_imports=True)  # links describe host rows
    installed = admin.install(path, schema, language)
    with database.open_recall(arguments, engine) as recall:
        report = drain(recall, reporter("rebuilding", quiet=arguments.quiet))
    print("rebuilt: " + summary(report))
    lock = WriteLockStats.combined(removed.write_lock, installed.write_lock, recall.write_lock)
    print(f"write lock: {lock.summary()}")
    return 0
