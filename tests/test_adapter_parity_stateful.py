"""Stateful property: random host writes, partial indexer batches and restarts, run on
both adapters in lockstep. After draining, each index equals the projection of its
source rows, and both answer every query with the same ranking and scores."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import attrs
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from chat_recall.adapters import bootstrap
from chat_recall.adapters.memory.database import InMemoryDatabase
from chat_recall.application.service import ChatRecall
from chat_recall.domain.indexing import build_document
from chat_recall.domain.messages import Role
from chat_recall.domain.model import IndexStats
from chat_recall.domain.query import MatchQuery, ScopedQuery

WORDS = ["alpha", "beta", "gamma", "login.ts", "Über", "uber", "認証", "sessions", "jwt"]
MARKUP = [
    '<dyad-write path="src/login.ts" description="alpha fix">beta code</dyad-write>',
    "<think>gamma secret</think>",
    '<dyad-compaction title="Summary">sessions jwt</dyad-compaction>',
]
text = st.lists(st.sampled_from(WORDS + MARKUP), min_size=0, max_size=6).map(" ".join)
titles = st.one_of(st.none(), st.lists(st.sampled_from(WORDS), max_size=3).map(" ".join))


class BothAdapters(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.directory = tempfile.TemporaryDirectory()
        self.path = Path(self.directory.name) / "host.db"
        self.memory_db = InMemoryDatabase()
        self.sqlite = bootstrap.sqlite(self.path, create_host_schema=True)
        self.memory = bootstrap.in_memory(database=self.memory_db)
        self.chats: list[int] = []
        self.message_chat: dict[int, int] = {}
        self.next_id = 1

    def both(self) -> tuple[ChatRecall, ChatRecall]:
        return self.sqlite, self.memory

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    @rule(app_id=st.sampled_from([1, 2]), title=titles)
    def create_chat(self, app_id: int, title: str | None) -> None:
        chat_id = self.new_id()
        for recall in self.both():
            recall.host.create_chat(app_id, title, 100, chat_id=chat_id)
        self.chats.append(chat_id)

    @precondition(lambda self: self.chats)
    @rule(data=st.data(), content=text, role=st.sampled_from(list(Role)), at=st.integers(0, 50))
    def add_message(self, data: st.DataObject, content: str, role: Role, at: int) -> None:
        chat_id = data.draw(st.sampled_from(self.chats))
        message_id = self.new_id()
        for recall in self.both():
            recall.host.add_message(chat_id, role, content, 1000 + at, message_id=message_id)
        self.message_chat[message_id] = chat_id

    @precondition(lambda self: self.messages)
    @rule(data=st.data(), content=text)
    def update_message(self, data: st.DataObject, content: str) -> None:
        message_id = data.draw(st.sampled_from(self.messages))
        for recall in self.both():
            recall.host.update_message(message_id, content)

    @precondition(lambda self: self.messages)
    @rule(data=st.data())
    def delete_message(self, data: st.DataObject) -> None:
        message_id = data.draw(st.sampled_from(self.messages))
        for recall in self.both():
            recall.host.delete_message(message_id)
        del self.message_chat[message_id]

    @precondition(lambda self: self.chats)
    @rule(data=st.data(), title=titles)
    def rename_chat(self, data: st.DataObject, title: str | None) -> None:
        chat_id = data.draw(st.sampled_from(self.chats))
        for recall in self.both():
            recall.host.rename_chat(chat_id, title)

    @precondition(lambda self: self.chats)
    @rule(data=st.data())
    def delete_chat(self, data: st.DataObject) -> None:
        chat_id = data.draw(st.sampled_from(self.chats))
        for recall in self.both():
            recall.host.delete_chat(chat_id)
        self.chats.remove(chat_id)
        self.message_chat = {m: c for m, c in self.message_chat.items() if c != chat_id}

    @property
    def messages(self) -> list[int]:
        return sorted(self.message_chat)

    @rule()
    def partial_batch(self) -> None:
        for recall in self.both():
            recall.indexer.run_batch()

    @rule()
    def restart(self) -> None:
        for recall in self.both():  # a process that exits gives up the indexing queue
            recall.close()
        self.sqlite = bootstrap.sqlite(self.path)
        self.memory = bootstrap.in_memory(database=self.memory_db)

    @invariant()
    def deleted_messages_are_never_found(self) -> None:
        for recall in self.both():
            for app_id in (1, 2):
                ids = recall.index.document_ids(app_id)
                assert set(ids) <= set(self.messages)

    def teardown(self) -> None:
        try:
            self.check_drained()
        finally:
            for recall in self.both():
                recall.close()
            self.directory.cleanup()

    def check_drained(self) -> None:
        for recall in self.both():
            recall.indexer.run_until_idle()
            assert recall.dirty.backlog().is_empty
            rows = recall.repo.source_rows(self.messages)
            for app_id in (1, 2):
                expected = {
                    row.message.id: (document.title, document.body)
                    for row in rows
                    if row.app_id == app_id
                    and (document := build_document(row, recall.policy)) is not None
                }
                indexed = {
                    d.message_id: (d.title, d.body)
                    for d in recall.index.documents(app_id, self.messages)
                }
                assert indexed == expected
                assert recall.index.stats(app_id) == IndexStats(len(expected), unreclaimed=0)
        for app_id in (1, 2):
            for words in (["alpha"], ["uber", "jwt"], ["login.ts"], ["認証"], WORDS):
                for exclude in (None, *self.chats[:2]):
                    query = ScopedQuery(MatchQuery.of_words(*words), app_id, exclude)
                    left = self.sqlite.index.search(query)
                    right = self.memory.index.search(query)
                    assert [c.message_id for c in left] == [c.message_id for c in right]
                    for a, b in zip(left, right, strict=True):
                        assert math.isclose(a.score, b.score, rel_tol=1e-9)
                        assert attrs.evolve(a, score=0.0) == attrs.evolve(b, score=0.0)


TestBothAdapters = BothAdapters.TestCase
TestBothAdapters.settings = settings(max_examples=50, stateful_step_count=30, deadline=None)
