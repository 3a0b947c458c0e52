"""Each embedder adapter: the static table, the ONNX model, the remote service (a stub
server this test starts on loopback)."""

from __future__ import annotations

import json
import math
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from chat_recall.adapters.embedding.onnx import OnnxEmbedder
from chat_recall.adapters.embedding.remote import OpenAICompatibleEmbedder
from chat_recall.adapters.embedding.static import StaticEmbedder
from chat_recall.domain.errors import EmbeddingFailed, EmbeddingUnavailable
from chat_recall.domain.semantic import Purpose, cosine, unpack_vector


def norm(vector: bytes, dimension: int) -> float:
    return math.sqrt(sum(v * v for v in unpack_vector(vector, dimension)))


# -- static ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wordllama() -> StaticEmbedder:
    return StaticEmbedder.wordllama()


def test_the_packaged_static_table_embeds_locally(wordllama: StaticEmbedder) -> None:
    model = wordllama.model
    assert (model.identity, model.dimension) == ("wordllama-l2-supercat-256", 256)
    assert model.local
    assert "nothing leaves" in model.disclosure()
    texts = ["We sign in with passkeys now", "login and authentication", "flour, sugar, eggs"]
    vectors = wordllama.embed(texts, Purpose.DOCUMENT)
    assert [round(norm(v, 256), 5) for v in vectors] == [1.0, 1.0, 1.0]
    assert cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2])
    assert wordllama.embed(texts[1:2], Purpose.QUERY) == vectors[1:2]  # alone as in a batch
    (empty,) = wordllama.embed([""], Purpose.DOCUMENT)
    assert norm(empty, 256) == 0.0


def test_a_prefix_of_the_table_is_a_smaller_model() -> None:
    small = StaticEmbedder.wordllama(dimension=64)
    assert (small.model.identity, small.model.dimension) == ("wordllama-l2-supercat-64", 64)
    (vector,) = small.embed(["passkeys"], Purpose.DOCUMENT)
    assert len(vector) == 64 * 4
    with pytest.raises(EmbeddingUnavailable, match="not 999"):
        StaticEmbedder.wordllama(dimension=999)


def tiny_static_model(directory: Path) -> Path:
    """A model2vec-shaped directory: a word-level tokenizer and a 4 x 3 table."""
    import numpy as np
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "red": 1, "blue": 2, "cat": 3}, "[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    directory.mkdir()
    tokenizer.save(str(directory / "tokenizer.json"))
    table = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 2]], dtype=np.float16)
    save_file({"embeddings": table}, str(directory / "model.safetensors"))
    return directory


def test_a_named_directory_of_the_same_shape_is_a_model(tmp_path: Path) -> None:
    embedder = StaticEmbedder.from_directory(tiny_static_model(tmp_path / "tiny"))
    assert (embedder.model.identity, embedder.model.dimension) == ("static-tiny-3", 3)
    red_cat, blue = embedder.embed(["red cat", "blue"], Purpose.DOCUMENT)
    assert unpack_vector(blue, 3) == (0.0, 1.0, 0.0)
    expected = (1 / math.sqrt(5), 0.0, 2 / math.sqrt(5))  # (1,0,0) + (0,0,2), normalised
    assert unpack_vector(red_cat, 3) == pytest.approx(expected, abs=1e-6)


def test_a_directory_of_another_shape_is_refused_with_its_reason(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingUnavailable, match=r"exactly one \.safetensors"):
        StaticEmbedder.from_directory(tmp_path)
    directory = tiny_static_model(tmp_path / "tiny")
    (directory / "tokenizer.json").unlink()
    with pytest.raises(EmbeddingUnavailable, match=r"no tokenizer\.json"):
        StaticEmbedder.from_directory(directory)


# -- ONNX --------------------------------------------------------------------------------


