"""The search page over HTTP (Starlette's TestClient, at the address the server serves):
what a person sees, what it refuses, and that it never shows more than the tools."""

from __future__ import annotations

import html
import re
import sqlite3
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from starlette.testclient import TestClient

import chat_recall
from chat_recall.adapters.cli.demo import write_sample
from chat_recall.adapters.web import views
from chat_recall.adapters.web.app import templates
from chat_recall.adapters.web.guard import CONTENT_SECURITY_POLICY, MAX_TARGET_BYTES
from chat_recall.application.service import ChatRecall
from chat_recall.domain.text.analysis import TextAnalysis
from tests.web.conftest import free_of_secrets, page_client
from tests.web.history import (
    HIT_WORD,
    LONG_CHAT_MESSAGES,
    LONG_CHAT_TITLE,
    History,
)


def _links(page: str, pattern: str) -> list[str]:
    return [html.unescape(href) for href in re.findall(rf'href="({pattern}[^"]*)"', page)]


def _titles(page: str) -> list[str]:
    return re.findall(r'<h3><a href="[^"]*" data-result>([^<]*)</a></h3>', page)


def _readable(page: str) -> None:
    assert "Traceback" not in page
    assert 'File "' not in page
    assert re.search(r"<h1[ >]", page)
    assert 'role="alert"' in page


# -- finding and reading ---------------------------------------------------------------


