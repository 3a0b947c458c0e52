"""The default policy table is exactly the inventory of `dyad-markup-tags.md`."""

from __future__ import annotations

import pytest

from chat_recall.domain.messages import MessageText
from chat_recall.domain.projection import (
    DEFAULT_POLICY,
    DEFAULT_RULES,
    TagClass,
    project_for_search,
)

INVENTORY: dict[str, TagClass] = {
    "think": TagClass.DROP,
    "dyad-search-chats": TagClass.DROP,
    "dyad-read-chat": TagClass.DROP,
    "dyad-chat-summary": TagClass.KEEP,
    "dyad-compaction": TagClass.KEEP,
    "dyad-write-plan": TagClass.KEEP,
    "dyad-exit-plan": TagClass.KEEP,
    "dyad-app-blueprint": TagClass.KEEP,
    "dyad-questionnaire": TagClass.KEEP,
    "dyad-security-finding": TagClass.KEEP,
    "dyad-status": TagClass.KEEP,
    "dyad-step-limit": TagClass.KEEP,
    "dyad-output": TagClass.KEEP,
    "dyad-write": TagClass.META,
    "dyad-edit": TagClass.META,
    "dyad-generate-test": TagClass.META,
    "dyad-search-replace": TagClass.META,
    "dyad-rename": TagClass.META,
    "dyad-copy": TagClass.META,
    "dyad-delete": TagClass.META,
    "dyad-add-dependency": TagClass.META,
    "dyad-command": TagClass.META,
    "dyad-add-integration": TagClass.META,
    "dyad-enable-nitro": TagClass.META,
    "dyad-image-generation": TagClass.META,
    "dyad-read": TagClass.META,
    "dyad-read-guide": TagClass.META,
    "dyad-subagent": TagClass.META,
    "dyad-test-assertions": TagClass.META,
    "dyad-execute-sql": TagClass.BULKY,
    "dyad-read-logs": TagClass.BULKY,
    "dyad-grep": TagClass.BULKY,
    "dyad-code-search": TagClass.BULKY,
    "dyad-code-search-result": TagClass.BULKY,
    "dyad-codebase-context": TagClass.BULKY,
    "dyad-explore-code": TagClass.BULKY,
    "dyad-explore-chat-history": TagClass.DROP,
    "dyad-list-files": TagClass.BULKY,
    "dyad-git": TagClass.BULKY,
    "dyad-script": TagClass.BULKY,
    "dyad-web-search": TagClass.BULKY,
    "dyad-web-search-result": TagClass.BULKY,
    "dyad-web-crawl": TagClass.BULKY,
    "dyad-web-fetch": TagClass.BULKY,
    "dyad-mcp-tool-call": TagClass.BULKY,
    "dyad-mcp-tool-result": TagClass.BULKY,
    "dyad-mcp-tool-search": TagClass.BULKY,
    "dyad-mcp-tool-schema": TagClass.BULKY,
    "dyad-database-schema": TagClass.BULKY,
    "dyad-supabase-project-info": TagClass.BULKY,
    "dyad-neon-project-info": TagClass.BULKY,
    "dyad-db-table-schema": TagClass.BULKY,
    "dyad-supabase-table-schema": TagClass.BULKY,
    "dyad-neon-table-schema": TagClass.BULKY,
    "dyad-problem-report": TagClass.BULKY,
}


def test_inventory_has_54_dyad_names_and_think() -> None:
    assert len([name for name in INVENTORY if name.startswith("dyad-")]) == 54


def test_default_table_matches_the_inventory_classes() -> None:
    assert {name: rule.tag_class for name, rule in DEFAULT_RULES.items()} == INVENTORY


def test_every_inventory_name_is_recognised_and_every_similar_name_too() -> None:
    for name in INVENTORY:
        assert DEFAULT_POLICY.recognises(name)
    assert DEFAULT_POLICY.recognises("dyad-future-tag")
    assert DEFAULT_POLICY.recognises("DYAD-WRITE")
    assert DEFAULT_POLICY.recognises("thinking")
    assert not DEFAULT_POLICY.recognises("div")


@pytest.mark.parametrize("name", sorted(n for n, c in INVENTORY.items() if c is not TagClass.KEEP))
def test_no_non_keep_body_is_ever_searchable(name: str) -> None:
    content = f'<{name} path="p" query="q">BODYMARKER</{name}>'
    assert "BODYMARKER" not in project_for_search(MessageText.assistant(content)).text


def test_keep_attributes_are_allowlisted() -> None:
    for rule in DEFAULT_RULES.values():
        assert rule.attr_cap <= 600
        assert "chat-id" not in rule.attribute_allowlist
