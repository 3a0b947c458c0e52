"""The semantic layer's values: embedding models, vectors, and what vector storage
reports. Pure: no numbers library; a vector travels as packed bytes.

A vector is `dimension` little-endian float32 values of unit length, packed
(`pack_vector`): the form every embedder returns and every vector store keeps, so an
adapter can hand it to numpy, a database column or a file without a conversion per
value. Vectors are comparable only within one model identity (`EmbeddingModel.identity`):
a store never returns a vector of another model than the one it was asked about.

Consent is explicit: nothing is embedded until a host or user turns the layer on, and a
model whose text leaves the machine says where (`Egress`) before any text does.
"""

from __future__ import annotations

import enum
import math
import struct
from collections.abc import Sequence

import attrs

from chat_recall.domain.model import AppId, ChatId, MessageId

VECTOR_BYTE_ORDER = "<"
FLOAT_BYTES = 4


class Purpose(enum.Enum):
    """What a text is embedded for: some models embed a query and a document
    differently (an instruction prefix); the others ignore it."""

    DOCUMENT = "document"
    QUERY = "query"


@attrs.frozen
class Egress:
    """Where an embedder sends text, and which text: shown to the user before any text
    leaves the machine (`EmbeddingModel.disclosure`)."""

    destination: str  # the URL the text is posted to

    @property
    def what(self) -> str:
        return (
            "the redacted text of every indexed chat message (credentials replaced by "
            "placeholders, as the tools show them) and the text of every search"
        )


class ModelKind(enum.Enum):
    """How a model makes a vector, which sets the scale of its similarities (and so the
    bars the fusion policy trusts them by, `FusionPolicy.for_model`)."""

    STATIC = "static"  # a table of token vectors, summed: no context
    SENTENCE = "sentence"  # a sentence encoder (a transformer, a remote service)


@attrs.frozen
class EmbeddingModel:
    """An embedding model as the index knows it. `identity` names the exact vectors it
    makes (model, weights, dimension, pooling): vectors of two identities are never
    compared, and a changed identity re-embeds every document."""

    identity: str
    dimension: int
    egress: Egress | None = None  # None: text never leaves this machine
    kind: ModelKind = ModelKind.SENTENCE

    @property
    def local(self) -> bool:
        return self.egress is None

    def disclosure(self) -> str:
        """What turning this model on means for the user's data, in one paragraph."""
        if self.egress is None:
            return (
                f"Semantic search with {self.identity}: the redacted text of indexed "
                "messages and of searches is embedded on this machine; nothing leaves it."
            )
        return (
            f"Semantic search with {self.identity} sends {self.egress.what} to "
            f"{self.egress.destination}. The text leaves this machine; that service's "
            "own terms apply to it."
        )


@attrs.frozen
class QueryWord:
    """A word of a query and how much it says about which documents fit (its rarity
    in the app, `domain.search.fusion.rarity`)."""

    word: str
    weight: float


@attrs.frozen
class MeaningQuery:
    """A query as the semantic layer embeds it: its (redacted) text, and its words
    (stopwords left out) each with a weight. A model that reads a text as a sentence
    embeds `text`; a model that sums word vectors weighs each word, so the words that
    single out a topic in this app count more than the words every chat uses."""

    text: str
    words: tuple[QueryWord, ...] = ()


@attrs.frozen
class EmbedTask:
    """A document waiting for its vector: `seq` changes whenever the document is put
    again, so a vector made from an older text is never written for a newer one."""

    message_id: MessageId
    app_id: AppId
    seq: int


@attrs.frozen
class Similar:
    """A visible document of one app near a query vector: cosine similarity in [-1, 1]."""

    message_id: MessageId
    chat_id: ChatId
    similarity: float


@attrs.frozen
class SimilarChat:
    """A chat of one app near a query vector (`VectorStore.nearest_chats`): how near
    its documents' mean vector is (`mean`), its best visible documents (best first),
    and its similarity, weighing the two (`chat_similarity`)."""

    chat_id: ChatId
    similarity: float
    mean: float
    best: tuple[Similar, ...]


# Chats chosen by their mean vector before they are ranked exactly: enough that the
# chats a result shows are among them whatever their best documents say, few enough
# that the exact step reads a bounded number of documents.
CHAT_CANDIDATES = 30


def chat_similarity(mean: float, best: float, mean_weight: float) -> float:
    """A chat's similarity to a query: its documents' mean vector says what the chat is
    about (a vague question names the topic, not a sentence of it), its best document
    what it says at its nearest; `mean_weight` of the first and the rest of the second."""
    return mean_weight * mean + (1.0 - mean_weight) * best


@attrs.frozen
class VectorCoverage:
    """How far the vectors of the current model cover the visible documents.
    `pending`: documents waiting for their vector (queued, or not yet queued after a
    model change). `model`: the identity recorded, None when the layer is off."""

    model: str | None
    documents: int
    embedded: int
    pending: int

    @property
    def complete(self) -> bool:
        return self.model is not None and self.pending == 0

    @property
    def fraction(self) -> float:
        if self.documents <= 0:
            return 1.0
        return min(1.0, self.embedded / self.documents)


class VectorFormatError(ValueError):
    """A packed vector of the wrong size, or with a value that is no finite number."""


def pack_vector(values: Sequence[float]) -> bytes:
    """Unit length float32 bytes of `values` (a zero vector stays zero: it is near
    nothing). Raises VectorFormatError for a value that is not finite."""
    norm = math.sqrt(math.fsum(v * v for v in values))
    if not math.isfinite(norm):
        raise VectorFormatError("a vector value is not a finite number")
    scale = 1.0 / norm if norm > 0 else 0.0
    return struct.pack(f"{VECTOR_BYTE_ORDER}{len(values)}f", *(v * scale for v in values))


def unpack_vector(data: bytes, dimension: int) -> tuple[float, ...]:
    if len(data) != dimension * FLOAT_BYTES:
        raise VectorFormatError(f"a vector of {len(data)} bytes is not {dimension} float32 values")
    return struct.unpack(f"{VECTOR_BYTE_ORDER}{dimension}f", data)


def cosine(a: bytes, b: bytes) -> float:
    """The cosine similarity of two packed unit vectors of one model (their dot
    product): the in-memory store's exact search, and the reference the others match."""
    if len(a) != len(b):
        raise VectorFormatError("vectors of different dimensions are not comparable")
    dimension = len(a) // FLOAT_BYTES
    return math.fsum(
        x * y for x, y in zip(unpack_vector(a, dimension), unpack_vector(b, dimension), strict=True)
    )


# How many vectors an app's mean counts as against nothing: the mean of a few documents
# is mostly those documents themselves (taken from a query, it would push the query
# away from the very documents it is near), so it weighs in as the app grows.
CENTERING_PRIOR = 100


def centering_share(vectors: int) -> float:
    """The share of an app's mean vector taken from a query when the app holds
    `vectors` vectors (`away_from`)."""
    return vectors / (vectors + CENTERING_PRIOR) if vectors > 0 else 0.0


def away_from(vector: bytes, mean: Sequence[float], share: float = 1.0) -> bytes:
    """A packed query vector moved away from `mean` (the mean of an app's vectors) by
    `share` of it, and normalised again (`VectorStore.nearest(centered=True)`, with
    `centering_share`): what every document of the app shares no longer counts in the
    comparison."""
    values = unpack_vector(vector, len(vector) // FLOAT_BYTES)
    if len(values) != len(mean):
        raise VectorFormatError("a mean of another dimension than the vector")
    return pack_vector([v - share * m for v, m in zip(values, mean, strict=True)])