def test_the_first_page_lists_the_apps_of_the_database(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert _links(page.text, "/apps/") == ["/apps/1", "/apps/2"]
    assert "App 1" in page.text
    assert "App 2" in page.text
    assert "messages searchable" in page.text


def test_with_an_app_the_first_page_is_its_search(recall: ChatRecall) -> None:
    with page_client(recall, app=2) as client:
        page = client.get("/", follow_redirects=False)
        assert page.status_code == 303
        assert page.headers["location"] == "/apps/2"
        assert "All apps" not in client.get("/apps/2").text  # no picker to go back to


def test_a_search_is_a_link_with_ranked_chats_marked_words_and_the_index_status(
    client: TestClient,
) -> None:
    page = client.get("/apps/1", params={"q": "sessions JWT revocation"})
    assert page.status_code == 200
    assert page.url.query == b"q=sessions+JWT+revocation"
    assert _titles(page.text) == ["Authentication setup", "Billing"]
    assert 'value="sessions JWT revocation"' in page.text  # the box holds the query
    assert "<mark>sessions</mark>" in page.text
    assert "<mark>JWTs</mark>" in page.text
    assert '<span class="term">revocation</span>' in page.text  # how it matched
    # the demo's 7 searchable messages, the long chat's and the secret chat's 2
    assert f"Index ready: {7 + LONG_CHAT_MESSAGES + 2} messages searchable" in page.text
    assert "Another app" not in page.text  # app 2's chat is not app 1's


def test_the_empty_search_page_has_the_box_focused_and_labelled(client: TestClient) -> None:
    page = client.get("/apps/1").text
    assert re.search(r'<label for="q">Search the chats of app 1</label>', page)
    assert re.search(r'<input id="q" name="q" type="search"[^>]* autofocus', page)
    assert 'role="search"' in page
    assert "<main" in page
    assert 'role="status"' in page
    # the time window: native date fields, each with its label, in the same form
    for name, label in (("after", "From"), ("before", "Before")):
        assert f'<label for="{name}">{label}</label>' in page
        assert re.search(rf'<input id="{name}" name="{name}" type="date" value="">', page)
    form = page[page.index('<form class="search"') : page.index("</form>")]
    assert 'name="after"' in form
    assert " required" not in form  # an empty box with a window submits: chats by time


def test_a_result_opens_its_chat_at_the_hit_with_earlier_and_later_windows(
    client: TestClient, history: History
) -> None:
    found = client.get("/apps/1", params={"q": HIT_WORD}).text
    assert _titles(found) == [LONG_CHAT_TITLE]
    opened = client.get(_links(found, "/apps/1/chats/")[0])
    assert opened.status_code == 200
    hit = rf'<li id="m{history.hit}" class="message assistant hit"\s+aria-current="true"'
    assert re.search(hit, opened.text)
    assert f"<mark>{HIT_WORD}</mark>" in opened.text
    shown = re.findall(r'<li id="m(\d+)"', opened.text)
    assert len(shown) == 7
    assert str(history.hit) in shown
    earlier = _links(opened.text, f"/apps/1/chats/{history.long_chat}")
    earlier_href = next(link for link in earlier if "before=" in link and "after=0" in link)
    page = client.get(earlier_href).text
    before = [int(i) for i in re.findall(r'<li id="m(\d+)"', page)]
    assert before
    assert max(before) <= min(int(i) for i in shown)
    assert 'aria-current="true"' not in page  # the hit is not in this window...
    assert parse_qs(urlsplit(earlier_href).query)["hit"] == [str(history.hit)]  # ...but kept
    back = re.search(r'<a href="([^"]*)" data-back>', page)
    assert back
    assert html.unescape(back.group(1)) == f"/apps/1?q={HIT_WORD}"


def test_a_chat_pages_from_its_start(client: TestClient, history: History) -> None:
    page = client.get(f"/apps/1/chats/{history.long_chat}").text
    shown = re.findall(r'<li id="m(\d+)"', page)
    assert len(shown) == 10  # read_chat's default page
    later = next(link for link in _links(page, "/apps/1/chats/") if "offset=10" in link)
    assert len(re.findall(r'<li id="m(\d+)"', client.get(later).text)) == 10
    assert len(shown) < LONG_CHAT_MESSAGES


# -- recall by time --------------------------------------------------------------------


def _back(page: str) -> str:
    back = re.search(r'<a href="([^"]*)" data-back>', page)
    assert back
    return html.unescape(back.group(1))


# App 1's chats by their last message, newest first: the secret chat (2023-11-18), the
# long chat (2023-11-17) and the demo's two (2023-11-14).
APP_1_NEWEST_FIRST = ["Staging deploy keys", LONG_CHAT_TITLE, "Authentication setup", "Billing"]


def _more(page: str) -> str | None:
    found = re.search(r'<a href="([^"]*)" rel="next">More chats', page)
    return html.unescape(found.group(1)) if found else None


def test_without_a_query_the_page_lists_the_chats_newest_first(
    client: TestClient, history: History
) -> None:
    page = client.get("/apps/1")
    assert page.status_code == 200
    assert "Chats of app 1, newest first</h2>" in page.text
    assert _titles(page.text) == APP_1_NEWEST_FIRST  # and not app 2's chat
    assert "Step 1 of the ledger migration: what runs next?" in page.text  # its opening
    assert f"{LONG_CHAT_MESSAGES} messages" in page.text
    assert _more(page.text) is None
    links = _links(page.text, "/apps/1/chats/")
    assert links[:2] == [
        f"/apps/1/chats/{history.secret_chat}?offset=0",
        f"/apps/1/chats/{history.long_chat}?offset=0",
    ]
    opened = client.get(links[1]).text  # the chat from its first message
    first = re.search(
        r'<li id="m\d+" class="message user"[^>]*>.*?<div class="text">([^<]*)', opened, re.S
    )
    assert first
    assert first.group(1) == "Step 1 of the ledger migration: what runs next?"
    assert _back(opened) == "/apps/1"
    assert "← Chats of app 1" in opened


@pytest.mark.parametrize(
    ("window", "titles"),
    [
        ({"after": "2023-11-17"}, ["Staging deploy keys", LONG_CHAT_TITLE]),
        ({"before": "2023-11-17"}, ["Authentication setup", "Billing"]),
        ({"after": "2023-11-17", "before": "2023-11-18"}, [LONG_CHAT_TITLE]),
        ({"after": "2030-01-01"}, []),
    ],
)
def test_a_time_window_keeps_the_chats_active_in_it(
    client: TestClient, window: dict[str, str], titles: list[str]
) -> None:
    page = client.get("/apps/1", params={"q": "", **window})
    assert page.status_code == 200
    assert _titles(page.text) == titles
    assert re.search(r"Chats of app 1, newest first, active (from|before) 20", page.text)
    for name, value in window.items():  # the form holds the window, for the next search
        assert f'<input id="{name}" name="{name}" type="date" value="{value}">' in page.text
    for link in _links(page.text, "/apps/1/chats/"):  # each chat leads back to it
        carried = parse_qs(urlsplit(link).query)
        assert {name: carried[f"window_{name}"] for name in window} == {
            name: [value] for name, value in window.items()
        }
    if not titles:
        assert "No chats in this time window." in page.text


def test_a_search_within_a_window_finds_only_messages_written_in_it(client: TestClient) -> None:
    inside = client.get(
        "/apps/1", params={"q": HIT_WORD, "after": "2023-11-17", "before": "2023-11-18"}
    )
    assert inside.status_code == 200
    assert _titles(inside.text) == [LONG_CHAT_TITLE]
    assert (
        "Only messages written from 2023-11-17 00:00 UTC and before 2023-11-18 00:00 UTC."
        in inside.text
    )
    assert 'id="after" name="after" type="date" value="2023-11-17"' in inside.text
    assert 'id="before" name="before" type="date" value="2023-11-18"' in inside.text
    outside = client.get("/apps/1", params={"q": HIT_WORD, "after": "2023-11-18"})
    assert outside.status_code == 200
    assert _titles(outside.text) == []
    assert "0 chats for" in outside.text
    assert "Only messages written within the after/before window were searched" in outside.text


def test_empty_date_fields_leave_the_window_open(client: TestClient) -> None:
    """A form sent without the page's script carries its empty fields."""
    plain = client.get("/apps/1", params={"q": HIT_WORD}).text
    empty = client.get(f"/apps/1?q={HIT_WORD}&after=&before=")
    assert empty.status_code == 200
    assert _titles(empty.text) == _titles(plain) == [LONG_CHAT_TITLE]
    assert "Only messages written" not in empty.text
    assert _links(empty.text, "/apps/1/chats/") == _links(plain, "/apps/1/chats/")


def test_a_chat_opened_within_a_window_leads_back_to_it(
    client: TestClient, history: History
) -> None:
    window = {"q": HIT_WORD, "after": "2023-11-17", "before": "2023-11-18"}
    found = client.get("/apps/1", params=window).text
    opened = client.get(_links(found, "/apps/1/chats/")[0]).text
    assert f"<mark>{HIT_WORD}</mark>" in opened
    results = f"/apps/1?q={HIT_WORD}&after=2023-11-17&before=2023-11-18"
    assert _back(opened) == results
    earlier = next(
        link
        for link in _links(opened, "/apps/1/chats/")
        if "before" in parse_qs(urlsplit(link).query)
    )
    paged = client.get(earlier).text  # paging the chat keeps where it came from
    assert _back(paged) == results
    listed = client.get("/apps/1", params={"after": "2023-11-17"}).text
    opened = client.get(_links(listed, "/apps/1/chats/")[0]).text
    assert _back(opened) == "/apps/1?after=2023-11-17"


def test_more_pages_through_the_chats_with_list_chats_continuation(client: TestClient) -> None:
    seen: list[str] = []
    pages: list[str] = []
    address: str | None = "/apps/1?after=2023-11-14&limit=1"
    while address is not None:
        page = client.get(address)
        assert page.status_code == 200
        pages.append(address)
        seen += _titles(page.text)
        address = _more(page.text)
        if address is not None:  # the next page keeps the window and moves the cursor
            carried = parse_qs(urlsplit(address).query)
            assert carried["after"] == ["2023-11-14"]
            assert carried["limit"] == ["1"]
            assert carried["cursor"]
    assert seen == APP_1_NEWEST_FIRST
    assert len(pages) == len(APP_1_NEWEST_FIRST)
    # A chat opened from a later page leads back to that page.
    third = parse_qs(urlsplit(pages[2]).query)
    opened = client.get(_links(client.get(pages[2]).text, "/apps/1/chats/")[0]).text
    back = parse_qs(urlsplit(_back(opened)).query)
    assert back["cursor"] == third["cursor"]
    assert back["after"] == ["2023-11-14"]
    assert _titles(client.get(_back(opened)).text)[0] == APP_1_NEWEST_FIRST[2]


# -- what the page shows is what the tools return ---------------------------------------


def test_no_page_shows_a_planted_secret(client: TestClient, history: History) -> None:
    pages = [
        client.get("/"),
        client.get("/apps/1", params={"q": "staging deploy token"}),
        client.get("/apps/1", params={"q": "password"}),
        client.get("/apps/1"),  # the chats by time, with each one's first user message
        client.get("/apps/1", params={"after": "2023-11-18", "q": "token"}),
        client.get(f"/apps/1/chats/{history.secret_chat}"),
        client.get(
            f"/apps/1/chats/{history.secret_chat}", params={"around": history.secret_message}
        ),
    ]
    assert _titles(pages[1].text)[0] == "Staging deploy keys"
    for page in pages:
        assert page.status_code == 200
        free_of_secrets(page.text)
    assert "[redacted github-token]" in pages[-1].text
    assert "password=[redacted password]" in pages[-1].text
    assert "The staging deploy token is [redacted github-token]" in pages[3].text


def test_payloads_and_reasoning_stay_summarised(client: TestClient) -> None:
    page = client.get("/apps/1/chats/1", params={"around": 2}).text
    assert "[write src/auth/session.ts: add session store (200 lines omitted)]" in page
    assert "export const line17" not in page
    assert "The user wants something simple" not in page


def test_history_text_is_escaped_never_markup(recall: ChatRecall) -> None:
    marker = views.Marker(TextAnalysis.default(), "script")
    payload = {
        "query": "script",
        "results": [
            {
                "chat_id": 9,
                "title": "<img src=x onerror=alert(1)>",
                "last_message_at": None,
                "matched_terms": ["script"],
                "matches": [
                    {
                        "message_id": 4,
                        "role": "user",
                        "created_at": None,
                        "excerpt": "<script>alert('x')</script> & done",
                        "projection_truncated": False,
                    }
                ],
            }
        ],
        "results_truncated": False,
    }
    found = views.search_view(1, payload, marker)
    page = (
        templates()
        .get_template("search.html")
        .render(
            app_id=1,
            query="<b>",
            found=found,
            failure=None,
            index=_index(),
            picker=True,
            **_no_window(),
        )
    )
    assert "<img" not in page
    assert "<script>alert" not in page
    assert "<b>" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "&lt;<mark>script</mark>&gt;alert(&#39;x&#39;)" in page


def _index() -> views.IndexLine:
    return views.IndexLine("ready", 1, 0, "stopped", None)


def _no_window() -> dict[str, object]:
    return {"window": views.Window(), "listed": None}


def test_how_a_chat_matched_is_shown_from_the_tools_matched_by() -> None:
    payload = {
        "query": "refund",
        "results": [
            {
                "chat_id": 3,
                "title": "Money back",
                "last_message_at": "2023-11-14T22:16:00.000Z",
                "matched_terms": [],
                "matched_by": ["meaning"],
                "matches": [],
            },
            {
                "chat_id": 4,
                "title": "Refunds",
                "last_message_at": "2023-11-14T22:16:00.000Z",
                "matched_terms": ["refund"],
                "matches": [],
            },
        ],
        "results_truncated": False,
    }
    found = views.search_view(1, payload, views.Marker(TextAnalysis.default(), "refund"))
    assert [r.matched_by for r in found.results] == [("meaning",), ()]
    page = (
        templates()
        .get_template("search.html")
        .render(
            app_id=1,
            query="refund",
            found=found,
            failure=None,
            index=_index(),
            picker=False,
            **_no_window(),
        )
    )
    assert "matched by meaning</span>" in page
    assert 'matched: <span class="term">refund</span>' in page


# -- errors are pages -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "status", "says"),
    [
        ("/apps/1/chats/999999", 404, "App 1 has no chat 999999."),
        ("/apps/2/chats/1", 404, "App 2 has no chat 1."),  # another app's chat: not found
        ("/apps/7", 404, "This database has no app 7."),
        ("/apps/7/chats/1", 404, "App 7 has no chat 1."),  # as any chat it lacks
        ("/apps/99999999999999999999", 404, "This database has no app 99999999999999999999."),
        ("/apps/1/chats/1?around=abc", 400, "around must be a whole number"),
        ("/apps/1/chats/1?around=2&before=99", 400, "before"),
        ("/apps/1?q=" + "x" * 501, 400, "query"),
        ("/apps/1?q=sessions&limit=0", 400, "limit"),
        # the time window: the tools' own messages
        ("/apps/1?q=a&after=banana", 400, "after must be an ISO 8601 date or date and time"),
        ("/apps/1?q=ledger&before=2023-13-01", 400, "before must be an ISO 8601 date"),
        ("/apps/1?q=ledger&after=2023-11-18&before=2023-11-17", 400, "after must be earlier"),
        ("/apps/1?q=ledger&after=2023-11-18&before=2023-11-18", 400, "after must be earlier"),
        ("/apps/1?q=ledger&after=" + "2" * 41, 400, "after must be at most 40 characters"),
        ("/apps/1?after=banana", 400, "after must be an ISO 8601 date or date and time"),
        ("/apps/1?after=2023-11-18&before=2023-11-17", 400, "after must be earlier than before"),
        ("/apps/1?before=" + "2" * 41, 400, "before must be at most 40 characters"),
        ("/apps/1?cursor=somewhere", 400, "cursor is not a cursor that list_chats returned"),
        ("/apps/1?limit=21", 400, "limit"),
        ("/nowhere", 404, "There is no page at this address."),
        ("/static/secret.txt", 404, "There is no such file here."),
    ],
)
def test_a_bad_address_is_a_readable_page_with_its_status(
    client: TestClient, address: str, status: int, says: str
) -> None:
    page = client.get(address)
    assert page.status_code == status
    assert says in page.text
    _readable(page.text)


