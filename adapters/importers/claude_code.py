"""Claude Code's sessions (`--from claude-code`): one JSON Lines file per session under
a project directory (`~/.claude/projects/<project>/<session>.jsonl`); the whole tree,
one project directory, a session file, or a zip of them.

A session is a chat. Its lines link to their parent (`parentUuid`, or across a
compaction `logicalParentUuid`): the chat is the branch that ends at the session's last
message, so a conversation the user rewound and took elsewhere keeps only where it
went, as ChatGPT's edited branches do. A user's prompt is a user message; everything
Claude does until the next prompt is one assistant message, as the host stores a turn:
its text as prose, its tool calls and the tools' results (which Claude Code writes as
user lines) as payload in the host's markup, never indexed; its thinking is not
imported. Meta lines, slash-command bookkeeping and system lines are not messages. A
compaction's summary becomes the host's compaction summary.

Sidechains (`isSidechain`: a subagent Claude started with its Task tool) become chats
of their own, one per subagent run, titled by the task it was given: their findings
stay searchable without interleaving the subagent's steps into the session's order.

Apps: one per project directory (its name is the key, `cwd` names it for people).
A line that cannot be read is reported by file and line number; the rest of the
session is imported.
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
    TITLE_CHARS,
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
from chat_recall.domain.projection.text import clip_chars

SNIFF_LINES = 20
SERVER = "claude-code"
MESSAGE_TYPES = ("user", "assistant")
# Claude Code's bookkeeping of slash commands and their local output, written as user
# text: not something the user said.
COMMAND_MARKUP = ("<command-name>", "<command-message>", "<local-command-stdout>")


class ClaudeCodeImporter:
    format: ClassVar[SourceFormat] = SourceFormat.CLAUDE_CODE

    def recognises(self, files: SourceFiles) -> bool:
        sessions = _sessions(files)
        return bool(sessions) and any(_looks_like_session(files, name) for name in sessions[:3])

    def read(self, files: SourceFiles) -> Iterator[ImportRecord]:
        sessions = _sessions(files)
        if not sessions:
            yield RefusedRecord(files.label, "no session files (.jsonl) in it")
            return
        for name in sessions:
            yield from _session(files, name)


def _sessions(files: SourceFiles) -> list[str]:
    return [name for name in files.names() if name.endswith(".jsonl")]


def _looks_like_session(files: SourceFiles, name: str) -> bool:
    with files.open(name) as handle:
        for _, raw in zip(range(SNIFF_LINES), handle, strict=False):
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if isinstance(line, dict) and ("sessionId" in line or line.get("type") == "summary"):
                return True
    return False


def _where(files: SourceFiles, name: str) -> str:
    return files.label if basename(files.label) == name else f"{files.label}: {name}"


def _session(files: SourceFiles, name: str) -> Iterator[ImportRecord]:
    where = _where(files, name)
    lines: list[dict[str, Any]] = []
    with files.open(name) as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                line = json.loads(raw.decode("utf-8"))
            except (ValueError, UnicodeDecodeError) as error:
                yield RefusedRecord(f"{where} line {number}", f"not a JSON line ({error})")
                continue
            if not isinstance(line, dict):
                yield RefusedRecord(f"{where} line {number}", "not a JSON object")
                continue
            lines.append(line)
    project = basename(dirname(name)) or basename(dirname(files.label.rstrip("/"))) or "project"
    cwd = next((text(line.get("cwd")) for line in lines if line.get("cwd")), "")
    source = SourceApp(SourceFormat.CLAUDE_CODE, project, f"Claude Code project {cwd or project}")
    session = next(
        (text(line.get("sessionId")) for line in lines if line.get("sessionId")),
        basename(name).removesuffix(".jsonl"),
    )
    summaries = [text(line.get("summary")) for line in lines if line.get("type") == "summary"]
    by_id = {text(line.get("uuid")): line for line in lines if line.get("uuid")}
    main = [line for line in lines if not line.get("isSidechain")]
    main_chat = _chat(source, session, _branch(main, by_id), summaries[-1] if summaries else "")
    if main_chat is not None:
        yield main_chat
    for root, chain in _sidechains(lines, by_id).items():
        chat = _chat(source, f"{session}/{root}", chain, "", subagent=True)
        if chat is not None:
            yield chat


def _parent(line: dict[str, Any]) -> str:
    return text(line.get("parentUuid") or line.get("logicalParentUuid"))


def _branch(lines: list[dict[str, Any]], by_id: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The message lines on the branch that ends at the last message line."""
    messages = [line for line in lines if line.get("type") in MESSAGE_TYPES]
    if not messages:
        return []
    on_path: set[str] = set()
    key = text(messages[-1].get("uuid"))
    while key and key in by_id and key not in on_path:
        on_path.add(key)
        key = _parent(by_id[key])
    if not on_path:  # lines without ids: the file's order
        return messages
    return [line for line in messages if text(line.get("uuid")) in on_path]


