"""`Semantic`: a host's or user's choice of semantic layer, and the embedder it builds.

    chat_recall.sqlite("app.db", semantic=chat_recall.Semantic.local())
    chat_recall.sqlite("app.db", semantic=chat_recall.Semantic.openai_compatible(
        "http://localhost:11434/v1", "nomic-embed-text"),
        tools=chat_recall.ToolSettings(semantic_approver=show_and_ask))
    chat_recall.sqlite("app.db", semantic=chat_recall.Semantic.off())  # drops the vectors

The choice is recorded with the index (`VectorStore.record_semantic_settings`), so every
later process that opens it (`semantic=None`, the CLI, the MCP server) uses the same.
A local model keeps every text on this machine; a remote one needs consent to its
disclosure (`EmbeddingModel.disclosure`): recorded with the choice when the user gave
it (`chat-recall install --semantic ... --yes`), or asked of the host's approver.
"""

from __future__ import annotations

import enum
import json
from pathlib import Path

import attrs

from chat_recall.domain.errors import EmbeddingUnavailable, InvalidArguments
from chat_recall.domain.ports import Embedder


class SemanticKind(enum.Enum):
    OFF = "off"
    LOCAL = "local"
    OPENAI_COMPATIBLE = "openai-compatible"


@attrs.frozen
class Semantic:
    """Which embedder, if any. `local()`: the packaged static model (the `semantic`
    extra), or a model directory (`model.onnx` and `tokenizer.json` for an ONNX
    sentence-embedding model; one `.safetensors` table and `tokenizer.json` for a
    static one). `openai_compatible(url, model)`: a `/v1/embeddings` service; its API
    key, if any, is read from the environment variable named (never stored)."""

    kind: SemanticKind = SemanticKind.OFF
    model_directory: Path | None = None
    tokenizer_directory: Path | None = None  # an ONNX model whose tokenizer is elsewhere
    dimension: int | None = None  # a static table cut to its first columns
    url: str | None = None
    model: str | None = None
    api_key_variable: str | None = None
    # The destination the user consented to send text to (a remote choice recorded
    # with it); None: the host's approver is asked.
    consented_to: str | None = None

    @classmethod
    def off(cls) -> Semantic:
        return cls()

    @classmethod
    def local(
        cls,
        model_directory: str | Path | None = None,
        *,
        tokenizer_directory: str | Path | None = None,
        dimension: int | None = None,
    ) -> Semantic:
        return cls(
            SemanticKind.LOCAL,
            None if model_directory is None else Path(model_directory),
            None if tokenizer_directory is None else Path(tokenizer_directory),
            dimension,
        )

    @classmethod
    def openai_compatible(
        cls,
        url: str,
        model: str,
        *,
        api_key_variable: str | None = None,
        consented: bool = False,
    ) -> Semantic:
        """`consented`: the user has seen the disclosure and agreed (the CLI's `--yes`);
        the choice is recorded with that consent."""
        from chat_recall.adapters.embedding.remote import endpoint

        if not url.startswith(("http://", "https://")):
            raise InvalidArguments(f"--embedding-url {url!r} is no http(s) URL")
        if not model:
            raise InvalidArguments("an openai-compatible embedder needs a model name")
        return cls(
            SemanticKind.OPENAI_COMPATIBLE,
            url=url,
            model=model,
            api_key_variable=api_key_variable,
            consented_to=endpoint(url) if consented else None,
        )

    @property
    def enabled(self) -> bool:
        return self.kind is not SemanticKind.OFF

    @property
    def destination(self) -> str | None:
        """Where text goes (None: it stays on this machine)."""
        if self.kind is not SemanticKind.OPENAI_COMPATIBLE or self.url is None:
            return None
        from chat_recall.adapters.embedding.remote import endpoint

        return endpoint(self.url)

    def disclosure(self) -> str:
        """What the user agrees to, before anything is embedded or sent."""
        destination = self.destination
        if destination is None:
            return (
                "Semantic search embeds the redacted text of indexed messages and of "
                "searches on this machine; nothing leaves it."
            )
        return (
            f"Semantic search with {self.model} sends the redacted text of every indexed "
            f"chat message (credentials replaced by placeholders) and the text of every "
            f"search to {destination}. The text leaves this machine; that service's own "
            "terms apply to it."
        )

    def embedder(self) -> Embedder:
        """Build the embedder (loads the model; a remote one sends nothing yet
        unless its dimension must be asked, which happens only after consent)."""
        if self.kind is SemanticKind.LOCAL:
            return self._local()
        if self.kind is SemanticKind.OPENAI_COMPATIBLE:
            from chat_recall.adapters.embedding.remote import OpenAICompatibleEmbedder

            assert self.url is not None
            assert self.model is not None
            return OpenAICompatibleEmbedder.probe(
                self.url, self.model, api_key_variable=self.api_key_variable
            )
        raise EmbeddingUnavailable("the semantic layer is off")

    def _local(self) -> Embedder:
        directory = self.model_directory
        if directory is None:
            from chat_recall.adapters.embedding.static import StaticEmbedder

            return StaticEmbedder.wordllama(self.dimension or 256)
        if not directory.is_dir():
            raise EmbeddingUnavailable(f"the model directory {directory} does not exist")
        if (directory / "model.onnx").is_file():
            from chat_recall.adapters.embedding.onnx import OnnxEmbedder

            if self.tokenizer_directory is not None:
                return OnnxEmbedder.load(
                    directory / "model.onnx",
                    self.tokenizer_directory / "tokenizer.json",
                    name=f"onnx-{directory.name}",
                )
            return OnnxEmbedder.from_directory(directory)
        from chat_recall.adapters.embedding.static import StaticEmbedder

        return StaticEmbedder.from_directory(directory, self.dimension)

    def to_record(self) -> str:
        """The choice as stored with the index (no key: only the variable's name)."""
        fields = attrs.asdict(
            self, value_serializer=lambda _, __, v: str(v) if isinstance(v, Path) else v
        )
        fields["kind"] = self.kind.value
        return json.dumps({k: v for k, v in fields.items() if v is not None}, sort_keys=True)

    @classmethod
    def from_record(cls, record: str) -> Semantic:
        try:
            fields = json.loads(record)
            kind = SemanticKind(fields.pop("kind"))
            for name in ("model_directory", "tokenizer_directory"):
                if name in fields:
                    fields[name] = Path(fields[name])
            return cls(kind, **fields)
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            raise EmbeddingUnavailable(
                f"the recorded semantic settings cannot be read ({error}); set them again "
                "with chat-recall install --semantic"
            ) from error
