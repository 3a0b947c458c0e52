"""How counts read in what people see (command output, cards, notes)."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 chat`, `2 chats`, `1,204 messages`: the count and its noun, agreeing."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
