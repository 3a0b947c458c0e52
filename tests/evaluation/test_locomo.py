"""The LoCoMo loader reads both published layouts into the evaluation's structures:
one app per conversation, one chat per session dated by it, turns labelled with their
dialogue ids, evidence ids read leniently and questions without a turn skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chat_recall.domain.messages import Role
from tests.evaluation.locomo import keywords, load_locomo, main, session_day

CONVERSATION = {
    "speaker_a": "Caroline",
    "speaker_b": "Melanie",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
        {"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel! I went to a support group."},
        {"speaker": "Melanie", "dia_id": "D1:2", "text": "That's great, I painted a sunrise."},
    ],
    "session_2_date_time": "1:14 pm on 25 May, 2023",
    "session_2": [
        {"speaker": "Melanie", "dia_id": "D2:1", "text": "I ran a charity race on Saturday."},
        {"speaker": "Caroline", "dia_id": "D2:2", "text": "Amazing, for which cause?"},
    ],
    "session_3_date_time": "9:00 am on 1 June, 2023",
    "session_3": [],
}
QA = [
    {"question": "When did Caroline go to the support group?", "evidence": ["D1:1"], "category": 2},
    {"question": "What did Melanie paint and run?", "evidence": ["D1:2; D2:1"], "category": 1},
    {"question": "Where was the race?", "evidence": ["D:2:1"], "category": 4},
    {"question": "What did Caroline adopt?", "evidence": ["D9:9"], "category": 5},
]


def test_a_list_of_samples_becomes_apps_sessions_chats_and_evidence_labels(tmp_path: Path) -> None:
    path = tmp_path / "locomo10.json"
    sample = {"sample_id": "conv-26", "conversation": CONVERSATION, "qa": QA}
    path.write_text(json.dumps([sample]), encoding="utf-8")
    apps, skipped = load_locomo(path)
    assert skipped == 1
    (app,) = apps
    assert app.name == "conv-26"
    assert [(chat.key, chat.day) for chat in app.chats] == [
        ("session_1", "2023-05-08"),
        ("session_2", "2023-05-25"),
    ]
    assert all(chat.peer for chat in app.chats)
    first = app.chats[0].messages
    assert [(m.role, m.label) for m in first] == [(Role.USER, "D1:1"), (Role.ASSISTANT, "D1:2")]
    assert app.chats[1].messages[0].role is Role.ASSISTANT  # Melanie, whoever starts
    by_id = {question.id: question for question in app.questions}
    assert by_id["conv-26-q000"].tags == ("temporal",)
    assert by_id["conv-26-q001"].evidence == ("D1:2", "D2:1")
    assert app.gold_chats(by_id["conv-26-q001"]) == ("session_1", "session_2")
    assert by_id["conv-26-q002"].evidence == ("D2:1",)
    assert "conv-26-q003" not in by_id


def test_a_folder_of_conversation_files_is_read_too(tmp_path: Path) -> None:
    (tmp_path / "26.json").write_text(json.dumps({**CONVERSATION, "qa": QA}), encoding="utf-8")
    (tmp_path / "30.json").write_text(json.dumps({**CONVERSATION, "qa": QA[:1]}), encoding="utf-8")
    apps, skipped = load_locomo(tmp_path)
    assert [app.name for app in apps] == ["conv-26", "conv-30"]
    assert [app.id for app in apps] == [1, 2]
    assert skipped == 1


def test_keywords_drop_stopwords_and_dates_parse() -> None:
    assert keywords("When did Caroline go to the support group?") == "caroline go support group"
    assert session_day("12:09 am on 13 September, 2023") == "2023-09-13"


def test_the_runner_prints_the_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "26.json"
    path.write_text(json.dumps({**CONVERSATION, "qa": QA}), encoding="utf-8")
    main([str(path), "--memory"])
    out = capsys.readouterr().out
    assert "3 questions x 2 forms over 2 sessions (4 turns) in 1 conversations" in out
    assert "| shipped | tuning | full |" in out
    assert "| temporal |" in out


def test_the_runner_asks_only_the_chosen_half(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "26.json"
    path.write_text(json.dumps({**CONVERSATION, "qa": QA}), encoding="utf-8")
    main([str(path), "--memory", "--half", "tuning"])
    out = capsys.readouterr().out
    assert "| shipped | tuning | full |" in out
    assert "held_out" not in out
