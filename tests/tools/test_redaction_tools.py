"""Secrets never reach the model: both tools, on both adapters, return no credential of
the table in any field (titles, excerpts, message texts, cards), whatever is searched."""

from __future__ import annotations

import json
import re
from pathlib import Path

import attrs

from chat_recall.adapters import bootstrap
from chat_recall.adapters.telemetry import RecordingTelemetry
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.ports import Telemetry
from chat_recall.domain.projection import DEFAULT_POLICY
from chat_recall.domain.redaction import DEFAULT_REDACTION
from chat_recall.domain.telemetry import IndexBatchEvent, ToolCallEvent
from chat_recall.domain.text import tokenize
from tests.redaction.leaks import all_text, leaked
from tests.redaction.samples import Positive, positives
from tests.tools.conftest import ASSISTANT, USER, chat

SAMPLES = positives()
# Invisible characters pasted inside a credential (from a web page or a chat client).
INVISIBLE = ["\u200b", "\u00ad", "\u2060", "\ufeff", "\u200d", "\u202e", "\u034f"]


def _split_by_invisible(sample: Positive, index: int) -> Positive:
    """The sample with an invisible character in the middle of its credential."""
    middle = len(sample.secret) // 2
    hidden = sample.secret[:middle] + INVISIBLE[index % len(INVISIBLE)] + sample.secret[middle:]
    return attrs.evolve(sample, text=sample.text.replace(sample.secret, hidden))


SPLIT_SAMPLES = [_split_by_invisible(sample, i) for i, sample in enumerate(SAMPLES)]


def _fullwidth(text: str) -> str:
    """Printable ASCII as its fullwidth forms (what a CJK input method types)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


# Each credential typed in fullwidth forms: the same credential to a model reading it.
FULLWIDTH_SAMPLES = [
    attrs.evolve(sample, text=sample.text.replace(sample.secret, _fullwidth(sample.secret)))
    for sample in SAMPLES
]


def _escape(text: str) -> str:
    for raw, entity in (("&", "&amp;"), ('"', "&quot;"), ("<", "&lt;"), (">", "&gt;")):
        text = text.replace(raw, entity)
    return text


def _seed(recall: ChatRecall, samples: list[Positive] = SAMPLES) -> list[int]:
    """One chat per three samples: each sample in the title (every other one), in a
    user message, and in an assistant message's prose and tag attribute."""
    chat_ids = []
    for index in range(0, len(samples), 3):
        group = samples[index : index + 3]
        title = f"Deploy notes {index} {group[0].text[:300]}" if index % 2 else f"Deploy {index}"
        messages = []
        for sample in group:
            messages.append((USER, f"deploy credentials for staging:\n{sample.text}\nwire them"))
            messages.append(
                (
                    ASSISTANT,
                    f"Wired the deploy credentials. {sample.text} "
                    f'<dyad-write path="src/env.ts" description="deploy {_escape(sample.text)}">'
                    f"{sample.text}</dyad-write>",
                )
            )
        chat_id, _ = chat(recall, 1, title, messages, start=1_700_000_000 + index * 1000)
        chat_ids.append(chat_id)
    recall.indexer.run_until_idle()
    return chat_ids


def _queries(sample: Positive) -> list[str]:
    tokens = tokenize(sample.secret)
    return [" ".join(tokens[:3]) or "deploy", sample.kind.replace("-", " ")]


def test_a_credential_in_the_query_is_not_echoed(recall: ChatRecall) -> None:
    _seed(recall)
    for sample in SAMPLES:
        outcome = recall.call_tool("search_chats", CallContext(1), {"query": sample.text[:400]})
        assert leaked(sample.secret, outcome.output + outcome.card) == []


def _assert_nothing_leaks(outputs: list[str], samples: list[Positive] = SAMPLES) -> None:
    text = "\n".join(outputs)
    for sample in samples:
        assert leaked(sample.secret, text) == [], sample.id


def test_no_tool_output_or_card_holds_a_credential(recall: ChatRecall) -> None:
    _assert_no_tool_output_or_card_holds_a_credential(recall)


