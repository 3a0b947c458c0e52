"""`chat-recall rebuild`: index every message again from the host rows.

In place when the index can be read: every message is marked for indexing, and the old
documents keep answering until each is replaced (a search meanwhile says how many wait),
as a change of the projection does. A damaged index, or one of a schema version this
release cannot use, is dropped and built anew instead (searches then find what is
indexed so far, and say how many messages wait)."""

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
    from chat_recall.application.write_lock import WriteLockStats

    admin = database.admin(arguments)
    engine = database.recorded_engine(arguments)  # rebuilt with the same engine
    locks: list[WriteLockStats] = []
    in_place = _readable(arguments, engine)  # in place, the recorded language stays
    if not in_place:  # the import links describe host rows: they stay
        language = admin.recorded_language()  # anew, with the same language
        locks.append(admin.uninstall(keep_imports=True).write_lock)
        locks.append(admin.install(language).write_lock)
    with database.open_recall(arguments, engine) as recall:
        if in_place:
            for line in recall.repair():  # triggers and registry rows lost to drift
                print(f"repaired: {line}")
            recall.dirty.mark_all_messages()  # the old documents answer until replaced
        report = drain(recall, reporter("rebuilding", quiet=arguments.quiet))
    how = "in place" if in_place else "anew"
    print(f"rebuilt {how}: " + summary(report))
    lock = WriteLockStats.combined(*locks, recall.write_lock)
    print(f"write lock: {lock.summary()}")
    return 0


def _readable(arguments: argparse.Namespace, engine: object) -> bool:
    """Whether the index can be rebuilt in place: installed, of a schema version this
    release uses, and no check finds damage that needs it built anew."""
    from chat_recall.domain.errors import ChatRecallError

    try:
        with database.open_recall(arguments, engine) as recall:  # type: ignore[arg-type]
            findings = recall.check(deep=True)
    except ChatRecallError:
        return False
    return not any(not f.ok and f.fix in ("rebuild", "upgrade") for f in findings)
