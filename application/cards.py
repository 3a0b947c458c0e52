"""The completed tool cards a host shows in the chat, built with lxml so that no title
or message text can break or spoof the markup. Tag names follow the host's prefix
(default `dyad-`): `<dyad-search-chats>`, `<dyad-read-chat>` and `<dyad-list-chats>`,
which the projection drops entirely (the default policy, and every tool's card under
the host's prefix by the bootstrap), so a stored card never becomes searchable."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs
from lxml import etree

from chat_recall.domain.wording import counted

_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(value: object) -> str:
    """Text XML 1.0 can hold (control characters and lone surrogates removed)."""
    return _NOT_XML.sub("", str(value))


def _element(tag: str, attributes: dict[str, object], text: str | None = None) -> Any:
    element = etree.Element(tag)
    for name, value in attributes.items():
        if value is not None:
            element.set(name, _xml_text(value))
    if text is not None:
        element.text = _xml_text(text)
    return element


def _serialise(element: Any) -> str:
    return str(etree.tostring(element, encoding="unicode"))


@attrs.frozen
class CardBuilder:
    prefix: str = "dyad-"

    def search_chats(self, tag: str, arguments: Mapping[str, Any], payload: Any) -> str:
        error = payload.get("error")
        results = payload.get("results", [])
        root = _element(
            f"{self.prefix}{tag}",
            {
                "query": str(payload.get("query", arguments.get("query", ""))).strip(),
                "index-status": payload.get("index_status"),
                "result-count": len(results),
                "results-truncated": "true" if payload.get("results_truncated") else None,
                "state": "error" if error else "finished",
                "error-kind": error["kind"] if error else None,
            },
        )
        for result in results:
            chat = _element(
                "chat",
                {
                    "chat-id": result["chat_id"],
                    "title": result["title"] or "Untitled chat",
                    "last-message-at": result["last_message_at"],
                },
            )
            for match in result["matches"]:
                chat.append(
                    _element(
                        "match",
                        {
                            "message-id": match["message_id"],
                            "role": match["role"],
                            "created-at": match["created_at"],
                        },
                        match["excerpt"],
                    )
                )
            root.append(chat)
        return _serialise(root)

    def read_chat(self, tag: str, arguments: Mapping[str, Any], payload: Any) -> str:
        error = payload.get("error")
        if error:
            root = _element(
                f"{self.prefix}{tag}",
                {
                    "chat-id": arguments.get("chat_id"),
                    "state": "error",
                    "error-kind": error["kind"],
                },
            )
            return _serialise(root)
        span = payload["range"]
        root = _element(
            f"{self.prefix}{tag}",
            {
                "chat-id": payload["chat"]["chat_id"],
                "title": payload["chat"]["title"] or "Untitled chat",
                "range": (
                    f"{span['first_created_at']} – {span['last_created_at']} "
                    f"({counted(span['count'], 'message')})"
                    if span["count"]
                    else "no messages"
                ),
                "output-truncated": "true" if payload["output_truncated"] else None,
                "state": "finished",
            },
        )
        for message in payload["messages"]:
            root.append(
                _element(
                    "message",
                    {
                        "message-id": message["message_id"],
                        "role": message["role"],
                        "created-at": message["created_at"],
                    },
                    message["text"],
                )
            )
        return _serialise(root)

    def list_chats(self, tag: str, arguments: Mapping[str, Any], payload: Any) -> str:
        error = payload.get("error")
        chats = payload.get("chats", [])
        window = payload.get("window") or {}
        root = _element(
            f"{self.prefix}{tag}",
            {
                "order": payload.get("order", arguments.get("order")),
                "after": window.get("after"),
                "before": window.get("before"),
                "result-count": len(chats),
                "has-more": "true" if payload.get("has_more") else None,
                "state": "error" if error else "finished",
                "error-kind": error["kind"] if error else None,
            },
        )
        for chat in chats:
            root.append(
                _element(
                    "chat",
                    {
                        "chat-id": chat["chat_id"],
                        "title": chat["title"] or "Untitled chat",
                        "first-message-at": chat["first_message_at"],
                        "last-message-at": chat["last_message_at"],
                        "message-count": chat["message_count"],
                    },
                    chat["first_user_message"],
                )
            )
        return _serialise(root)
