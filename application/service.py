"""`ChatRecall`: the one object a host embeds per database (built by the bootstrap)."""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING

import attrs

from chat_recall.application.deferred import Deferred
from chat_recall.application.health import IndexHealth, seen_from_here
from chat_recall.application.progress import IndexProgress
from chat_recall.application.tools.context import AgentMode, CallContext
from chat_recall.application.tools.definitions import ToolDefinition
from chat_recall.application.tools.list_chats import ListChats
from chat_recall.application.tools.read_chat import ReadChat
from chat_recall.application.tools.registry import ToolOutcome, ToolRegistry
from chat_recall.application.tools.search_chats import SearchChats, index_state
from chat_recall.application.write_lock import WriteLockStats
from chat_recall.domain.errors import IndexUnavailable
from chat_recall.domain.model import AppId, ChatId, Finding
from chat_recall.domain.ports import (
    Clock,
    DirtyQueue,
    HostWriter,
    IndexAudit,
    IndexStore,
    IndexUnitOfWork,
    MessageRepo,
    VectorStore,
)
from chat_recall.domain.projection import MarkupPolicy

if TYPE_CHECKING:
    from chat_recall.application.importing import ImportTarget
    from chat_recall.application.indexer import Indexer
    from chat_recall.application.semantic import Warming


# How soon `wait_until_indexed` looks again when the background indexer is idle but
# some work is still counted (a publish it deferred while the host wrote).
IDLE_RECHECK_SECONDS = 0.05


@attrs.frozen
class IndexStatus:
    """`ready` when nothing of the app (outside the current chat) awaits indexing;
    `indexing`, or `stalled` when this process's indexer keeps failing or cannot write
    (then `note` says why, as search_chats tells the model). `indexer` says what
    advances the pending messages (an `IndexerState` value)."""

    state: str
    pending: int
    documents: int
    indexer: str = "stopped"
    note: str | None = None
    # Every message written more than this many seconds ago is searchable (None: not
    # known, or nothing pending).
    lag_seconds: float | None = None


