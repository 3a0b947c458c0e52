"""Imported history: chats read from another product's export, and how a re-import
brings the host's copy up to date (`plan_sync`).

Every chat and message an importer reads keeps the id its source gave it. chat-recall
stores which host row each one became (the import target's links), so importing the
same export again changes nothing, and a newer export of the same account updates the
chats that changed (their new messages added, edited ones rewritten, ones no longer on
the chat's branch removed) and adds the new chats, never a duplicate. A message keeps
its host id while its source id stays, so earlier search hits and reads still point
at it.
"""

from __future__ import annotations

import enum
import hashlib
import json

import attrs

from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId, ChatId, MessageId


class SourceFormat(enum.Enum):
    """The exports chat-recall imports."""

    CHATGPT = "chatgpt"
    CLAUDE = "claude"
    CLAUDE_CODE = "claude-code"
    JSONL = "jsonl"  # chat-recall's own JSON Lines: rows with their host ids

    @property
    def label(self) -> str:
        return _LABELS[self]


_LABELS = {
    SourceFormat.CHATGPT: "ChatGPT",
    SourceFormat.CLAUDE: "Claude",
    SourceFormat.CLAUDE_CODE: "Claude Code",
    SourceFormat.JSONL: "JSON Lines",
}


def _digest(*parts: object) -> str:
    text = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@attrs.frozen
class SourceApp:
    """Where a source's chats go unless the user names an app: one per account export
    (ChatGPT, Claude), per Claude project, per Claude Code project directory. `key` is
    the account's, project's or directory's own id; `label` names it for people."""

    format: SourceFormat
    key: str
    label: str


@attrs.frozen
class ImportedMessage:
    """One message as the host will store it: `content` is what the host's markup
    would hold (payloads in the tags the projection keeps out of the index)."""

    source_id: str
    role: Role
    content: str
    created_at: int  # Unix seconds
    is_compaction_summary: bool = False

    @property
    def fingerprint(self) -> str:
        """Changes whenever what the host stores for the message would."""
        return _digest(self.role.value, self.content, self.created_at, self.is_compaction_summary)


@attrs.frozen
class ImportedChat:
    """One conversation of a source, as the chat it becomes."""

    format: SourceFormat
    source_id: str
    source_app: SourceApp
    title: str | None
    created_at: int  # Unix seconds
    messages: tuple[ImportedMessage, ...]

    @property
    def where(self) -> str:
        """The conversation as reports name it."""
        title = f" ({self.title!r})" if self.title else ""
        return f"{self.format.label} conversation {self.source_id}{title}"

    @property
    def fingerprint(self) -> str:
        """Changes whenever anything the host stores for the chat would."""
        return _digest(
            self.title, self.created_at, [(m.source_id, m.fingerprint) for m in self.messages]
        )


@attrs.frozen
class RefusedRecord:
    """A conversation, file or line that could not be read: where it is and why. The
    records around it are imported."""

    where: str
    why: str

    def __str__(self) -> str:
        return f"{self.where}: {self.why}"


@attrs.frozen
class LinkedMessage:
    source_id: str
    message_id: MessageId
    fingerprint: str


@attrs.frozen
class LinkedChat:
    """What an earlier import made of a source chat: the host chat, where it is, the
    fingerprint it had, and its messages' links."""

    chat_id: ChatId
    app_id: AppId
    fingerprint: str
    messages: tuple[LinkedMessage, ...] = ()


class ChatChange(enum.Enum):
    ADDED = "added"
    UPDATED = "updated"
    UNCHANGED = "unchanged"


@attrs.frozen
class ChatSync:
    """What writing one imported chat takes: a new chat, or the changes that bring an
    earlier import of it up to date (nothing, when it is unchanged)."""

    chat: ImportedChat
    app_id: AppId
    change: ChatChange
    chat_id: ChatId | None = None  # None: a new chat
    add: tuple[ImportedMessage, ...] = ()
    rewrite: tuple[tuple[MessageId, ImportedMessage], ...] = ()
    remove: tuple[MessageId, ...] = ()

    @property
    def writes(self) -> bool:
        return self.change is not ChatChange.UNCHANGED


def plan_sync(chat: ImportedChat, app_id: AppId, linked: LinkedChat | None) -> ChatSync:
    """The changes that make the host hold `chat` in `app_id`, given what an earlier
    import made of it. A message is matched by its source id: a new one is added, a
    changed one rewritten in place (its host id kept), one no longer in the chat
    removed."""
    if linked is None:
        return ChatSync(chat, app_id, ChatChange.ADDED, add=chat.messages)
    if linked.fingerprint == chat.fingerprint and linked.app_id == app_id:
        return ChatSync(chat, app_id, ChatChange.UNCHANGED, linked.chat_id)
    before = {message.source_id: message for message in linked.messages}
    now = {message.source_id for message in chat.messages}
    add = tuple(message for message in chat.messages if message.source_id not in before)
    rewrite = tuple(
        (before[message.source_id].message_id, message)
        for message in chat.messages
        if message.source_id in before
        and before[message.source_id].fingerprint != message.fingerprint
    )
    remove = tuple(
        message.message_id for message in linked.messages if message.source_id not in now
    )
    return ChatSync(chat, app_id, ChatChange.UPDATED, linked.chat_id, add, rewrite, remove)


def chosen_app(linked: list[AppId]) -> AppId | None:
    """The app an account's earlier chats are in, recognised by its chats when the
    export names no account: the app most of them are in (the lowest id on a tie)."""
    if not linked:
        return None
    counts: dict[AppId, int] = {}
    for app_id in linked:
        counts[app_id] = counts.get(app_id, 0) + 1
    return min(counts, key=lambda app_id: (-counts[app_id], app_id))
