"""ChatGPT's data export (`--from chatgpt`): the zip OpenAI mails, its folder, or its
`conversations.json` alone.

`conversations.json` is a list of conversations; each holds a `mapping` of nodes (a
tree: `parent`, `children`) and `current_node`, where the conversation as last shown
ends. The chat is the branch from the root to `current_node`: a message the user edited,
or an answer regenerated, left its earlier versions on other branches, which are not
imported (they are what the user moved away from; the host's chats have one line of
messages). Without `current_node`, the newest leaf is taken.

On the branch: user messages become user messages (their text parts; images and other
files are left out). Everything the assistant side says until the next user message is
one assistant message, as the host stores a turn: its text as prose, code it wrote
(`content_type` `code`) as a fenced code block, as the projection treats code in prose;
its calls to tools and the tools' results (role `tool`: browsing, code execution
output, image generation) as payload in the host's markup, never indexed. System
messages, hidden ones (`is_visually_hidden_from_conversation`), custom instructions and
the model's reasoning (`thoughts`, `reasoning_recap`) are not imported.

The account: `user.json` beside the conversations names it (`id`), and its chats go to
one app. An export without it is recognised by its conversations (see
`application.importing.ImportHistory`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from posixpath import basename, dirname
from typing import Any, ClassVar

import attrs

from chat_recall.adapters.importers.common import (
    CALL_TAG,
    RESULT_TAG,
    Unusable,
    as_text,
    joined,
    mapping,
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

SNIFF_BYTES = 64 * 1024
SERVER = "chatgpt"
CONVERSATIONS = "conversations.json"
# Content that is never imported: custom instructions and the model's reasoning.
HIDDEN_TYPES = frozenset(
    {"user_editable_context", "model_editable_context", "thoughts", "reasoning_recap"}
)
PROSE_TYPES = frozenset({"text", "multimodal_text"})


def conversations_file(files: SourceFiles, key: str) -> str | None:
    """The export's `conversations.json` (the one nearest the top), else a single JSON
    file whose start holds `key`."""
    names = files.names()
    found = sorted((n for n in names if basename(n) == CONVERSATIONS), key=lambda n: n.count("/"))
    if found:
        return found[0]
    json_files = [n for n in names if n.lower().endswith(".json")]
    if len(json_files) == 1 and key in head(files, json_files[0]):
        return json_files[0]
    return None


def head(files: SourceFiles, name: str) -> str:
    with files.open(name) as handle:
        return handle.read(SNIFF_BYTES).decode("utf-8", "replace")


def load_list(files: SourceFiles, name: str) -> tuple[list[Any] | None, RefusedRecord | None]:
    where = f"{files.label}: {name}" if name != files.label else files.label
    try:
        with files.open(name) as handle:
            data = json.load(handle)
    except (ValueError, UnicodeDecodeError) as error:
        return None, RefusedRecord(where, f"not JSON ({error})")
    if not isinstance(data, list):
        return None, RefusedRecord(where, "not a list of conversations")
    return data, None


class ChatGptImporter:
    format: ClassVar[SourceFormat] = SourceFormat.CHATGPT

    def recognises(self, files: SourceFiles) -> bool:
        name = conversations_file(files, '"mapping"')
        if name is None:
            return False
        start = head(files, name)
        return start.lstrip().startswith("[") and '"mapping"' in start

    def read(self, files: SourceFiles) -> Iterator[ImportRecord]:
        name = conversations_file(files, '"mapping"')
        if name is None:
            yield RefusedRecord(files.label, f"no {CONVERSATIONS} in it")
            return
        conversations, refused = load_list(files, name)
        if refused is not None or conversations is None:
            yield refused or RefusedRecord(files.label, "unreadable")
            return
        source = _account(files, dirname(name))
        for number, conversation in enumerate(conversations, start=1):
            where = f"{files.label}: conversation {number}"
            if isinstance(conversation, dict) and conversation.get("id"):
                where += f" (id {text(conversation.get('id'))})"
            try:
                chat = _chat(conversation, source)
            except Unusable as error:
                yield RefusedRecord(where, str(error))
                continue
            if chat is not None:
                yield chat


def _account(files: SourceFiles, folder: str) -> SourceApp:
    name = f"{folder}/user.json" if folder else "user.json"
    if name in files.names():
        try:
            with files.open(name) as handle:
                user = json.load(handle)
        except (ValueError, UnicodeDecodeError):
            user = None
        account = text(user.get("id")) if isinstance(user, dict) else ""
        if account:
            return SourceApp(SourceFormat.CHATGPT, account, f"ChatGPT account {account}")
    return SourceApp(SourceFormat.CHATGPT, "", f"ChatGPT export {files.label}")


@attrs.define
class _Turn:
    source_id: str
    role: Role
    parts: list[str]
    created_at: int


def _chat(conversation: object, source: SourceApp) -> ImportedChat | None:
    if not isinstance(conversation, dict):
        raise Unusable("not a JSON object")
    source_id = text(conversation.get("conversation_id") or conversation.get("id"))
    if not source_id:
        raise Unusable("no id or conversation_id")
    mapping = conversation.get("mapping")
    if not isinstance(mapping, dict):
        raise Unusable("no mapping of messages")
    started = seconds(conversation.get("create_time"))
    turns = _turns(_branch(mapping, conversation.get("current_node")), started)
    if not turns:
        return None  # nothing the user or the assistant said: nothing to recall
    created_at = started if started is not None else turns[0].created_at
    messages = tuple(
        ImportedMessage(turn.source_id, turn.role, joined(turn.parts), turn.created_at)
        for turn in turns
    )
    first_user = next((m.content for m in messages if m.role is Role.USER), "")
    title = title_of(conversation.get("title"), first_user)
    return ImportedChat(SourceFormat.CHATGPT, source_id, source, title, created_at, messages)


def _branch(mapping: dict[str, Any], current: object) -> list[tuple[str, dict[str, Any]]]:
    """The nodes from the root to `current` (or the newest leaf), root first."""
    nodes = {key: node for key, node in mapping.items() if isinstance(node, dict)}
    if not isinstance(current, str) or current not in nodes:
        leaves = [key for key, node in nodes.items() if not node.get("children")]
        if not leaves:
            return []
        current = max(leaves, key=lambda key: (_created(nodes[key]), key))
    path = []
    seen: set[str] = set()
    key: object = current
    while isinstance(key, str) and key in nodes and key not in seen:
        seen.add(key)
        path.append((key, nodes[key]))
        key = nodes[key].get("parent")
    return path[::-1]


def _created(node: dict[str, Any]) -> float:
    message = node.get("message")
    value = message.get("create_time") if isinstance(message, dict) else None
    return float(value) if isinstance(value, int | float) else 0.0


def _turns(nodes: list[tuple[str, dict[str, Any]]], started: int | None) -> list[_Turn]:
    turns: list[_Turn] = []
    last = started
    for key, node in nodes:
        message = node.get("message")
        if not isinstance(message, dict):
            continue
        author = mapping(message.get("author"))
        metadata = mapping(message.get("metadata"))
        content = mapping(message.get("content"))
        if metadata.get("is_visually_hidden_from_conversation"):
            continue
        if content.get("content_type") in HIDDEN_TYPES:
            continue
        at = seconds(message.get("create_time"))
        at = at if at is not None else last
        role = author.get("role")
        if role == "user":
            prose = _prose(content)
            if prose.strip() and at is not None:
                turns.append(_Turn(text(message.get("id")) or key, Role.USER, [prose], at))
                last = at
            continue
        if role not in ("assistant", "tool"):
            continue  # system messages are never imported
        piece = _piece(role, author, content, message.get("recipient"))
        if not piece:
            continue
        if turns and turns[-1].role is Role.ASSISTANT:
            turns[-1].parts.append(piece)
        elif at is not None:
            turns.append(_Turn(text(message.get("id")) or key, Role.ASSISTANT, [piece], at))
            last = at
    return turns


def _prose(content: dict[str, Any]) -> str:
    """The text parts (a voice message's transcript too); images, files and other
    non-text parts are left out."""
    found = []
    parts = content.get("parts")
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, str):
            found.append(text(part))
        elif isinstance(part, dict) and part.get("content_type") == "audio_transcription":
            found.append(text(part.get("text")))
    if not found and isinstance(content.get("text"), str):
        found.append(text(content["text"]))
    return "\n".join(part for part in found if part)


def _piece(role: str, author: dict[str, Any], content: dict[str, Any], recipient: object) -> str:
    """One assistant-side node as the host's assistant message holds it."""
    kind = content.get("content_type")
    if role == "tool":
        return payload(RESULT_TAG, SERVER, text(author.get("name")) or "tool", _body(content))
    if kind == "code":
        code = text(content.get("text")) or _prose(content)
        language = text(content.get("language"))
        fence = "" if language in ("", "unknown") else language
        return f"```{fence}\n{code}\n```" if code.strip() else ""
    if kind in PROSE_TYPES:
        prose = _prose(content)
        if isinstance(recipient, str) and recipient not in ("", "all"):
            return payload(CALL_TAG, SERVER, recipient, prose)  # an instruction to a tool
        return prose
    return payload(RESULT_TAG, SERVER, text(kind) or "output", _body(content))


def _body(content: dict[str, Any]) -> str:
    for key in ("text", "result"):
        if isinstance(content.get(key), str):
            return text(content[key])
    return _prose(content) or as_text(content)
