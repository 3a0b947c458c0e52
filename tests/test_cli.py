from __future__ import annotations

import pytest

from chat_recall.adapters.cli.main import main


def test_demo_indexes_searches_and_reads_a_sample_history(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo"]) == 0
    output = capsys.readouterr().out
    assert "search_chats({'query': 'sessions JWT revocation'}) in app 1 returns:" in output
    assert '"title": "Authentication setup"' in output
    assert "read_chat({'chat_id': 1, 'around_message_id': 2" in output
    assert "[write src/auth/session.ts: add session store (200 lines omitted)]" in output
    assert '"archival_content": true' in output
    assert "export const line17" not in output  # payload bodies never come back
    assert "The user wants something simple" not in output  # nor reasoning
    assert "Another app" not in output  # nor another app's chats


def test_demo_with_a_query_that_matches_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--query", "zzzunmatched"]) == 0
    assert '"results": []' in capsys.readouterr().out
