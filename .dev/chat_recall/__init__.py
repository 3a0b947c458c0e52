"""chat-recall: let an AI agent recall what was said in a host app's earlier chats.

Everything a host needs is importable from here; nothing else is public API:

    import chat_recall

    with chat_recall.sqlite("app.db") as recall:
        recall.start()
        context = chat_recall.CallContext(app_id=1, chat_id=12, message_id=345)
        outcome = recall.call_tool("search_chats", context, {"query": "session expiry"})

Names are loaded on first use, so `import chat_recall` (and the CLI's start-up) stays
cheap. The installed package is this one folder; see ARCHITECTURE.md ("Packaging").
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chat_recall.adapters.bootstrap import custom, in_memory, postgres, sqlite
    from chat_recall.adapters.memory.database import InMemoryDatabase
    from chat_recall.adapters.semantic import Semantic
    from chat_recall.adapters.sqlite_host.engines import Engine
    from chat_recall.adapters.sqlite_host.schema import HostSchema
    from chat_recall.application.indexer import IndexerSettings
    from chat_recall.application.planning import PlanningSettings
    from chat_recall.application.service import ChatRecall, IndexStatus
    from chat_recall.application.tools.context import AgentMode, CallContext
    from chat_recall.application.tools.definitions import Consent, ToolDefinition
    from chat_recall.application.tools.read_chat import ReadChatOutput
    from chat_recall.application.tools.registry import (
        ConsentRequest,
        ToolOutcome,
        ToolSettings,
    )
    from chat_recall.application.tools.search_chats import SearchChatsOutput
    from chat_recall.application.tools.tool import ToolError
    from chat_recall.domain.errors import (
        ChatRecallError,
        IndexUnavailable,
        InvalidArguments,
        MissingExtra,
        NotFound,
        SchemaMismatch,
        StorageBusy,
        StorageDamaged,
        StorageError,
        StorageReadOnly,
        StorageUnavailable,
    )
    from chat_recall.domain.messages import Role
    from chat_recall.domain.model import AppId, ChatId, MessageId
    from chat_recall.domain.ports import Telemetry
    from chat_recall.domain.projection import MarkupPolicy, TagClass, TagRule
    from chat_recall.domain.redaction import RedactionPolicy, SecretRule
    from chat_recall.domain.telemetry import (
        IndexBatchEvent,
        IndexFailureEvent,
        RowsQuarantinedEvent,
        TelemetryEvent,
        ToolCallEvent,
    )
    from chat_recall.domain.text.language import Language

# Public name -> the module that defines it. `tests/test_public_api.py` keeps this,
# `__all__` and the typing imports above in step.
_EXPORTS: dict[str, str] = {
    "sqlite": "chat_recall.adapters.bootstrap",
    "postgres": "chat_recall.adapters.bootstrap",
    "in_memory": "chat_recall.adapters.bootstrap",
    "custom": "chat_recall.adapters.bootstrap",
    "Engine": "chat_recall.adapters.sqlite_host.engines",
    "InMemoryDatabase": "chat_recall.adapters.memory.database",
    "Semantic": "chat_recall.adapters.semantic",
    "HostSchema": "chat_recall.adapters.sqlite_host.schema",
    "IndexerSettings": "chat_recall.application.indexer",
    "PlanningSettings": "chat_recall.application.planning",
    "ChatRecall": "chat_recall.application.service",
    "IndexStatus": "chat_recall.application.service",
    "AgentMode": "chat_recall.application.tools.context",
    "CallContext": "chat_recall.application.tools.context",
    "ReadChatOutput": "chat_recall.application.tools.read_chat",
    "SearchChatsOutput": "chat_recall.application.tools.search_chats",
    "ToolError": "chat_recall.application.tools.tool",
    "Consent": "chat_recall.application.tools.definitions",
    "ToolDefinition": "chat_recall.application.tools.definitions",
    "ConsentRequest": "chat_recall.application.tools.registry",
    "ToolOutcome": "chat_recall.application.tools.registry",
    "ToolSettings": "chat_recall.application.tools.registry",
    "ChatRecallError": "chat_recall.domain.errors",
    "IndexUnavailable": "chat_recall.domain.errors",
    "InvalidArguments": "chat_recall.domain.errors",
    "MissingExtra": "chat_recall.domain.errors",
    "NotFound": "chat_recall.domain.errors",
    "SchemaMismatch": "chat_recall.domain.errors",
    "StorageBusy": "chat_recall.domain.errors",
    "StorageDamaged": "chat_recall.domain.errors",
    "StorageError": "chat_recall.domain.errors",
    "StorageReadOnly": "chat_recall.domain.errors",
    "StorageUnavailable": "chat_recall.domain.errors",
    "Role": "chat_recall.domain.messages",
    "AppId": "chat_recall.domain.model",
    "ChatId": "chat_recall.domain.model",
    "MessageId": "chat_recall.domain.model",
    "Telemetry": "chat_recall.domain.ports",
    "MarkupPolicy": "chat_recall.domain.projection",
    "TagClass": "chat_recall.domain.projection",
    "TagRule": "chat_recall.domain.projection",
    "RedactionPolicy": "chat_recall.domain.redaction",
    "SecretRule": "chat_recall.domain.redaction",
    "IndexBatchEvent": "chat_recall.domain.telemetry",
    "IndexFailureEvent": "chat_recall.domain.telemetry",
    "RowsQuarantinedEvent": "chat_recall.domain.telemetry",
    "TelemetryEvent": "chat_recall.domain.telemetry",
    "ToolCallEvent": "chat_recall.domain.telemetry",
    "Language": "chat_recall.domain.text.language",
}

__all__ = [
    "AgentMode",
    "AppId",
    "CallContext",
    "ChatId",
    "ChatRecall",
    "ChatRecallError",
    "Consent",
    "ConsentRequest",
    "Engine",
    "HostSchema",
    "InMemoryDatabase",
    "IndexBatchEvent",
    "IndexFailureEvent",
    "IndexStatus",
    "IndexUnavailable",
    "IndexerSettings",
    "InvalidArguments",
    "Language",
    "MarkupPolicy",
    "MessageId",
    "MissingExtra",
    "NotFound",
    "PlanningSettings",
    "ReadChatOutput",
    "RedactionPolicy",
    "Role",
    "RowsQuarantinedEvent",
    "SchemaMismatch",
    "SearchChatsOutput",
    "SecretRule",
    "Semantic",
    "StorageBusy",
    "StorageDamaged",
    "StorageError",
    "StorageReadOnly",
    "StorageUnavailable",
    "TagClass",
    "TagRule",
    "Telemetry",
    "TelemetryEvent",
    "ToolCallEvent",
    "ToolDefinition",
    "ToolError",
    "ToolOutcome",
    "ToolSettings",
    "__version__",
    "custom",
    "in_memory",
    "postgres",
    "sqlite",
]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("chat-recall")
    except PackageNotFoundError:  # imported from a checkout that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _version()
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module 'chat_recall' has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