def wordpiece_tokenizer(directory: Path) -> Path:
    """A BERT-shaped tokenizer over a few ids of MiniLM's vocabulary range (its real
    vocabulary ships only in an 83 MB package: the adapter's work, not the words'
    meaning, is under test here)."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    vocab = {"[PAD]": 0, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102}
    for n, word in enumerate(["sign", "in", "pass", "##keys", "flour", "sugar", "login"]):
        vocab[word] = 2000 + n
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 101), ("[SEP]", 102)]
    )
    directory.mkdir(exist_ok=True)
    tokenizer.save(str(directory / "tokenizer.json"))
    return directory


@pytest.fixture(scope="module")
def minilm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OnnxEmbedder]:
    embedder = OnnxEmbedder.minilm(wordpiece_tokenizer(tmp_path_factory.mktemp("tok")))
    yield embedder
    embedder.close()


def test_the_onnx_model_pools_unit_vectors_in_the_callers_order(minilm: OnnxEmbedder) -> None:
    assert (minilm.model.identity, minilm.model.dimension) == ("all-minilm-l6-v2-int8-384", 384)
    texts = ["sign in with passkeys", "flour", "sugar flour sugar flour sugar", "login"]
    vectors = minilm.embed(texts, Purpose.DOCUMENT)
    assert [round(norm(v, 384), 4) for v in vectors] == [1.0] * 4
    # padding in a batch changes nothing: each alone gives the same vector
    for text, vector in zip(texts, vectors, strict=True):
        (alone,) = minilm.embed([text], Purpose.QUERY)
        assert cosine(alone, vector) == pytest.approx(1.0, abs=1e-4)
    assert cosine(vectors[1], vectors[2]) > cosine(vectors[1], vectors[0])


def test_an_onnx_directory_needs_both_files(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingUnavailable, match=r"no model\.onnx"):
        OnnxEmbedder.from_directory(wordpiece_tokenizer(tmp_path / "m"))
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "model.onnx").write_bytes(b"not a model")
    wordpiece_tokenizer(tmp_path / "broken")
    with pytest.raises(EmbeddingUnavailable, match="does not load"):
        OnnxEmbedder.from_directory(tmp_path / "broken")


# -- remote ------------------------------------------------------------------------------


class StubService:
    """An OpenAI-compatible /v1/embeddings on loopback: records each request, answers
    what `reply` says (a status and a JSON body, or by default 3-value vectors)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.reply: tuple[int, object] | None = None
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                service.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
                status, payload = service.reply or (200, service.vectors(body["input"]))
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @staticmethod
    def vectors(texts: list[str]) -> dict[str, object]:
        data = [{"index": i, "embedding": [float(len(t)), 1.0, 0.0]} for i, t in enumerate(texts)]
        return {"object": "list", "data": list(reversed(data))}  # any order: by index

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def service() -> Iterator[StubService]:
    stub = StubService()
    yield stub
    stub.close()


def test_the_remote_embedder_posts_texts_and_reads_vectors_by_index(
    service: StubService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_EMBEDDING_KEY", "secret-key")
    embedder = OpenAICompatibleEmbedder.probe(
        service.base_url, "text-embed", api_key_variable="TEST_EMBEDDING_KEY"
    )
    assert embedder.model.dimension == 3
    assert service.requests[0]["body"] == {"model": "text-embed", "input": ["dimension"]}
    vectors = embedder.embed(["ab", "abcd"], Purpose.DOCUMENT)
    assert service.requests[-1] == {
        "path": "/v1/embeddings",
        "body": {"model": "text-embed", "input": ["ab", "abcd"]},
        "auth": "Bearer secret-key",
    }
    assert unpack_vector(vectors[0], 3) == pytest.approx((2 / math.sqrt(5), 1 / math.sqrt(5), 0))
    assert unpack_vector(vectors[1], 3) == pytest.approx((4 / math.sqrt(17), 1 / math.sqrt(17), 0))


def test_the_remote_model_discloses_where_text_goes(service: StubService) -> None:
    embedder = OpenAICompatibleEmbedder(service.base_url, "text-embed", 3)
    model = embedder.model
    assert not model.local
    assert model.egress is not None
    assert model.egress.destination == f"{service.base_url}/embeddings"
    disclosure = model.disclosure()
    assert f"{service.base_url}/embeddings" in disclosure
    assert "leaves this machine" in disclosure
    assert "redacted text of every indexed chat message" in disclosure
    assert service.requests == []  # describing the model sends nothing


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ((500, {"error": "down"}), "HTTP 500"),
        ((200, {"data": []}), "no vector per text"),
        ((200, {"data": [{"index": 0, "embedding": ["x", 1]}]}), "no vector per text"),
        ((200, [1, 2]), "no vector per text"),
    ],
)
def test_a_bad_answer_is_a_typed_failure(
    service: StubService, reply: tuple[int, object], message: str
) -> None:
    service.reply = reply
    embedder = OpenAICompatibleEmbedder(service.base_url, "text-embed", 3)
    with pytest.raises(EmbeddingFailed, match=message):
        embedder.embed(["hello"], Purpose.QUERY)


def test_a_service_of_another_dimension_or_none_at_all_fails(service: StubService) -> None:
    with pytest.raises(EmbeddingFailed, match="3 values, not 8"):
        OpenAICompatibleEmbedder(service.base_url, "m", 8).embed(["x"], Purpose.QUERY)
    with socket.socket() as unused:  # a loopback port nothing listens on
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}/v1"
    with pytest.raises(EmbeddingFailed, match="did not answer"):
        OpenAICompatibleEmbedder(url, "m", 3, timeout_seconds=5).embed(["x"], Purpose.QUERY)
