"""`ChatRecall`: the one object a host embeds per database (built by the bootstrap)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import attrs

from application.indexer import Indexer
from application.progress import IndexProgress
from application.tools.context import AgentMode, CallContext
from application.tools.definitions import ToolDefinition
from application.tools.read_chat import ReadChat
from application.tools.registry import ToolOutcome, ToolRegistry
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
    """The facade: the tools (`tools`, `call_tool`, `search_chats`, `read_chat` and
    their async twins), the indexer (`start`, `stop`, `indexer.notify()`), `status`,
    and the ports for hosts and tests that need them (`host` writes history)."""

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
    registry: ToolRegistry
    _closers: list[Callable[[], None]] = attrs.field(init=False, factory=list)

    def tools(self, mode: AgentMode = AgentMode.AGENT) -> list[ToolDefinition]:
        """The tool definitions to offer the model in `mode` (consent `never` hides one);
        export each with `.openai()`, `.anthropic()` or `.mcp()`."""
        return self.registry.offered(mode)

    def call_tool(self, name: str, context: CallContext, arguments: object) -> ToolOutcome:
        """Run a tool under the host's consent settings: the model's JSON and the card."""
        return self.registry.call(name, context, arguments)

    async def call_tool_async(
        self, name: str, context: CallContext, arguments: object
    ) -> ToolOutcome:
        """`call_tool` for asyncio hosts: runs in a worker thread, never blocking the
        event loop."""
        return await asyncio.to_thread(self.registry.call, name, context, arguments)

    def search_chats(self, context: CallContext, arguments: object) -> str:
        """The search_chats tool: JSON text exactly as the agent receives it."""
        return self.call_tool("search_chats", context, arguments).output

    async def search_chats_async(self, context: CallContext, arguments: object) -> str:
        return (await self.call_tool_async("search_chats", context, arguments)).output

    def read_chat(self, context: CallContext, arguments: object) -> str:
        """The read_chat tool: JSON text exactly as the agent receives it."""
        return self.call_tool("read_chat", context, arguments).output

    async def read_chat_async(self, context: CallContext, arguments: object) -> str:
        return (await self.call_tool_async("read_chat", context, arguments)).output

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
