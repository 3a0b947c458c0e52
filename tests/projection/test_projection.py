"""The design's projection unit tests, one named test per case, plus the issue's."""

from __future__ import annotations

import pytest

from chat_recall.domain.messages import MessageText, Role
from chat_recall.domain.projection import (
    PROJECTION_MAX_BYTES,
    MarkupPolicy,
    TagClass,
    TagRule,
    project_for_read,
    project_for_search,
)


def search(content: str) -> str:
    return project_for_search(MessageText.assistant(content)).text


def read(content: str) -> str:
    return project_for_read(MessageText.assistant(content)).text


def test_user_text_is_preserved_even_with_literal_dyad_tag_examples() -> None:
    content = 'How do I use <dyad-write path="a.ts">KEEPME</dyad-write> and <think>x</think>?'
    projection = project_for_search(MessageText.user(content))
    assert projection.text == content
    assert not projection.truncated


def test_user_text_keeps_its_lines_and_indentation() -> None:
    """Only trailing whitespace, line endings and runs of blank lines change."""
    assert project_for_search(MessageText.user("  a\n\n b\t c  ")).text == "  a\n\n b\t c"
    assert project_for_read(MessageText.user("a  \r\n\n\n\n\tb\r")).text == "a\n\n\tb"
    assert project_for_read(MessageText.user("\n \n  x \n \n")).text == "  x"


def test_assistant_prose_is_preserved() -> None:
    assert search("We decided to use Postgres for the billing service.") == (
        "We decided to use Postgres for the billing service."
    )


def test_thinking_and_bulky_payload_bodies_are_removed() -> None:
    content = (
        "Prose. <think>THINKSECRET</think>"
        '<dyad-execute-sql description="add users">CREATE TABLE SQLSECRET</dyad-execute-sql>'
        '<dyad-read-logs type="server" level="error" count="3">LOGSECRET</dyad-read-logs>'
        '<dyad-git operation="diff">DIFFSECRET</dyad-git>'
        "<dyad-database-schema>SCHEMASECRET</dyad-database-schema>"
        '<dyad-mcp-tool-result server="s" tool="t">MCPSECRET</dyad-mcp-tool-result>'
        "<dyad-web-search-result>WEBSECRET</dyad-web-search-result>"
    )
    for projection in (search(content), read(content)):
        for secret in ("THINK", "SQL", "LOG", "DIFF", "SCHEMA", "MCP", "WEB"):
            assert f"{secret}SECRET" not in projection
    assert search(content).startswith("Prose.")


def test_high_signal_paths_and_operation_metadata_are_retained() -> None:
    content = (
        '<dyad-write path="src/auth/login.ts" description="add session refresh">CODE</dyad-write>'
        '<dyad-rename from="src/a.ts" to="src/b.ts"></dyad-rename>'
        '<dyad-delete path="src/old.ts"></dyad-delete>'
        '<dyad-add-dependency packages="zod react-query"></dyad-add-dependency>'
        '<dyad-execute-sql description="create users table">SQL</dyad-execute-sql>'
        '<dyad-mcp-tool-call server="github" tool="create_issue">{}</dyad-mcp-tool-call>'
    )
    text = search(content)
    assert "[write src/auth/login.ts: add session refresh]" in text
    assert "[rename src/a.ts -> src/b.ts]" in text
    assert "[delete src/old.ts]" in text
    assert "[add dependency zod react-query]" in text
    assert "[sql: create users table]" in text
    assert "[mcp call github/create_issue]" in text
    assert "CODE" not in text


def test_compaction_summaries_plans_findings_and_concise_errors_are_retained() -> None:
    content = (
        '<dyad-compaction title="Auth work" state="finished">'
        "We chose JWT cookies.</dyad-compaction>"
        '<dyad-write-plan title="Billing plan" summary="Stripe checkout first" complete="true">'
        "</dyad-write-plan>"
        '<dyad-security-finding title="SQL injection in search" level="high">'
        "User input reaches the query.</dyad-security-finding>"
        '<dyad-output type="error" message="Build failed: cannot find module zod">'
        "STACKTRACE</dyad-output>"
        '<dyad-status title="Type check">2 errors in src/a.ts</dyad-status>'
    )
    text = search(content)
    assert "We chose JWT cookies." in text
    assert "[conversation summary: Auth work]" in text
    assert "[plan Billing plan: Stripe checkout first]" in text
    assert "[security finding high: SQL injection in search]" in text
    assert "User input reaches the query." in text
    assert "Build failed: cannot find module zod" in text
    assert "2 errors in src/a.ts" in text
    assert "STACKTRACE" not in text


