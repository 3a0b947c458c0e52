"""search_chats as an agent's client sees it: one persistent `chat-recall mcp` process
(the database's own engine, its indexer idle) driven by the MCP SDK's stdio client,
each query class timed from the call to the parsed result. Issue 16 reported its
figures this way: the p95 minus the round trip of a query that touches no index (a
query of punctuation only, which goes through the whole tool but never reaches the
index), so the figure is what the search itself adds to a call."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

NO_INDEX_QUERY = "?"  # punctuation only: an empty plan, the index is not touched
TIME_LIMIT_SECONDS = 600


class SearchFailed(RuntimeError):
    """A timed call answered with an error: its timing would not be a search's."""


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


async def _timings(
    path: Path, app_id: int, queries: dict[str, str], repeats: int
) -> dict[str, list[float]]:
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "chat_recall", "mcp", "--db", str(path), "--app", str(app_id)],
    )
    calls = {"no index (round trip)": NO_INDEX_QUERY, **queries}
    timings: dict[str, list[float]] = {name: [] for name in calls}
    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        for query in calls.values():  # warm: first calls open connections and caches
            await client.call_tool("search_chats", {"query": query})
        # rounds across the classes, so a slow moment of the machine is shared by all
        for _ in range(repeats):
            for name, query in calls.items():
                started = time.perf_counter()
                result = await client.call_tool("search_chats", {"query": query})
                timings[name].append((time.perf_counter() - started) * 1000)
                if result.is_error:
                    raise SearchFailed(f"{name}: {result.content}")
    return timings


def through_mcp(path: Path, app_id: int, queries: dict[str, str], repeats: int) -> dict[str, Any]:
    """Per class p50/p95 of the whole call, and the p95 net of the no-index call's
    median round trip (the issue's figure; the median, so a slow moment of the machine
    in the no-index calls never makes a search look faster)."""

    async def bounded() -> dict[str, list[float]]:
        with anyio.fail_after(TIME_LIMIT_SECONDS):
            return await _timings(path, app_id, queries, repeats)

    timings = anyio.run(bounded)
    round_trip = statistics.median(timings["no index (round trip)"])
    return {
        name: {
            "p50_ms": round(statistics.median(values), 2),
            "p95_ms": round(_percentile(values, 0.95), 2),
            "p95_net_ms": round(_percentile(values, 0.95) - round_trip, 2),
        }
        for name, values in timings.items()
    }
