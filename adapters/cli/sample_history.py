"""A small realistic history for the demo: decisions, markup, a compaction summary."""

from __future__ import annotations

from domain.messages import MessageText

_LOGIN_FILE = "\n".join(f"export const line{i} = {i};" for i in range(200))

SAMPLE_MESSAGES: tuple[MessageText, ...] = (
    MessageText.user("How should we handle authentication? Sessions or JWT?"),
    MessageText.assistant(
        "<think>The user wants something simple; sessions avoid token refresh.</think>\n"
        "Let's use server-side sessions stored in Postgres; JWTs make revocation hard.\n"
        '<dyad-write path="src/auth/session.ts" description="add session store">\n'
        f"{_LOGIN_FILE}\n</dyad-write>\n"
        '<dyad-execute-sql description="create sessions table">\n'
        "CREATE TABLE sessions (id text primary key, user_id int, expires_at int);\n"
        "</dyad-execute-sql>\n"
        '<dyad-add-dependency packages="iron-session"></dyad-add-dependency>\n'
        "Sessions now expire after 14 days."
    ),
    MessageText.assistant(
        '<dyad-compaction title="Auth decisions" state="finished">'
        "We chose server-side sessions over JWT (revocation). Sessions live 14 days."
        "</dyad-compaction>",
        is_compaction_summary=True,
    ),
    MessageText.assistant(
        '<dyad-output type="error" message="Type error: Property \'userId\' does not exist">'
        "src/auth/session.ts(12,5): error TS2339 ...</dyad-output>\n"
        'Fixed the type error. <dyad-search-replace path="src/auth/session.ts" '
        'description="rename userId to user_id">&lt;&lt;&lt;&lt;&lt;&lt;&lt; SEARCH ...'
        "</dyad-search-replace>"
    ),
)
