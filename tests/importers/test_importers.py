"""The importers on their fixtures (tests/importers/fixtures, written from each format's
public structure): facts planted in them are found, what must never be indexed is not,
re-imports update without duplicates, and bad records are reported while the rest is
imported."""

from __future__ import annotations

import copy
import json
import zipfile
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import Any

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.cli.exits import Exit
from chat_recall.adapters.cli.main import main
from chat_recall.adapters.importers.files import files_of
from chat_recall.adapters.importers.formats import importer_of
from chat_recall.application.importing import ImportHistory, ImportReport
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.imports import SourceFormat

FIXTURES = Path(__file__).parent / "fixtures"
Capture = pytest.CaptureFixture[str]

# Per format: the fixture path, facts a search must find (in some app), and text that
# must never be found nor shown (dropped branches, payload, reasoning, secrets).
CASES: dict[str, tuple[str, list[str], list[str]]] = {
    "chatgpt": (
        "chatgpt",
        ["pgbouncer", "fibonacci_memo", "zebra dashboard", "火曜日", "LONGTAILFACT", "Montréal"],
        [
            "OLDBRANCHMARKER",
            "EXECOUTPUTMARKER",
            "THOUGHTSMARKER",
            "AKIAIOSFODNN7EXAMPLE",
            "wJalrXUtnFEMI",
        ],
    ),
    "claude": (
        "claude",
        ["Starter tier", "quarterly-plan.pdf", "Canberra", "Сидней", "CANARYTAILFACT", "healthz"],
        [
            "THINKINGMARKER",
            "TOOLRESULTMARKER",
            "ATTACHMENTBODYMARKER",
            "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        ],
    ),
    "claude-code": (
        "claude-code/projects",
        ["rounding bug", "integer cents", "SUBAGENTFINDING", "COMPACTSUMMARYFACT", "rss.xml.js"],
        ["TOOLOUTPUTMARKER", "ABANDONEDMARKER", "CCTHINKINGMARKER", "sk-ant-api03", "Caveat"],
    ),
    "jsonl": ("jsonl/history.jsonl", ["JSONLFACT", "restic"], ["hunter2hunter2"]),
}


def export_zip(folder: Path, target: Path) -> Path:
    """A fixture folder as the zip its product mails."""
    with zipfile.ZipFile(target, "w") as archive:
        for file in sorted(folder.rglob("*")):
            if file.is_file():
                archive.write(file, file.relative_to(folder).as_posix())
    return target


def imported(recall: ChatRecall, *paths: Path | str, app: int | None = None) -> ImportReport:
    """Through the application's use case and the shipped importers (any engine)."""
    from chat_recall.adapters.importers.formats import recognised

    sources = [files_of(str(path)) for path in paths]
    records = chain.from_iterable(recognised(files).read(files) for files in sources)
    return ImportHistory(recall.imports, None if app is None else app).run(records)  # type: ignore[arg-type]


def everything(recall: ChatRecall, queries: list[str]) -> str:
    """What every app shows: each chat listed and read whole, and the results of
    searching for `queries` (not the echo of the query itself), as one text."""
    out = []
    for app_id in range(1, 8):
        context = CallContext(app_id)
        for query in queries:
            results = json.loads(recall.search_chats(context, {"query": query}))["results"]
            out.append(json.dumps(results, ensure_ascii=False))
        listed = json.loads(recall.list_chats(context, {"limit": 20}))
        out.append(json.dumps(listed, ensure_ascii=False))
        for chat in listed["chats"]:
            out.append(recall.read_chat(context, {"chat_id": chat["chat_id"], "limit": 20}))
    return "\n".join(out)


def found_in(recall: ChatRecall, query: str) -> list[int]:
    """The apps whose search finds `query`."""
    apps = []
    for app_id in range(1, 8):
        output = json.loads(recall.search_chats(CallContext(app_id), {"query": query}))
        if output["results"]:
            apps.append(app_id)
    return apps


@pytest.fixture(params=["sqlite", "memory", "postgres"])
def recall(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ChatRecall]:
    if request.param == "sqlite":
        instance = bootstrap.sqlite(tmp_path / "host.db", create_host_schema=True)
    elif request.param == "postgres":
        instance = bootstrap.postgres(
            request.getfixturevalue("postgres_dsn"), create_host_schema=True
        )
    else:
        instance = bootstrap.in_memory()
    yield instance
    instance.close()


@pytest.mark.parametrize("name", list(CASES))
def test_each_importer_imports_its_fixtures_and_search_finds_the_planted_facts(
    recall: ChatRecall, name: str
) -> None:
    path, facts, never = CASES[name]
    report = imported(recall, FIXTURES / path)
    assert report.added or (report.lines and report.lines.chats)
    assert recall.wait_until_indexed(timeout=60)
    for fact in facts:
        assert found_in(recall, fact), f"{name}: {fact!r} not found"
    shown = everything(recall, facts + never)
    for hidden in never:
        assert hidden not in shown, f"{name}: {hidden!r} leaked"
        if hidden.endswith("MARKER"):  # payload, reasoning, a dropped branch: never indexed
            assert not found_in(recall, hidden), f"{name}: {hidden!r} indexed"


def test_a_chatgpt_export_zip_imports_once_and_a_newer_one_updates(
    tmp_path: Path, capsys: Capture
) -> None:
    db = tmp_path / "history.db"
    first = export_zip(FIXTURES / "chatgpt", tmp_path / "export-1.zip")
    assert main(["import", "--db", str(db), str(first)]) == 0
    out = capsys.readouterr().out
    assert "ChatGPT account user-Fixture0AccountA1b2C3: app 1 (a new app)" in out
    assert "4 chats: 4 new, 0 updated, 0 unchanged; 10 messages added, 0 updated, 0 removed" in out
    with bootstrap.sqlite(db) as recall:
        before = {m.id: m.content for m in recall.repo.page(1, 1, 0, 50).messages}  # type: ignore[arg-type]
    assert main(["import", "--db", str(db), str(first)]) == 0
    again = capsys.readouterr().out
    assert "(the app it went to before)" in again
    assert "4 chats: 0 new, 0 updated, 4 unchanged; 0 messages added" in again
    newer = json.loads((FIXTURES / "chatgpt" / "conversations.json").read_text("utf-8"))
    ledger, notebook = newer[0], newer[1]
    mapping = ledger["mapping"]
    mapping["c1-a2"]["children"] = ["c1-u3"]
    mapping["c1-u3"] = _node("c1-u3", "c1-a2", "user", "And the read replicas?", ["c1-a3"])
    mapping["c1-a3"] = _node("c1-a3", "c1-u3", "assistant", "Two replicas, async.", [])
    ledger["current_node"] = "c1-a3"
    notebook["title"] = "Fibonacci, memoized"
    fresh = copy.deepcopy(newer[2])
    fresh["conversation_id"] = fresh["id"] = "66666666-6666-4666-8666-666666666666"
    newer.append(fresh)
    folder = tmp_path / "export-2"
    folder.mkdir()
    (folder / "conversations.json").write_text(json.dumps(newer), "utf-8")
    (folder / "user.json").write_bytes((FIXTURES / "chatgpt" / "user.json").read_bytes())
    assert (
        main(["import", "--db", str(db), str(export_zip(folder, tmp_path / "export-2.zip"))]) == 0
    )
    assert (
        "5 chats: 1 new, 2 updated, 2 unchanged; 4 messages added, 0 updated, 0 removed"
        in capsys.readouterr().out
    )
    with bootstrap.sqlite(db) as recall:
        after = {m.id: m.content for m in recall.repo.page(1, 1, 0, 50).messages}  # type: ignore[arg-type]
        assert recall.repo.chat(1, 2).title == "Fibonacci, memoized"  # type: ignore[arg-type]
    assert before.items() <= after.items()  # kept messages keep their ids
    assert list(after.values())[-2:] == ["And the read replicas?", "Two replicas, async."]


def _node(key: str, parent: str, role: str, text: str, children: list[str]) -> dict[str, Any]:
    message = {
        "id": key,
        "author": {"role": role},
        "create_time": 1714551000.0,
        "content": {"content_type": "text", "parts": [text]},
        "metadata": {},
    }
    return {"id": key, "message": message, "parent": parent, "children": children}


def test_an_export_without_its_account_is_recognised_by_its_chats(
    tmp_path: Path, capsys: Capture
) -> None:
    db = tmp_path / "history.db"
    other = tmp_path / "other.jsonl"
    other.write_text('{"type": "chat", "id": 1, "app_id": 9, "created_at": 1}\n', "utf-8")
    assert main(["import", "--db", str(db), str(other)]) == 0
    bare = FIXTURES / "chatgpt" / "conversations.json"
    assert main(["import", "--db", str(db), "--from", "chatgpt", str(bare)]) == 0
    assert f"ChatGPT export {bare}: app 10 (a new app)" in capsys.readouterr().out
    assert main(["import", "--db", str(db), str(FIXTURES / "chatgpt")]) == 0
    out = capsys.readouterr().out
    assert "ChatGPT account user-Fixture0AccountA1b2C3: app 10 (the app it went to before)" in out
    assert "4 unchanged" in out


def test_app_puts_everything_in_one_app_and_rebuild_keeps_the_links(
    tmp_path: Path, capsys: Capture
) -> None:
    db = tmp_path / "history.db"
    paths = [
        str(FIXTURES / "claude"),
        str(FIXTURES / "claude-code" / "projects" / "-home-dev-blog"),
    ]
    assert main(["import", "--db", str(db), "--app", "7", *paths]) == 0
    out = capsys.readouterr().out
    assert "Claude project Infra: app 7 (as asked)" in out
    assert "Claude Code project /home/dev/blog: app 7 (as asked)" in out
    assert "4 chats: 4 new" in out
    assert main(["rebuild", "--db", str(db), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["import", "--db", str(db), "--app", "7", *paths]) == 0
    assert "4 chats: 0 new, 0 updated, 4 unchanged" in capsys.readouterr().out


def test_bad_records_are_reported_with_where_and_why_and_the_rest_imported(
    tmp_path: Path, capsys: Capture
) -> None:
    conversations = json.loads((FIXTURES / "chatgpt" / "conversations.json").read_text("utf-8"))
    conversations.insert(1, "not a conversation")
    conversations.insert(2, {"id": "no-mapping", "title": "password=hunter2hunter2"})
    broken = tmp_path / "conversations.json"
    broken.write_text(json.dumps(conversations), "utf-8")
    db = tmp_path / "history.db"
    assert main(["import", "--db", str(db), str(broken)]) == Exit.FAILED
    captured = capsys.readouterr()
    assert f"{broken}: conversation 2: not a JSON object" in captured.err
    assert f"{broken}: conversation 3 (id no-mapping): no mapping of messages" in captured.err
    assert "4 chats: 4 new" in captured.out
    sessions = FIXTURES / "claude-code" / "projects"
    assert main(["import", "--db", str(db), str(sessions)]) == Exit.FAILED
    captured = capsys.readouterr()
    assert "-home-dev-shop/5e55-1011-aaaa.jsonl line 14: not a JSON line" in captured.err
    assert "3 chats: 3 new" in captured.out


def test_formats_are_recognised_and_a_wrong_one_is_explained(
    tmp_path: Path, capsys: Capture
) -> None:
    for name, (path, _, _) in CASES.items():
        files = files_of(str(FIXTURES / path))
        from chat_recall.adapters.importers.formats import recognised

        assert recognised(files).format is SourceFormat(name)
    stray = tmp_path / "notes.txt"
    stray.write_text("just notes", "utf-8")
    assert main(["import", "--db", str(tmp_path / "x.db"), str(stray)]) == Exit.FAILED
    error = capsys.readouterr().err
    assert "cannot tell which export" in error
    assert "--from chatgpt|claude|claude-code|jsonl" in error
    assert not (tmp_path / "x.db").exists()


def test_counts_read_in_the_singular_and_the_plural(tmp_path: Path, capsys: Capture) -> None:
    one = [json.loads((FIXTURES / "claude" / "conversations.json").read_text("utf-8"))[1]]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(one), "utf-8")
    assert main(["import", "--db", str(tmp_path / "h.db"), str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 chat: 1 new, 0 updated, 0 unchanged; 2 messages added" in out
    assert importer_of(SourceFormat.CLAUDE).format is SourceFormat.CLAUDE
