"""Deleted is deleted: the host deletes messages and chats while an indexer batch is in
flight, and nothing deleted is ever returned again by either tool.

Each attempt is deterministically interleaved, without sleeps or threads: the batch's
`MessageRepo.source_rows` returns the rows it read and only then lets the host act, so
the delete commits after the batch read the row and before it writes its documents.
Variants (seeded): a message or a whole chat is deleted; the deleted message's id is
reused at once by a new message (hosts without AUTOINCREMENT do this when the last
message is regenerated); a second indexer (another process on the same storage) runs a
full batch and its maintenance in between, as `chat-recall index` may beside a host's
background indexer. After the in-flight batch, and again after the index drained, the
deleted content must be found by no search and read by no `read_chat`.

Run: python -m tests.benchmarks.race_deletes [--attempts 500] (prints counts; the CI
test `tests/test_deleted_is_deleted.py` runs fewer and asserts none came back).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import attrs

from chat_recall.adapters import bootstrap
from chat_recall.adapters.memory.database import InMemoryDatabase
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId, ChatId, MessageId, SourceRow

Opener = Callable[[], ChatRecall]


@attrs.define
class ActAfterRead:
    """A `MessageRepo` that runs the host's action right after a batch read its rows."""

    repo: Any
    action: Callable[[], None] | None = None

    def source_rows(self, message_ids: Sequence[MessageId]) -> list[SourceRow]:
        rows: list[SourceRow] = self.repo.source_rows(message_ids)
        action, self.action = self.action, None
        if action is not None:
            action()
        return rows

    def __getattr__(self, name: str) -> Any:
        return getattr(self.repo, name)


@attrs.frozen
class Outcome:
    attempts: int
    resurrected: int
    details: tuple[str, ...]


def sqlite_opener(directory: Path) -> Opener:
    path = directory / "host.db"
    return lambda: bootstrap.sqlite(path, create_host_schema=True)


def memory_opener(_: Path) -> Opener:
    database = InMemoryDatabase()
    return lambda: bootstrap.in_memory(database=database)


def word(message_id: int, generation: int = 0) -> str:
    return f"zq{message_id}g{generation}x"


def returned(recall: ChatRecall, app_id: int, chat_id: int, message_id: int, text: str) -> str:
    """How a deleted message's content came back through either tool ('' if not)."""
    context = CallContext(AppId(app_id))
    found = json.loads(recall.search_chats(context, {"query": text}))
    hits = [
        match["message_id"] for result in found.get("results", []) for match in result["matches"]
    ]
    if hits:  # the word is this message's alone
        return f"search for {text} returned it"
    read = recall.read_chat(context, {"chat_id": chat_id, "around_message_id": message_id})
    if text in read:
        return f"read_chat around {message_id} showed {text}"
    page = recall.read_chat(context, {"chat_id": chat_id, "offset": 0, "limit": 50})
    if text in page:
        return f"read_chat page of chat {chat_id} showed {text}"
    return ""


def delete_in_flight(
    recall: ChatRecall,
    other: ChatRecall | None,
    chat_id: int,
    message_id: int,
    whole_chat: bool,
    reuse: bool,
) -> None:
    """The host's delete, committed between a batch's read and its write; with `reuse`
    a new message takes the same id at once; `other` indexes meanwhile."""
    if whole_chat:
        recall.host.delete_chat(ChatId(chat_id))
    else:
        recall.host.delete_message(MessageId(message_id))
        if reuse:
            recall.host.add_message(
                ChatId(chat_id),
                Role.USER,
                f"new {word(message_id, 1)}",
                99,
                message_id=MessageId(message_id),
            )
    if other is not None:
        other.indexer.run_batch()


def attempt(open_recall: Opener, seed: int) -> tuple[int, list[str]]:
    """One history, several deletes each landing inside an in-flight batch. Returns
    (attempts, what came back)."""
    pick = random.Random(seed)
    recall = open_recall()
    other = open_recall() if pick.random() < 0.5 else None  # a second indexer
    problems: list[str] = []
    try:
        chats: dict[int, tuple[int, list[int]]] = {}
        for app_id in (1, 2):
            for _ in range(2):
                chat_id = recall.host.create_chat(AppId(app_id), "shared title", 1)
                ids = []
                for index in range(pick.randint(3, 8)):
                    message_id = recall.host.add_message(chat_id, Role.USER, "filler", 10 + index)
                    recall.host.update_message(message_id, f"about {word(message_id)} here")
                    ids.append(message_id)
                chats[chat_id] = (app_id, ids)
        for _ in range(pick.randint(0, 3)):
            recall.indexer.run_batch()  # some indexed, some still pending
        proxy = ActAfterRead(recall.indexer.repo)
        recall.indexer.repo = proxy
        deleted: list[tuple[int, int, int, str]] = []  # app, chat, message, its word
        attempts = 0
        for _ in range(pick.randint(1, 4)):
            live = [(c, m) for c, (_, ids) in chats.items() for m in ids]
            if not live:
                break
            chat_id, message_id = pick.choice(live)
            app_id, ids = chats[chat_id]
            # the victim is in the next batch: edit it now (a fresh marker)
            recall.host.update_message(message_id, f"about {word(message_id)} here again")
            whole_chat = pick.random() < 0.3
            reuse = not whole_chat and pick.random() < 0.4
            victims = [(app_id, chat_id, m, word(m)) for m in (ids if whole_chat else [message_id])]

            proxy.action = partial(
                delete_in_flight, recall, other, chat_id, message_id, whole_chat, reuse
            )
            recall.indexer.run_batch()
            attempts += len(victims)
            if whole_chat:
                del chats[chat_id]
            elif not reuse:
                ids.remove(message_id)
            deleted += victims
            for app, chat, message, text in deleted:
                if came_back := returned(recall, app, chat, message, text):
                    problems.append(f"seed {seed}, message {message}, in flight: {came_back}")
        recall.indexer.run_until_idle()
        for app, chat, message, text in deleted:
            if came_back := returned(recall, app, chat, message, text):
                problems.append(f"seed {seed}, message {message}, after draining: {came_back}")
        return attempts, problems
    finally:
        recall.close()
        if other is not None:
            other.close()


def run(
    attempts: int, adapters: Sequence[str] = ("sqlite", "memory"), seed: int = 0
) -> dict[str, Outcome]:
    openers = {"sqlite": sqlite_opener, "memory": memory_opener}
    outcomes = {}
    for name in adapters:
        done, problems, trial = 0, [], seed
        while done < attempts:
            with tempfile.TemporaryDirectory() as directory:
                count, found = attempt(openers[name](Path(directory)), trial)
            done += count
            problems += found
            trial += 1
        unique = {problem.split(", ")[:2][1] + problem.split(", ")[0] for problem in problems}
        outcomes[name] = Outcome(done, len(unique), tuple(problems[:10]))
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--attempts", type=int, default=500)
    arguments = parser.parse_args(argv)
    for name, outcome in run(arguments.attempts).items():
        print(
            f"{name}: {outcome.attempts} deleted messages (in-flight deletes), "
            f"{outcome.resurrected} interleavings where deleted content came back"
        )
        for detail in outcome.details:
            print("   ", detail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
