"""What every request to the search page passes before any page is made.

The page shows someone's chat history, so it answers only what a person's own browser
asks of it, at the address it was started on:

- The Host header must be the address the server serves (`host:port`, and `localhost`
  for a loopback address). A web page elsewhere can point a name of its own at
  127.0.0.1 (DNS rebinding) to read a local server as "same origin"; its requests
  carry that name, and are refused here.
- Only GET and HEAD: no endpoint writes, so no other method is routed at all.
- The request target is bounded (the tools bound each argument; this bounds the rest).
- Every response says how it may be used: a Content-Security-Policy that allows only
  the page's own script and style files (no inline script, nothing from elsewhere), no
  framing, no sniffing, no referrer, and no caching of pages that show history.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable

import attrs
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

ALLOWED_METHODS = frozenset({"GET", "HEAD"})
# Path and query string together: a search of the tools' longest query, percent-encoded
# three bytes a character, with the other parameters, fits with room to spare.
MAX_TARGET_BYTES = 4096

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    )
)
SECURITY_HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
)

# A refusal page: (status, title, explanation) -> the response.
Refuse = Callable[[int, str, str], Response]


def served_hosts(host: str, port: int) -> frozenset[str]:
    """The Host header values a browser sends to this server: `host:port` (an IPv6
    address in brackets), `localhost:port` too when the address is loopback, and the
    same without the port when it is 80."""
    address = ipaddress.ip_address(host)
    names = [f"[{host}]" if address.version == 6 else host]
    if address.is_loopback:
        names.append("localhost")
    with_port = [f"{name}:{port}" for name in names]
    return frozenset(with_port + (names if port == 80 else []))


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def _with_headers(send: Send, extra: Iterable[tuple[bytes, bytes]]) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *extra]}
        await send(message)

    return sending


@attrs.define
class Guard:
    """ASGI middleware around the whole page (see the module docstring)."""

    app: ASGIApp
    hosts: frozenset[str]
    refuse: Refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # no websockets here
            await send({"type": "websocket.close", "code": 1008})
            return
        send = _with_headers(send, SECURITY_HEADERS)
        refusal = self._refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
        else:
            await refusal(scope, receive, send)

    def _refusal(self, scope: Scope) -> Response | None:
        host = (_header(scope, b"host") or "").lower()
        if host not in self.hosts:
            served = ", ".join(sorted(self.hosts))
            return self.refuse(
                400,
                "Wrong address",
                f"This server answers only requests for {served}.",
            )
        if scope["method"] not in ALLOWED_METHODS:
            response = self.refuse(
                405, "Not allowed", "This page only shows history: it answers GET requests."
            )
            response.headers["allow"] = ", ".join(sorted(ALLOWED_METHODS))
            return response
        target = len(scope.get("raw_path") or scope["path"].encode()) + len(scope["query_string"])
        if target > MAX_TARGET_BYTES:
            return self.refuse(
                414,
                "Address too long",
                f"Addresses here are at most {MAX_TARGET_BYTES} bytes: search with fewer words.",
            )
        return None
