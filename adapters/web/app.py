"""The search page as an ASGI application (Starlette), over the same facade the agent's
tools go through: a search is a `search_chats` call, the chats by time a `list_chats`
call, a chat window a `read_chat` call, and their JSON output is what the page shows
(`views`). There is no second search path.

Pages:

- `/`: the apps this database holds (`Site.apps`, as `chat-recall status` lists them),
  or straight to the one app the server was started for (`--app`);
- `/apps/{app}?q=...&after=...&before=...`: the search box with its time window and,
  with a query, the ranked chats (`search_chats`); without one, the app's chats by
  time, newest first (`list_chats`), a page from `cursor` on with a link to the next;
- `/apps/{app}/chats/{chat}?around=...&q=...`: a window of one chat around the hit (or
  a page from `offset`), with read_chat's continuations as earlier/later links (and
  the page it was opened from, `views.Origin`, for the way back);
- `/static/page.css`, `/static/page.js`, `/static/icon.svg`: the page's own style,
  script (keys, and a search form that leaves its empty fields out) and icon.

Every failure is a page with its status code and a sentence (never a traceback); the
tools' own errors keep their message (it names what was wrong)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio.to_thread
import attrs
import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from chat_recall.adapters.web import views
from chat_recall.adapters.web.guard import Guard
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.application.tools.list_chats import ListChats
from chat_recall.application.tools.read_chat import ReadChat
from chat_recall.application.tools.registry import ToolOutcome
from chat_recall.application.tools.search_chats import SearchChats
from chat_recall.domain.errors import InvalidArguments, NotFound
from chat_recall.domain.model import AppId, ChatId, is_storable_id

HERE = Path(__file__).parent
STATIC = {
    "page.css": "text/css; charset=utf-8",
    "page.js": "text/javascript; charset=utf-8",
    "icon.svg": "image/svg+xml",
}
# The picker lists this many apps at most (each is one status read); others are
# reached by their address, /apps/ID.
MAX_APPS_LISTED = 200
# When this process runs the indexer: how long a search lets it take in what the host
# wrote just before (as the MCP server does before a search).
FRESHNESS_WAIT_SECONDS = 0.5
# A tool's error, by its kind, as an HTTP status (anything else: the service failed).
TOOL_ERROR_STATUS = {InvalidArguments.kind: 400, NotFound.kind: 404}


class PageError(Exception):
    """A request the page cannot answer: shown as an error page with this status."""

    def __init__(self, status: int, title: str, message: str) -> None:
        super().__init__(message)
        self.status, self.title, self.message = status, title, message


@attrs.frozen
class Site:
    """What the page serves: the facade, the apps it holds (`apps()`, the registry
    `status` reads), and the one app it is limited to (`app`, from `--app`), if any.
    `fresh`: this process runs the indexer, so a search lets it catch up first."""

    recall: ChatRecall
    apps: Callable[[], Sequence[int]]
    app: AppId | None = None
    fresh: bool = False


def templates() -> jinja2.Environment:
    """Jinja2 with autoescaping on for every template: every text from history is
    escaped, whatever it holds."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


