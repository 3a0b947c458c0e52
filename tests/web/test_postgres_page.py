"""The search page over a PostgreSQL database, through the same facade and the app
registry `chat-recall status` lists there."""

from __future__ import annotations

from starlette.testclient import TestClient

import chat_recall
from chat_recall.adapters.postgres.admin import registered_apps
from chat_recall.adapters.web.app import Site, build
from chat_recall.adapters.web.guard import served_hosts
from tests.web.conftest import BASE_URL, HOST, PORT, free_of_secrets
from tests.web.history import HIT_WORD, LONG_CHAT_TITLE, write_history


def test_the_page_serves_a_postgresql_database(postgres_dsn: str) -> None:
    with chat_recall.postgres(postgres_dsn, create_host_schema=True) as recall:
        long_chat, hit, secret_chat, _ = write_history(recall)
        recall.indexer.run_until_idle()
        site = Site(recall, lambda: registered_apps(recall))
        with TestClient(build(site, served_hosts(HOST, PORT)), base_url=BASE_URL) as client:
            assert 'href="/apps/1"' in client.get("/").text
            assert 'href="/apps/2"' in client.get("/").text
            found = client.get("/apps/1", params={"q": HIT_WORD}).text
            assert f"data-result>{LONG_CHAT_TITLE}</a>" in found
            opened = client.get(f"/apps/1/chats/{long_chat}", params={"around": hit}).text
            assert f'<li id="m{hit}" class="message assistant hit"' in opened
            free_of_secrets(client.get(f"/apps/1/chats/{secret_chat}").text)
            assert client.get("/apps/3").status_code == 404
