"""The page as a person uses it, in headless Chromium (Debian's `chromium`, driven by
Playwright) against the real `chat-recall serve` command: open the page, type a query,
see the expected chat first, open it, see the hit highlighted, page earlier, go back,
then set a time window and see a chat outside it go. Keyboard only (but for typing a
date), as the page promises; a screenshot of each step is saved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.web.conftest import free_of_secrets, served
from tests.web.history import HIT_WORD, LONG_CHAT_TITLE, SECRET_CHAT_TITLE, History

# Playwright waits for each condition up to this long (no fixed sleeps).
WAIT_MS = 15_000


def _shown_ids(page: Any) -> list[int]:
    return [
        int(i[1:])
        for i in page.locator("ol.messages > li").evaluate_all(
            "items => items.map(item => item.id)"
        )
    ]


def test_a_person_finds_and_reads_a_chat_in_three_actions(
    browser: Any, history: History, tmp_path: Path
) -> None:
    problems: list[str] = []
    with served("serve", "--db", str(history.path), "--app", "1", "--read-only") as (url, _):
        context = browser.new_context(viewport={"width": 1000, "height": 800})
        context.set_default_timeout(WAIT_MS)
        page = context.new_page()
        page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
        page.on(
            "console",
            lambda message: problems.append(message.text) if message.type == "error" else None,
        )

        # 1. Open the page: the search box has the focus, the chats listed by time.
        page.goto(url)
        box = page.get_by_role("searchbox", name="Search the chats of app 1")
        assert box.evaluate("element => element === document.activeElement")
        results = page.locator("[data-result]")
        assert results.all_inner_texts()[:2] == [SECRET_CHAT_TITLE, LONG_CHAT_TITLE]

        # 2. Type the query and press Enter: the expected chat comes first.
        page.keyboard.type(HIT_WORD)
        page.keyboard.press("Enter")
        page.wait_for_url(f"**/apps/1?q={HIT_WORD}")
        assert results.first.inner_text() == LONG_CHAT_TITLE
        assert page.locator(".results mark").first.inner_text() == HIT_WORD
        assert "Index ready" in page.get_by_role("status").inner_text()
        page.screenshot(path=str(tmp_path / "1-results.png"))

        # 3. Down to the first result, Enter: the chat opens at the hit, highlighted.
        page.keyboard.press("ArrowDown")
        assert results.first.evaluate("element => element === document.activeElement")
        page.keyboard.press("Enter")
        page.wait_for_url(f"**/apps/1/chats/{history.long_chat}?**")
        hit = page.locator('[aria-current="true"]')
        assert hit.get_attribute("id") == f"m{history.hit}"
        assert hit.locator("mark").inner_text() == HIT_WORD
        assert hit.evaluate("element => element === document.activeElement")
        assert hit.is_visible()
        assert _in_view(page, hit)
        assert hit.evaluate("e => getComputedStyle(e).backgroundColor") != page.locator(
            "ol.messages > li:not(.hit)"
        ).first.evaluate("e => getComputedStyle(e).backgroundColor")
        around = _shown_ids(page)
        assert history.hit in around
        page.screenshot(path=str(tmp_path / "2-chat.png"))

        # Earlier: read_chat's previous window, ending where this one began.
        page.get_by_role("link", name="Earlier messages").first.click()
        page.wait_for_url("**after=0**")
        earlier = _shown_ids(page)
        assert earlier
        assert max(earlier) <= min(around)
        assert min(earlier) < min(around)
        assert page.locator('[aria-current="true"]').count() == 0
        page.screenshot(path=str(tmp_path / "3-earlier.png"))

        # Escape: back to the results of the same search.
        page.keyboard.press("Escape")
        page.wait_for_url(f"**/apps/1?q={HIT_WORD}")
        assert box.input_value() == HIT_WORD
        free_of_secrets(page.content())

        # A time window, from the day after the long chat, with the box emptied: the
        # chats by time keep the one written since; the long chat is gone.
        box.fill("")
        page.get_by_label("From").fill("2023-11-18")
        page.keyboard.press("Enter")
        page.wait_for_url("**/apps/1?after=2023-11-18")
        assert results.all_inner_texts() == [SECRET_CHAT_TITLE]
        page.screenshot(path=str(tmp_path / "4-window.png"))
        context.close()
    assert not problems, problems


def test_light_and_dark_follow_the_system_setting_and_the_apps_take_keys(
    browser: Any, history: History
) -> None:
    backgrounds = {}
    with served("serve", "--db", str(history.path), "--read-only") as (url, _):
        for scheme in ("light", "dark"):
            context = browser.new_context(color_scheme=scheme)
            context.set_default_timeout(WAIT_MS)
            page = context.new_page()
            page.goto(url)
            backgrounds[scheme] = page.evaluate("getComputedStyle(document.body).backgroundColor")
            # The list of apps: the arrows and Enter work there too.
            page.keyboard.press("ArrowDown")
            page.keyboard.press("ArrowDown")
            page.keyboard.press("Enter")
            page.wait_for_url("**/apps/2")
            assert page.get_by_role("searchbox").evaluate("e => e === document.activeElement")
            context.close()
    assert backgrounds["light"] != backgrounds["dark"]
    assert backgrounds["dark"] == "rgb(23, 24, 26)"


def _in_view(page: Any, element: Any) -> bool:
    box = element.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] < height and box["y"] + box["height"] > 0
