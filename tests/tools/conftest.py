"""Both adapters behind the tools, and a small way to write history."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.application.service import ChatRecall
from chat_recall.domain.messages import Role

USER, ASSISTANT = Role.USER, Role.ASSISTANT


@pytest.fixture(params=["sqlite", "memory", "postgres"])
def recall(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ChatRecall]:
    if request.param == "sqlite":
        instance = bootstrap.sqlite(tmp_path / "host.db", create_host_schema=True)
    elif request.param == "postgres":
        dsn = request.getfixturevalue("postgres_dsn")
        instance = bootstrap.postgres(dsn, create_host_schema=True)
    else:
        instance = bootstrap.in_memory()
    yield instance
    instance.close()


def chat(
    recall: ChatRecall,
    app_id: int,
    title: str | None,
    messages: list[tuple[Role, str]] | list[str],
    *,
    start: int = 1_700_000_000,
) -> tuple[int, list[int]]:
    """A chat whose messages alternate user/assistant unless roles are given."""
    chat_id = recall.host.create_chat(app_id, title, start)
    ids = []
    for offset, item in enumerate(messages):
        role, text = item if isinstance(item, tuple) else ((USER, ASSISTANT)[offset % 2], item)
        ids.append(recall.host.add_message(chat_id, role, text, start + 60 * (offset + 1)))
    return chat_id, ids


def result(text: str) -> Any:
    return json.loads(text)
