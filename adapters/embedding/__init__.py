"""Embedders (`domain.ports.Embedder`), each an adapter of one technology: a static
vocabulary table (`static`), an ONNX sentence-embedding model (`onnx`), and a remote
OpenAI-compatible `/v1/embeddings` service (`remote`). The local ones need the
`semantic` extra; none downloads anything at run time."""
