"""Ranking and grouping over the index's candidates. Scores are the engine's relevance,
higher is better; the policies here multiply them (boosts > 1, penalties < 1)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from chat_recall.domain.model import Candidate, ChatId
from chat_recall.domain.query import DEFAULT_WINDOW, FieldWeights


@attrs.frozen
class SearchPolicy:
    """The knobs of search_chats. `design_baseline()` is the design's algorithm;
    `default()` adds what the evaluation showed helps (see the search issue's note)."""

    weights: FieldWeights = FieldWeights()
    window: int = DEFAULT_WINDOW
    compaction_factor: float = 0.85  # score * factor: a summary ranks a little worse
    matches_per_chat: int = 2
    # `Caroline's` searches `caroline`, `don't` searches `do` (see query_builder).
    clitics: bool = True
    # Question and request framing (`please`, `tell`, `remember`...) are stopwords.
    question_words: bool = True
    excerpt_chars: int = 220
    # A matching message that asks brings the reply that follows it, ranked with it:
    # questions restate the query's words, answers hold the decision.
    answer_evidence: bool = True
    # Questions of any role bring their reply (the assistant asks and the user decides;
    # two people talking), not only the user's.
    answers_both_ways: bool = True
    # Every matching user message brings the assistant's reply, ranked at this factor of
    # its score (1.0: level with it). It costs evidence (the reply of a statement pushes
    # out a better match in the chat's two slots: tests/evaluation/RESULTS.md); off.
    user_replies: bool = False
    statement_reply_factor: float = 1.0
    # Within a chat, a question whose reply is shown comes after the other matches.
    answers_first: bool = True
    # score * (1 + weight * recency), recency 0 for the oldest candidate of the window and
    # 1 for the newest. On the tuning half a weight large enough to move superseded
    # decisions up costs more elsewhere, and a smaller one changes nothing
    # (tests/evaluation/RESULTS.md, "What each change did on its own"); off.
    recency_weight: float = 0.0
    # Within a chat, show matches whose body holds query words before title-only ones.
    prefer_body_evidence: bool = True
    # score * factor for a match whose own text holds none of the query's words, found
    # only through its chat's title: every message of a chat titled "Deploy to Fly.io"
    # matches `deploy`, its shortest ones ("Frankfurt (fra).") best, above the message
    # that says `fly deploy`. A hundredth puts such matches below any message holding
    # the words in every engine (PostgreSQL's ranking weighs a title match about ten
    # times a body match), while a body match in a chat so titled keeps the title's
    # weight; 1.0: the design's algorithm.
    title_only_factor: float = 0.01
    # The design's exact-phrase bonus: score * factor for a match whose body or title
    # holds the whole normalised query (about what FTS5 added when the phrase was one
    # more OR phrase of the query: its bm25 term, roughly the words' own).
    phrase_bonus: float = 2.0
    # A chat ranks by its best match's score times (the share of the query's words found
    # in its matches) ** this: a chat that holds the name in one message and the topic in
    # another beats one that repeats a single word, most of all a full question's common
    # one. 0: by the best match alone (the design's algorithm).
    coverage_exponent: float = 0.5
    # A later chat that matches every query word an earlier one matches, ranked within
    # this fraction of the earlier one's score, goes above it: the later discussion of
    # the same thing is likely the one that superseded it. 0: off. A tie-breaker between
    # near-equal chats only, unlike `recency_weight`.
    supersede_margin: float = 0.1
    # A query word that is an unbroken run of Japanese or Chinese is cut into words
    # (`query_builder._segmented`); otherwise it matches only as one long phrase.
    segment_unspaced: bool = True

    @classmethod
    def default(cls) -> SearchPolicy:
        return cls()

    @classmethod
    def design_baseline(cls) -> SearchPolicy:
        return cls(
            clitics=False,
            question_words=False,
            answer_evidence=False,
            answers_both_ways=False,
            answers_first=False,
            recency_weight=0.0,
            coverage_exponent=0.0,
            supersede_margin=0.0,
            segment_unspaced=False,
            title_only_factor=1.0,
        )


@attrs.frozen
class RecencyScale:
    """Where a message's time falls between the oldest and newest candidate, 0..1."""

    oldest: int = 0
    newest: int = 0

    @classmethod
    def of(cls, candidates: list[Candidate]) -> RecencyScale:
        if not candidates:
            return cls()
        times = [candidate.created_at for candidate in candidates]
        return cls(min(times), max(times))

    def fraction(self, created_at: int) -> float:
        if self.newest <= self.oldest:
            return 0.0
        return (min(max(created_at, self.oldest), self.newest) - self.oldest) / (
            self.newest - self.oldest
        )


@attrs.frozen
class RankedMatch:
    candidate: Candidate
    adjusted_score: float  # higher is better
    terms: frozenset[str]  # query terms (under the index's analysis) the document holds
    excerpt: str
    # The body itself holds query words (or answers a question whose body does); a match
    # through the chat title alone is weaker evidence of where the discussion is.
    body_evidence: bool = True
    # A question whose reply is among the matches (see `SearchPolicy.answers_first`).
    answered: bool = False


@attrs.frozen
class ChatGroup:
    chat_id: ChatId
    matches: tuple[RankedMatch, ...]
    # The query terms found in any message of the chat that was looked at (shown or not).
    terms: frozenset[str] = frozenset()
    # What the chat ranks by: its best match's score, weighed by how much of the query
    # it holds (`SearchPolicy.coverage_exponent`); the best score itself when not set.
    rank_score: float | None = None
    # The query words (by position) all of whose terms the chat holds.
    words: frozenset[int] = frozenset()
    # When the chat's best match was written.
    best_at: int = 0

    @property
    def best_score(self) -> float:
        return max(match.adjusted_score for match in self.matches)

    @property
    def score(self) -> float:
        return self.best_score if self.rank_score is None else self.rank_score

    @property
    def latest_match_at(self) -> int:
        return max(match.candidate.created_at for match in self.matches)


def adjust(
    candidate: Candidate, policy: SearchPolicy, recency: RecencyScale = RecencyScale()
) -> float:
    """The candidate's score after the recency boost and the compaction penalty."""
    score = candidate.score * (1.0 + policy.recency_weight * recency.fraction(candidate.created_at))
    if candidate.is_compaction_summary:
        score *= policy.compaction_factor
    return score


def _normal(excerpt: str) -> str:
    return " ".join(excerpt.lower().split())


# Whether the terms found in a chat hold one query word (`QueryTerm.held`).
WordTest = Callable[[frozenset[str]], bool]


def group(
    matches: list[RankedMatch],
    policy: SearchPolicy,
    limit: int,
    words: Sequence[WordTest] = (),
) -> list[ChatGroup]:
    """At most `policy.matches_per_chat` materially distinct matches per chat; chats by
    rank score (best adjusted score, weighed by the share of the query's `words` that
    the chat holds), then newest matched message, then chat id; then a later chat that
    supersedes an earlier near-equal one goes above it."""
    by_chat: dict[ChatId, list[RankedMatch]] = {}
    ordered = sorted(
        matches, key=lambda m: (-m.adjusted_score, -m.candidate.created_at, m.candidate.message_id)
    )
    for match in ordered:
        by_chat.setdefault(match.candidate.chat_id, []).append(match)
    groups = []
    for chat_id, chat_matches in by_chat.items():
        best = chat_matches[0]  # rank order: the best score, the latest of equals
        original_terms = frozenset().union(
            *(m.terms for m in chat_matches if not m.candidate.is_compaction_summary)
        )
        kept: list[RankedMatch] = []
        if policy.prefer_body_evidence or policy.answers_first:
            # stable: rank order kept within each class
            chat_matches.sort(
                key=lambda m: (
                    policy.prefer_body_evidence and not m.body_evidence,
                    policy.answers_first and m.answered,
                )
            )
        for match in chat_matches:
            if match.candidate.is_compaction_summary and match.terms <= original_terms:
                continue  # the summary repeats what original messages already show
            if any(_normal(k.excerpt) == _normal(match.excerpt) for k in kept):
                continue
            kept.append(match)
            if len(kept) == policy.matches_per_chat:
                break
        if kept:
            found = frozenset().union(*(m.terms for m in chat_matches))
            held = frozenset(i for i, holds in enumerate(words) if holds(found))
            rank = best.adjusted_score
            if words and policy.coverage_exponent:
                rank *= (len(held) / len(words)) ** policy.coverage_exponent
            groups.append(
                ChatGroup(chat_id, tuple(kept), found, rank, held, best.candidate.created_at)
            )
    groups.sort(key=lambda g: (-g.score, -g.latest_match_at, g.chat_id))
    if policy.supersede_margin:
        _superseded_last(groups, policy.supersede_margin)
    return groups[:limit]


def supersedes(newer: ChatGroup, older: ChatGroup, margin: float) -> bool:
    """`newer` was written later, holds every query word `older` holds, and ranks within
    `margin` of it: likely the later word on the same thing."""
    return (
        newer.best_at > older.best_at
        and newer.words >= older.words
        and newer.score >= (1.0 - margin) * older.score
    )


def _superseded_last(groups: list[ChatGroup], margin: float) -> None:
    """Swap neighbours while a lower chat supersedes the one above it. Each swap puts a
    later chat above an earlier one, so there are fewer than len(groups)**2 of them."""
    swapped = True
    while swapped:
        swapped = False
        for i in range(len(groups) - 1):
            if supersedes(groups[i + 1], groups[i], margin):
                groups[i], groups[i + 1] = groups[i + 1], groups[i]
                swapped = True


PER_CHAT_SHORTLIST = 8


def shortlist(
    candidates: list[Candidate],
    policy: SearchPolicy,
    limit: int,
    recency: RecencyScale = RecencyScale(),
) -> list[Candidate]:
    """The candidates worth reading text for: those of the best `limit` chats by
    text-free adjusted score, at most PER_CHAT_SHORTLIST per chat. Text work then scales
    with the output, not the window."""
    ordered = sorted(
        candidates, key=lambda c: (-adjust(c, policy, recency), -c.created_at, c.message_id)
    )
    per_chat: dict[ChatId, int] = {}
    chosen = []
    for candidate in ordered:
        taken = per_chat.get(candidate.chat_id)
        if taken is None and len(per_chat) >= limit:
            continue
        if taken is not None and taken >= PER_CHAT_SHORTLIST:
            continue
        per_chat[candidate.chat_id] = (taken or 0) + 1
        chosen.append(candidate)
    return chosen