@attrs.frozen
class Pages:
    site: Site
    environment: jinja2.Environment
    static: Mapping[str, bytes]

    def render(self, template: str, code: int = 200, **values: Any) -> HTMLResponse:
        page = self.environment.get_template(template).render(**values)
        return HTMLResponse(page, status_code=code)

    def error(self, status: int, title: str, message: str) -> HTMLResponse:
        home = "/" if self.site.app is None else views.search_href(self.site.app)
        return self.render(
            "error.html", status, title=title, message=message, status=status, home=home
        )

    # -- the apps ---------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        if self.site.app is not None:
            return RedirectResponse(views.search_href(self.site.app), status_code=303)
        listed, unlisted = await anyio.to_thread.run_sync(self._app_statuses)
        return self.render("apps.html", apps=views.app_entries(listed), more=unlisted)

    def _app_statuses(self) -> tuple[list[tuple[int, int, int]], int]:
        """The first apps with their figures, and how many more there are."""
        registered = self.site.apps()
        statuses = []
        for app_id in registered[:MAX_APPS_LISTED]:
            status = self.site.recall.status(AppId(app_id))
            if status.documents or status.pending:  # the apps a page can show
                statuses.append((app_id, status.documents, status.pending))
        return statuses, max(0, len(registered) - MAX_APPS_LISTED)

    def _app(self, request: Request) -> AppId:
        """The app of the address; with `--app`, only that one. Otherwise any: a chat
        page asks read_chat, which finds no chat of an app the database lacks, and the
        search page shows an app only when its index holds something (`_index_line`);
        reading the app registry on every page would scan the index at scale."""
        app_id = AppId(request.path_params["app"])
        if self.site.app is not None and app_id != self.site.app:
            raise PageError(404, "No such app here", f"This page serves app {self.site.app} only.")
        if not is_storable_id(app_id):
            raise PageError(404, "No such app", f"This database has no app {app_id}.")
        return app_id

    def _index_line(self, app_id: AppId) -> views.IndexLine:
        """The app's index status; an app with nothing indexed nor waiting is one this
        database does not have (unless the server was started for it)."""
        status = self.site.recall.status(app_id)
        if self.site.app is None and not (status.documents or status.pending):
            raise PageError(404, "No such app", f"This database has no app {app_id}.")
        return views.IndexLine(
            status.state, status.documents, status.pending, status.indexer, status.note
        )

    # -- search -----------------------------------------------------------------------

    async def search(self, request: Request) -> Response:
        app_id = self._app(request)
        query = request.query_params.get("q", "")
        window = _window(request)
        index = await anyio.to_thread.run_sync(self._index_line, app_id)
        if not query.strip():
            return await self._listing(request, app_id, window, index)
        arguments: dict[str, Any] = {"query": query, **window.arguments()}
        limit = _integer(request, "limit")
        if limit is not None:
            arguments["limit"] = limit
        if self.site.fresh:  # let this process's indexer take in the host's last writes
            await anyio.to_thread.run_sync(
                self.site.recall.wait_until_indexed, FRESHNESS_WAIT_SECONDS
            )
        outcome = await self._call(SearchChats.definition.name, app_id, arguments)
        if self.site.fresh:
            index = await anyio.to_thread.run_sync(self._index_line, app_id)
        if outcome.error is not None:
            failure = outcome.error.error.message
            return self._search_page(
                app_id, query, window, index, failure=failure, code=_status(outcome)
            )
        found = views.search_view(app_id, _payload(outcome), self._marker(query), window)
        return self._search_page(app_id, query, window, index, found=found)

    async def _listing(
        self, request: Request, app_id: AppId, window: views.Window, index: views.IndexLine
    ) -> Response:
        """The page without a query: the app's chats by time (list_chats' default
        order, newest first), within the window, from the URL's cursor on."""
        cursor = request.query_params.get("cursor") or None
        arguments: dict[str, Any] = window.arguments()
        limit = _integer(request, "limit")
        if limit is not None:
            arguments["limit"] = limit
        if cursor is not None:
            arguments["cursor"] = cursor
        outcome = await self._call(ListChats.definition.name, app_id, arguments)
        query = request.query_params.get("q", "")
        if outcome.error is not None:
            failure = outcome.error.error.message
            return self._search_page(
                app_id, query, window, index, failure=failure, code=_status(outcome)
            )
        listed = views.listing_view(app_id, _payload(outcome), window, cursor)
        return self._search_page(app_id, query, window, index, listed=listed)

    def _search_page(
        self,
        app_id: AppId,
        query: str,
        window: views.Window,
        index: views.IndexLine,
        *,
        found: views.SearchView | None = None,
        listed: views.ListingView | None = None,
        failure: str | None = None,
        code: int = 200,
    ) -> HTMLResponse:
        return self.render(
            "search.html",
            code,
            app_id=app_id,
            query=query,
            window=window,
            found=found,
            listed=listed,
            failure=failure,
            index=index,
            picker=self.site.app is None,
        )

    # -- a chat -----------------------------------------------------------------------

    async def chat(self, request: Request) -> Response:
        app_id = self._app(request)
        chat_id = ChatId(request.path_params["chat"])
        read = {
            argument: value
            for name, argument in views.READ_PARAMETERS.items()
            if (value := _integer(request, name)) is not None
        }
        if not read:
            read = {"offset": 0}
        hit = _integer(request, "hit")
        if hit is None:
            hit = read.get("around_message_id")
        origin = views.Origin.of_chat_address(request.query_params)
        outcome = await self._call(ReadChat.definition.name, app_id, {"chat_id": chat_id, **read})
        if outcome.error is not None:
            status = _status(outcome)
            if status == 404:
                raise PageError(404, "No such chat", f"App {app_id} has no chat {chat_id}.")
            raise PageError(status, "Cannot show this chat", outcome.error.error.message)
        marker = self._marker(origin.query)
        shown = views.chat_view(
            app_id, _payload(outcome), marker, hit=hit, read=read, origin=origin
        )
        return self.render(
            "chat.html",
            app_id=app_id,
            query=origin.query or "",
            chat=shown,
            picker=self.site.app is None,
        )

    # -- the rest ---------------------------------------------------------------------

    async def asset(self, request: Request) -> Response:
        name = request.path_params["name"]
        body = self.static.get(name)
        if body is None:
            raise PageError(404, "Not found", "There is no such file here.")
        return Response(body, media_type=STATIC[name])

    async def _call(self, tool: str, app_id: AppId, arguments: dict[str, Any]) -> ToolOutcome:
        return await self.site.recall.call_tool_async(tool, CallContext(app_id), arguments)

    def _marker(self, query: str | None) -> views.Marker:
        """Marks the query's words as the index the tools searched analyses them."""
        return views.Marker(self.site.recall.index.analysis, query)


