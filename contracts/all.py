"""Every contract suite in one class, so an adapter opts in once:

class TestMyAdapter(StorageContracts):
    @pytest.fixture
    def harness(self, tmp_path):
        return StorageHarness(lambda: my_bootstrap(tmp_path / "db"), Capabilities(...))
"""

from __future__ import annotations

from chat_recall.contracts.concurrency import ConcurrencyContract
from chat_recall.contracts.dirty_queue import DirtyQueueContract
from chat_recall.contracts.host_writer import HostWriterContract
from chat_recall.contracts.index_store import IndexStoreContract
from chat_recall.contracts.indexer import IndexerContract
from chat_recall.contracts.message_repo import MessageRepoContract
from chat_recall.contracts.tools_never_write import ToolsNeverWriteContract
from chat_recall.contracts.vector_store import VectorStoreContract

SUITES = (
    MessageRepoContract,
    DirtyQueueContract,
    HostWriterContract,
    IndexStoreContract,
    IndexerContract,
    ToolsNeverWriteContract,
    ConcurrencyContract,
    VectorStoreContract,
)


class StorageContracts(*SUITES):  # type: ignore[misc]
    """All suites; their test names are distinct (checked by chat-recall's own tests)."""
