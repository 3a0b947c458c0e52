"""Fuzzing the tools: arguments of any JSON type and size (and near-valid ones that
reach deep paths), queries of any text, and message markup of any shape. Every call
answers valid JSON within its byte budget, or a structured error that is not an
internal failure; never a traceback. The same through an in-process MCP server and
client. Each test prints how many examples it ran (`pytest -s`)."""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from chat_recall.adapters import bootstrap
from chat_recall.adapters.mcp_server import build_server
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools import list_chats, read_chat, search_chats
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.messages import Role
from chat_recall.domain.model import ID_MAX, ID_MIN
from chat_recall.domain.projection import DEFAULT_POLICY

BUDGET = {
    "search_chats": search_chats.OUTPUT_BUDGET_BYTES,
    "read_chat": read_chat.OUTPUT_BUDGET_BYTES,
    "list_chats": list_chats.OUTPUT_BUDGET_BYTES,
}
EXPECTED_ERRORS = {"invalid_arguments", "not_found"}
EXAMPLES: Counter[str] = Counter()
# CI runs 100 examples per test and adapter; CHAT_RECALL_FUZZ_EXAMPLES asks for more.
FUZZ_EXAMPLES = int(os.environ.get("CHAT_RECALL_FUZZ_EXAMPLES", "100"))
FUZZ = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

WORDS = "sessions postgres jwt login expiry cache retry worker migration deploy".split()
TAGS = [*sorted(DEFAULT_POLICY.rules), "think", "unknown-tag", "dyad-made-up"]


@pytest.fixture(scope="module", autouse=True)
def _report() -> Iterator[None]:
    yield
    for name, count in sorted(EXAMPLES.items()):
        print(f"fuzz examples: {name} {count}")
    print(f"fuzz examples: total {sum(EXAMPLES.values())}")


# -- data: a history full of markup, big and odd messages, in both adapters -------------


def markup(rng: random.Random, depth: int = 0) -> str:
    """Text with random tags of the host's inventory: attributes, bodies, nesting,
    unclosed and cut-off tags, escapes."""
    parts = []
    for _ in range(rng.randint(1, 6)):
        choice = rng.random()
        if choice < 0.4 or depth > 2:
            parts.append(
                " ".join(
                    rng.choice([*WORDS, "🙂", "認証", "&amp;", "<", ">"])
                    for _ in range(rng.randint(1, 12))
                )
            )
            continue
        tag = rng.choice(TAGS)
        attributes = "".join(
            f' {rng.choice(["path", "title", "type", "description", "x"])}="'
            f'{rng.choice(WORDS)}{rng.choice(["", "&quot;", "/a.ts"])}"'
            for _ in range(rng.randint(0, 3))
        )
        body = markup(rng, depth + 1)
        ending = rng.choice([f"</{tag}>", f"</{tag}>", "", f"</{rng.choice(TAGS)}>"])
        opening = f"<{tag}{attributes}>" if rng.random() > 0.05 else f"<{tag}{attributes}"
        parts.append(opening + body + ending)
    return "\n".join(parts)


def seed_history(recall: ChatRecall) -> None:
    rng = random.Random(11)
    for chat_index in range(12):
        chat_id = recall.host.create_chat(1 + chat_index % 2, rng.choice(WORDS), 1_700_000_000)
        for message_index in range(25):
            role = (Role.USER, Role.ASSISTANT)[message_index % 2]
            content = markup(rng)
            if message_index == 7:
                content = (content + " ") * 300  # a large message
            recall.host.add_message(chat_id, role, content, 1_700_000_000 + message_index)
    recall.indexer.run_until_idle()


@pytest.fixture(scope="module", params=["sqlite", "memory"])
def recall(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ChatRecall]:
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("fuzz") / "host.db"
        instance = bootstrap.sqlite(path, create_host_schema=True)
    else:
        instance = bootstrap.in_memory()
    seed_history(instance)
    yield instance
    instance.close()


