"""A relevance evaluation set: synthetic app histories with realistic decisions,
superseded decisions, vague questions, passing mentions and long noisy chats, and
queries with their gold evidence (chat key, message index)."""

from __future__ import annotations

import random

import attrs

from chat_recall.domain.messages import MessageText

U = MessageText.user
A = MessageText.assistant


def write_tag(path: str, description: str, lines: int = 40) -> str:
    body = "\n".join(f"const v{i} = compute({i});" for i in range(lines))
    return f'<dyad-write path="{path}" description="{description}">\n{body}\n</dyad-write>'


@attrs.frozen
class EvalChat:
    key: str
    title: str | None
    messages: tuple[MessageText, ...]


@attrs.frozen
class EvalQuery:
    query: str
    kind: str  # "nl" (a natural-language question) or "keyword"
    chat: str
    evidence: tuple[int, ...]  # message indexes within the gold chat


def noise_chat(key: str, title: str, seed: int, size: int) -> EvalChat:
    """A long chat of everyday build chatter that mentions common words a lot."""
    generator = random.Random(seed)
    topics = [
        "button",
        "layout",
        "page",
        "user",
        "data",
        "error",
        "fix",
        "component",
        "style",
        "the app",
        "login form",
        "settings",
        "database",
        "api",
        "test",
        "deploy",
    ]
    messages = []
    for index in range(size):
        words = generator.sample(topics, 4)
        if index % 2 == 0:
            messages.append(
                U(f"Can you update the {words[0]} and the {words[1]} on the {words[2]}?")
            )
        else:
            messages.append(
                A(
                    f"Updated the {words[0]}; the {words[3]} now works. "
                    + write_tag(
                        f"src/components/{words[1].replace(' ', '_')}.tsx", f"tweak {words[2]}"
                    )
                )
            )
    return EvalChat(key, title, tuple(messages))


APPS: dict[int, tuple[EvalChat, ...]] = {
    1: (
        EvalChat(
            "auth",
            "Authentication setup",
            (
                U("How should users log in? Email magic links or passwords?"),
                A("Options: passwords with bcrypt, magic links, or OAuth via Google."),
                U("Let's avoid passwords entirely."),
                A(
                    "Decision: we use magic links sent by Resend, sessions stored in Postgres, "
                    "14 day expiry. " + write_tag("src/auth/magic-link.ts", "send magic link email")
                ),
                U("And for admins?"),
                A(
                    "Admins additionally need a TOTP second factor; we store the secret encrypted "
                    "with libsodium."
                ),
            ),
        ),
        EvalChat(
            "auth-change",
            "Switch login provider",
            (
                U("Magic links land in spam for Outlook users. Can we change the approach?"),
                A(
                    "We replace magic links with one-time codes (6 digits) by email; codes expire "
                    "after 10 minutes. This supersedes the magic link decision."
                ),
                U("ok ship it"),
                A(
                    write_tag("src/auth/otp.ts", "one-time code login")
                    + " Done, one-time codes are live."
                ),
            ),
        ),
        EvalChat(
            "db",
            "Database choice",
            (
                U("Which database should we use for the app?"),
                A(
                    "Postgres on Neon: branching for previews and serverless driver. SQLite was "
                    "considered but rejected because of multi-region writes."
                ),
                U("What about the ORM?"),
                A("Drizzle ORM, because migrations are plain SQL and it is type-safe."),
            ),
        ),
        EvalChat(
            "pay",
            "Payments",
            (
                U("We need subscriptions with EU VAT handling."),
                A("Stripe Billing with Stripe Tax; Paddle was rejected because of the fee."),
                U("Monthly and yearly plans?"),
                A("Yes: monthly 9 EUR and yearly 90 EUR; yearly gets two months free."),
                U("What happens when a card fails?"),
                A("Dunning: three retries over 7 days, then the account goes read-only."),
            ),
        ),
        EvalChat(
            "style",
            "Design system",
            (
                U("Pick a component library."),
                A("shadcn/ui with Tailwind; the primary color is indigo-600 and we use Inter."),
                U("Dark mode?"),
                A("Dark mode follows the system setting, with a toggle in settings."),
            ),
        ),
        EvalChat(
            "perf",
            "Slow dashboard",
            (
                U("The dashboard takes 8 seconds to load."),
                A(
                    "The culprit is an N+1 query in getProjects; we batch it with a join and add "
                    "an index on projects(owner_id)."
                ),
                U("Still slow on the charts."),
                A(
                    "Charts now load lazily with React.lazy and the data is cached for 60 seconds "
                    "with stale-while-revalidate."
                ),
            ),
        ),
        EvalChat(
            "ja",
            "日本語対応",
            (
                U("ユーザー認証の方式を決めたい"),
                A("ワンタイムコードでの認証に決定しました。"),
            ),
        ),
        EvalChat(
            "de",
            "Übersetzung",
            (
                U("Wir brauchen eine deutsche Übersetzung der Oberfläche."),
                A(
                    "Wir verwenden next-intl; die Übersetzungsdateien liegen unter "
                    "messages/de.json."
                ),
            ),
        ),
        noise_chat("noise1", "Misc UI tweaks", 1, 80),
        noise_chat("noise2", "More tweaks", 2, 60),
    ),
    2: (
        EvalChat(
            "deploy",
            "Deployment",
            (
                U("Where do we host this?"),
                A("Fly.io in the fra region, two machines, with a Postgres cluster on Fly."),
                U("And CI?"),
                A("GitHub Actions builds the Docker image and runs fly deploy on main."),
            ),
        ),
        EvalChat(
            "deploy-change",
            "Move hosting",
            (
                U("Fly keeps having outages. Alternatives?"),
                A("We move hosting to Railway; the Fly setup is retired next week."),
            ),
        ),
        EvalChat(
            "search",
            "Search feature",
            (
                U("Users want to search their notes."),
                A("We use SQLite FTS5 with bm25 ranking; no vector search for now."),
                U("Typos?"),
                A("No fuzzy matching yet; we may add trigram tokenization later."),
            ),
        ),
        EvalChat(
            "uploads",
            "File uploads",
            (
                U("How do we store uploaded images?"),
                A(
                    "S3-compatible storage on Cloudflare R2 with presigned URLs; "
                    "max 10 MB per file."
                ),
                U("Thumbnails?"),
                A("Generated on upload with sharp at 320px width, stored next to the original."),
            ),
        ),
        EvalChat(
            "email",
            "Notifications",
            (
                U("Should we send weekly digests?"),
                A("Yes, a weekly digest email every Monday at 8:00 local time via a cron job."),
                U("Push notifications?"),
                A("Not now; maybe later with web push."),
            ),
        ),
        EvalChat(
            "bug",
            "Crash on save",
            (
                U("The editor crashes when saving a note with an emoji title."),
                A(
                    '<dyad-output type="error" message="RangeError: Invalid string length in '
                    'slugify"></dyad-output> The slugify helper broke on surrogate pairs; fixed by '
                    "using Intl.Segmenter."
                ),
            ),
        ),
        noise_chat("noise3", "Daily work", 3, 100),
    ),
    3: (
        EvalChat(
            "analytics",
            "Analytics",
            (
                U("Which analytics tool respects privacy?"),
                A("Plausible, self-hosted; no cookies so no consent banner is needed."),
            ),
        ),
        EvalChat(
            "i18n",
            "Languages",
            (
                U("Which languages do we launch with?"),
                A("English, French and Japanese at launch; Spanish later."),
            ),
        ),
        EvalChat(
            "rate",
            "Rate limiting",
            (
                U("The API gets hammered by a scraper."),
                A("Rate limit: 100 requests per minute per IP with Upstash Redis, 429 after that."),
            ),
        ),
        EvalChat(
            "tests",
            "Testing strategy",
            (
                U("How do we test the app?"),
                A(
                    "Vitest for units, Playwright for end-to-end on Chromium only, run in CI on "
                    "every pull request."
                ),
            ),
        ),
        noise_chat("noise4", "Small fixes", 4, 70),
    ),
}

