"""The public surface: everything a host needs is importable from `chat_recall`."""

from __future__ import annotations

import ast
import asyncio
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import chat_recall
from chat_recall import CallContext, Role


def _typing_imports() -> dict[str, str]:
    """Name -> module of the imports under `if TYPE_CHECKING:` in the package root."""
    tree = ast.parse(inspect.getsource(chat_recall))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
    )
    found = {}
    for statement in block.body:
        assert isinstance(statement, ast.ImportFrom)
        for alias in statement.names:
            found[alias.name] = str(statement.module)
    return found


def test_every_public_name_resolves_and_the_three_lists_agree() -> None:
    exports = chat_recall._EXPORTS
    assert sorted(chat_recall.__all__) == sorted(["__version__", *exports])
    assert _typing_imports() == exports
    for name in chat_recall.__all__:
        assert getattr(chat_recall, name) is not None
    assert chat_recall.sqlite.__module__ == "chat_recall.adapters.bootstrap"


def test_a_missing_or_unreachable_database_is_an_error_naming_its_path(tmp_path: Path) -> None:
    """Issue 37: a traceback ending in "unable to open database file", without the
    path; a typed error now, with the path and the fix, and no file created."""
    missing = tmp_path / "app.db"
    with pytest.raises(chat_recall.StorageUnavailable, match="no database at") as raised:
        chat_recall.sqlite(missing)
    assert raised.value.path == str(missing)
    assert str(missing) in str(raised.value)
    assert "create_host_schema=True" in raised.value.fix
    assert isinstance(raised.value, chat_recall.IndexUnavailable)  # what hosts caught
    nowhere = tmp_path / "no" / "such" / "app.db"
    with pytest.raises(chat_recall.StorageUnavailable) as raised:
        chat_recall.sqlite(nowhere, create_host_schema=True)
    assert f"the directory {nowhere.parent} does not exist" in str(raised.value)
    assert str(nowhere) in str(raised.value)
    assert list(tmp_path.iterdir()) == []


def test_add_message_takes_a_role_as_a_string_or_the_enum() -> None:
    with chat_recall.in_memory() as recall:
        chat_id = recall.host.create_chat(1, "Auth", created_at=1_700_000_000)
        recall.host.add_message(chat_id, "user", "sessions or JWT?", 1_700_000_060)
        recall.host.add_message(chat_id, Role.ASSISTANT, "sessions", 1_700_000_120)
        with pytest.raises(chat_recall.InvalidArguments, match="'user' or 'assistant'"):
            recall.host.add_message(chat_id, "human", "x", 1_700_000_180)


def test_version_comes_from_the_package_metadata() -> None:
    from importlib.metadata import version

    assert chat_recall.__version__ == version("chat-recall")
    result = subprocess.run(
        [sys.executable, "-m", "chat_recall", "--help"], capture_output=True, text=True, check=True
    )
    assert "chat-recall" in result.stdout


def test_the_facade_is_a_context_manager_that_waits_for_the_index() -> None:
    with chat_recall.in_memory() as recall:
        chat_id = recall.host.create_chat(1, "Auth", 1_700_000_000)
        recall.host.add_message(chat_id, Role.USER, "argon2 hashing it is", 1_700_000_060)
        assert recall.status(1).state == "indexing"
        assert recall.wait_until_indexed(timeout=30)
        assert recall.status(1).state == "ready"
        recall.start()
        recall.host.add_message(chat_id, Role.USER, "and bcrypt for legacy", 1_700_000_120)
        recall.notify()
        assert recall.wait_until_indexed(timeout=30)
        output = recall.search_chats(CallContext(app_id=1), {"query": "bcrypt"})
        assert '"chat_id":1' in output
    assert not recall.indexer.running
    recall.close()  # closing twice is harmless


def test_the_facade_is_an_async_context_manager() -> None:
    async def scenario() -> str:
        async with chat_recall.in_memory() as recall:
            chat_id = recall.host.create_chat(1, "Auth", 1_700_000_000)
            recall.host.add_message(chat_id, Role.USER, "passkeys later", 1_700_000_060)
            recall.wait_until_indexed(timeout=30)
            return await recall.search_chats_async(CallContext(app_id=1), {"query": "passkeys"})

    assert '"chat_id":1' in asyncio.run(scenario())


def test_the_facade_reports_how_long_it_held_the_write_lock(tmp_path: Path) -> None:
    with chat_recall.in_memory() as recall:
        recall.host.create_chat(1, "Auth", 1_700_000_000)
        recall.wait_until_indexed(timeout=30)
        assert recall.write_lock.transactions == 0  # no database-wide lock to hold
    with chat_recall.sqlite(tmp_path / "host.db", create_host_schema=True) as recall:
        chat_id = recall.host.create_chat(1, "Auth", 1_700_000_000)
        recall.host.add_message(chat_id, Role.USER, "argon2 hashing it is", 1_700_000_060)
        before = recall.write_lock.transactions
        assert recall.wait_until_indexed(timeout=30)
        assert recall.write_lock.transactions > before
        assert recall.write_lock.longest_seconds > 0
        assert "longest" in recall.write_lock.summary()


def test_the_facade_builds_what_indexing_needs_once_on_first_use(tmp_path: Path) -> None:
    probe = (
        "import sys, chat_recall\n"
        f"recall = chat_recall.sqlite({str(tmp_path / 'host.db')!r}, create_host_schema=True)\n"
        "recall.search_chats(chat_recall.CallContext(app_id=1), {'query': 'argon2'})\n"
        "recall.status(1)\n"
        "recall.close()\n"
        "print('chat_recall.application.indexer' in sys.modules)\n"
    )
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "False"  # searching, status and close never built it
    with chat_recall.sqlite(tmp_path / "host.db") as recall:
        assert recall.indexer is recall.indexer
        assert recall.indexer.unit_of_work is recall.unit_of_work  # one unit of work
        assert recall.host is recall.host
        assert recall.audit is recall.audit