def _payload(outcome: ToolOutcome) -> Any:
    return json.loads(outcome.output)


def _status(outcome: ToolOutcome) -> int:
    error = outcome.error
    return 500 if error is None else TOOL_ERROR_STATUS.get(error.kind, 503)


def _window(request: Request) -> views.Window:
    """The address's time window; the tools read the dates (and name a bad one)."""
    return views.Window.of(request.query_params.get("after"), request.query_params.get("before"))


def _integer(request: Request, name: str) -> int | None:
    """A whole-number parameter of the address, None when absent; the tools check its
    range (and say which one in their error)."""
    text = request.query_params.get(name)
    if text is None or text == "":
        return None
    if not (text.isascii() and text.lstrip("-").isdigit()) or len(text) > 20:
        raise PageError(400, "Bad address", f"{name} must be a whole number, not {text!r}.")
    return int(text)


def build(site: Site, hosts: frozenset[str]) -> ASGIApp:
    """The page's ASGI application, guarded (`guard.Guard`) for `hosts`, the Host header
    values it answers."""
    static = {name: (HERE / "static" / name).read_bytes() for name in STATIC}
    pages = Pages(site, templates(), static)

    async def page_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, PageError)
        return pages.error(error.status, error.title, error.message)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        if error.status_code == 404:
            return pages.error(404, "Not found", "There is no page at this address.")
        return pages.error(error.status_code, "Cannot answer", str(error.detail))

    async def failure(request: Request, error: Exception) -> Response:
        return pages.error(500, "Something went wrong", "The page could not be made.")

    application = Starlette(
        routes=[
            Route("/", pages.home, methods=["GET"]),
            Route("/apps/{app:int}", pages.search, methods=["GET"]),
            Route("/apps/{app:int}/chats/{chat:int}", pages.chat, methods=["GET"]),
            Route("/static/{name}", pages.asset, methods=["GET"]),
        ],
        exception_handlers={PageError: page_error, HTTPException: http_error, Exception: failure},
    )
    return Guard(application, hosts, pages.error)
