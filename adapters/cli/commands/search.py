"""`chat-recall search`: search_chats from the terminal."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from typing import Any

from chat_recall.adapters.cli import database, options, render

# Tool argument -> the flag that sets it (error messages and hints name the flags).
FLAGS = {"query": "QUERY", "limit": "--limit", "after": "--after", "before": "--before"}


def arguments(parser: argparse.ArgumentParser) -> None:
    from chat_recall.application.tools.search_chats import SearchChats

    schema = SearchChats.definition.input_schema
    query = schema["properties"]["query"]
    options.add_database(parser)
    options.add_app(parser)
    options.add_current(parser)
    options.add_tool_flag(parser, "--limit", schema, "limit", help_text="chats to return at most")
    for name in ("after", "before"):
        parser.add_argument(
            FLAGS[name],
            dest=name,
            metavar="WHEN",
            help=f"{schema['properties'][name]['description']} (default: none)",
        )
    options.add_format(parser)
    parser.add_argument(
        "query",
        metavar="QUERY",
        help=(
            f"{query['description']} ({query['minLength']}-{query['maxLength']} characters; "
            "quote several words)"
        ),
    )


def scope(arguments: argparse.Namespace) -> Callable[[str], str]:
    """A command's pasteable start, with this run's scope flags (see `render`)."""
    return functools.partial(options.command_line, arguments)


def run(arguments: argparse.Namespace) -> int:
    from chat_recall.application.tools.context import CallContext

    fmt = render.resolve(arguments.format)
    tool_arguments: dict[str, Any] = {"query": arguments.query}
    for name in ("limit", "after", "before"):
        if getattr(arguments, name) is not None:
            tool_arguments[name] = getattr(arguments, name)
    context = CallContext(arguments.app, arguments.current_chat, arguments.current_message)
    with database.open_recall(arguments) as recall:
        outcome = recall.call_tool("search_chats", context, tool_arguments)
    return render.tool_outcome(outcome, fmt, render.search_text, FLAGS, scope(arguments))
