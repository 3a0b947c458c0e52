"""A small realistic history for the demo: two apps, decisions, markup, a compaction."""

from __future__ import annotations

from chat_recall.domain.messages import MessageText

_SESSION_FILE = "\n".join(f"export const line{i} = {i};" for i in range(200))

AUTH_CHAT = (
    MessageText.user("How should we handle authentication? Sessions or JWT?"),
    MessageText.assistant(
        "<think>The user wants something simple; sessions avoid token refresh.</think>\n"
        "Let's use server-side sessions stored in Postgres; JWTs make revocation hard.\n"
        '<dyad-write path="src/auth/session.ts" description="add session store">\n'
        f"{_SESSION_FILE}\n</dyad-write>\n"
        '<dyad-execute-sql description="create sessions table">\n'
        "CREATE TABLE sessions (id text primary key, user_id int, expires_at int);\n"
        "</dyad-execute-sql>\n"
        '<dyad-add-dependency packages="iron-session"></dyad-add-dependency>\n'
        "Sessions now expire after 14 days."
    ),
    MessageText.user("Great. Keep the login page minimal."),
    MessageText.assistant(
        '<dyad-output type="error" message="Type error: Property \'userId\' does not exist">'
        "src/auth/session.ts(12,5): error TS2339 ...</dyad-output>\n"
        'Fixed the type error. <dyad-search-replace path="src/auth/session.ts" '
        'description="rename userId to user_id">&lt;&lt;&lt;&lt;&lt;&lt;&lt; SEARCH ...'
        "</dyad-search-replace>"
    ),
)

BILLING_CHAT = (
    MessageText.user("Which payment provider? We need EU invoices."),
    MessageText.assistant(
        '<dyad-compaction title="Billing decisions" state="finished">'
        "We chose Stripe Checkout with tax IDs on invoices; Paddle was rejected (fees)."
        "</dyad-compaction>",
        is_compaction_summary=True,
    ),
    MessageText.assistant(
        "Stripe it is. The customer portal reuses the login sessions, no separate JWT."
    ),
)

OTHER_APP_CHAT = (MessageText.user("For the other app we decided on JWT sessions everywhere."),)

SAMPLE_APPS: dict[int, list[tuple[str, tuple[MessageText, ...]]]] = {
    1: [("Authentication setup", AUTH_CHAT), ("Billing", BILLING_CHAT)],
    2: [("Another app", OTHER_APP_CHAT)],
}
