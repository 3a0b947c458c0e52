"""`chat-recall serve` and `chat-recall demo --serve` as a person starts them: a real
process on a real socket, stopped with Ctrl-C."""

from __future__ import annotations

import http.client
import re
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from chat_recall.adapters.cli.exits import Exit
from tests.web.conftest import free_of_secrets, served
from tests.web.history import History


def _get(url: str, host: str | None = None) -> tuple[int, str, dict[str, str]]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.putrequest("GET", target or "/", skip_host=host is not None)
        if host is not None:
            connection.putheader("Host", host)
        connection.endheaders()
        answer = connection.getresponse()
        return answer.status, answer.read().decode(), dict(answer.getheaders())
    finally:
        connection.close()


def test_serve_answers_on_loopback_for_its_own_address_only(history: History) -> None:
    with served("serve", "--db", str(history.path)) as (url, process):
        assert urlsplit(url).hostname == "127.0.0.1"
        status, page, _ = _get(url)
        assert status == 200
        assert 'href="/apps/1"' in page
        assert 'href="/apps/2"' in page
        status, page, _ = _get(url + "apps/1?q=flamingo")
        assert status == 200
        assert "Ledger migration" in page
        free_of_secrets(_get(url + "apps/1?q=staging+deploy+token")[1])
        port = urlsplit(url).port
        status, page, _ = _get(url, host=f"rebound.example:{port}")
        assert status == 400
        assert "Ledger" not in page
        with urllib.request.urlopen(url + "static/page.js", timeout=30) as answer:
            assert answer.headers["content-security-policy"].startswith("default-src 'none'")
    assert process.returncode == Exit.INTERRUPTED


def test_serve_for_one_app_read_only(history: History) -> None:
    with served("serve", "--db", str(history.path), "--app", "1", "--read-only") as (url, _):
        status, _, headers = _get(url)
        assert status == 303
        assert headers["location"] == "/apps/1"
        assert _get(url + "apps/2")[0] == 404


def test_demo_serve_opens_the_demo_history_in_the_page() -> None:
    with served("demo", "--serve") as (url, _):
        status, page, _ = _get(url + "apps/1?q=sessions+JWT+revocation")
        assert status == 200
        assert page.index("Authentication setup") < page.index("Billing")


def _cli(*arguments: str, probe: str = "") -> subprocess.CompletedProcess[str]:
    code = (
        f"import sys\n{probe}\nfrom chat_recall.adapters.cli.main import main\n"
        f"sys.exit(main({list(arguments)!r}))"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_serve_refuses_a_wildcard_address(history: History) -> None:
    ran = _cli("serve", "--db", str(history.path), "--host", "0.0.0.0")
    assert ran.returncode == Exit.USAGE
    assert "0.0.0.0 is every address: give the one address to serve on" in ran.stderr


def test_serve_without_a_database_names_the_fix(tmp_path: Path) -> None:
    ran = _cli("serve", "--db", str(tmp_path / "missing.db"))
    assert ran.returncode == Exit.FAILED
    assert "no database at" in ran.stderr
    assert "Traceback" not in ran.stderr
    assert not (tmp_path / "missing.db").exists()


def test_serve_on_a_taken_port_says_so(history: History) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        ran = _cli("serve", "--db", str(history.path), "--port", port, "--read-only")
    assert ran.returncode == Exit.FAILED
    assert f"cannot serve on 127.0.0.1:{port}" in ran.stderr


def test_serve_without_the_web_extra_says_how_to_install_it(history: History) -> None:
    ran = _cli("serve", "--db", str(history.path), probe="sys.modules['uvicorn'] = None")
    assert ran.returncode == Exit.FAILED
    assert "chat-recall serve needs the web extra" in ran.stderr
    assert "pip install '.[web]'" in ran.stderr


@pytest.mark.parametrize("argv", [["serve", "--help"], ["demo", "--help"], ["search", "--help"]])
def test_the_web_stack_is_imported_only_to_serve(argv: list[str]) -> None:
    probe = (
        "import sys\nfrom chat_recall.adapters.cli.main import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('starlette', 'uvicorn', 'jinja2') or m.startswith('chat_recall.adapters.web')))"
    )
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert ran.stdout.splitlines()[-1] == "[]"


def test_the_readme_shows_the_page_and_the_command_that_starts_it() -> None:
    root = Path(__file__).parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert "chat-recall serve --db history.db" in readme
    assert "chat-recall demo --serve" in readme
    assert "-e '.[test,mcp,web]'" in readme  # the test command installs what they need
    picture = re.search(r"!\[[^\]]+\]\((docs/[^)]+\.png)\)", readme)
    assert picture
    image = (root / picture.group(1)).read_bytes()
    assert image.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(image) < 200_000  # small enough for the repository
