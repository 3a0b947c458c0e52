"""Output of search, read, list and status in the three formats: `json` (compact; for the tools
exactly the JSON an agent receives), `pretty` (indented JSON) and `text` (a listing for
a person). Tool errors go to standard error, in the same format, with tool argument
names replaced by the flags that set them."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

from chat_recall.adapters.cli.exits import Exit

if TYPE_CHECKING:
    from chat_recall.application.tools.registry import ToolOutcome

TextRenderer = Callable[[Any, Mapping[str, str]], str]


def resolve(requested: str | None, stream: TextIO | None = None) -> str:
    """The --format to use: text on a terminal, json otherwise, unless asked."""
    if requested is not None:
        return requested
    return "text" if (sys.stdout if stream is None else stream).isatty() else "json"


def as_json(payload: Any, fmt: str) -> str:
    if fmt == "pretty":
        return json.dumps(payload, ensure_ascii=False, indent=2)
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def with_flags(message: str, flags: Mapping[str, str]) -> str:
    """`before/after need around_message_id` -> `--before/--after need --around`."""
    if not flags:
        return message
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, flags)) + r")\b")
    return pattern.sub(lambda match: flags[match.group(1)], message)


def tool_outcome(
    outcome: ToolOutcome, fmt: str, text: TextRenderer, flags: Mapping[str, str]
) -> int:
    failure = outcome.error
    if failure is not None:
        error = {"kind": failure.kind, "message": with_flags(failure.error.message, flags)}
        if fmt == "text":
            print(f"chat-recall: {error['kind']}: {error['message']}", file=sys.stderr)
        else:
            print(as_json({"error": error}, fmt), file=sys.stderr)
        return Exit.TOOL_ERROR
    if fmt == "json":
        print(outcome.output)
        return Exit.OK
    payload = json.loads(outcome.output)
    if fmt == "pretty":
        print(as_json(payload, fmt))
    else:
        print(text(payload, flags), end="")
    return Exit.OK


def _width() -> int:
    import shutil  # here and below: only the text format needs them

    return max(40, min(shutil.get_terminal_size((100, 24)).columns, 120))


def _time(iso: str | None) -> str:
    """`2023-11-14T22:13:20.000Z` -> `2023-11-14 22:13 UTC`."""
    if not iso:
        return "unknown time"
    return iso[:10] + " " + iso[11:16] + " UTC"


def _wrap(text: str, indent: str) -> str:
    import textwrap

    lines = []
    for paragraph in text.splitlines() or [""]:
        lines.append(
            textwrap.fill(paragraph, _width(), initial_indent=indent, subsequent_indent=indent)
            or indent.rstrip()
        )
    return "\n".join(lines)


def _index_note(payload: Mapping[str, Any]) -> str:
    coverage = payload.get("index_coverage")
    if not coverage:
        return "index up to date"
    return (
        f"index catching up: {coverage['pending_messages']:,} messages pending, "
        f"{coverage['indexed_messages']:,} searchable; indexer {coverage['indexer']}"
    )


def search_text(payload: Mapping[str, Any], flags: Mapping[str, str]) -> str:
    results = payload["results"]
    count = f"{len(results)} chat{'s' if len(results) != 1 else ''}"
    out = [f"{count} matching {payload['query']!r} ({_index_note(payload)})", ""]
    for chat in results:
        title = chat["title"] or "(untitled)"
        out.append(
            f"chat {chat['chat_id']}: {title}  (last message {_time(chat['last_message_at'])})"
        )
        for match in chat["matches"]:
            out.append(
                f"  message {match['message_id']}, {match['role']}, {_time(match['created_at'])}"
            )
            out.append(_wrap(match["excerpt"], "    "))
        out.append("")
    if payload["results_truncated"]:
        out.append("(more results were cut to keep the output within its budget)")
    if results:
        first = results[0]
        around = first["matches"][0]["message_id"]
        out.append(f"read more: chat-recall read --chat {first['chat_id']} --around {around}")
    return "\n".join(out).rstrip("\n") + "\n"


def _continuation(arguments: Mapping[str, Any], flags: Mapping[str, str]) -> str:
    words = []
    for name, value in arguments.items():
        if value is True:
            words.append(flags.get(name, name))
        elif value is not False:
            words.append(f"{flags.get(name, name)} {value}")
    return " ".join(words)


def read_text(payload: Mapping[str, Any], flags: Mapping[str, str]) -> str:
    chat = payload["chat"]
    window = payload["range"]
    title = chat["title"] or "(untitled)"
    out = [
        f"chat {chat['chat_id']}: {title}  (created {_time(chat['created_at'])})",
        f"{window['count']} message{'s' if window['count'] != 1 else ''} ({payload['mode']} read)",
    ]
    if payload["ignored_arguments"]:
        ignored = ", ".join(flags.get(name, name) for name in payload["ignored_arguments"])
        out.append(f"ignored: {ignored} (they only apply to a page read)")
    for message in payload["messages"]:
        cut = ", cut" if message["truncated"] else ""
        out += [
            "",
            f"── message {message['message_id']}, {message['role']}, "
            f"{_time(message['created_at'])}{cut}",
            _wrap(message["text"], ""),
        ]
    out.append("")
    for side in ("before", "after"):
        more = payload[f"continue_{side}"]
        if more:
            out.append(f"more {side}: {_continuation(more, flags)}")
    return "\n".join(out).rstrip("\n") + "\n"


def list_text(payload: Mapping[str, Any], flags: Mapping[str, str]) -> str:
    chats = payload["chats"]
    window = payload["window"]
    bounds = [
        f"{word} {_time(window[side])}"
        for side, word in (("after", "from"), ("before", "before"))
        if window[side]
    ]
    within = f", {' and '.join(bounds)}" if bounds else ""
    count = f"{len(chats)} chat{'s' if len(chats) != 1 else ''}"
    out = [f"{count}, {payload['order']} first{within}", ""]
    for chat in chats:
        title = chat["title"] or "(untitled)"
        messages = chat["message_count"]
        out.append(
            f"chat {chat['chat_id']}: {title}  ({_time(chat['first_message_at'])} – "
            f"{_time(chat['last_message_at'])}, {messages:,} message{'s' if messages != 1 else ''})"
        )
        if chat["first_user_message"]:
            out.append(_wrap(chat["first_user_message"], "    "))
        out.append("")
    if payload["output_truncated"]:
        out.append("(the page ended early to keep the output within its budget)")
    following = payload["continue_with"]
    if following:
        out.append(f"more: chat-recall list {_continuation(following, flags)}")
    elif chats:
        out.append(f"read one: chat-recall read --chat {chats[0]['chat_id']}")
    return "\n".join(out).rstrip("\n") + "\n"


def _scalar(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _label(key: str) -> str:
    return key.replace("_", " ")


def _inline(value: Mapping[str, Any]) -> str:
    return ", ".join(f"{_label(key)} {_scalar(item)}" for key, item in value.items())


def report_text(data: Mapping[str, Any]) -> str:
    """Any report (JSON-like data) as `key: value` lines: nested objects on one line,
    lists of objects one per line. New fields show up without changes here."""
    out = []
    for key, value in data.items():
        if isinstance(value, Mapping):
            out.append(f"{_label(key)}: {_inline(value)}")
        elif isinstance(value, list):
            if not value:
                out.append(f"{_label(key)}: none")
                continue
            out.append(f"{_label(key)}:")
            for item in value:
                out.append(f"  {_inline(item) if isinstance(item, Mapping) else _scalar(item)}")
        else:
            out.append(f"{_label(key)}: {_scalar(value)}")
    return "\n".join(out) + "\n"
