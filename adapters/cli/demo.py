"""`chat-recall demo`: a sample history, cleaned as the index would hold it."""

from __future__ import annotations

import argparse
from typing import Any

from adapters.cli.sample_history import SAMPLE_MESSAGES
from domain.projection import project_for_read, project_for_search


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "demo", help="show what chat-recall keeps of a realistic sample history"
    )
    parser.set_defaults(handler=run)


def run(arguments: argparse.Namespace) -> int:
    for number, message in enumerate(SAMPLE_MESSAGES, start=1):
        raw_size = len(message.content.encode("utf-8"))
        searchable = project_for_search(message)
        print(f"--- message {number} ({message.role.value}, {raw_size} bytes stored)")
        print(f"search text ({len(searchable.text.encode('utf-8'))} bytes): {searchable.text}")
        print("read text:")
        print(project_for_read(message).text)
        print()
    return 0
