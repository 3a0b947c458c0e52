"""Small shared pieces for the contract suites."""

from __future__ import annotations

from collections.abc import Iterator

try:
    import pytest
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "the chat_recall.contracts suites run under pytest: pip install 'chat-recall[testing]'"
    ) from error

from chat_recall.contracts.harness import StorageHarness
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId, ChatId, MessageId
from chat_recall.domain.ports import HostWriter

USER, ASSISTANT = Role.USER, Role.ASSISTANT
APP, OTHER_APP, EMPTY_APP = AppId(1), AppId(2), AppId(3)
MISSING_CHAT = ChatId(987_654)
MISSING_MESSAGE = MessageId(987_654)


class HarnessLifecycle:
    """Closes whatever the `harness` fixture opened."""

    @pytest.fixture(autouse=True)
    def _close_harness(self, harness: StorageHarness) -> Iterator[None]:
        yield
        harness.close()


def seed_chat(
    host: HostWriter, app_id: AppId, title: str, texts: list[tuple[Role, str]], start: int = 1000
) -> tuple[ChatId, list[MessageId]]:
    """A chat with messages one second apart; returns (chat id, message ids)."""
    chat_id = host.create_chat(app_id, title, start)
    ids = [
        host.add_message(chat_id, role, text, start + offset + 1)
        for offset, (role, text) in enumerate(texts)
    ]
    return chat_id, ids
