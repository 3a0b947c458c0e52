"""`StaticEmbedder`: a model2vec-style static embedding model. Each token has a fixed
vector in a table; a text's vector is the mean of its tokens' rows, normalised. No
transformer runs, at indexing or at query time: the cost is a tokenizer and a lookup.

A model directory holds `tokenizer.json` (a `tokenizers` file) and one `.safetensors`
file with one 2-D table (vocabulary x dimension). The default is WordLlama's
`l2_supercat` table as the `wordllama` package ships it (MIT): read here with
`safetensors` and `tokenizers`, without importing wordllama itself. `dimension` may cut
the table to its first columns (the table was trained Matryoshka-style: a prefix of its
dimensions is a smaller model of its own).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from chat_recall.adapters.embedding.files import import_or_explain, package_directory, required_file
from chat_recall.domain.errors import EmbeddingFailed, EmbeddingUnavailable
from chat_recall.domain.semantic import EmbeddingModel, MeaningQuery, ModelKind, Purpose

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

WORDLLAMA_TABLE = "weights/l2_supercat_256.safetensors"
WORDLLAMA_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
WORDLLAMA_NAME = "wordllama-l2-supercat"
# Tokens of a text that count at most: the mean of a long message's first tokens says
# what it is about, and the cost (tokenizer and table lookups) grows with the length.
MAX_TOKENS = 256
# Characters given to the tokenizer at most: more than MAX_TOKENS tokens' worth of text
# (tokens of prose and code are a few characters each), so the cut is the token limit's.
MAX_CHARS = 8 * MAX_TOKENS
BATCH = 256


@attrs.define
class StaticEmbedder:
    table: npt.NDArray[np.float32]
    tokenizer: Any  # tokenizers.Tokenizer
    model: EmbeddingModel
    max_tokens: int = MAX_TOKENS

    @classmethod
    def wordllama(cls, dimension: int = 256) -> StaticEmbedder:
        """The table the `wordllama` package ships (its `semantic` extra pin)."""
        directory = package_directory("wordllama", "chat-recall[semantic]")
        return cls.load(
            directory / WORDLLAMA_TABLE,
            directory / WORDLLAMA_TOKENIZER,
            name=WORDLLAMA_NAME,
            dimension=dimension,
        )

    @classmethod
    def from_directory(cls, directory: Path, dimension: int | None = None) -> StaticEmbedder:
        """A model2vec-shaped directory: `tokenizer.json` and one `.safetensors` table."""
        tables = sorted(directory.glob("*.safetensors"))
        if len(tables) != 1:
            raise EmbeddingUnavailable(
                f"the model directory {directory} needs exactly one .safetensors table"
            )
        return cls.load(
            tables[0],
            required_file(directory, "tokenizer.json"),
            name=f"static-{directory.name}",
            dimension=dimension,
        )

    @classmethod
    def load(
        cls, table_file: Path, tokenizer_file: Path, *, name: str, dimension: int | None
    ) -> StaticEmbedder:
        np = import_or_explain("numpy")
        safetensors = import_or_explain("safetensors.numpy")
        tokenizers = import_or_explain("tokenizers")
        try:
            tensors = safetensors.load_file(str(table_file))  # type: ignore[attr-defined]
            tokenizer = tokenizers.Tokenizer.from_file(str(tokenizer_file))  # type: ignore[attr-defined]
        except Exception as error:
            raise EmbeddingUnavailable(
                f"the static model {table_file} does not load: {error}"
            ) from error
        tables = [t for t in tensors.values() if getattr(t, "ndim", 0) == 2]
        if len(tables) != 1:
            raise EmbeddingUnavailable(f"{table_file} holds no single 2-D embedding table")
        full = tables[0]
        width = full.shape[1] if dimension is None else dimension
        if not 0 < width <= full.shape[1]:
            raise EmbeddingUnavailable(f"{table_file} has {full.shape[1]} dimensions, not {width}")
        table = np.ascontiguousarray(full[:, :width], dtype=np.float32)  # type: ignore[attr-defined]
        tokenizer.no_padding()
        tokenizer.no_truncation()
        model = EmbeddingModel(f"{name}-{width}", width, kind=ModelKind.STATIC)
        return cls(table=table, tokenizer=tokenizer, model=model)

    def embed(self, texts: Sequence[str], purpose: Purpose) -> list[bytes]:
        import numpy as np

        out: list[bytes] = []
        rows = self.table.shape[0]
        for start in range(0, len(texts), BATCH):
            chunk = [text[:MAX_CHARS] for text in texts[start : start + BATCH]]
            try:
                encoded = self.tokenizer.encode_batch(chunk, add_special_tokens=False)
            except Exception as error:
                raise EmbeddingFailed(f"the tokenizer failed: {type(error).__name__}") from error
            lengths = np.fromiter(
                (min(len(e.ids), self.max_tokens) for e in encoded), np.int64, len(encoded)
            )
            ids = np.fromiter(
                (i for e in encoded for i in e.ids[: self.max_tokens]),
                np.int64,
                int(lengths.sum()),
            )
            np.clip(ids, 0, rows - 1, out=ids)
            starts = np.zeros(len(encoded), np.int64)
            np.cumsum(lengths[:-1], out=starts[1:])
            sums = np.zeros((len(encoded), self.table.shape[1]), np.float32)
            nonempty = lengths > 0
            if ids.size:
                sums[nonempty] = np.add.reduceat(self.table[ids], starts[nonempty], axis=0)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            np.divide(sums, norms, out=sums, where=norms > 0)
            vectors = sums.astype("<f4", copy=False)
            out.extend(vector.tobytes() for vector in vectors)
        return out

    def embed_query(self, query: MeaningQuery) -> bytes:
        """The query's words, each the sum of its tokens' rows weighed by the word's
        weight: the query's rare words decide where it points (a document's vector is
        the plain mean of its tokens: the weights are the app's, known at search time).
        A query without words is embedded as a text."""
        import numpy as np

        if not query.words:
            return self.embed([query.text], Purpose.QUERY)[0]
        try:
            encoded = self.tokenizer.encode_batch(
                [" " + word.word for word in query.words], add_special_tokens=False
            )
        except Exception as error:
            raise EmbeddingFailed(f"the tokenizer failed: {type(error).__name__}") from error
        rows = self.table.shape[0]
        total = np.zeros(self.table.shape[1], np.float64)
        for word, tokens in zip(query.words, encoded, strict=True):
            ids = np.clip(np.asarray(tokens.ids[: self.max_tokens], np.int64), 0, rows - 1)
            if ids.size:
                total += word.weight * self.table[ids].sum(axis=0, dtype=np.float64)
        norm = float(np.linalg.norm(total))
        if norm == 0.0:
            return self.embed([query.text], Purpose.QUERY)[0]
        return (total / norm).astype("<f4").tobytes()

    def close(self) -> None:
        """Nothing to end: no thread or process was started."""
