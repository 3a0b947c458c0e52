"""`ChatRecall`: the one object a host embeds per database (built by the bootstrap)."""

from __future__ import annotations

from collections.abc import Callable

import attrs

from application.indexer import Indexer
from application.progress import IndexProgress
from application.tools.context import CallContext
from application.tools.read_chat import ReadChat
from application.tools.search_chats import SearchChats
from domain.model import AppId, ChatId
from domain.ports import Clock, DirtyQueue, HostWriter, IndexStore, MessageRepo
from domain.projection import MarkupPolicy


@attrs.frozen
class IndexStatus:
    """`ready` when nothing of the app (outside the current chat) awaits indexing."""

    state: str
    pending: int
    documents: int

    @property
    def is_ready(self) -> bool:
        return self.state == "ready"


@attrs.define
class ChatRecall:
    repo: MessageRepo
    index: IndexStore
    dirty: DirtyQueue
    clock: Clock
    policy: MarkupPolicy
    progress: IndexProgress
    indexer: Indexer
    host: HostWriter
    search_tool: SearchChats
    read_tool: ReadChat
    _closers: list[Callable[[], None]] = attrs.field(init=False, factory=list)

    def search_chats(self, context: CallContext, arguments: object) -> str:
        """The search_chats tool: JSON text exactly as the agent receives it."""
        return self.search_tool(context, arguments)

    def read_chat(self, context: CallContext, arguments: object) -> str:
        """The read_chat tool: JSON text exactly as the agent receives it."""
        return self.read_tool(context, arguments)

    def status(self, app_id: AppId, current_chat_id: ChatId | None = None) -> IndexStatus:
        pending = self.dirty.pending_in_app(app_id, current_chat_id)
        documents = self.index.stats(app_id).documents
        return IndexStatus("indexing" if pending else "ready", pending, documents)

    def start(self) -> None:
        self.indexer.start()

    def stop(self) -> None:
        self.indexer.stop()

    def on_close(self, closer: Callable[[], None]) -> None:
        """Run `closer` when this facade closes (e.g. close the database connections)."""
        self._closers.append(closer)

    def close(self) -> None:
        """Stop the indexer and release what the bootstrap opened."""
        self.indexer.stop()
        for closer in reversed(self._closers):
            closer()
