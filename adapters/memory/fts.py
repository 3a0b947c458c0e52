"""An inverted index that reproduces one SQLite FTS5 table exactly.

Terms are the table's `TextAnalysis` of `domain.text.tokenize` (FTS5 `unicode61
remove_diacritics 2`), stemmed by `porter_stem` as FTS5's `porter` tokenizer does when
the analysis stems (both checked against SQLite by the tests), or the Snowball stems
the SQLite adapter writes into its table for a language that has them; query phrases
are analysed the same way, as FTS5 does. Columns are (title, body, chat_ref) as in the SQLite
layout; bm25 follows FTS5's `fts5Bm25Function`: k1 = 1.2, b = 0.75, per-column
weights, document length summed over all indexed columns, avgdl over the table,
IDF = log((N - n + 0.5) / (n + 0.5)) floored at 1e-6, score negated (lower is better).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import attrs

from chat_recall.domain.model import MessageId
from chat_recall.domain.query import FieldWeights, MatchQuery, Phrase
from chat_recall.domain.text.analysis import TextAnalysis

K1 = 1.2
B = 0.75
IDF_FLOOR = 1e-6


@attrs.frozen
class FtsRow:
    title: tuple[str, ...]
    body: tuple[str, ...]
    chat_ref: tuple[str, ...]
    title_text: str
    body_text: str

    @property
    def size(self) -> int:
        return len(self.title) + len(self.body) + len(self.chat_ref)


def count_phrase(tokens: tuple[str, ...], phrase: Phrase) -> int:
    """Occurrences of `phrase` in a column, overlapping ones included (FTS5 instances)."""
    width = len(phrase)
    if width == 1:
        return tokens.count(phrase[0])
    first = phrase[0]
    return sum(
        1
        for start, token in enumerate(tokens)
        if token == first and tokens[start : start + width] == phrase
    )


@attrs.define
class FtsTable:
    analysis: TextAnalysis = TextAnalysis.default()
    rows: dict[MessageId, FtsRow] = attrs.field(factory=dict)
    total_tokens: int = 0
    postings: dict[str, set[MessageId]] = attrs.field(factory=dict)

    def insert(self, rowid: MessageId, title: str, body: str, chat_ref: str) -> None:
        if rowid in self.rows:
            self.delete(rowid)
        terms = self.analysis.terms
        row = FtsRow(tuple(terms(title)), tuple(terms(body)), tuple(terms(chat_ref)), title, body)
        self.rows[rowid] = row
        self.total_tokens += row.size
        for token in {*row.title, *row.body, *row.chat_ref}:
            self.postings.setdefault(token, set()).add(rowid)

    def delete(self, rowid: MessageId) -> None:
        row = self.rows.pop(rowid, None)
        if row is None:
            return
        self.total_tokens -= row.size
        for token in {*row.title, *row.body, *row.chat_ref}:
            holders = self.postings[token]
            holders.discard(rowid)
            if not holders:
                del self.postings[token]

    def _phrase_rows(self, phrase: Phrase) -> Iterable[MessageId]:
        """Rows holding `phrase` in title or body."""
        holders = [self.postings.get(token, set()) for token in set(phrase)]
        candidates = set.intersection(*holders) if holders else set()
        for rowid in candidates:
            row = self.rows[rowid]
            if count_phrase(row.title, phrase) or count_phrase(row.body, phrase):
                yield rowid

    def vocabulary(self, terms: tuple[str, ...], prefix: str, limit: int) -> dict[str, int]:
        """As FTS5's `fts5vocab` table of type `row`: each term among `terms`, and the
        first `limit` in term order that begin with `prefix`, with the rows holding it
        (in any column, documents not yet reclaimed included)."""
        found = {term: len(self.postings[term]) for term in terms if term in self.postings}
        if prefix:
            starting = sorted(term for term in self.postings if term.startswith(prefix))
            found.update((term, len(self.postings[term])) for term in starting[:limit])
        return found

    def _analysed(self, phrases: tuple[Phrase, ...], terms: tuple[str, ...]) -> list[Phrase]:
        """Query phrases and vocabulary terms as the table's terms. A term goes through
        the token FTS5 is given for it (`TextAnalysis.token_for`), so a term FTS5 leaves
        out is left out here too."""
        analysed = [self.analysis.phrase(phrase) for phrase in phrases]
        tokens = (self.analysis.token_for(term) for term in terms)
        return analysed + [(self.analysis.engine_term(token),) for token in tokens if token]

    def _holds(self, row: FtsRow, phrases: list[Phrase]) -> bool:
        return any(count_phrase(row.title, p) or count_phrase(row.body, p) for p in phrases)

    def ranked(
        self,
        match: MatchQuery,
        weights: FieldWeights,
        exclude_chat_ref: str | None,
        limit: int,
        keep: Callable[[MessageId], bool] | None = None,
    ) -> list[tuple[float, MessageId]]:
        """The best `limit` (bm25, rowid) pairs, ascending, for an OR of phrases and terms
        in title or body, rows that hold an excluded one, whose chat_ref is excluded, or
        that `keep` refuses, left out (excluded phrases never score, as in FTS5)."""
        n_row = len(self.rows)
        phrases = tuple(self._analysed(match.phrases, match.terms))
        if not n_row or not phrases:
            return []
        unwanted = self._analysed(match.excluded, match.excluded_terms)
        avgdl = self.total_tokens / n_row
        hits = [set(self._phrase_rows(phrase)) for phrase in phrases]
        idf = []
        for rows in hits:
            value = math.log((n_row - len(rows) + 0.5) / (len(rows) + 0.5))
            idf.append(value if value > 0.0 else IDF_FLOOR)
        excluded_token = tuple(self.analysis.terms(exclude_chat_ref)) if exclude_chat_ref else None
        scored = []
        for rowid in set().union(*hits):
            row = self.rows[rowid]
            if excluded_token is not None and count_phrase(row.chat_ref, excluded_token):
                continue
            if unwanted and self._holds(row, unwanted):
                continue
            if keep is not None and not keep(rowid):
                continue
            length = float(row.size)
            score = 0.0
            for index, phrase in enumerate(phrases):
                frequency = 0.0
                for _ in range(count_phrase(row.title, phrase)):
                    frequency += weights.title
                for _ in range(count_phrase(row.body, phrase)):
                    frequency += weights.body
                score += idf[index] * (
                    (frequency * (K1 + 1.0)) / (frequency + K1 * (1 - B + B * length / avgdl))
                )
            scored.append((-1.0 * score, rowid))
        scored.sort()
        return scored[:limit]