# -- what every answer must be -----------------------------------------------------------


def check_answer(tool: str, output: str, *, is_error: bool | None = None) -> Any:
    payload = json.loads(output)  # valid JSON, always
    assert isinstance(payload, dict)
    if "error" in payload:
        assert set(payload) == {"error"}
        assert set(payload["error"]) == {"kind", "message"}
        assert payload["error"]["kind"] in EXPECTED_ERRORS, payload
        assert isinstance(payload["error"]["message"], str)
        assert is_error in (None, True)
    else:
        assert len(output.encode("utf-8")) <= BUDGET[tool]
        assert payload["archival_content"] is True
        assert is_error in (None, False)
    output.encode("utf-8")  # no lone surrogate reaches the output
    return payload


# -- strategies --------------------------------------------------------------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=ID_MIN * 4, max_value=ID_MAX * 4)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
    | st.text(min_size=400, max_size=3000)
)
JSON = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=12), children, max_size=6)
    ),
    max_leaves=25,
)
FTS5_SYNTAX = [*'"*^:()-+{}[],.;', "NEAR", "AND", "OR", "NOT", "NEAR/2", "title:"]
QUERY_TEXT = st.lists(
    st.sampled_from([*WORDS, *FTS5_SYNTAX, "🙂" * 40, "認証方式", "é", "\u0301", "\x00", "\ud800"])
    | st.text(max_size=20),
    max_size=60,
).map(" ".join) | st.text(max_size=700)
IDS = st.integers(min_value=-3, max_value=400) | st.integers(
    min_value=ID_MIN * 2, max_value=ID_MAX * 2
)
SMALL = st.integers(min_value=-3, max_value=30) | JSON


MOMENTS = (
    st.dates().map(str)
    | st.datetimes().map(lambda moment: moment.isoformat())
    | st.sampled_from(["2023-11-14", "2023-11-14T22:13:20Z", "1970-01-01", "last week"])
    | st.text(max_size=50)
    | JSON
)
CURSORS = (
    st.builds(
        lambda order, at, chat: f"{order}:{at}:{chat}",
        st.sampled_from(["newest", "oldest", "x"]),
        st.integers(min_value=-(10**12), max_value=10**12),
        IDS,
    )
    | st.text(max_size=70)
    | JSON
)


def near_valid(tool: str) -> st.SearchStrategy[dict[str, Any]]:
    if tool == "list_chats":
        valid = st.fixed_dictionaries(
            {},
            optional={
                "after": MOMENTS,
                "before": MOMENTS,
                "order": st.sampled_from(["newest", "oldest", "middle"]) | JSON,
                "limit": SMALL,
                "cursor": CURSORS,
                "include_current": st.booleans() | JSON,
            },
        )
    elif tool == "search_chats":
        valid = st.fixed_dictionaries({"query": QUERY_TEXT}, optional={"limit": SMALL})
    else:
        valid = st.fixed_dictionaries(
            {"chat_id": IDS},
            optional={
                "around_message_id": IDS,
                "before": SMALL,
                "after": SMALL,
                "offset": SMALL | st.integers(min_value=0, max_value=10**10),
                "limit": SMALL,
            },
        )
    extra = st.dictionaries(st.text(max_size=10), JSON, max_size=2)
    return st.one_of(valid, st.tuples(valid, extra).map(lambda pair: {**pair[1], **pair[0]}))


TOOLS = st.sampled_from(["search_chats", "read_chat", "list_chats"])
ANY_ARGUMENTS = st.one_of(
    TOOLS.flatmap(lambda tool: st.tuples(st.just(tool), near_valid(tool))),
    st.tuples(TOOLS, JSON),
)
CONTEXTS = st.builds(
    CallContext,
    app_id=st.sampled_from([1, 2, 3]),
    chat_id=st.none() | st.integers(min_value=1, max_value=14),
    message_id=st.none() | st.integers(min_value=1, max_value=320),
)


