"""The relevance evaluation set: synthetic app histories and the questions asked of them.

Twelve apps (`tests/evaluation/apps/`), each a module with its chats and questions:
nine app-building histories (a user and an AI assistant; one of them, `hostels`, in
five languages) and three conversations between two people with no assistant (their
messages alternate the host's two roles, as an import of a two-person conversation
stores them). Chats are long, mix topics, repeat the
common words of their domain, carry markup the projection removes (file writes, SQL,
error output), and sit next to generated everyday chatter of the same app.

Questions added later test what words alone cannot do (`vague`: the question and the
message that answers it share at most one content word, and a near-miss chat holds the
question's words; `unanswerable`: never discussed, so no gold) and word families in
other languages (`inflection`). `tests/evaluation/test_strictness.py` enforces their rules.

Every question is written twice: as a user would ask it (`full`) and as an agent would
search for it (`keywords`). Its gold is a set of evidence messages (labels on the
messages that hold the answer); the gold chats are the chats those messages are in.
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Sequence

import attrs

from chat_recall.domain.messages import Role

CATEGORIES = (
    "decision",  # what was chosen, and why
    "fact",  # a detail: a number, a setting, a limit
    "superseded",  # a decision changed later; the gold is the later one
    "vocabulary",  # the question's everyday words are not the chat's technical ones
    "names",  # people, companies, products
    "when",  # dates and "when did ..."
    "possessive",  # possessives and clitics: Priya's, don't, we'll, typographic ’
    "multi_chat",  # the answer needs several chats
    "identifier",  # file names, error messages, code identifiers
    "multilingual",  # questions and chats in other languages and scripts
    "assistant_asks",  # the assistant asked, the user's reply decided
    "peer",  # added to every question whose gold is in a two-person conversation
    "vague",  # at most one content word shared with the gold; a near-miss chat has them
    "unanswerable",  # about something never discussed in that app: no gold at all
    "inflection",  # the question has another inflection of the gold message's word
)
# Added for issue 36 (a semantic layer, "nothing fits", Snowball stemming); the guard in
# test_relevance.py holds the earlier categories to their figures, not these.
ADDED_CATEGORIES = ("vague", "unanswerable", "inflection")
FORMS = ("full", "keywords")


@attrs.frozen
class Msg:
    role: Role
    content: str
    label: str | None = None
    is_compaction_summary: bool = False


def U(content: str, label: str | None = None) -> Msg:  # noqa: N802 - reads like a script
    return Msg(Role.USER, content, label)


def A(content: str, label: str | None = None) -> Msg:  # noqa: N802
    return Msg(Role.ASSISTANT, content, label)


def S(title: str, content: str, label: str | None = None) -> Msg:  # noqa: N802
    """A compaction summary, as the reference host stores it."""
    return Msg(
        Role.ASSISTANT,
        f'<dyad-compaction title="{title}" state="finished">{content}</dyad-compaction>',
        label,
        is_compaction_summary=True,
    )


def P(*lines: str, labels: dict[int, str] | None = None) -> tuple[Msg, ...]:  # noqa: N802
    """A two-person conversation: lines alternate between the two people (stored as the
    host's two roles), `labels` marks evidence lines by index."""
    marks = labels or {}
    return tuple(
        Msg((Role.USER, Role.ASSISTANT)[i % 2], line, marks.get(i)) for i, line in enumerate(lines)
    )


def write(path: str, description: str, lines: int = 30) -> str:
    """A file write as the host's markup carries it (the projection keeps only the path
    and description)."""
    body = "\n".join(f"  const step{i} = await run({i}, options);" for i in range(lines))
    return f'<dyad-write path="{path}" description="{description}">\n{body}\n</dyad-write>'


def sql(description: str, statement: str) -> str:
    return f'<dyad-execute-sql description="{description}">\n{statement}\n</dyad-execute-sql>'


def error(message: str) -> str:
    return f'<dyad-output type="error" message="{message}">stack trace follows</dyad-output>'


def think(text: str) -> str:
    return f"<think>{text}</think>"


@attrs.frozen
class Chat:
    key: str
    title: str | None
    day: str  # ISO date the chat took place
    messages: tuple[Msg, ...]
    peer: bool = False


@attrs.frozen
class Question:
    id: str  # stable: the split and the reports refer to it
    tags: tuple[str, ...]
    full: str
    keywords: str
    evidence: tuple[str, ...]  # labels of the messages that hold the answer (none: unanswerable)
    # Keys of near-miss chats: they hold the question's own words but do not answer it
    # (every `vague` question names at least one; test_strictness.py checks them).
    distractors: tuple[str, ...] = ()
    # The Snowball stemmer name of the question's language ("german", "english", ...),
    # for `inflection` questions.
    language: str | None = None
    # (the word as the question writes it, as the gold message writes it), for
    # `inflection` questions: two inflections of one word, each absent from the other side.
    inflection: tuple[str, str] | None = None

    def text(self, form: str) -> str:
        return self.full if form == "full" else self.keywords


Q = Question


@attrs.frozen
class App:
    id: int
    name: str
    chats: tuple[Chat, ...]
    questions: tuple[Question, ...]

    def chat_of(self, label: str) -> str:
        for chat in self.chats:
            if any(message.label == label for message in chat.messages):
                return chat.key
        raise KeyError(f"{self.name}: no message labelled {label!r}")

    def gold_chats(self, question: Question) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.chat_of(label) for label in question.evidence))

    def tags(self, question: Question) -> tuple[str, ...]:
        """The question's categories; `peer` and `multi_chat` follow from its gold."""
        tags = list(question.tags)
        chats = {chat.key: chat for chat in self.chats}
        gold = self.gold_chats(question)
        if any(chats[key].peer for key in gold) and "peer" not in tags:
            tags.append("peer")
        if len(gold) > 1 and "multi_chat" not in tags:
            tags.append("multi_chat")
        return tuple(tags)