def test_no_tool_output_or_card_holds_a_credential_with_the_tantivy_engine(
    tmp_path: Path,
) -> None:
    from chat_recall.adapters.sqlite_host.engines import Engine

    with bootstrap.sqlite(
        tmp_path / "host.db", create_host_schema=True, engine=Engine.TANTIVY
    ) as r:
        _assert_no_tool_output_or_card_holds_a_credential(r)


def test_a_credential_split_by_an_invisible_character_is_redacted(recall: ChatRecall) -> None:
    """A zero-width space, soft hyphen, word joiner... inside a credential hides it
    from no check: it is redacted whole in the index, in read_chat and in the echoed
    query, and neither half is returned."""
    assert all(sample.secret not in sample.text for sample in SPLIT_SAMPLES)
    _assert_no_tool_output_or_card_holds_a_credential(recall, SPLIT_SAMPLES)
    for sample in SPLIT_SAMPLES[:20]:
        outcome = recall.call_tool("search_chats", CallContext(1), {"query": sample.text[:400]})
        assert leaked(sample.secret, outcome.output + outcome.card) == []


def test_a_credential_in_fullwidth_forms_is_redacted(recall: ChatRecall) -> None:
    """`ｓｋ-proj-...` read as `sk-proj-...` by the redaction: redacted whole in the
    index, in read_chat and in the echoed query, in neither form returned."""
    chat_ids = _seed(recall, FULLWIDTH_SAMPLES)
    recall.indexer.run_until_idle()
    context = CallContext(1)
    for index, sample in enumerate(FULLWIDTH_SAMPLES):
        chat_id = chat_ids[index // 3]
        read = recall.call_tool("read_chat", context, {"chat_id": chat_id, "limit": 50})
        query = recall.call_tool("search_chats", context, {"query": sample.text[:400]})
        for outcome in (read, query):
            text = outcome.output + outcome.card
            assert leaked(sample.secret, text) == []
            assert _fullwidth(sample.secret) not in text


def _assert_no_tool_output_or_card_holds_a_credential(
    recall: ChatRecall, samples: list[Positive] = SAMPLES
) -> None:
    chat_ids = _seed(recall, samples)
    context = CallContext(1)
    outputs: list[str] = []
    queries = ["deploy credentials", "deploy notes", "redacted", "password", "key token"]
    queries += sorted({q for sample in samples for q in _queries(sample)})
    found = 0
    for query in queries:
        outcome = recall.call_tool("search_chats", context, {"query": query, "limit": 20})
        payload = json.loads(outcome.output)
        found += len(payload.get("results", []))
        # The query is echoed as sent (a credential in it redacted), and so are the
        # words found nowhere; a bare fragment of a secret that the agent itself sent is
        # not history, so these echoes are left out. matched_terms stay checked: a
        # fragment found in a chat would prove the secret is there.
        echoed = payload.pop("query", "")
        assert echoed in query or "[redacted " in echoed
        payload.pop("unmatched_terms", None)
        payload.pop("query_note", None)
        outputs += [all_text(json.dumps(payload)), re.sub(r' query="[^"]*"', "", outcome.card)]
    assert found > 0  # the searches did return the chats, only without their secrets
    for chat_id in chat_ids:
        page = recall.call_tool("read_chat", context, {"chat_id": chat_id, "limit": 20})
        outputs += [all_text(page.output), page.card]
        first = json.loads(page.output)["messages"][0]["message_id"]
        around = recall.call_tool(
            "read_chat", context, {"chat_id": chat_id, "around_message_id": first}
        )
        outputs += [all_text(around.output), around.card]
    _assert_nothing_leaks(outputs, samples)
    assert "[redacted " in "\n".join(outputs)


def test_placeholders_say_what_was_there(recall: ChatRecall) -> None:
    _seed(recall)
    output = json.loads(recall.search_chats(CallContext(1), {"query": "aws secret key"}))
    excerpts = " ".join(m["excerpt"] for r in output["results"] for m in r["matches"])
    assert "[redacted aws-secret-key]" in excerpts


def test_telemetry_counts_redactions_without_content() -> None:
    telemetry = RecordingTelemetry()
    recall = bootstrap.in_memory(overrides={Telemetry: telemetry})
    chat_ids = _seed(recall)
    recall.read_chat(CallContext(1), {"chat_id": chat_ids[0]})
    batches = [e for e in telemetry.events if isinstance(e, IndexBatchEvent)]
    calls = [e for e in telemetry.events if isinstance(e, ToolCallEvent)]
    assert sum(e.redactions for e in batches) >= 2 * len(SAMPLES)
    assert calls[-1].redactions >= 2
    _assert_nothing_leaks([repr(event) for event in telemetry.events])


def test_a_changed_redaction_policy_re_projects_the_index(tmp_path: Path) -> None:
    token = "acme_" + "0123456789abcdef" * 2
    recall = bootstrap.sqlite(tmp_path / "host.db", create_host_schema=True)
    chat(recall, 1, "Acme", [f"the acme deploy uses {token} for now"])
    recall.indexer.run_until_idle()
    before = recall.search_chats(CallContext(1), {"query": "acme deploy"})
    assert token in before
    recall.close()
    policy = DEFAULT_POLICY.with_redaction(
        DEFAULT_REDACTION.with_pattern("acme-token", r"acme_[0-9a-f]{32}")
    )
    recall = bootstrap.sqlite(tmp_path / "host.db", policy=policy)
    recall.indexer.run_until_idle()
    after = recall.search_chats(CallContext(1), {"query": "acme deploy"})
    assert token not in after
    assert "[redacted acme-token]" in after
    recall.close()


def test_an_error_that_repeats_what_the_caller_sent_holds_no_credential() -> None:
    recall = bootstrap.in_memory()
    context = CallContext(1)
    key, stripe = SAMPLES[0], next(s for s in SAMPLES if s.kind == "stripe-secret-key")
    calls = [
        ("search_chats", {"query": "x", key.secret: 1}),
        ("read_chat", {"chat_id": 1, f"password={stripe.secret}": 1}),
        (stripe.secret, {}),
    ]
    for name, arguments in calls:
        outcome = recall.call_tool(name, context, arguments)
        assert "error" in json.loads(outcome.output)
        assert leaked(key.secret, outcome.output) == []
        assert leaked(stripe.secret, outcome.output) == []
        assert "[redacted " in outcome.output


def test_an_argument_name_with_a_lone_surrogate_gets_a_structured_error() -> None:
    """JSON allows a lone surrogate escape ("\\ud800"), so a model can send one."""
    recall = bootstrap.in_memory()
    outcome = recall.call_tool("read_chat", CallContext(1), {"chat_id": 1, "x\ud800": 1})
    error = json.loads(outcome.output)["error"]
    assert error["kind"] == "invalid_arguments"
    assert "x\ufffd" in error["message"]
    outcome.output.encode("utf-8")  # sendable


def test_a_named_value_after_a_unicode_space_is_redacted() -> None:
    """Text pasted from a web page or a document has no-break and other spaces."""
    recall = bootstrap.in_memory()
    texts = [
        'prod db password:\u00a0Hunter2Secret99 and token\u00a0=\u00a0"Zx9Yw8Vu7Ts6Rq5Po4NmLk3"',
        "Authorization:\u00a0Bearer\u00a0abcDEF123ghiJKL456mnoPQR",
        "DB_PASSWORD=\u3000Hunter2Secret99 api_key\u2003=\u2003'Qw3rTy9UiOp4AsDf5Gh'",
        "secret\u2028: Hunter2Secret99",
    ]
    chat_id, _ = chat(recall, 1, "Deploy password:\u00a0Hunter2Secret99", texts)
    recall.indexer.run_until_idle()
    outputs = [recall.read_chat(CallContext(1), {"chat_id": chat_id})]
    for query in ("prod db", "authorization bearer", "deploy", "password"):
        outputs.append(recall.search_chats(CallContext(1), {"query": query}))
    text = "\n".join(all_text(output) for output in outputs)
    for secret in (
        "Hunter2Secret99",
        "Zx9Yw8Vu7Ts6Rq5Po4NmLk3",
        "abcDEF123ghiJKL456mnoPQR",
        "Qw3rTy9UiOp4AsDf5Gh",
    ):
        assert leaked(secret, text) == [], secret
    assert text.count("[redacted ") >= 6
