"""`chat-recall list`: list_chats from the terminal."""

from __future__ import annotations

import argparse
from typing import Any

from chat_recall.adapters.cli import database, options, render
from chat_recall.adapters.cli.commands import read

# Tool argument -> the flag that sets it (error messages and hints name the flags).
FLAGS = {
    "after": "--after",
    "before": "--before",
    "order": "--order",
    "limit": "--limit",
    "cursor": "--cursor",
    "include_current": "--include-current",
}


def arguments(parser: argparse.ArgumentParser) -> None:
    from chat_recall.application.tools.list_chats import ListChats

    schema = ListChats.definition.input_schema
    properties = schema["properties"]
    options.add_database(parser)
    options.add_app(parser)
    for name in ("after", "before"):
        parser.add_argument(
            FLAGS[name],
            dest=name,
            metavar="WHEN",
            help=f"{properties[name]['description']} (default: none)",
        )
    order = properties["order"]
    parser.add_argument(
        "--order",
        choices=order["enum"],
        help=f"{order['description']} (default: {order['default']})",
    )
    options.add_tool_flag(parser, "--limit", schema, "limit", help_text="chats to list at most")
    parser.add_argument(
        "--cursor",
        metavar="CURSOR",
        help=f"{properties['cursor']['description']} (default: none, the first page)",
    )
    options.add_current(parser, message=False)
    parser.add_argument(
        "--include-current",
        action="store_true",
        help="list --current-chat too (default: it is left out)",
    )
    options.add_format(parser)


def run(arguments: argparse.Namespace) -> int:
    from chat_recall.application.tools.context import CallContext

    fmt = render.resolve(arguments.format)
    tool_arguments: dict[str, Any] = {
        name: getattr(arguments, name)
        for name in FLAGS
        if getattr(arguments, name, None) not in (None, False)
    }
    context = CallContext(arguments.app, arguments.current_chat)
    with database.open_recall(arguments) as recall:
        outcome = recall.call_tool("list_chats", context, tool_arguments)
    return render.tool_outcome(outcome, fmt, render.list_text, FLAGS, read.scope(arguments))