def test_what_the_reference_host_lost_is_kept() -> None:
    content = (
        '<dyad-app-blueprint app-name="Tasky" template="react" theme="dark" '
        'design-direction="calm" primary-color="#0af" complete="true"></dyad-app-blueprint>'
        '<dyad-exit-plan notes="Ship the MVP without billing"></dyad-exit-plan>'
        '<dyad-questionnaire count="1"><qa question="Which database?" type="text">Postgres</qa>'
        "</dyad-questionnaire>"
        "<dyad-web-fetch>https://docs.example.com/auth</dyad-web-fetch>"
        "<dyad-web-crawl>https://example.org/</dyad-web-crawl>"
    )
    text = search(content)
    assert "app-name: Tasky; template: react; theme: dark" in text
    assert "Ship the MVP without billing" in text
    assert "Q: Which database? A: Postgres" in text
    assert "[web fetch https://docs.example.com/auth]" in text
    assert "[web crawl https://example.org/]" in text


def test_prior_search_chats_and_read_chat_bodies_are_removed() -> None:
    content = (
        "Before. "
        '<dyad-search-chats query="QUERYSECRET" result-count="1">EXCERPTSECRET</dyad-search-chats>'
        '<dyad-read-chat chat-id="4" title="TITLESECRET">READSECRET</dyad-read-chat>'
        '<dyad-explore-chat-history query="q">REPORTSECRET</dyad-explore-chat-history>'
        " After."
    )
    for text in (search(content), read(content)):
        assert "SECRET" not in text
    assert search(content) == "Before. After."


def test_unknown_assistant_dyad_tags_fail_closed() -> None:
    content = (
        'A <dyad-teleport path="src/x.ts" secret="ATTRSECRET" title="Move it">BODYSECRET'
        "</dyad-teleport> B <thinking>PONDERSECRET</thinking> C"
    )
    text = search(content)
    assert "BODYSECRET" not in text
    assert "ATTRSECRET" not in text
    assert "PONDERSECRET" not in text
    assert "[teleport src/x.ts: Move it]" in text
    assert text.endswith("C")


def test_unclosed_block_does_not_leak_its_body() -> None:
    assert search('Intro <dyad-write path="a.ts">const SECRET = 1;') == "Intro\n[write a.ts]"


def test_message_cut_off_inside_an_opening_tag_leaks_nothing_after_the_bracket() -> None:
    assert search('Intro <dyad-write path="src/a.ts') == "Intro"
    assert read('Intro <dyad-write path="src/a.ts') == "Intro"


def test_nested_tags_end_at_the_first_matching_close() -> None:
    content = '<dyad-write path="a.ts">outer <dyad-write path="b.ts">INNERSECRET</dyad-write> after'
    text = search(content)
    assert "INNERSECRET" not in text
    assert text == "[write a.ts]\nafter"


def test_markup_inside_keep_bodies_obeys_the_policy() -> None:
    content = (
        "<dyad-compaction>Summary <think>THINKSECRET</think> "
        '<dyad-write path="c.ts">CODESECRET</dyad-write> end</dyad-compaction>'
    )
    assert search(content) == "Summary\n[write c.ts]\nend"


def test_escaped_attributes_are_unescaped_once_and_do_not_end_the_tag() -> None:
    content = (
        '<dyad-write path="a&amp;b.ts" description="say &quot;hi&quot; &lt;x&gt; &amp;lt;">'
        "SECRET</dyad-write>"
    )
    assert search(content) == '[write a&b.ts: say "hi" <x> &lt;]'


def test_stray_lt_and_unregistered_tags_stay_prose() -> None:
    assert search("if a < b and <div>x</div> then") == "if a < b and <div>x</div> then"


def test_stray_closing_tags_are_removed() -> None:
    assert search("done</dyad-write> here") == "done here"


def test_tags_inside_code_fences_are_still_tags() -> None:
    content = "```\n<think>FENCESECRET</think>\n```"
    assert "FENCESECRET" not in search(content)


def test_self_closing_tag_is_an_empty_block() -> None:
    assert search('<dyad-delete path="x.ts"/> next') == "[delete x.ts]\nnext"


def test_attribute_values_are_capped() -> None:
    text = search(f'<dyad-write path="a.ts" description="{"d" * 1000}">x</dyad-write>')
    assert len(text) < 200
    assert text.endswith("…]")


