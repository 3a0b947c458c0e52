"""Claude.ai's data export (`--from claude`): the zip Anthropic mails, its folder, or its
`conversations.json` alone.

`conversations.json` is a list of conversations (`uuid`, `name`, `created_at`,
`chat_messages`). Each message is the human's or the assistant's (`sender`), with its
`content` blocks (or, in older exports, its `text`): text becomes prose; the
assistant's `thinking` is not imported; `tool_use` and `tool_result` are payload in the
host's markup (never indexed, never shown). A file the user attached is named in the
message (`[attached: notes.pdf]`), its extracted text is not imported: user messages
are indexed as written, so a document pasted through them would be searched as if the
user had said it. Messages that name their parent (`parent_message_uuid`) are read
along the branch that ends at the conversation's last message, as ChatGPT's are.

Apps: one per account (`account.uuid` on each conversation, else `users.json`), and
one per project for the conversations of a project (`project_uuid` or `project.uuid`;
`projects.json` gives its name).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from posixpath import dirname
from typing import Any, ClassVar

from chat_recall.adapters.importers.chatgpt import conversations_file, head, load_list
from chat_recall.adapters.importers.common import (
    CALL_TAG,
    RESULT_TAG,
    Unusable,
    as_text,
    joined,
    payload,
    seconds,
    text,
    title_of,
)
from chat_recall.application.importing import ImportRecord, SourceFiles
from chat_recall.domain.imports import (
    ImportedChat,
    ImportedMessage,
    RefusedRecord,
    SourceApp,
    SourceFormat,
)
from chat_recall.domain.messages import Role

SERVER = "claude"
ROLES = {"human": Role.USER, "user": Role.USER, "assistant": Role.ASSISTANT}


class ClaudeImporter:
    format: ClassVar[SourceFormat] = SourceFormat.CLAUDE

    def recognises(self, files: SourceFiles) -> bool:
        name = conversations_file(files, '"chat_messages"')
        if name is None:
            return False
        start = head(files, name)
        return start.lstrip().startswith("[") and '"chat_messages"' in start

    def read(self, files: SourceFiles) -> Iterator[ImportRecord]:
        name = conversations_file(files, '"chat_messages"')
        if name is None:
            yield RefusedRecord(files.label, "no conversations.json in it")
            return
        conversations, refused = load_list(files, name)
        if refused is not None or conversations is None:
            yield refused or RefusedRecord(files.label, "unreadable")
            return
        folder = dirname(name)
        account = _account(files, folder)
        projects = _projects(files, folder)
        for number, conversation in enumerate(conversations, start=1):
            where = f"{files.label}: conversation {number}"
            if isinstance(conversation, dict) and conversation.get("uuid"):
                where += f" (uuid {text(conversation.get('uuid'))})"
            try:
                chat = _chat(conversation, account, projects, files.label)
            except Unusable as error:
                yield RefusedRecord(where, str(error))
                continue
            if chat is not None:
                yield chat


def _json(files: SourceFiles, name: str) -> Any:
    if name not in files.names():
        return None
    try:
        with files.open(name) as handle:
            return json.load(handle)
    except (ValueError, UnicodeDecodeError):
        return None


def _in(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _account(files: SourceFiles, folder: str) -> str:
    users = _json(files, _in(folder, "users.json"))
    if isinstance(users, list) and users and isinstance(users[0], dict):
        return text(users[0].get("uuid"))
    return ""


def _projects(files: SourceFiles, folder: str) -> dict[str, str]:
    projects = _json(files, _in(folder, "projects.json"))
    if not isinstance(projects, list):
        return {}
    return {
        text(project.get("uuid")): text(project.get("name"))
        for project in projects
        if isinstance(project, dict) and project.get("uuid")
    }


def _source(
    conversation: dict[str, Any], account: str, projects: dict[str, str], label: str
) -> SourceApp:
    project = conversation.get("project")
    project_id = text(conversation.get("project_uuid")) or (
        text(project.get("uuid")) if isinstance(project, dict) else ""
    )
    if project_id:
        name = projects.get(project_id) or (
            text(project.get("name")) if isinstance(project, dict) else ""
        )
        return SourceApp(
            SourceFormat.CLAUDE, f"project:{project_id}", f"Claude project {name or project_id}"
        )
    owner = conversation.get("account")
    account = (text(owner.get("uuid")) if isinstance(owner, dict) else "") or account
    if account:
        return SourceApp(SourceFormat.CLAUDE, f"account:{account}", f"Claude account {account}")
    return SourceApp(SourceFormat.CLAUDE, "", f"Claude export {label}")


def _chat(
    conversation: object, account: str, projects: dict[str, str], label: str
) -> ImportedChat | None:
    if not isinstance(conversation, dict):
        raise Unusable("not a JSON object")
    source_id = text(conversation.get("uuid"))
    if not source_id:
        raise Unusable("no uuid")
    listed = conversation.get("chat_messages")
    if not isinstance(listed, list):
        raise Unusable("no chat_messages list")
    started = seconds(conversation.get("created_at"))
    messages: list[ImportedMessage] = []
    last = started
    for entry in _branch([m for m in listed if isinstance(m, dict)]):
        role = ROLES.get(text(entry.get("sender")))
        at = seconds(entry.get("created_at"))
        at = at if at is not None else last
        if role is None or at is None:
            continue
        content = _content(entry, role)
        if not content.strip():
            continue
        message_id = text(entry.get("uuid")) or f"{source_id}:{len(messages)}"
        messages.append(ImportedMessage(message_id, role, content, at))
        last = at
    if not messages:
        return None
    first_user = next((m.content for m in messages if m.role is Role.USER), "")
    title = title_of(conversation.get("name"), first_user)
    created_at = started if started is not None else messages[0].created_at
    source = _source(conversation, account, projects, label)
    return ImportedChat(SourceFormat.CLAUDE, source_id, source, title, created_at, tuple(messages))


def _branch(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages in order; where they name parents, the branch that ends at the
    last one."""
    if not entries or not all("parent_message_uuid" in entry for entry in entries):
        return entries
    by_id = {text(entry.get("uuid")): entry for entry in entries}
    path = []
    seen: set[str] = set()
    key = text(entries[-1].get("uuid"))
    while key in by_id and key not in seen:
        seen.add(key)
        path.append(by_id[key])
        key = text(by_id[key].get("parent_message_uuid"))
    return path[::-1]


def _content(entry: dict[str, Any], role: Role) -> str:
    blocks = entry.get("content")
    parts = []
    if isinstance(blocks, list) and blocks:
        for block in blocks:
            if isinstance(block, dict):
                parts.append(_block(block, role))
    else:
        parts.append(text(entry.get("text")))
    for key in ("attachments", "files"):
        for item in entry.get(key) or []:
            if isinstance(item, dict) and text(item.get("file_name")):
                parts.append(f"[attached: {text(item.get('file_name'))}]")
    return joined(parts)


def _block(block: dict[str, Any], role: Role) -> str:
    kind = block.get("type")
    if kind == "text":
        return text(block.get("text"))
    if role is Role.USER:
        return ""  # a user's message is its own words: payload has no place there
    if kind == "tool_use":
        return payload(CALL_TAG, SERVER, text(block.get("name")), as_text(block.get("input")))
    if kind == "tool_result":
        return payload(RESULT_TAG, SERVER, text(block.get("name")), as_text(block.get("content")))
    return ""  # thinking, and what the export may add later: never as prose