# -- the tests ---------------------------------------------------------------------------


@FUZZ
@given(call=ANY_ARGUMENTS, context=CONTEXTS)
def test_any_arguments_answer_json_within_budget_or_a_structured_error(
    recall: ChatRecall, call: tuple[str, Any], context: CallContext
) -> None:
    tool, arguments = call
    EXAMPLES["facade arguments"] += 1
    outcome = recall.call_tool(tool, context, arguments)
    check_answer(tool, outcome.output, is_error=outcome.is_error)


@FUZZ
@given(query=QUERY_TEXT, limit=st.integers(min_value=1, max_value=20))
def test_any_query_is_answered(recall: ChatRecall, query: str, limit: int) -> None:
    EXAMPLES["queries"] += 1
    output = recall.search_chats(CallContext(1), {"query": query, "limit": limit})
    payload = check_answer("search_chats", output)
    if "error" in payload:
        assert payload["error"]["kind"] == "invalid_arguments"  # empty or too long
    else:
        for chat in payload["results"]:  # every hit can be read around
            around = {
                "chat_id": chat["chat_id"],
                "around_message_id": chat["matches"][0]["message_id"],
            }
            check_answer("read_chat", recall.read_chat(CallContext(1), around))


MARKUP = (
    st.builds(
        lambda seed, words: markup(random.Random(seed)) + " " + " ".join(words),
        st.integers(min_value=0, max_value=2**32),
        st.lists(st.sampled_from(WORDS), max_size=5),
    )
    | st.text(max_size=2000)
    | st.text(alphabet="<>/=\"' dyathinkwre-", max_size=400)
)


@settings(max_examples=FUZZ_EXAMPLES, deadline=None)
@given(contents=st.lists(MARKUP, min_size=1, max_size=6), query=st.sampled_from(WORDS))
def test_any_markup_is_indexed_searched_and_read(contents: list[str], query: str) -> None:
    EXAMPLES["markup"] += 1
    with bootstrap.in_memory() as recall:
        chat_id = recall.host.create_chat(1, "fuzzed markup", 1_700_000_000)
        for index, content in enumerate(contents):
            role = (Role.USER, Role.ASSISTANT)[index % 2]
            recall.host.add_message(chat_id, role, content, 1_700_000_000 + index)
        recall.indexer.run_until_idle()
        assert recall.dirty.backlog().is_empty
        assert recall.index.quarantine(10).total == 0  # markup is never a reason
        check_answer("search_chats", recall.search_chats(CallContext(1), {"query": query}))
        for offset in (0, 3):
            page = {"chat_id": chat_id, "offset": offset, "limit": 20}
            check_answer("read_chat", recall.read_chat(CallContext(1), page))


# -- through MCP -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mcp_client(recall: ChatRecall) -> Iterator[tuple[BlockingPortal, Client]]:
    with start_blocking_portal() as portal:
        server = build_server(recall, CallContext(1, 3), fresh=False)
        with portal.wrap_async_context_manager(Client(server)) as client:
            yield portal, client


JSON_ARGUMENTS = st.one_of(
    TOOLS.flatmap(lambda tool: st.tuples(st.just(tool), near_valid(tool))),
    st.tuples(TOOLS, st.dictionaries(st.text(max_size=12), JSON, max_size=6)),
)


@FUZZ
@given(call=JSON_ARGUMENTS)
def test_through_mcp_every_call_is_a_json_result_never_a_protocol_error(
    mcp_client: tuple[BlockingPortal, Client], call: tuple[str, dict[str, Any]]
) -> None:
    portal, client = mcp_client
    tool, arguments = call
    arguments = json.loads(json.dumps(arguments))  # what a JSON-RPC peer can send
    EXAMPLES["mcp arguments"] += 1
    result = portal.call(client.call_tool, tool, arguments)
    (content,) = result.content
    payload = check_answer(tool, content.text, is_error=result.is_error)
    if not result.is_error:
        assert result.structured_content == payload
