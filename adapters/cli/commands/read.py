"""`chat-recall read`: read_chat from the terminal."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from typing import Any

from chat_recall.adapters.cli import database, options, render

# Tool argument -> the flag that sets it (error messages and hints name the flags).
FLAGS = {
    "chat_id": "--chat",
    "around_message_id": "--around",
    "before": "--before",
    "after": "--after",
    "offset": "--offset",
    "limit": "--limit",
}


def arguments(parser: argparse.ArgumentParser) -> None:
    from chat_recall.application.tools.read_chat import ReadChat

    schema = ReadChat.definition.input_schema
    options.add_database(parser)
    options.add_app(parser)
    parser.add_argument(
        "--chat",
        dest="chat_id",
        metavar="ID",
        type=options.IntRange(schema["properties"]["chat_id"]["minimum"], None),
        required=True,
        help="the chat to read (required)",
    )
    around = parser.add_argument_group(
        "around a message", "read the messages around one message, e.g. a search hit"
    )
    options.add_tool_flag(around, "--around", schema, "around_message_id")
    options.add_tool_flag(
        around, "--before", schema, "before", help_text="messages before the --around message"
    )
    options.add_tool_flag(
        around, "--after", schema, "after", help_text="messages after the --around message"
    )
    page = parser.add_argument_group("a page", "read the chat in order, a page at a time")
    options.add_tool_flag(page, "--offset", schema, "offset")
    options.add_tool_flag(page, "--limit", schema, "limit")
    options.add_current(parser)
    options.add_format(parser)


def scope(arguments: argparse.Namespace) -> Callable[[str], str]:
    """A command's pasteable start, with this run's scope flags (see `render`)."""
    return functools.partial(options.command_line, arguments)


def run(arguments: argparse.Namespace) -> int:
    from chat_recall.application.tools.context import CallContext

    fmt = render.resolve(arguments.format)
    tool_arguments: dict[str, Any] = {
        name: getattr(arguments, name)
        for name in FLAGS
        if getattr(arguments, name, None) is not None
    }
    context = CallContext(arguments.app, arguments.current_chat, arguments.current_message)
    with database.open_recall(arguments) as recall:
        outcome = recall.call_tool("read_chat", context, tool_arguments)
    return render.tool_outcome(outcome, fmt, render.read_text, FLAGS, scope(arguments))