def test_pathological_projection_bounds_are_deterministic_and_marked_truncated() -> None:
    content = " ".join(f"word{i}" for i in range(30_000))
    first = project_for_search(MessageText.user(content))
    second = project_for_search(MessageText.user(content))
    assert first == second
    assert first.truncated
    assert len(first.text.encode("utf-8")) <= PROJECTION_MAX_BYTES
    assert first.text.startswith("word0 word1")
    assert first.text.endswith("word29999")
    assert " […] " in first.text


def test_cap_never_splits_a_multibyte_character() -> None:
    projection = project_for_search(MessageText.user("日本語" * 20_000))
    assert projection.truncated
    assert len(projection.text.encode("utf-8")) <= PROJECTION_MAX_BYTES
    projection.text.encode("utf-8").decode("utf-8")  # a split character would raise


def test_normal_messages_never_reach_the_cap() -> None:
    body = "line of generated code\n" * 20_000
    content = f'Done.<dyad-write path="big.ts" description="huge">{body}</dyad-write>'
    assert not project_for_search(MessageText.assistant(content)).truncated


def test_read_projection_adds_concise_summaries_but_no_payload() -> None:
    content = (
        '<dyad-grep query="useAuth" count="3" total="3">src/a.ts:1 GREPSECRET</dyad-grep>'
        '<dyad-output type="error" message="Build failed">Error: boom at line 3</dyad-output>'
        '<dyad-write path="a.ts">l1\nl2\nCODESECRET</dyad-write>'
    )
    text = read(content)
    assert "[grep useAuth count: 3 total: 3 (1 line omitted)]" in text
    assert "Error: boom at line 3" in text
    assert "[write a.ts (3 lines omitted)]" in text
    assert "SECRET" not in text
    assert "count: 3" not in search(content)


def test_read_projection_keeps_line_structure() -> None:
    assert read("First paragraph.\n\n\n\nSecond   line.") == "First paragraph.\n\nSecond   line."


CODE_SAMPLES = {
    "python": "def handler(event):\n    if event.ok:\n        return 1\n\n    return 0",
    "yaml": "services:\n  web:\n    image: app:latest\n    ports:\n      - 8080:80",
    "makefile": "build:\n\tnpm ci\n\tnpm run build\n\ntest: build\n\tnpm test",
    "markdown": "Steps:\n\n1. Install\n   - run `npm ci`\n   - then `npm test`\n2. Deploy",
}


@pytest.mark.parametrize("name", sorted(CODE_SAMPLES))
@pytest.mark.parametrize("role", [Role.USER, Role.ASSISTANT])
def test_code_keeps_its_lines_indentation_and_tabs(name: str, role: Role) -> None:
    code = CODE_SAMPLES[name]
    written = f"Here it is:\n\n```\n{code}   \n```\n"
    expected = f"Here it is:\n\n```\n{code}\n```"
    message = MessageText(role, written)
    assert project_for_search(message).text == expected
    assert project_for_read(message).text == expected


def test_compaction_flag_does_not_change_the_text() -> None:
    content = '<dyad-compaction title="t">Summary text</dyad-compaction> tail'
    flagged = MessageText.assistant(content, is_compaction_summary=True)
    assert project_for_search(flagged) == project_for_search(MessageText.assistant(content))


def test_policy_is_host_configurable() -> None:
    policy = MarkupPolicy.from_rules(
        {
            "acme-note": TagRule(TagClass.KEEP, "note"),
            "acme-file": TagRule(TagClass.META, "file", subject=("path",)),
        },
        tag_pattern=r"acme-[\w-]*",
    )
    content = (
        "<acme-note>keep me</acme-note>"
        '<acme-file path="x.py">FILESECRET</acme-file>'
        "<acme-unknown>UNKNOWNSECRET</acme-unknown>"
        "<think>not a tag for this host</think>"
    )
    text = project_for_search(MessageText.assistant(content), policy).text
    assert text == "keep me\n[file x.py]\n<think>not a tag for this host</think>"


def test_default_policy_overrides_make_a_tag_searchable() -> None:
    policy = MarkupPolicy.default().with_rules({"dyad-execute-sql": TagRule(TagClass.KEEP)})
    text = project_for_search(
        MessageText.assistant("<dyad-execute-sql>SELECT 1</dyad-execute-sql>"), policy
    ).text
    assert text == "SELECT 1"
    assert policy.fingerprint() != MarkupPolicy.default().fingerprint()


def test_same_input_gives_the_same_projection() -> None:
    content = '<dyad-write path="a">x</dyad-write> prose <think>t</think>'
    assert {search(content) for _ in range(5)} == {search(content)}
