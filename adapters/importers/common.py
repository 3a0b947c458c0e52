"""What the format importers share: text as the host may store it, times, and the
host's markup for payloads (tool calls and results), which the projection keeps out
of the index and out of what read_chat shows (`domain/projection/policy.py`: bulky)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from chat_recall.domain.projection.text import clip_chars
from chat_recall.domain.text.segment import valid_unicode
from chat_recall.domain.time_window import moment

# A chat named after its first message when the source gives it no title.
TITLE_CHARS = 80
CALL_TAG = "dyad-mcp-tool-call"
RESULT_TAG = "dyad-mcp-tool-result"


class Unusable(ValueError):
    """A record that cannot be imported; the message says why."""


def text(value: object) -> str:
    """A source's text as the host can store it: valid Unicode (a lone surrogate, which
    no UTF-8 column holds, becomes U+FFFD) without NUL characters (PostgreSQL's text
    refuses them)."""
    if not isinstance(value, str):
        return ""
    return valid_unicode(value).replace("\x00", "")


def seconds(value: object) -> int | None:
    """Unix seconds from a source's time: a number of seconds or an ISO 8601 text."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return math.floor(value) if math.isfinite(value) else None
    if isinstance(value, str) and value.strip():
        try:
            return moment(value)
        except ValueError:
            return None
    return None


def title_of(value: object, messages_text: str = "") -> str | None:
    """The source's title, else the start of the chat's first user message."""
    given = " ".join(text(value).split())
    if given:
        return given
    opening = " ".join(messages_text.split())
    return clip_chars(opening, TITLE_CHARS) or None


def _attribute(value: str) -> str:
    return (
        value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    )


def payload(tag: str, server: str, tool: str, body: str) -> str:
    """A tool call or result in the host's markup: a concise line is searchable
    (`[mcp call server/tool]`), the body never is. A body is raw text up to the first
    closing tag of its name, so one inside it is broken up: no payload ends early and
    leaks the rest as prose."""
    closing = re.compile(f"</({re.escape(tag)})", re.IGNORECASE)
    safe = closing.sub(lambda match: f"< /{match.group(1)}", text(body))
    attributes = f'server="{_attribute(server)}" tool="{_attribute(text(tool) or "tool")}"'
    return f"<{tag} {attributes}>{safe}</{tag}>"


def mapping(value: object) -> dict[str, Any]:
    """A JSON object of a source, or an empty one for anything else."""
    return value if isinstance(value, dict) else {}


def as_text(value: Any) -> str:
    """A payload's content as text: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except ValueError:
        return str(value)


def joined(parts: Iterator[str] | list[str]) -> str:
    """Non-empty parts, a blank line between them."""
    return "\n\n".join(part for part in (p.strip("\n") for p in parts) if part.strip())