def _sidechains(
    lines: list[dict[str, Any]], by_id: dict[str, dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """Each subagent run's message lines, by the id of its first line."""
    runs: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        if not line.get("isSidechain") or line.get("type") not in MESSAGE_TYPES:
            continue
        root = text(line.get("uuid"))
        seen: set[str] = set()
        parent = _parent(line)
        while parent in by_id and by_id[parent].get("isSidechain") and parent not in seen:
            seen.add(parent)
            root = parent
            parent = _parent(by_id[parent])
        runs.setdefault(root, []).append(line)
    return runs


@attrs.define
class _Turn:
    source_id: str
    role: Role
    parts: list[str]
    created_at: int
    summary: bool = False


def _chat(
    source: SourceApp,
    session: str,
    lines: list[dict[str, Any]],
    title: str,
    *,
    subagent: bool = False,
) -> ImportedChat | None:
    turns = _turns(lines)
    if not turns:
        return None
    messages = tuple(
        ImportedMessage(
            turn.source_id,
            turn.role,
            joined(turn.parts),
            turn.created_at,
            is_compaction_summary=turn.summary,
        )
        for turn in turns
    )
    first_user = next((m.content for m in messages if m.role is Role.USER), "")
    if subagent:
        title = "Subagent: " + clip_chars(" ".join(first_user.split()), TITLE_CHARS)
    return ImportedChat(
        SourceFormat.CLAUDE_CODE,
        session,
        source,
        title_of(title, first_user),
        messages[0].created_at,
        messages,
    )


def _turns(lines: list[dict[str, Any]]) -> list[_Turn]:
    turns: list[_Turn] = []
    last: int | None = None
    tools: dict[str, str] = {}  # a tool call's id -> the tool's name, for its result
    for line in lines:
        at = seconds(line.get("timestamp"))
        at = at if at is not None else last
        if at is None or line.get("isMeta"):
            continue
        last = at
        message = mapping(line.get("message"))
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        key = text(line.get("uuid")) or f"line-{len(turns)}"
        if line.get("type") == "user":
            prose = joined(
                text(block.get("text"))
                for block in blocks
                if isinstance(block, dict) and block.get("type") == "text"
            )
            results = [
                payload(
                    RESULT_TAG,
                    SERVER,
                    tools.get(text(block.get("tool_use_id")), "tool"),
                    as_text(block.get("content")),
                )
                for block in blocks
                if isinstance(block, dict) and block.get("type") == "tool_result"
            ]
            if results:
                _assistant(turns, key, at).parts.extend(results)
            if line.get("isCompactSummary") and prose.strip():
                summary = (
                    '<dyad-compaction title="Conversation summary" state="finished">'
                    f"{prose}</dyad-compaction>"
                )
                turns.append(_Turn(key, Role.ASSISTANT, [summary], at, summary=True))
            elif prose.strip() and not prose.lstrip().startswith(COMMAND_MARKUP):
                turns.append(_Turn(key, Role.USER, [prose], at))
            continue
        pieces = []
        for block in blocks:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                pieces.append(text(block.get("text")))
            elif block.get("type") == "tool_use":
                tool = text(block.get("name"))
                tools[text(block.get("id"))] = tool
                pieces.append(payload(CALL_TAG, SERVER, tool, as_text(block.get("input"))))
        if any(piece.strip() for piece in pieces):
            _assistant(turns, key, at).parts.extend(pieces)
    return turns


def _assistant(turns: list[_Turn], key: str, at: int) -> _Turn:
    """The assistant turn under way, or a new one."""
    if turns and turns[-1].role is Role.ASSISTANT and not turns[-1].summary:
        return turns[-1]
    turns.append(_Turn(key, Role.ASSISTANT, [], at))
    return turns[-1]
