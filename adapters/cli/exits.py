"""The exit codes of `chat-recall`, documented in the README."""

from __future__ import annotations

import enum


class Exit(enum.IntEnum):
    OK = 0
    FAILED = 1  # the command could not do its job (no database, storage error, bad lines)
    USAGE = 2  # the command line itself is wrong (argparse's code)
    TOOL_ERROR = 3  # search/read ran and the tool answered with a structured error
    UNHEALTHY = 4  # status ran and found problems
    INTERRUPTED = 130
