"""`chat-recall demo`: see `chat_recall.adapters.cli.demo`."""

from __future__ import annotations

from chat_recall.adapters.cli.demo import arguments, run

__all__ = ["arguments", "run"]
