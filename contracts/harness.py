"""What a contract suite needs from an adapter under test: one `StorageHarness`.

An adapter opts in with one subclass per suite and one fixture named `harness`:

    class TestMyMessageRepo(MessageRepoContract):
        @pytest.fixture
        def harness(self, tmp_path):
            return StorageHarness(lambda: my_bootstrap(tmp_path / "db"))
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from chat_recall.application.service import ChatRecall
from chat_recall.domain.text.language import Language


@attrs.frozen
class Capabilities:
    """Where adapters may legitimately differ, declared by the adapter under test:

    - `exact_fts5_scores`: scores equal SQLite FTS5's bm25 (negated, within 1e-9
      relative) for the shared layout; otherwise only the order properties are checked.
    - `durable`: a second facade from `open` sees what the first one wrote (a restart).
    - `deferred_reclaim`: documents the host deleted vanish from search at once but are
      reclaimed later by `IndexStore.maintain()` (counted in `IndexStats.unreclaimed`
      until then); engines that delete physically at once report 0.
    - `reads_live_rows`: every read of the index joins the host's live rows, so a
      document whose message is gone (or moved to another chat or app) is never
      returned, even before the indexer or `remove_orphans` removes it.
    - `grouped_publishing`: what a unit of work writes becomes searchable when the
      engine publishes it (engines whose durable commit is too slow for every batch
      group commits: tantivy), not at once; the indexer's maintenance step publishes
      once the queue is drained (and periodically during a long backlog), and the
      backlog counts such documents as pending until then. The harness's `publish`
      forces it where a suite writes through a unit of work directly.
    """

    exact_fts5_scores: bool = True
    durable: bool = True
    deferred_reclaim: bool = True
    reads_live_rows: bool = False
    grouped_publishing: bool = False


@attrs.define
class StorageHarness:
    """`open` builds a facade over the adapter's storage; when `durable`, calling it
    again opens the same storage anew (a process restart)."""

    open: Callable[[], ChatRecall]
    capabilities: Capabilities = Capabilities()
    # Everything the adapter stores, as one comparable value (e.g. a dump of the
    # database): lets `ToolsNeverWriteContract` prove that no byte changed. Without it
    # the contract compares what the ports can observe.
    storage_state: Callable[[], object] | None = None
    # With `grouped_publishing`: make what units of work wrote searchable now.
    publish: Callable[[ChatRecall], None] | None = None
    # A facade over the same storage started under another language (`Language`: its
    # index re-indexed under it), where the adapter lets a host choose one.
    open_in: Callable[[Language], ChatRecall] | None = None
    _opened: list[ChatRecall] = attrs.field(init=False, factory=list)

    def publish_writes(self, recall: ChatRecall) -> None:
        """Make what units of work wrote searchable (a no-op where it already is)."""
        if self.capabilities.grouped_publishing:
            assert self.publish is not None, "grouped_publishing needs a publish hook"
            self.publish(recall)

    def recall(self) -> ChatRecall:
        if not self._opened:
            self._opened.append(self.open())
        return self._opened[0]

    def reopen(self) -> ChatRecall:
        """A fresh facade over the same storage, as after a restart."""
        recall = self.open()
        self._opened.append(recall)
        return recall

    def reopen_in(self, language: Language) -> ChatRecall:
        """A fresh facade over the same storage, started under `language`."""
        assert self.open_in is not None, "the adapter under test chooses no language"
        recall = self.open_in(language)
        self._opened.append(recall)
        return recall

    def restart_in(self, language: Language) -> ChatRecall:
        """Close every facade opened so far (their indexers give up the queue, as a
        process that exits does), then start one under `language`: without the close,
        the new indexer waits for the old one's claim to lapse."""
        self.close()
        return self.reopen_in(language)

    def close(self) -> None:
        for recall in self._opened:
            recall.close()
        self._opened.clear()
