"""How a command's failure reaches the terminal: one line on standard error naming the
fix, and an exit code from `exits` (never a traceback for an expected failure)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from chat_recall.adapters.cli.exits import Exit
from chat_recall.domain.errors import ChatRecallError


def fail(message: str) -> int:
    """One line on standard error. The message may repeat what was read (an import
    line's value): it is redacted like history."""
    from chat_recall.domain.projection import redact_text  # only when a command fails

    print(f"chat-recall: error: {redact_text(message).text}", file=sys.stderr)
    return Exit.FAILED


def run(command: Callable[[argparse.Namespace], int], arguments: argparse.Namespace) -> int:
    try:
        return command(arguments)
    except ChatRecallError as error:
        return fail(str(error))
    except KeyboardInterrupt:
        return Exit.INTERRUPTED
    except BrokenPipeError:  # output piped into a command that stopped reading
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return Exit.OK