def filler(
    key: str,
    title: str | None,
    day: str,
    seed: int,
    size: int,
    requests: Sequence[str],
    replies: Sequence[str],
    paths: Sequence[str],
) -> Chat:
    """Everyday build chatter of one app: requests and replies drawn from the app's own
    pools (so its common words are everywhere), each reply with a file write."""
    generator = random.Random(seed)
    tails = (
        "",
        " It looks off on mobile.",
        " Thanks!",
        " Keep it simple please.",
        " Same as last time.",
        " Not urgent, whenever you get to it.",
        " It still doesn't work for me.",
        " Let's go with whatever is quickest.",
    )
    messages: list[Msg] = []
    for index in range(size):
        if index % 2 == 0:
            messages.append(U(generator.choice(requests) + generator.choice(tails)))
        else:
            path = generator.choice(paths)
            messages.append(
                A(generator.choice(replies) + "\n" + write(path, "update " + path.split("/")[-1]))
            )
    return Chat(key, title, day, tuple(messages))


def chatter(
    key: str, title: str | None, day: str, seed: int, size: int, lines: Sequence[str]
) -> Chat:
    """A sitting of small talk between two people, drawn from their own pool of lines."""
    generator = random.Random(seed)
    return Chat(key, title, day, P(*generator.sample(list(lines), size)), peer=True)


GENERIC_TITLES = (
    "Fix bug",
    "UI tweaks",
    "New chat",
    None,
    "Small changes",
    "Follow-up",
    "Bugs",
    "Cleanup",
    "Polish",
    "Quick fix",
    "Tweaks",
    "Misc",
)


def _days(generator: random.Random, first: str, last: str, count: int) -> list[str]:
    start = datetime.date.fromisoformat(first)
    span = (datetime.date.fromisoformat(last) - start).days
    return sorted(
        (start + datetime.timedelta(days=generator.randrange(span + 1))).isoformat()
        for _ in range(count)
    )


def fillers(
    prefix: str,
    count: int,
    seed: int,
    period: tuple[str, str],
    requests: Sequence[str],
    replies: Sequence[str],
    paths: Sequence[str],
) -> tuple[Chat, ...]:
    """`count` chats of everyday chatter spread over `period`, 6-40 messages each, with
    the generic titles hosts give chats."""
    generator = random.Random(seed)
    return tuple(
        filler(
            f"{prefix}-{index:02d}",
            generator.choice(GENERIC_TITLES),
            day,
            generator.randrange(1_000_000),
            generator.randrange(6, 41, 2),
            requests,
            replies,
            paths,
        )
        for index, day in enumerate(_days(generator, *period, count))
    )


def chatters(
    prefix: str,
    count: int,
    seed: int,
    period: tuple[str, str],
    lines: Sequence[str],
    title: str | None = None,
) -> tuple[Chat, ...]:
    """`count` sittings of small talk between the two people, 8-24 lines each."""
    generator = random.Random(seed)
    return tuple(
        chatter(
            f"{prefix}-{index:02d}",
            title,
            day,
            generator.randrange(1_000_000),
            min(len(lines), generator.randrange(8, 25, 2)),
            lines,
        )
        for index, day in enumerate(_days(generator, *period, count))
    )


def by_day(*chats: Chat) -> tuple[Chat, ...]:
    """Chats in the order they happened (the host creates them in that order)."""
    return tuple(sorted(chats, key=lambda chat: chat.day))


def timestamps(chats: Sequence[Chat]) -> dict[str, int]:
    """Each chat's start in Unix seconds: its day at 09:00 UTC, later chats of the same
    day three hours apart (messages then follow two minutes apart)."""
    starts: dict[str, int] = {}
    per_day: dict[str, int] = {}
    for chat in chats:
        day = datetime.datetime.fromisoformat(chat.day).replace(hour=9, tzinfo=datetime.UTC)
        offset = per_day.get(chat.day, 0)
        per_day[chat.day] = offset + 1
        starts[chat.key] = int(day.timestamp()) + offset * 3 * 3600
    return starts


def load_apps() -> tuple[App, ...]:
    from tests.evaluation.apps import ALL_APPS

    return ALL_APPS
