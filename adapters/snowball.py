"""The Snowball stemmers behind the domain's `Stemmer` port: PyStemmer (the `snowball`
extra), the Snowball project's own C bindings, and the analysis of a language.

PyStemmer's stemmer objects keep state between calls and must not be used by two
threads at once (its documentation says so): each `SnowballStemmer` guards its one
object with a lock. Stems are remembered by the analysis (`domain.text.analysis`), so
the lock is taken once per distinct word, not per token.
"""

from __future__ import annotations

import threading
from typing import Any

import attrs

from chat_recall.domain.errors import InvalidArguments, MissingExtra
from chat_recall.domain.text.analysis import TextAnalysis, language_of_name
from chat_recall.domain.text.language import Language

EXTRA = "snowball"


def _module() -> Any:
    try:
        import Stemmer  # PyStemmer
    except ImportError as error:
        raise MissingExtra(
            EXTRA,
            "stemming a language other than English needs chat-recall's snowball extra "
            "(pip install 'chat-recall[snowball]'; from a checkout: pip install '.[snowball]')",
        ) from error
    return Stemmer


def algorithms_version() -> str:
    """The release of the Snowball algorithms PyStemmer carries, as major.minor: the
    part of its version that can change stems (a patch release only rebuilds them)."""
    return ".".join(str(_module().version()).split(".")[:2])


@attrs.frozen(cache_hash=True)
class SnowballStemmer:
    """One language's Snowball stemmer (PyStemmer)."""

    language: Language
    version: str
    _stemmer: Any = attrs.field(eq=False, repr=False)
    _lock: threading.Lock = attrs.field(factory=threading.Lock, eq=False, repr=False)

    @classmethod
    def of(cls, language: Language) -> SnowballStemmer:
        """MissingExtra without PyStemmer; IndexUnavailable (a `MissingExtra` too)
        when the installed PyStemmer has no algorithm for the language."""
        if not language.snowball:
            raise ValueError(f"{language.value} has no Snowball stemmer here")
        module = _module()
        if language.value not in module.algorithms():
            raise MissingExtra(
                EXTRA,
                f"the installed PyStemmer has no {language.value} stemmer: upgrade it "
                "(pip install -U 'chat-recall[snowball]')",
            )
        # No cache of its own: the analysis remembers stems (and PyStemmer's cache is
        # more state to guard).
        return cls(language, algorithms_version(), module.Stemmer(language.value, 0))

    def stem(self, word: str) -> str:
        with self._lock:
            stem: str = self._stemmer.stemWord(word)
        return stem


# Written once when an analysis is made: it loads the folding tables that text beyond
# ASCII needs, and the stemmer's first call, before a write transaction would.
WARM_UP_TEXT = "Übung Straße"


def analysis_for(language: Language) -> TextAnalysis:
    """The text analysis of a language, with its stemmer where it needs one."""
    if not language.snowball:
        return TextAnalysis.of(language)
    analysis = TextAnalysis.of(language, SnowballStemmer.of(language))
    analysis.written_text(WARM_UP_TEXT)
    return analysis


def chosen_analysis(
    analysis: TextAnalysis | None, language: Language | None, recorded: str | None
) -> TextAnalysis:
    """The analysis a start uses: the one named (`analysis`, else `language`'s), else
    the language the index records (stemmed by the stemmer installed now: a start
    under another Snowball release rebuilds it), else English."""
    if analysis is not None:
        if language is not None and analysis.language is not language:
            raise InvalidArguments(
                f"the analysis given is {analysis.language.value}, the language {language.value}"
            )
        return analysis
    if language is None and recorded is not None:
        language = language_of_name(recorded)
    return analysis_for(language or Language.default())
