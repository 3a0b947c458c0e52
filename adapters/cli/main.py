"""`chat-recall`: the command-line driver."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from chat_recall.adapters.cli import commands, demo
from chat_recall.domain.errors import ChatRecallError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chat-recall", description="Recall what was said in an app's earlier chats."
    )
    subcommands = parser.add_subparsers(dest="command", required=True)
    demo.register(subcommands)
    commands.register(subcommands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    try:
        result: int = arguments.handler(arguments)
    except ChatRecallError as error:
        return commands.report_error(error)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into a command that stopped reading
        sys.stderr.close()
        return 0
    return result


if __name__ == "__main__":
    sys.exit(main())
