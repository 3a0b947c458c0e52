"""`chat-recall mcp`: serve the tools to an MCP client over stdio.

Start-up problems never end the process before the handshake: the server starts
anyway and every tool call answers with the problem and its fix (and the same hint goes
to standard error, which MCP clients keep in their logs)."""

from __future__ import annotations

import argparse
import functools
import sys

from chat_recall.adapters.cli import database, options
from chat_recall.adapters.cli.errors import fail
from chat_recall.domain.errors import ChatRecallError, InvalidArguments

INSTALL_HINT = (
    "chat-recall mcp needs the MCP SDK, which is not installed here ({missing}). From a "
    "checkout: pip install '.[mcp]'; with pipx: pipx install '.[mcp]'; with uv: "
    "uv tool install '.[mcp]'"
)


def arguments(parser: argparse.ArgumentParser) -> None:
    options.add_database(parser)
    options.add_app(parser, required=False)
    options.add_current(parser, message=False)
    options.add_planning(parser)
    parser.add_argument(
        "--read-only",
        action="store_true",
        help=(
            "do not run the indexer in this process: the host runs it (default: the server "
            "keeps the index fresh itself, on its own write connection)"
        ),
    )


def run(arguments: argparse.Namespace) -> int:
    try:
        from chat_recall.adapters import mcp_server
    except ImportError as error:
        return fail(INSTALL_HINT.format(missing=f"no module named {error.name!r}"))
    from chat_recall.application.tools.context import CallContext

    try:
        if arguments.app is None:
            raise InvalidArguments(
                f"no app: add --app ID to the server's arguments (or set ${options.APP_VARIABLE})"
            )
        recall = database.open_recall(arguments)
    except ChatRecallError as error:
        print(f"chat-recall mcp: cannot serve: {error}", file=sys.stderr)
        recovery = None
        if arguments.app is not None:  # no database or not installed yet: tried per call
            recovery = mcp_server.Recovery(
                functools.partial(database.open_recall, arguments),
                CallContext(arguments.app, arguments.current_chat),
                index=not arguments.read_only,
            )
        return 0 if mcp_server.serve_problem(str(error), recovery) else 1
    context = CallContext(arguments.app, arguments.current_chat)
    mcp_server.serve(recall, context, index=not arguments.read_only)
    return 0
