"""The query value the domain hands to an `IndexStore`, which compiles it for its engine."""

from __future__ import annotations

import attrs

from chat_recall.domain.model import AppId, ChatId
from chat_recall.domain.text import index_text, tokenize
from chat_recall.domain.time_window import TimeWindow

Phrase = tuple[str, ...]


def _non_empty_phrases(phrases: tuple[Phrase, ...]) -> tuple[Phrase, ...]:
    return tuple(phrase for phrase in phrases if phrase)


@attrs.frozen
class MatchQuery:
    """Match a document holding any of `phrases` or `terms` (OR) in its title or body,
    and none of `excluded` or `excluded_terms`.

    A phrase is a sequence of index tokens that must stand next to each other, in order;
    the engine applies its analysis to them (with stemming a phrase finds inflections).
    A term is already a term of the index's analysis, as its vocabulary holds it (what
    a `prefix*` expanded to): engines match it as it is. Every phrase and term counts
    in the score; what is excluded never does, it only leaves documents out."""

    phrases: tuple[Phrase, ...] = attrs.field(converter=_non_empty_phrases)
    terms: tuple[str, ...] = ()
    excluded: tuple[Phrase, ...] = attrs.field(default=(), converter=_non_empty_phrases)
    excluded_terms: tuple[str, ...] = ()

    @classmethod
    def of_words(cls, *words: str) -> MatchQuery:
        """Each word (or file name, or CJK word) becomes the phrase of its tokens."""
        return cls(tuple(tuple(tokenize(index_text(word))) for word in words))

    @property
    def is_empty(self) -> bool:
        """Nothing to look for (exclusions alone find nothing)."""
        return not self.phrases and not self.terms


@attrs.frozen
class TermCount:
    """A term of an app's index and how many of the app's documents hold it."""

    term: str
    documents: int


@attrs.frozen
class VocabularyProbe:
    """Which terms of one app's index to look up (`IndexStore.vocabulary`): each of
    `terms`, and up to `limit` of those that begin with `prefix` (none when empty).
    Terms are the index analysis's terms (Porter stems by default)."""

    app_id: AppId
    terms: tuple[str, ...] = ()
    prefix: str = ""
    limit: int = 0


@attrs.frozen
class FieldWeights:
    """How much a match counts in each field of a document: a larger weight makes a
    match in that field count more (the engine's relevance formula applies them)."""

    title: float = 10.0
    body: float = 1.0


# How many of the best matches a search considers before grouping them into chats.
DEFAULT_WINDOW = 200


@attrs.frozen
class ScopedQuery:
    """A match query within one app, optionally excluding one chat, over a bounded
    window of the best `window` candidates by (score descending, message id); with
    `within`, only messages written in that time window (enforced inside the engine's
    search, before the best are chosen)."""

    match: MatchQuery
    app_id: AppId
    exclude_chat_id: ChatId | None = None
    window: int = DEFAULT_WINDOW
    weights: FieldWeights = FieldWeights()
    within: TimeWindow = TimeWindow()
