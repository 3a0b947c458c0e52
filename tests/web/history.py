"""A demo-like history for the page's tests: the demo's sample (two apps), a long chat
to page through, and a chat holding credentials that must never reach a page."""

from __future__ import annotations

from pathlib import Path

import attrs

import chat_recall
from chat_recall.adapters.cli.demo import write_sample
from chat_recall.application.service import ChatRecall
from chat_recall.domain.messages import Role

# Planted credentials: what the page must never show (the tools show placeholders).
GITHUB_TOKEN = "ghp_" + "Zq7wX2mK9p" * 4
PASSWORD = "Tr0ub4dor-horse-staple"
SECRETS = (GITHUB_TOKEN, PASSWORD, "Zq7wX2mK9p")

LONG_CHAT_TITLE = "Ledger migration"
LONG_CHAT_MESSAGES = 24
HIT_INDEX = 15  # the message of the long chat that the word below finds
HIT_WORD = "flamingo"
SECRET_CHAT_TITLE = "Staging deploy keys"


@attrs.frozen
class History:
    path: Path
    long_chat: int
    hit: int  # the message id of the long chat's hit
    secret_chat: int
    secret_message: int


def _long_chat_text(index: int) -> str:
    if index == HIT_INDEX:
        return (
            f"Before each step we take a {HIT_WORD} snapshot of the ledger table, so a "
            "failed step rolls back to it."
        )
    if index % 2 == 0:
        return f"Step {index // 2 + 1} of the ledger migration: what runs next?"
    return f"Step {index // 2 + 1} copies the next month of ledger rows into the new table."


def write_history(recall: ChatRecall) -> tuple[int, int, int, int]:
    write_sample(recall)
    host = recall.host
    long_chat = host.create_chat(chat_recall.AppId(1), LONG_CHAT_TITLE, 1_700_200_000)
    ids = [
        host.add_message(
            long_chat,
            Role.USER if index % 2 == 0 else Role.ASSISTANT,
            _long_chat_text(index),
            1_700_200_100 + index * 60,
        )
        for index in range(LONG_CHAT_MESSAGES)
    ]
    secret_chat = host.create_chat(chat_recall.AppId(1), SECRET_CHAT_TITLE, 1_700_300_000)
    secret_message = host.add_message(
        secret_chat,
        Role.USER,
        f"The staging deploy token is {GITHUB_TOKEN} and password={PASSWORD} for the box.",
        1_700_300_100,
    )
    host.add_message(
        secret_chat,
        Role.ASSISTANT,
        "Stored the staging deploy token in the vault; rotate it after the release.",
        1_700_300_160,
    )
    return long_chat, ids[HIT_INDEX], secret_chat, secret_message


def build(path: Path) -> History:
    """The history in a new SQLite database at `path`, indexed."""
    with chat_recall.sqlite(path, create_host_schema=True) as recall:
        long_chat, hit, secret_chat, secret_message = write_history(recall)
        recall.indexer.run_until_idle()
    return History(path, long_chat, hit, secret_chat, secret_message)
