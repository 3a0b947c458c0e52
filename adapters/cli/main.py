"""`chat-recall`: the command-line driver.

Agents and scripts call it many times, so start-up is kept short: this module imports
argparse and nothing of chat-recall; a command's module (its flags and its work) is
imported only when that command is the one being run, and `--version` reads the
package metadata only when asked. The cyclic garbage collector is off while a short
command starts and runs (imports allocate a great deal and free almost nothing: it cost
a search a good share of its CPU time, docs/results.md); long-running commands switch it
back on. `program`
is the process's entry point: `main`, then a cheap exit.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Sequence
from typing import NamedTuple, NoReturn


class Command(NamedTuple):
    name: str
    summary: str
    module: str  # under chat_recall.adapters.cli.commands: arguments(parser), run(arguments)
    long_running: bool = False  # runs with the garbage collector on


COMMANDS = (
    Command("init", "create a new database with the reference host tables and the index", "init"),
    Command("install", "add the index to an existing host database", "install"),
    Command("uninstall", "remove the index and its triggers (host rows untouched)", "uninstall"),
    Command(
        "import",
        "import history: ChatGPT, Claude and Claude Code exports, or JSON Lines",
        "import_history",
        True,
    ),
    Command("index", "index what is pending, with progress", "index", True),
    Command("repair", "restore drifted triggers and app registry rows in place", "repair"),
    Command("rebuild", "drop the index and build it again from the host rows", "rebuild", True),
    Command("status", "backlog, versions, apps and index integrity", "status"),
    Command("search", "run search_chats: find earlier chats about something", "search"),
    Command("read", "run read_chat: read part of one chat", "read"),
    Command("list", "run list_chats: list the chats by time", "list"),
    Command("mcp", "serve the tools to an MCP client over stdio", "mcp", True),
    Command("serve", "a search page for people on a local address (web extra)", "serve", True),
    Command("demo", "index a sample history in a temporary database and search it", "demo", True),
)

EPILOG = (
    "Exit codes: 0 ok, 1 failed, 2 usage error, 3 the tool answered with an error "
    "(search, read, list), 4 status found problems. Environment: CHAT_RECALL_DB, "
    "CHAT_RECALL_SCHEMA and CHAT_RECALL_APP stand in for --db, --schema and --app."
)


class _Version(argparse.Action):
    """--version, reading the installed package's metadata only when used."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        import chat_recall

        print(f"chat-recall {chat_recall.__version__}")
        parser.exit()


def _module(command: Command) -> object:
    return importlib.import_module(f"chat_recall.adapters.cli.commands.{command.module}")


def build_parser(selected: str | None = None, *, alone: bool = False) -> argparse.ArgumentParser:
    """The parser; only the `selected` command gets its flags (they may import more).
    With `alone`, the other commands get no parser at all: for a command line that
    starts with the selected command, where the top-level parser has nothing of its own
    to print (building the eleven others was a measurable part of a search's start-up,
    docs/results.md)."""
    parser = argparse.ArgumentParser(
        prog="chat-recall",
        description="Recall what was said in an app's earlier chats.",
        epilog=EPILOG,
        allow_abbrev=False,
    )
    parser.add_argument("--version", action=_Version)
    subcommands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        if alone and command.name != selected:
            continue
        sub = subcommands.add_parser(
            command.name,
            help=command.summary,
            description=command.summary[0].upper() + command.summary[1:] + ".",
            epilog=EPILOG,
            allow_abbrev=False,
        )
        if command.name == selected:
            module = _module(command)
            module.arguments(sub)  # type: ignore[attr-defined]
            # the command's own parser names its usage when a flag is unknown (`main`)
            sub.set_defaults(run=module.run, usage_parser=sub)  # type: ignore[attr-defined]
    return parser


def _selected(argv: Sequence[str]) -> str | None:
    """The command named on the command line (global options take no values)."""
    for token in argv:
        if not token.startswith("-"):
            return token
    return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    collecting = gc.isenabled()
    gc.disable()
    try:
        selected = _selected(argv)
        alone = bool(argv) and argv[0] == selected and selected in {c.name for c in COMMANDS}
        parser = build_parser(selected, alone=alone)
        arguments, unknown = parser.parse_known_args(argv)
        if unknown:  # said with the command's usage, not the program's
            usage = getattr(arguments, "usage_parser", parser)
            usage.error(f"unrecognized arguments: {' '.join(unknown)}")
        from chat_recall.adapters.cli.errors import run

        if collecting and any(c.long_running for c in COMMANDS if c.name == selected):
            gc.enable()
        return run(arguments.run, arguments)
    finally:
        if collecting:
            gc.enable()


def program() -> NoReturn:
    """The `chat-recall` program (and `python -m chat_recall`): `main` with the process's
    arguments, then exit. What is left at exit is frozen first (`gc.freeze`), so the
    interpreter's final garbage collections skip what every command loads and keeps
    (modules, classes, compiled code), a share of a short command's instructions
    (docs/results.md). Exit is otherwise unchanged: output is flushed, atexit handlers run."""
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    program()
