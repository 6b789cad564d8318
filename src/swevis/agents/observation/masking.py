"""Observation masking (`mask-kM`, `maskb-kM`; The Complexity Trap, arXiv 2508.21433): each
request keeps the observations of its last M calls and replaces each older one with a one-line
placeholder that names what was dropped (the command, its lines and tokens). Nothing is
rendered, so masking has no ratio (swevis.conditions).

`mask-kM` masks an observation the first request it is older than the last M: every call
changes the message at that point, so a provider's prefix cache serves nothing after it.
`maskb-kM` masks in frozen blocks of agents.pages.mask_block calls, as hist-rN renders: an
observation is masked only when its whole block is older than the last M, so the prefix
breaks once a block, and every later request carries the same bytes.

A placeholder that would cost as many tokens as its observation is not sent (never dearer):
the observation stays. The conversation itself is never changed; only what is sent.
"""

from __future__ import annotations

import re
from typing import Any

from swevis.agents.observation.pages import calls_of, message_text
from swevis.tokens import count_message_tokens

_COMMAND = re.compile(r"```[\w-]*\n(.*?)```", re.DOTALL)  # a turn's first action block
COMMAND_CHARS = 80  # a placeholder shows this many characters of the command at most


def placeholder(turn: dict[str, Any] | None, observation: str, tokens: int) -> str:
    """The line that replaces an observation: its command (the turn's first action block,
    first line), its lines and tokens."""
    found = _COMMAND.search(message_text(turn)) if turn else None
    command = found.group(1).strip().splitlines()[0] if found and found.group(1).strip() else ""
    if len(command) > COMMAND_CHARS:
        command = command[: COMMAND_CHARS - 3] + "..."
    lines = len(observation.splitlines())
    what = f"output of `{command}`" if command else "earlier output"
    return f"[{what} omitted: {lines} line{'' if lines == 1 else 's'}, {tokens} tokens]"


def masked(turn: dict[str, Any] | None, message: dict, tokenizer: str, image_family: str) -> tuple[dict, int]:
    """(what is sent in place of the observation `message`, the prompt tokens that saves): its
    placeholder line, or (never dearer) the message itself, saving 0, when the line is no cheaper."""
    tokens = count_message_tokens([message], tokenizer, image_family)
    line = {"role": message.get("role", "user"), "content": placeholder(turn, message_text(message), tokens)}
    saved = tokens - count_message_tokens([line], tokenizer, image_family)
    return (line, saved) if saved > 0 else (message, 0)


class MaskedHistory:
    """The request of each call with the observations older than the last `keep` calls masked:
    each once the call is old (`block` None) or once its whole block of `block` calls is."""

    def __init__(self, keep: int, block: int | None, tokenizer: str, image_family: str):
        self.keep, self.block = keep, block
        self.tokenizer, self.image_family = tokenizer, image_family
        # (id of the turn, id of the observation) -> (the turn, the observation, what is sent
        # in its place): the conversation's own message objects, kept so their ids stay theirs
        self._masked: dict[tuple[int, int], tuple[Any, dict, dict]] = {}

    def masked_calls(self, calls: int) -> int:
        """How many of the first `calls` calls a request masks (always a leading run of calls)."""
        old = max(0, calls - self.keep)
        return old if self.block is None else old // self.block * self.block

    def request(self, messages: list[dict]) -> list[dict]:
        """The messages to send for this call."""
        prefix, calls = calls_of(messages)
        masked = self.masked_calls(len(calls))
        out = list(prefix)
        for call in calls[:masked]:
            turn = call[0] if call[0].get("role") == "assistant" else None
            out += [m if m is turn else self._mask(turn, m) for m in call]
        for call in calls[masked:]:
            out += call
        return out

    def _mask(self, turn: dict | None, message: dict) -> dict:
        """One observation as sent when masked (the same bytes every request)."""
        key = (id(turn), id(message))
        known = self._masked.get(key)
        if known is None or known[0] is not turn or known[1] is not message:
            known = self._masked[key] = (turn, message, masked(turn, message, self.tokenizer, self.image_family)[0])
        return known[2]
