"""The message value the projection policies read."""

from __future__ import annotations

import enum

import attrs


class Role(enum.Enum):
    """Who wrote a message. The reference host stores only these two."""

    USER = "user"
    ASSISTANT = "assistant"

    @classmethod
    def values(cls) -> tuple[str, ...]:
        return tuple(role.value for role in cls)

    @classmethod
    def of(cls, role: Role | str) -> Role:
        """A role given as the enum or as its value (`"user"`, `"assistant"`), as a host
        writes it; anything else is InvalidArguments naming the roles there are."""
        if isinstance(role, Role):
            return role
        found = ROLE_OF_VALUE.get(role) if isinstance(role, str) else None
        if found is None:
            from chat_recall.domain.errors import InvalidArguments

            raise InvalidArguments(
                f"unknown role {role!r}: a message's role is "
                + " or ".join(repr(value) for value in cls.values())
                + " (or chat_recall.Role.USER, Role.ASSISTANT)"
            )
        return found


# A role from its stored value by one lookup: `Role(value)` goes through the enum's
# machinery, which adapters reading rows would pay for every message of a backfill.
ROLE_OF_VALUE: dict[str, Role] = {role.value: role for role in Role}


@attrs.frozen
class MessageText:
    """What a projection needs of a stored message: who wrote it and what it says."""

    role: Role
    content: str
    is_compaction_summary: bool = False

    @classmethod
    def user(cls, content: str) -> MessageText:
        return cls(Role.USER, content)

    @classmethod
    def assistant(cls, content: str, *, is_compaction_summary: bool = False) -> MessageText:
        return cls(Role.ASSISTANT, content, is_compaction_summary)
