"""The physical document layout both index adapters share, so they rank identically.

Each app has its own table of (title, body, chat_ref) with rowid = message id. The
`chat_ref` column holds one token naming the message's chat; a search excludes the
current chat with `NOT chat_ref : <token>` inside the match, and the column adds one
token to every document's length, in both adapters alike.
"""

from __future__ import annotations

from chat_recall.domain.messages import Role
from chat_recall.domain.model import ChatId

COLUMNS = ("title", "body", "chat_ref")

# Deleted documents reclaimed per maintenance step. Both adapters use the same step, so
# the engine statistics a not-yet-reclaimed document still weighs in move in lockstep.
RECLAIM_PER_STEP = 500
# How far past its window a search reads at most to make up for hidden documents not yet
# reclaimed (the engine ranks before the visibility check): a chat of 10,000 messages
# deleted a moment ago still leaves every window whole.
HIDDEN_READ_PAST = 10_000
# The roles a stored document may hold, as an SQL list: a row with another (damaged
# data) is left out of every read, so it fails no search, and the audits report it.
ROLES_SQL = ", ".join(f"'{role}'" for role in Role.values())


def chat_ref(chat_id: ChatId) -> str:
    """The single token that names a chat in the `chat_ref` column."""
    return f"c{chat_id}" if chat_id >= 0 else f"n{-chat_id}"