@attrs.define
class ChatRecall:
    """The facade: the tools (`tools`, `call_tool`, `search_chats`, `read_chat`,
    `list_chats` and their async twins), the indexer (`start`, `stop`,
    `indexer.notify()`), `status`, and the ports for hosts and tests that need them
    (`host` writes history).

    The indexer, the unit of work, the host writer and the audit are built on first
    use (`Deferred`): a process that only calls the tools never loads them."""

    repo: MessageRepo
    index: IndexStore
    dirty: DirtyQueue
    clock: Clock
    policy: MarkupPolicy
    progress: IndexProgress
    health: IndexHealth
    registry: ToolRegistry
    # How long this process's transactions held the storage's write lock (what host
    # writers may have waited for); empty where the storage has no such lock.
    write_lock: WriteLockStats
    _indexer: Deferred[Indexer]
    _unit_of_work: Deferred[IndexUnitOfWork]
    _host: Deferred[HostWriter]
    _audit: Deferred[IndexAudit]
    _imports: Deferred[ImportTarget]
    # The vectors beside the index (`VectorStore`); None for a storage without them.
    _vectors: Deferred[VectorStore] | None = None
    # Loads the vectors searches read ahead of the first search; None with the
    # semantic layer off.
    _warming: Deferred[Warming] | None = None
    _closers: list[Callable[[], None]] = attrs.field(init=False, factory=list)

    @property
    def indexer(self) -> Indexer:
        return self._indexer.get()

    @property
    def unit_of_work(self) -> IndexUnitOfWork:
        return self._unit_of_work.get()

    @property
    def host(self) -> HostWriter:
        return self._host.get()

    @property
    def audit(self) -> IndexAudit:
        return self._audit.get()

    @property
    def vectors(self) -> VectorStore:
        """The storage's vectors (the semantic layer's); IndexUnavailable for a
        storage adapter that keeps none."""
        if self._vectors is None:
            raise IndexUnavailable("this storage adapter keeps no vectors")
        return self._vectors.get()

    @property
    def imports(self) -> ImportTarget:
        """Where imported history is written (`application.importing`), with the links
        that make a re-import an update; IndexUnavailable where the storage adapter
        has none (a `custom` one)."""
        return self._imports.get()

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
        import asyncio  # here: only asyncio hosts pay for importing it

        return await asyncio.to_thread(self.registry.call, name, context, arguments)

    def search_chats(self, context: CallContext, arguments: object) -> str:
        """The search_chats tool: JSON text exactly as the agent receives it."""
        return self.call_tool(SearchChats.definition.name, context, arguments).output

    async def search_chats_async(self, context: CallContext, arguments: object) -> str:
        outcome = await self.call_tool_async(SearchChats.definition.name, context, arguments)
        return outcome.output

    def read_chat(self, context: CallContext, arguments: object) -> str:
        """The read_chat tool: JSON text exactly as the agent receives it."""
        return self.call_tool(ReadChat.definition.name, context, arguments).output

    async def read_chat_async(self, context: CallContext, arguments: object) -> str:
        outcome = await self.call_tool_async(ReadChat.definition.name, context, arguments)
        return outcome.output

    def list_chats(self, context: CallContext, arguments: object) -> str:
        """The list_chats tool: JSON text exactly as the agent receives it."""
        return self.call_tool(ListChats.definition.name, context, arguments).output

    async def list_chats_async(self, context: CallContext, arguments: object) -> str:
        outcome = await self.call_tool_async(ListChats.definition.name, context, arguments)
        return outcome.output

    def status(self, app_id: AppId, current_chat_id: ChatId | None = None) -> IndexStatus:
        """What search_chats says of the app's index: `ready` when nothing of it (outside
        the current chat) waits longer than a couple of seconds, with the lag."""
        pending = self.dirty.pending_in_app(app_id, current_chat_id)
        documents = self.index.stats(app_id).documents
        health, lag = self.health.snapshot(), None
        if pending:
            health = seen_from_here(health, self.dirty.claimant)
            lag = self.dirty.caught_up_ago()
        state, note = index_state(pending, health, lag)
        return IndexStatus(state, pending, documents, health.state.value, note, lag)

    def check(self, *, deep: bool = True) -> list[Finding]:
        """Drift and damage of the derived index (schema version, triggers, app
        registry, index data), found without writing; `deep` reads the whole index."""
        return self.audit.check(deep=deep)

    def repair(self) -> list[str]:
        """Restore what drifted (triggers, registry rows; an app whose index table is
        gone is queued to be indexed again). Returns what was done; damaged index data
        needs a rebuild instead."""
        return self.audit.repair()

    def start(self) -> None:
        """Run the background indexer (its own connection); `notify()` after writes.
        With the semantic layer on, also `warm()`."""
        self.indexer.start()
        self.warm()

    def warm(self, app_id: AppId | None = None) -> None:
        """With the semantic layer on, load the vectors searches read into memory in
        a short-lived background thread (`Warming`), so that the first search after
        start does not wait for them; `start()` does it. A host that knows which app
        it serves names it (before `start()`): that app is loaded first. Nothing with
        the layer off, or while warming runs already."""
        if self._warming is not None:
            self._warming.get().start(app_id)

    def stop(self) -> None:
        """Stop the background indexer and the warming."""
        if self._indexer.built:
            self.indexer.stop()
        if self._warming is not None and self._warming.built:
            self._warming.get().stop()

    def indexed_elsewhere(self) -> None:
        """Declare that another process runs the indexer for this database (a host's
        own worker), so `index_status` says the pending messages are being advanced."""
        self.health.elsewhere()

    def notify(self) -> None:
        """Tell the background indexer that the host wrote chats or messages."""
        if self._indexer.built:  # none was started otherwise
            self.indexer.notify()

    def wait_until_indexed(self, timeout: float = 30.0) -> bool:
        """Wait at most `timeout` seconds until nothing awaits indexing. With the
        background indexer running this waits for it; otherwise the batches run in the
        calling thread. Returns True when the index has caught up."""
        deadline = self.clock.monotonic() + timeout
        if not self.health.snapshot().can_advance:
            return self.dirty.backlog().is_empty
        if self.indexer.running:
            while True:
                self.indexer.notify()
                left = deadline - self.clock.monotonic()
                if left <= 0 or not self.indexer.wait_until_idle(left):
                    return self.dirty.backlog().is_empty
                if self.dirty.backlog().is_empty:
                    return True
                # Idle with work still counted: messages staged for a publish the
                # indexer deferred while the host wrote (the tantivy engine). Look again.
                time.sleep(min(IDLE_RECHECK_SECONDS, max(left, 0.0)))
        while self.clock.monotonic() < deadline:
            report = self.indexer.run_batch()
            if not report.did_work and self.dirty.backlog().is_empty:
                return True
        return self.dirty.backlog().is_empty

    def on_close(self, closer: Callable[[], None]) -> None:
        """Run `closer` when this facade closes (e.g. close the database connections)."""
        self._closers.append(closer)

    def close(self) -> None:
        """Stop the indexer and release what the bootstrap opened. Idempotent."""
        self.stop()
        closers, self._closers = self._closers, []
        for closer in reversed(closers):
            closer()

    def __enter__(self) -> ChatRecall:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> ChatRecall:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        import asyncio

        await asyncio.to_thread(self.close)
