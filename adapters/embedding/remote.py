"""`OpenAICompatibleEmbedder`: a remote `/v1/embeddings` service (OpenAI, Ollama, vLLM,
LM Studio and others speak it), at an explicit base URL with an explicit model. Text
leaves the machine: its `model.egress` says where, and the consent that turns it on
shows that before any text is sent (`EmbeddingModel.disclosure`).

Standard library only (urllib): the request is one JSON POST per batch, with a
timeout; nothing is retried here (the indexer retries its vectors later; a search
answers from words meanwhile). The API key, if any, is read from an environment
variable at each request, never stored in the index nor shown.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Sequence

import attrs

from chat_recall.domain.errors import EmbeddingFailed
from chat_recall.domain.semantic import (
    Egress,
    EmbeddingModel,
    MeaningQuery,
    Purpose,
    VectorFormatError,
    pack_vector,
)

TIMEOUT_SECONDS = 30.0
BATCH = 64


def endpoint(base_url: str) -> str:
    """`<base>/embeddings`: the base names the API root (`https://host/v1`)."""
    return base_url.rstrip("/") + "/embeddings"


@attrs.define
class OpenAICompatibleEmbedder:
    base_url: str
    model_name: str
    dimension: int
    api_key_variable: str | None = None
    timeout_seconds: float = TIMEOUT_SECONDS

    @property
    def model(self) -> EmbeddingModel:
        return EmbeddingModel(
            identity=f"remote-{self.model_name}-{self.dimension}",
            dimension=self.dimension,
            egress=Egress(endpoint(self.base_url)),
        )

    @classmethod
    def probe(
        cls,
        base_url: str,
        model_name: str,
        *,
        api_key_variable: str | None = None,
        timeout_seconds: float = TIMEOUT_SECONDS,
    ) -> OpenAICompatibleEmbedder:
        """Ask the service for one vector of a fixed word to learn its dimension. Only
        after consent: this sends that word (no history) to the service."""
        embedder = cls(base_url, model_name, 0, api_key_variable, timeout_seconds)
        vectors = embedder._request(["dimension"])
        return attrs.evolve(embedder, dimension=len(vectors[0]))

    def embed(self, texts: Sequence[str], purpose: Purpose) -> list[bytes]:
        out: list[bytes] = []
        for start in range(0, len(texts), BATCH):
            for values in self._request(list(texts[start : start + BATCH])):
                if self.dimension and len(values) != self.dimension:
                    raise EmbeddingFailed(
                        f"the service returned {len(values)} values, not {self.dimension}"
                    )
                try:
                    out.append(pack_vector(values))
                except VectorFormatError as error:
                    raise EmbeddingFailed(f"the service returned no vector: {error}") from error
        return out

    def _request(self, texts: list[str]) -> list[list[float]]:
        body = json.dumps({"model": self.model_name, "input": texts}).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_variable) if self.api_key_variable else None
        if key:
            headers["Authorization"] = f"Bearer {key}"
        request = urllib.request.Request(
            endpoint(self.base_url), data=body, headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_seconds) as response:
                payload = json.loads(response.read())
        except urllib.error.HTTPError as error:
            raise EmbeddingFailed(f"the embedding service answered HTTP {error.code}") from error
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            raise EmbeddingFailed(f"the embedding service did not answer: {error}") from error
        except ValueError as error:
            raise EmbeddingFailed("the embedding service answered with no JSON") from error
        return _vectors(payload, len(texts))

    def embed_query(self, query: MeaningQuery) -> bytes:
        """The query's text, as the service embeds any text."""
        return self.embed([query.text], Purpose.QUERY)[0]

    def close(self) -> None:
        """Nothing to end: each request closes its connection."""


def _vectors(payload: object, count: int) -> list[list[float]]:
    """The `data[*].embedding` lists in `index` order; EmbeddingFailed for any other
    shape."""
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list) or len(data) != count:
        raise EmbeddingFailed("the embedding service's answer has no vector per text")
    by_index: dict[int, list[float]] = {}
    for position, item in enumerate(data):
        embedding = item.get("embedding") if isinstance(item, dict) else None
        index = item.get("index", position) if isinstance(item, dict) else position
        if not isinstance(embedding, list) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in embedding
        ):
            raise EmbeddingFailed("the embedding service's answer has no vector per text")
        by_index[int(index)] = [float(v) for v in embedding]
    if sorted(by_index) != list(range(count)):
        raise EmbeddingFailed("the embedding service's answer has no vector per text")
    return [by_index[i] for i in range(count)]