def test_a_server_for_one_app_serves_no_other(recall: ChatRecall) -> None:
    with page_client(recall, app=1) as client:
        page = client.get("/apps/2", params={"q": "JWT"})
        assert page.status_code == 404
        assert "This page serves app 1 only." in page.text
        assert "Another app" not in page.text


# -- what it refuses --------------------------------------------------------------------


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
def test_nothing_but_get_is_answered(client: TestClient, history: History, method: str) -> None:
    def rows() -> tuple[int, int]:
        with sqlite3.connect(history.path) as connection:
            messages = connection.execute("SELECT count(*) FROM messages").fetchone()[0]
            chats = connection.execute("SELECT count(*) FROM chats").fetchone()[0]
        return messages, chats

    before = rows()
    for address in ("/", "/apps/1?q=JWT", "/apps/1/chats/1", "/static/page.js"):
        page = client.request(method, address, content=b"title=x")
        assert page.status_code == 405, address
        assert page.headers["allow"] == "GET, HEAD"
        _readable(page.text)
    assert rows() == before


@pytest.mark.parametrize(
    "host", ["evil.example:8765", "evil.example", "127.0.0.1:9999", "127.0.0.1", ""]
)
def test_a_request_for_another_host_is_refused(client: TestClient, host: str) -> None:
    """DNS rebinding: a page elsewhere whose own name points at 127.0.0.1."""
    page = client.get("/apps/1", params={"q": "JWT"}, headers={"host": host})
    assert page.status_code == 400
    assert "Authentication setup" not in page.text
    assert "answers only requests for 127.0.0.1:8765, localhost:8765" in page.text


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "LOCALHOST:8765"])
def test_the_served_address_and_localhost_are_answered(client: TestClient, host: str) -> None:
    assert client.get("/", headers={"host": host}).status_code == 200


