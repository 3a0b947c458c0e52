"""Output of search, read, list and status in the three formats: `json` (compact; for the tools
exactly the JSON an agent receives), `pretty` (indented JSON) and `text` (a listing for
a person). Tool errors go to standard error, in the same format, with tool argument
names replaced by the flags that set them."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

from chat_recall.adapters.cli.exits import Exit
from chat_recall.domain.wording import counted

if TYPE_CHECKING:
    from chat_recall.application.tools.registry import ToolOutcome

# A text renderer gets the payload, the tool argument -> flag names, and the start of a
# pasteable command with this run's scope flags (`options.command_line`, without its
# command): `chat-recall {command} --db ... --app ...`.
TextRenderer = Callable[[Any, Mapping[str, str], Callable[[str], str]], str]


def resolve(requested: str | None, stream: TextIO | None = None) -> str:
    """The --format to use: text on a terminal, json otherwise, unless asked."""
    if requested is not None:
        return requested
    return "text" if (sys.stdout if stream is None else stream).isatty() else "json"


# `CHAT_RECALL_ERRORS=text|json` says how a tool error is printed, whatever stderr is.
ERRORS_VARIABLE = "CHAT_RECALL_ERRORS"
# What a person does about a tool error of each kind, after its message.
ERROR_FIXES = {
    "not_found": " (chat and message ids come from chat-recall search in the same --app)",
}


def readable_errors(fmt: str, stream: TextIO | None = None) -> bool:
    """Whether a tool error is one readable line (a person reads standard error: it is
    a terminal, or --format text was asked) rather than JSON (a program reads it)."""
    forced = os.environ.get(ERRORS_VARIABLE)
    if forced in ("text", "json"):
        return forced == "text"
    return fmt == "text" or (sys.stderr if stream is None else stream).isatty()


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
    outcome: ToolOutcome,
    fmt: str,
    text: TextRenderer,
    flags: Mapping[str, str],
    command: Callable[[str], str] = lambda name: f"chat-recall {name}",
) -> int:
    failure = outcome.error
    if failure is not None:
        error = {"kind": failure.kind, "message": with_flags(failure.error.message, flags)}
        if readable_errors(fmt):
            fix = ERROR_FIXES.get(failure.kind, "")
            print(f"chat-recall: {error['kind']}: {error['message']}{fix}", file=sys.stderr)
        else:
            print(
                as_json({"error": error}, "pretty" if fmt == "pretty" else "json"), file=sys.stderr
            )
        return Exit.TOOL_ERROR
    if fmt == "json":
        print(outcome.output)
        return Exit.OK
    payload = json.loads(outcome.output)
    if fmt == "pretty":
        print(as_json(payload, fmt))
    else:
        print(text(payload, flags, command), end="")
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
    """Prose lines wrapped to the terminal; code (indented lines, lines with tabs, and
    everything between ``` fences) exactly as written, so it can be read and copied."""
    import textwrap

    lines = []
    fenced = False
    for paragraph in text.splitlines() or [""]:
        fence = paragraph.lstrip().startswith("```")
        if fence or fenced or paragraph[:1] in (" ", "\t") or "\t" in paragraph:
            lines.append((indent + paragraph).rstrip())
            fenced ^= fence
            continue
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
        f"index catching up: {counted(coverage['pending_messages'], 'message')} pending, "
        f"{coverage['indexed_messages']:,} searchable; indexer {coverage['indexer']}"
    )


def search_text(
    payload: Mapping[str, Any], flags: Mapping[str, str], command: Callable[[str], str]
) -> str:
    results = payload["results"]
    out = [
        f"{counted(len(results), 'chat')} matching {payload['query']!r} ({_index_note(payload)})",
        "",
    ]
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
    for note in ("query_note", "index_note"):
        if payload.get(note):
            out += [_wrap(payload[note], ""), ""]
    suggested = payload.get("did_you_mean") or {}
    if suggested:
        query = payload["query"]
        for word, guesses in suggested.items():
            query = re.sub(rf"(?<!\S){re.escape(word)}(?!\S)", guesses[0], query, count=1)
        out.append(f"did you mean: {command('search')} {shlex.quote(query)}")
    if results:
        first = results[0]
        around = first["matches"][0]["message_id"]
        out.append(f"read more: {command('read')} --chat {first['chat_id']} --around {around}")
    return "\n".join(out).rstrip("\n") + "\n"


def _continuation(arguments: Mapping[str, Any], flags: Mapping[str, str]) -> str:
    words = []
    for name, value in arguments.items():
        if value is True:
            words.append(flags.get(name, name))
        elif value is not False:
            words.append(f"{flags.get(name, name)} {value}")
    return " ".join(words)


