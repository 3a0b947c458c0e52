"""Request lines the MCP SDK cannot read, read again instead of dropped.

The SDK's stdio reader validates each line with pydantic, whose JSON parser refuses a
lone UTF-16 surrogate escape (`"\\ud800"`). JavaScript's `JSON.stringify` writes one
for a string cut inside an emoji, so a client can send it; the SDK then hands the
session an exception instead of the request, nothing answers, and the client waits
for its timeout. `RereadLines` sits between the SDK's read stream and the server: such
a line is parsed again with Python's `json` (which accepts lone surrogates), each
surrogate becomes U+FFFD, and the request is served. A line that is JSON but still no
valid message gets a JSON-RPC "invalid request" error for its id, so the client is
answered either way; anything else goes on to the SDK as before.
"""

from __future__ import annotations

import json
import re
from types import TracebackType
from typing import Any, Protocol

import anyio
import attrs
import mcp.types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

_SURROGATE = re.compile("[\ud800-\udfff]")
_INVALID_REQUEST = -32600


class _Receiving(Protocol):
    async def receive(self) -> SessionMessage | Exception: ...
    async def aclose(self) -> None: ...


class _Sending(Protocol):
    async def send(self, item: SessionMessage, /) -> None: ...


def _without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    return value


def _line(error: Exception) -> str | None:
    """The request line of a JSON parse error, as the SDK's validation reports it."""
    if not isinstance(error, ValidationError):
        return None
    for detail in error.errors():
        if detail["type"] == "json_invalid" and isinstance(detail.get("input"), str):
            return str(detail["input"])
    return None


def reread(error: Exception) -> SessionMessage | None:
    """The message or the error reply for a line the SDK could not read, or None when
    it holds nothing to answer (not JSON, or a notification)."""
    line = _line(error)
    if line is None:
        return None
    try:
        parsed = _without_surrogates(json.loads(line))
    except (ValueError, RecursionError):
        return None
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(parsed))
    except ValidationError:
        pass
    request_id = parsed.get("id") if isinstance(parsed, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
        return None
    reply = types.JSONRPCError(
        jsonrpc="2.0",
        id=request_id,
        error=types.ErrorData(code=_INVALID_REQUEST, message="not a valid JSON-RPC request"),
    )
    return SessionMessage(reply)


@attrs.define
class RereadLines:
    """The SDK's read stream, with unreadable request lines read again (`reread`):
    requests go on to the server, error replies straight to the client."""

    inner: _Receiving
    replies: _Sending

    @property
    def last_context(self) -> Any:  # the sender's context, which the SDK looks for
        return getattr(self.inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = await self.inner.receive()
            if not isinstance(item, Exception):
                return item
            message = reread(item)
            if message is None:
                return item
            if isinstance(message.message, types.JSONRPCError):
                await self.replies.send(message)
                continue
            return message

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __aiter__(self) -> RereadLines:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> RereadLines:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()