def test_a_request_target_is_bounded(client: TestClient) -> None:
    page = client.get("/apps/1", params={"q": "x", "pad": "y" * MAX_TARGET_BYTES})
    assert page.status_code == 414
    _readable(page.text)


def test_every_answer_carries_the_security_headers_and_no_inline_script(
    client: TestClient,
) -> None:
    assert "'unsafe-inline'" not in CONTENT_SECURITY_POLICY
    answers = [
        client.get("/"),
        client.get("/apps/1", params={"q": "JWT"}),
        client.get("/apps/1", params={"after": "2023-11-14"}),
        client.get("/apps/1/chats/1"),
        client.get("/static/page.css"),
        client.get("/apps/9"),
        client.post("/"),
        client.get("/", headers={"host": "evil.example"}),
    ]
    for answer in answers:
        assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["referrer-policy"] == "no-referrer"
        assert answer.headers["cache-control"] == "no-store"
        if answer.headers["content-type"].startswith("text/html"):
            assert not re.search(r"<script(?![^>]*\bsrc=)", answer.text)
            assert not re.search(r"<[^>]*\son\w+=", answer.text)  # no inline handlers
            assert "<style" not in answer.text
            assert " style=" not in answer.text
    assert client.get("/static/page.js").headers["content-type"].startswith("text/javascript")


def test_an_app_whose_chats_are_all_deleted_is_no_longer_offered(tmp_path: Path) -> None:
    with chat_recall.sqlite(tmp_path / "h.db", create_host_schema=True) as recall:
        write_sample(recall)
        recall.indexer.run_until_idle()
        with page_client(recall) as client:
            assert client.get("/apps/2").status_code == 200
            recall.host.delete_chat(chat_recall.ChatId(3))  # app 2's only chat
            recall.indexer.run_until_idle()
            assert _links(client.get("/").text, "/apps/") == ["/apps/1"]
            gone = client.get("/apps/2", params={"q": "JWT"})
            assert gone.status_code == 404
            assert "This database has no app 2." in gone.text
            assert "Another app" not in gone.text
        with page_client(recall, app=2) as client:  # started for it: shown, empty
            page = client.get("/apps/2", params={"q": "JWT"})
            assert page.status_code == 200
            assert "0 chats for" in page.text