def read_text(
    payload: Mapping[str, Any], flags: Mapping[str, str], command: Callable[[str], str]
) -> str:
    chat = payload["chat"]
    window = payload["range"]
    title = chat["title"] or "(untitled)"
    out = [
        f"chat {chat['chat_id']}: {title}  (created {_time(chat['created_at'])})",
        f"{counted(window['count'], 'message')} ({payload['mode']} read)",
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
            out.append(f"more {side}: {command('read')} {_continuation(more, flags)}")
    return "\n".join(out).rstrip("\n") + "\n"


# What a person runs for each fix a check names (`Finding.fix`).
_FIXES = {
    "repair": "{command[repair]}",
    "rebuild": "{command[rebuild]} (rebuilds chat-recall's own tables, never the host's)",
    "upgrade": "upgrade chat-recall, or rebuild the index with this one: {command[rebuild]}",
    "install": "{command[install]}",
}


class _Commands(dict[str, str]):
    def __init__(self, command: Callable[[str], str]) -> None:
        super().__init__()
        self.command = command

    def __missing__(self, name: str) -> str:
        return self.command(name)


def status_text(data: Mapping[str, Any], command: Callable[[str], str]) -> str:
    """A status report in plain words: what is indexed, what waits, what is wrong and
    the command that fixes it. The internals (stamps, each check) are `report_text`'s,
    shown with `--verbose`."""
    from chat_recall.domain.host_values import UnreadableReason  # text format only

    commands = _Commands(command)
    out = []
    database = data["database"]
    if data["schema_version"] is None:
        out.append(f"{database}: chat-recall is not installed in this database.")
    elif data.get("backlog") is None:  # the version cannot be used: the checks say why
        out.append(f"{database}: the index cannot be read by this chat-recall.")
    else:
        apps = data["apps"]
        total = sum(app["documents"] for app in apps)
        each = ", ".join(f"app {app['app_id']}: {app['documents']:,}" for app in apps)
        held = f" ({each})" if len(apps) > 1 else ""
        out.append(
            f"{database}: the index holds {counted(total, 'message')} of "
            f"{counted(len(apps), 'app')}{held}."
        )
        language = data.get("language")
        if language and language != "english":  # English, the default, goes unsaid
            out.append(f"Language: {language} (search joins its word families).")
        backlog = data["backlog"]
        if backlog["messages"] or backlog["chats"]:
            waiting = counted(backlog["messages"], "message")
            if backlog["chats"]:
                waiting += f" and {counted(backlog['chats'], 'chat')} to look over"
            out.append(
                f"Waiting to be indexed: {waiting}. Run {command('index')} (an app or "
                "MCP server that runs the indexer takes them in as it goes)."
            )
        else:
            out.append("Nothing waits to be indexed.")
        stamp = data.get("index_stamp") or {}
        if stamp.get("rebuild_pending"):
            out.append(
                "The index was built under other rules (a new release or another mapping) "
                f"and is indexed again in the background: {command('index')} does it now."
            )
        gone = backlog["purges"] + sum(app["deleted_awaiting_maintenance"] for app in apps)
        if gone:
            out.append(
                f"{counted(gone, 'deleted message')} still take room in the index (already "
                "never shown); the indexer's maintenance reclaims them."
            )
    quarantined = data.get("quarantined") or 0
    if quarantined:
        out.append(
            f"Set aside as unreadable: {counted(quarantined, 'message')} (shown by read "
            "with a placeholder, never searchable until fixed):"
        )
        for row in data["quarantined_rows"]:
            app = f", app {row['app_id']}" if row["app_id"] is not None else ""
            out.append(
                f"  message {row['message_id']}{app}: {UnreadableReason(row['reason']).description}"
            )
        out.append(
            "  Fix the rows in the host (or the mapping, --schema), then run "
            f"{command('index')} --retry-quarantined."
        )
    for entry in data.get("not_indexed") or []:
        out.append(
            f"Not indexed, by design: {counted(entry['messages'], 'message')} ({entry['reason']})."
        )
    problems = [check for check in data["checks"] if not check["ok"]]
    for check in problems:
        subject, problem = check["subject"], check["problem"]
        said = problem if subject in problem else f"{subject}: {problem}"
        out.append(f"Problem: {said}")
        fix = _FIXES.get(check["fix"] or "")
        if fix:
            out.append(f"  fix: {fix.format(command=commands)}")
    verdict = "ok" if not problems else f"{counted(len(problems), 'problem')} found"
    out.append(f"status: {verdict}")
    return "\n".join(out) + "\n"


def list_text(
    payload: Mapping[str, Any], flags: Mapping[str, str], command: Callable[[str], str]
) -> str:
    chats = payload["chats"]
    window = payload["window"]
    bounds = [
        f"{word} {_time(window[side])}"
        for side, word in (("after", "from"), ("before", "before"))
        if window[side]
    ]
    within = f", {' and '.join(bounds)}" if bounds else ""
    out = [f"{counted(len(chats), 'chat')}, {payload['order']} first{within}", ""]
    for chat in chats:
        title = chat["title"] or "(untitled)"
        out.append(
            f"chat {chat['chat_id']}: {title}  ({_time(chat['first_message_at'])} – "
            f"{_time(chat['last_message_at'])}, {counted(chat['message_count'], 'message')})"
        )
        if chat["first_user_message"]:
            out.append(_wrap(chat["first_user_message"], "    "))
        out.append("")
    if payload["output_truncated"]:
        out.append("(the page ended early to keep the output within its budget)")
    following = payload["continue_with"]
    if following:
        out.append(f"more: {command('list')} {_continuation(following, flags)}")
    elif chats:
        out.append(f"read one: {command('read')} --chat {chats[0]['chat_id']}")
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
