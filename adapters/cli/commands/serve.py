"""`chat-recall serve`: the search page for people, on a local address.

The page's stack (the `web` extra) is imported only when it is served: the flags and
their help need none of it. Like the MCP server, the process keeps the index fresh
itself unless `--read-only` (the host runs the indexer)."""

from __future__ import annotations

import argparse
import functools
import ipaddress
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from chat_recall.adapters.cli import database, options
from chat_recall.adapters.cli.errors import fail
from chat_recall.adapters.cli.exits import Exit

if TYPE_CHECKING:
    from chat_recall.application.service import ChatRecall

INSTALL_HINT = (
    "chat-recall serve needs the web extra, which is not installed here ({missing}). From "
    "a checkout: pip install '.[web]'; with pipx: pipx install '.[web]'; with uv: "
    "uv tool install '.[web]'"
)
DEFAULT_HOST = "127.0.0.1"  # the same as adapters.web.server's, without importing it
DEFAULT_PORT = 8765


def address(text: str) -> str:
    """An argparse type: an IP address to serve on (`localhost`: 127.0.0.1). Not a
    wildcard: the page answers only requests for the address it serves (its Host
    check), and a wildcard names no address."""
    if text == "localhost":
        return DEFAULT_HOST
    try:
        parsed = ipaddress.ip_address(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an IP address, got {text!r}") from None
    if parsed.is_unspecified:
        raise argparse.ArgumentTypeError(
            f"{text} is every address: give the one address to serve on"
        )
    return str(parsed)


def add_address(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        type=address,
        default=DEFAULT_HOST,
        metavar="ADDRESS",
        help=(
            "the IP address to serve on; the page answers only requests for it "
            f"(default: {DEFAULT_HOST}, this machine only)"
        ),
    )
    parser.add_argument(
        "--port",
        type=options.IntRange(0, 65535),
        default=DEFAULT_PORT,
        metavar="N",
        help=f"the port to serve on; 0 picks a free one (0-65535, default {DEFAULT_PORT})",
    )


def arguments(parser: argparse.ArgumentParser) -> None:
    options.add_database(parser)
    app = os.environ.get(options.APP_VARIABLE) or None
    parser.add_argument(
        "--app",
        metavar="ID",
        type=options.IntRange(None, None),
        default=None if app is None else options.IntRange(None, None)(app),
        help=(
            f"serve this app's chats only (default: ${options.APP_VARIABLE}, else the first "
            "page lists the database's apps)"
        ),
    )
    add_address(parser)
    options.add_planning(parser)
    parser.add_argument(
        "--read-only",
        action="store_true",
        help=(
            "do not run the indexer in this process: the host runs it (default: the page "
            "keeps the index fresh itself, on its own write connection)"
        ),
    )


def missing_extra() -> int | None:
    """The failure to report when the web extra is not installed, else None."""
    try:
        import chat_recall.adapters.web.server  # noqa: F401  (the extra is here)
    except ImportError as error:
        return fail(INSTALL_HINT.format(missing=f"no module named {error.name!r}"))
    return None


def run(arguments: argparse.Namespace) -> int:
    missing = missing_extra()
    if missing is not None:
        return missing
    recall = database.open_recall(arguments)
    try:
        apps = functools.partial(database.admin(arguments).registered_apps, recall)
        if not arguments.read_only:
            recall.start()
        return serve(
            recall,
            apps,
            app=arguments.app,
            host=arguments.host,
            port=arguments.port,
            fresh=not arguments.read_only,
        )
    finally:
        recall.close()


def serve(
    recall: ChatRecall,
    apps: Callable[[], Sequence[int]],
    *,
    app: int | None,
    host: str,
    port: int,
    fresh: bool,
) -> int:
    """Serve the page over `recall` until Ctrl-C (`chat-recall serve`, `demo --serve`)."""
    from chat_recall.adapters.web.app import Site
    from chat_recall.adapters.web.server import PageServer
    from chat_recall.domain.model import AppId

    site = Site(recall, apps, None if app is None else AppId(app), fresh=fresh)
    try:
        server = PageServer.bind(site, host, port)
    except OSError as error:
        return fail(f"cannot serve on {host}:{port}: {error.strerror or error}")
    print(f"chat-recall: the search page is at {server.url} (Ctrl-C stops it)", flush=True)
    server.run()
    print("chat-recall: stopped", file=sys.stderr)
    return Exit.OK
