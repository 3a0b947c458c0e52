"""`chat-recall`: the command-line driver."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from adapters.cli import demo


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chat-recall", description="Recall what was said in an app's earlier chats."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    handler = arguments.handler
    result: int = handler(arguments)
    return result


if __name__ == "__main__":
    sys.exit(main())
