"""Serving the search page with uvicorn on one address.

The socket is bound and listening before uvicorn runs: the port is known (port 0 picks
a free one) before the Host check is set up for it, and a browser that connects at
once waits in the backlog instead of being refused. uvicorn is told to leave the
process's logging alone, trust no proxy headers, serve no websockets, and answer a
bounded number of connections at once (503 beyond it)."""

from __future__ import annotations

import ipaddress
import socket

import attrs
import uvicorn

from chat_recall.adapters.web.app import Site, build
from chat_recall.adapters.web.guard import served_hosts

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
# Connections answered at once; each page is a tool call or two on a worker thread.
MAX_CONNECTIONS = 32


@attrs.define
class PageServer:
    """A bound server: `url` to open, `run()` to serve until `stop()` (or Ctrl-C in the
    main thread)."""

    url: str
    _server: uvicorn.Server
    _socket: socket.socket

    @classmethod
    def bind(cls, site: Site, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> PageServer:
        """Bind `host:port` (an IP address; OSError when it is taken) and build the page
        for it. Nothing is served until `run`."""
        address = ipaddress.ip_address(host)
        family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
        listening = socket.socket(family, socket.SOCK_STREAM)
        try:
            listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listening.bind((host, port))
            listening.listen(MAX_CONNECTIONS)
        except OSError:
            listening.close()
            raise
        bound = int(listening.getsockname()[1])
        config = uvicorn.Config(
            build(site, served_hosts(host, bound)),
            log_config=None,
            log_level="warning",
            access_log=False,
            proxy_headers=False,
            server_header=False,
            ws="none",
            lifespan="off",
            limit_concurrency=MAX_CONNECTIONS,
            backlog=MAX_CONNECTIONS,
        )
        name = f"[{host}]" if address.version == 6 else host
        return cls(f"http://{name}:{bound}/", uvicorn.Server(config), listening)

    def run(self) -> None:
        """Serve until `stop()` or, in the main thread, Ctrl-C; the socket is closed
        after."""
        try:
            self._server.run(sockets=[self._socket])
        finally:
            self._socket.close()

    def stop(self) -> None:
        """Ask `run` to finish (it does within a fraction of a second)."""
        self._server.should_exit = True
