"""The search page for people (`chat-recall serve`): a driving adapter beside the CLI and
the MCP server, over the same facade and tools. Needs the `web` extra (Starlette,
uvicorn, Jinja2), imported only when the page is served."""
