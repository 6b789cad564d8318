"""A provider's prefix cache, as swevis models it for calls no provider answered: the
playback backend's (every call of a default run) and the counterfactual replay's.

Providers keep the prompts they have seen and serve the part of a later prompt that repeats
one's beginning from cache, billed at the cached-input price. The API, in three steps:

    rule = CacheRule.from_config("openai", cfg["counterfactual"]["prompt_cache"])
    prompts = [prompt_segments(messages, tokenizer, image_family) for messages in requests]
    cached_tokens(prompts, rule)        # -> [cached tokens of call 0, of call 1, ...]

A prompt is a list of segments `(identity, tokens)`, in the order the provider reads them: a
run of text is `(("text", its token ids), how many)`; a page is `(("image", digest of its
bytes), its image tokens)`, so two pages match only when they are the same image (the
replay's undrawn pages carry what they would show:
swevis.render.core.RenderResult.blank_png_bytes); the chat template's tokens of a message are
`(("message", role), c0)` and the reply priming `(("priming",), n)`. Two prompts share a
segment when its identity is equal; a text run that differs is shared up to its first
differing token id, a page or a template not at all. `PrefixCache.serve` takes one prompt
at a time (a playback model serves each call as it is made).

Call i's cached tokens are the longest prefix, in tokens, its prompt shares with the prompt
of any earlier call of the trajectory (every earlier prompt is assumed still cached: a
trajectory's calls come seconds apart), rounded down to a multiple of `block_tokens`, and 0
when that is below `min_tokens`. The first call finds nothing. The priming tokens that
close a request are never matched (the next request holds the assistant's message there).
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from swevis.config import schema_defaults
from swevis.errors import SwevisError
from swevis.tokens import data_url_size, image_tokens, message_overhead, reply_priming, text_token_ids

Segment = tuple[Hashable, int]


@dataclass(frozen=True)
class CacheRule:
    """One provider family's prefix cache: the fewest tokens a hit serves and its granularity."""

    family: str
    min_tokens: int
    block_tokens: int

    @classmethod
    def from_config(cls, family: str | None, families: dict[str, dict[str, int]] | None = None,
                    profile: str = "*") -> CacheRule | None:
        """The rule of `family` in `families` (config counterfactual.prompt_cache; None: the
        schema's); None for family None (the profile models no cache). An unknown family is
        an error naming the key (models.<profile>.prompt_cache)."""
        if family is None:
            return None
        families = schema_defaults()["counterfactual"]["prompt_cache"] if families is None else families
        if family not in families:
            raise SwevisError(f"config key 'models.{profile}.prompt_cache': {family!r} is no family of "
                              f"counterfactual.prompt_cache ({', '.join(sorted(families)) or 'none'})")
        entry = families[family]
        return cls(family, int(entry["min_tokens"]), int(entry["block_tokens"]))

    def billable(self, shared: int) -> int:
        """The cached tokens of a call that shares `shared` prefix tokens with an earlier one."""
        cached = shared - shared % self.block_tokens
        return cached if cached >= self.min_tokens else 0


def _common(a: Hashable, b: Hashable) -> int:
    """Tokens two different segments share at their start: a text run's common prefix of token
    ids with another text run; none for any other pair (a page or a template is whole or not)."""
    if not (isinstance(a, tuple) and isinstance(b, tuple) and a[:1] == b[:1] == ("text",)):
        return 0
    n = 0
    for x, y in zip(a[1], b[1]):
        if x != y:
            break
        n += 1
    return n


class PrefixCache:
    """The prompts a provider has seen in one trajectory, as a trie of their segments.

    A prompt's shared prefix with the earlier ones is the path it follows from the root while
    its segments are among the children, plus, at the first segment that is not, the tokens
    that segment shares at its start with one of them (text runs, token by token)."""

    def __init__(self, rule: CacheRule):
        self.rule = rule
        self.root: dict[Hashable, dict] = {}

    def serve(self, prompt: Sequence[Segment]) -> int:
        """The cached tokens of this prompt; then it is remembered for the calls after it."""
        node, shared = self.root, 0
        for identity, n in prompt:
            if identity not in node:
                shared += max((_common(identity, other) for other in node), default=0)
                break
            shared += n
            node = node[identity]
        node = self.root
        for identity, _ in prompt:
            node = node.setdefault(identity, {})
        return self.rule.billable(shared)


def cached_tokens(prompts: Sequence[Sequence[Segment]], rule: CacheRule | None) -> list[int]:
    """Per call of a trajectory (its prompts in order), the tokens a provider's prefix cache
    under `rule` would serve; all 0 without a rule."""
    if rule is None:
        return [0] * len(prompts)
    cache = PrefixCache(rule)
    return [cache.serve(p) for p in prompts]


def text_run(text: str, tokenizer: str) -> list[Segment]:
    """A text as one segment of its token ids (none for an empty text)."""
    ids = text_token_ids(text, tokenizer)
    return [(("text", ids), len(ids))] if ids else []


def _content_segments(content: Any, tokenizer: str, image_family: str) -> list[Segment]:
    if isinstance(content, str):
        return text_run(content, tokenizer)
    out: list[Segment] = []
    for part in content or []:
        if isinstance(part, str):
            out += text_run(part, tokenizer)
        elif part.get("type") == "image_url":
            ref = part.get("image_url")
            url = (ref.get("url") if isinstance(ref, dict) else ref) or ""
            page = ("image", hashlib.sha256(url.encode()).hexdigest())  # the page's bytes
            out.append((page, image_tokens(*data_url_size(url), image_family)))
        else:
            out += text_run(part.get("text") or "", tokenizer)
    return out


def prompt_segments(messages: list[dict[str, Any]], tokenizer: str, image_family: str) -> list[Segment]:
    """A chat request as a provider's cache sees it: per message its template tokens, its
    content (text token ids, pages by identity) and its tool calls' names and arguments,
    then the reply priming. The tokens add up to swevis.tokens.count_message_tokens."""
    c0 = message_overhead(image_family)
    out: list[Segment] = []
    for msg in messages:
        if c0:
            out.append((("message", msg.get("role")), c0))
        out += _content_segments(msg.get("content"), tokenizer, image_family)
        for call in msg.get("tool_calls") or []:
            fn = call.get("function") or {}
            out += text_run(str(fn.get("name", "")), tokenizer) + text_run(str(fn.get("arguments", "")), tokenizer)
    priming = reply_priming(image_family) if messages else 0
    if priming:
        out.append((("priming",), priming))
    return out
