"""The language whose word families an index joins, and the port of the stemmer that
joins them for the languages Snowball covers.

An install chooses one language for all of its text (`--language german`): a word and
its inflections in that language become one term, in the documents and in the queries
alike. `ENGLISH` (the default) is FTS5's own Porter stemmer, as before any other
language existed; `NONE` joins nothing (the design's plain algorithm); every other
member is a Snowball stemmer behind the `Stemmer` port (the `snowball` extra).

Why per install and not per message: see ARCHITECTURE.md ("Decisions and their reasons": Languages).
"""

from __future__ import annotations

import enum
from typing import Protocol

from chat_recall.domain.errors import InvalidArguments


class Language(enum.Enum):
    NONE = "none"
    ENGLISH = "english"
    # The Snowball stemmers (each the algorithm of that name).
    ARABIC = "arabic"
    ARMENIAN = "armenian"
    BASQUE = "basque"
    CATALAN = "catalan"
    CZECH = "czech"
    DANISH = "danish"
    DUTCH = "dutch"
    ESPERANTO = "esperanto"
    ESTONIAN = "estonian"
    FINNISH = "finnish"
    FRENCH = "french"
    GERMAN = "german"
    GREEK = "greek"
    HINDI = "hindi"
    HUNGARIAN = "hungarian"
    INDONESIAN = "indonesian"
    IRISH = "irish"
    ITALIAN = "italian"
    LITHUANIAN = "lithuanian"
    NEPALI = "nepali"
    NORWEGIAN = "norwegian"
    PERSIAN = "persian"
    POLISH = "polish"
    PORTUGUESE = "portuguese"
    ROMANIAN = "romanian"
    RUSSIAN = "russian"
    SERBIAN = "serbian"
    SESOTHO = "sesotho"
    SPANISH = "spanish"
    SWEDISH = "swedish"
    TAMIL = "tamil"
    TURKISH = "turkish"
    YIDDISH = "yiddish"

    @classmethod
    def default(cls) -> Language:
        return cls.ENGLISH

    @classmethod
    def named(cls, name: str) -> Language:
        """The language of that name (any case); InvalidArguments listing the names
        otherwise."""
        try:
            return cls(name.strip().lower())
        except ValueError:
            choices = ", ".join(language.value for language in cls)
            raise InvalidArguments(f"unknown language {name!r}: choose one of {choices}") from None

    @property
    def snowball(self) -> bool:
        """Whether a Snowball stemmer (the `Stemmer` port) gives its stems."""
        return self not in (Language.NONE, Language.ENGLISH)


class Stemmer(Protocol):
    """The stems of one language's words (Snowball), for an index to join a word and
    its inflections.

    Guarantees: `stem` is a pure function of the language, the algorithms' `version`
    and the word: the same word gets the same stem in every call, thread and process
    of that version (an index and the queries asked of it must agree), and it never
    raises for a lower-case word. `version` names the release of the algorithms: stems
    may change between releases, so an index records it and is rebuilt when it
    changes. Equal stemmers (same language and version) stem alike, and a stemmer is
    hashable (analyses are compared and remembered by value)."""

    @property
    def language(self) -> Language: ...

    @property
    def version(self) -> str: ...

    def stem(self, word: str) -> str:
        """The stem of a lower-case word (an index token)."""
        ...

    def __hash__(self) -> int: ...