QUERIES: tuple[tuple[int, EvalQuery], ...] = (
    (1, EvalQuery("How do users log in?", "nl", "auth-change", (1,))),
    (1, EvalQuery("magic links", "keyword", "auth", (3,))),
    (1, EvalQuery("one-time codes", "keyword", "auth-change", (1, 3))),
    (1, EvalQuery("what did we decide about admin two factor", "nl", "auth", (5,))),
    (1, EvalQuery("TOTP", "keyword", "auth", (5,))),
    (1, EvalQuery("which database did we pick and why", "nl", "db", (1,))),
    (1, EvalQuery("Neon Postgres", "keyword", "db", (1,))),
    (1, EvalQuery("why not SQLite", "nl", "db", (1,))),
    (1, EvalQuery("ORM", "keyword", "db", (3,))),
    (1, EvalQuery("what payment provider are we using", "nl", "pay", (1,))),
    (1, EvalQuery("Paddle fees", "keyword", "pay", (1,))),
    (1, EvalQuery("yearly plan price", "keyword", "pay", (3,))),
    (1, EvalQuery("what happens when a payment fails", "nl", "pay", (5,))),
    (1, EvalQuery("primary colour of the design", "nl", "style", (1,))),
    (1, EvalQuery("dark mode", "keyword", "style", (3,))),
    (1, EvalQuery("why was the dashboard slow", "nl", "perf", (1,))),
    (1, EvalQuery("charts caching", "keyword", "perf", (3,))),
    (1, EvalQuery("認証", "keyword", "ja", (0, 1))),
    (1, EvalQuery("Übersetzungsdateien", "keyword", "de", (1,))),
    (1, EvalQuery("magic-link.ts", "keyword", "auth", (3,))),
    (2, EvalQuery("where is the app hosted", "nl", "deploy-change", (1,))),
    (2, EvalQuery("Fly.io region", "keyword", "deploy", (1,))),
    (2, EvalQuery("how does CI deploy", "nl", "deploy", (3,))),
    (2, EvalQuery("bm25 ranking", "keyword", "search", (1,))),
    (2, EvalQuery("do we support typos in search", "nl", "search", (3,))),
    (2, EvalQuery("image storage", "keyword", "uploads", (1,))),
    (2, EvalQuery("how big can uploaded files be", "nl", "uploads", (1,))),
    (2, EvalQuery("thumbnails size", "keyword", "uploads", (3,))),
    (2, EvalQuery("when is the weekly digest sent", "nl", "email", (1,))),
    (2, EvalQuery("emoji crash", "keyword", "bug", (0, 1))),
    (2, EvalQuery("slugify error", "keyword", "bug", (1,))),
    (3, EvalQuery("privacy friendly analytics", "keyword", "analytics", (1,))),
    (3, EvalQuery("do we need a cookie banner", "nl", "analytics", (1,))),
    (3, EvalQuery("launch languages", "keyword", "i18n", (1,))),
    (3, EvalQuery("how are scrapers limited", "nl", "rate", (1,))),
    (3, EvalQuery("end-to-end tests", "keyword", "tests", (1,))),
    (3, EvalQuery("which browser do e2e tests use", "nl", "tests", (1,))),
)
