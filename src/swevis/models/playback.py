"""Playback backend: recorded assistant turns, returned in order, with no model at all.

Sources (``load_playback_turns`` detects which):

(a) A demonstration, YAML or JSON (format ``swevis-demo-1``)::

        format: swevis-demo-1          # optional
        instance_id: ledgerkit-1       # optional metadata, ignored here
        turns:                         # a list ...
          - "THOUGHT: ...\n```bash\ngrep -rn ...\n```"
          - content: "..."             # ... of strings or {content, tool_calls?, purpose?}
            purpose: preloc
        # or, per purpose:  turns: {preloc: [...], agent: [...]}

    A bare top-level list of turns is accepted too. A demonstration read from a file may
    name another one it is based on (a path relative to its own folder)::

        based_on: ../let/ledgerkit-1.yaml
        turns: {reproduction: [...]}   # replaces the base's turns of these purposes only
        before: {locator: [...]}       # put ahead of the turns the base gives these purposes

    so a variant that changes one stage of an agent plays back the agent's own turns for the
    rest, and a comparison of the two is paired by construction.

(b) One of our trajectories (``traj.json``): ``{"messages": [{"role", "content", ...}]}``;
    every assistant message is a turn. Its purpose is ``extra.purpose`` (or ``purpose``)
    when the message has one.

(c) mini-swe-agent's ``.traj.json`` (``"trajectory_format": "mini-swe-agent-1"`` or
    ``"mini-swe-agent-1.1"``, as written by ``DefaultAgent.save``): the assistant
    messages of ``messages``; text content and, for tool-calling models, ``tool_calls``;
    the parsed ``extra.actions`` are kept on the turn.

Purposes: the agents pass ``purpose`` to ``complete`` ("agent", "preloc", "locator",
"editor"...). Turns tagged with a purpose serve only calls of that purpose; untagged turns
serve every purpose that has no queue of its own. Each queue is consumed in order.

Usage under playback: prompt tokens are the token models' estimate of the request as it
would be sent (image cap applied), completion tokens the text tokenizer's count of the
recorded turn; ``source`` is "estimate"; cached prompt tokens are what the profile's provider
prefix cache (swevis.models.prefix_cache) would have served. Running out of turns raises
:class:`PlaybackExhausted` (unless a ``fallback`` model is given, which then takes over:
playback-then-continue-live).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from swevis.config import YAML_LOADER
from swevis.models.base import (
    ChatModel,
    ChatResponse,
    PlaybackExhausted,
    PlaybackSourceError,
    Usage,
)
from swevis.models.messages import content_text
from swevis.models.prefix_cache import CacheRule, PrefixCache, prompt_segments

DEMO_FORMAT = "swevis-demo-1"


@dataclass
class PlaybackTurn:
    content: str
    tool_calls: list[dict[str, Any]] | None = None
    purpose: str | None = None
    actions: list[dict[str, Any]] | None = None
    index: int = 0  # position in the source

    def to_message(self) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            msg["tool_calls"] = self.tool_calls
        return msg


@dataclass
class PlaybackSource:
    kind: str  # "demonstration", "swevis-trajectory", "mini-swe-agent-trajectory", "turns"
    origin: str  # file path or "<memory>"
    turns: list[PlaybackTurn] = field(default_factory=list)


# ---------------------------------------------------------------- readers


def _load_yaml(text: str) -> Any:
    """libyaml's parse (every plan of the workflow reads every demonstration); on an error,
    PyYAML's own, whose message quotes the line at fault."""
    try:
        return yaml.load(text, Loader=YAML_LOADER)
    except yaml.YAMLError:
        return yaml.safe_load(text)


def _read_file(path: Path) -> Any:
    if not path.exists():
        raise PlaybackSourceError(f"playback source {path} does not exist")
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix.lower() in (".yaml", ".yml"):
            return _load_yaml(text)
        return json.loads(text)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise PlaybackSourceError(f"playback source {path}: cannot parse: {exc}") from None


def _turn(item: Any, where: str, index: int, purpose: str | None = None) -> PlaybackTurn:
    if isinstance(item, str):
        return PlaybackTurn(content=item, purpose=purpose, index=index)
    if isinstance(item, dict) and ("content" in item or "tool_calls" in item):
        content = item.get("content")
        if content is not None and not isinstance(content, str | list):
            raise PlaybackSourceError(f"{where}: turn {index}: 'content' must be a string")
        tool_calls = item.get("tool_calls") or None
        if tool_calls is not None and not isinstance(tool_calls, list):
            raise PlaybackSourceError(f"{where}: turn {index}: 'tool_calls' must be a list")
        extra = item.get("extra") if isinstance(item.get("extra"), dict) else {}
        tagged = item.get("purpose", extra.get("purpose", purpose))
        actions = extra.get("actions") if isinstance(extra.get("actions"), list) else None
        return PlaybackTurn(content_text(content), tool_calls, tagged, actions, index)
    raise PlaybackSourceError(f"{where}: turn {index} must be a string or a mapping with 'content'")


def read_demonstration(data: Any, origin: str = "<memory>") -> PlaybackSource:
    """Format (a): a list of turns, or a mapping with ``turns`` (a list, or purpose -> list)."""
    if isinstance(data, dict):
        fmt = data.get("format", DEMO_FORMAT)
        if fmt != DEMO_FORMAT:
            raise PlaybackSourceError(f"{origin}: unknown demonstration format {fmt!r} (expected {DEMO_FORMAT})")
        if "turns" not in data:
            raise PlaybackSourceError(f"{origin}: a demonstration needs a 'turns' key")
        turns = data["turns"]
    else:
        turns = data
    out: list[PlaybackTurn] = []
    if isinstance(turns, dict):
        for purpose, items in turns.items():
            if not isinstance(items, list):
                raise PlaybackSourceError(f"{origin}: turns/{purpose} must be a list")
            out += [_turn(it, f"{origin}: turns/{purpose}", len(out) + i, str(purpose)) for i, it in enumerate(items)]
    elif isinstance(turns, list):
        out = [_turn(it, origin, i) for i, it in enumerate(turns)]
    else:
        raise PlaybackSourceError(f"{origin}: 'turns' must be a list or a mapping of purpose to list")
    if not out:
        raise PlaybackSourceError(f"{origin}: the demonstration has no turns")
    return PlaybackSource("demonstration", origin, out)


def _assistant_turns(messages: Any, origin: str) -> list[PlaybackTurn]:
    if not isinstance(messages, list):
        raise PlaybackSourceError(f"{origin}: 'messages' must be a list")
    out = []
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            raise PlaybackSourceError(f"{origin}: messages[{i}] is not a mapping")
        if msg.get("role") == "assistant":
            out.append(
                _turn(
                    {k: v for k, v in msg.items() if k != "role"} | {"content": msg.get("content")},
                    f"{origin}: messages[{i}]",
                    len(out),
                )
            )
    if not out:
        raise PlaybackSourceError(f"{origin}: the trajectory has no assistant messages")
    return out


def read_swevis_trajectory(data: Any, origin: str = "<memory>") -> PlaybackSource:
    """Format (b): our ``traj.json`` -- its assistant messages, in order."""
    if not isinstance(data, dict) or "messages" not in data:
        raise PlaybackSourceError(f"{origin}: a trajectory needs a 'messages' list")
    return PlaybackSource("swevis-trajectory", origin, _assistant_turns(data["messages"], origin))


def read_minisweagent_trajectory(data: Any, origin: str = "<memory>") -> PlaybackSource:
    """Format (c): mini-swe-agent's ``.traj.json`` -- its assistant messages, in order."""
    if not isinstance(data, dict) or not str(data.get("trajectory_format", "")).startswith("mini-swe-agent"):
        raise PlaybackSourceError(f"{origin}: not a mini-swe-agent trajectory (no trajectory_format mini-swe-agent-*)")
    return PlaybackSource("mini-swe-agent-trajectory", origin, _assistant_turns(data.get("messages"), origin))


MAX_BASED_ON_DEPTH = 4


def based_on_chain(path: str | Path) -> list[tuple[Path, Any]]:
    """The demonstration file at `path` and every file it is ``based_on``, nearest first, each
    with its parsed content. A chain that loops, runs deeper than MAX_BASED_ON_DEPTH or names
    a missing file is an error naming the chain."""
    chain = [(Path(path).resolve(), _read_file(Path(path)))]
    while isinstance(chain[-1][1], dict) and "based_on" in chain[-1][1]:
        here, data = chain[-1]
        base = (here.parent / str(data["based_on"])).resolve()
        if any(base == p for p, _ in chain) or len(chain) > MAX_BASED_ON_DEPTH:
            raise PlaybackSourceError(f"{chain[0][0]}: based_on nested deeper than {MAX_BASED_ON_DEPTH}, or it loops: "
                                    + " -> ".join(str(p) for p in [*(p for p, _ in chain), base]))
        if not base.exists():
            raise PlaybackSourceError(f"{here}: based_on file {base} does not exist")
        chain.append((base, _read_file(base)))
    return chain


def merge_based_on(chain: list[tuple[Path, Any]]) -> Any:
    """One demonstration from a `based_on_chain`: the nearest file's keys, with the turns of
    every purpose taken from the nearest file that gives them, and a file's ``before`` turns
    of a purpose put ahead of the turns its bases give that purpose."""
    path, data = chain[0]
    if len(chain) == 1 and not (isinstance(data, dict) and "before" in data):
        return data
    turns: dict[str, Any] = {}
    for where, part in reversed(chain):
        own = (part.get("turns") or {}) if isinstance(part, dict) else None
        before = (part.get("before") or {}) if isinstance(part, dict) else None
        if not isinstance(own, dict) or not isinstance(before, dict):
            raise PlaybackSourceError(f"{where}: based_on needs per-purpose turns (a mapping) in every demonstration of {path}")
        turns.update(own)
        for purpose, items in before.items():
            if not isinstance(items, list):
                raise PlaybackSourceError(f"{where}: before/{purpose} must be a list")
            turns[purpose] = [*items, *turns.get(purpose, [])]
    return {**{k: v for k, v in data.items() if k not in ("based_on", "before")}, "turns": turns}


def load_playback_source(source: Any) -> PlaybackSource:
    """Read any playback source: a path (YAML/JSON), parsed data, a list of turns or a PlaybackSource."""
    if isinstance(source, PlaybackSource):
        return source
    origin = "<memory>"
    data = source
    if isinstance(source, str | Path):
        origin = str(source)
        data = merge_based_on(based_on_chain(source))
    if isinstance(data, dict) and str(data.get("trajectory_format", "")).startswith("mini-swe-agent"):
        return read_minisweagent_trajectory(data, origin)
    if isinstance(data, dict) and "messages" in data and "turns" not in data:
        return read_swevis_trajectory(data, origin)
    if isinstance(data, dict | list):
        return read_demonstration(data, origin)
    raise PlaybackSourceError(f"{origin}: a playback source must be a demonstration or a trajectory")


def load_playback_turns(source: Any) -> list[PlaybackTurn]:
    return load_playback_source(source).turns


# ---------------------------------------------------------------- the backend


class PlaybackModel(ChatModel):
    backend = "playback"

    def __init__(
        self, profile_name: str, profile: dict[str, Any], *, source: Any, fallback: ChatModel | None = None,
        prefix_cache: CacheRule | None = None, **counting
    ):
        """`source`: what to play back (load_playback_source); `fallback`: the model asked once it is
        used up; `prefix_cache`: the provider prefix cache its recorded answers are billed
        through (None: nothing cached); `counting`: ChatModel's estimator and text counter."""
        super().__init__(profile_name, profile, **counting)
        self.source = load_playback_source(source)
        self.fallback = fallback
        self.prefix_cache = PrefixCache(prefix_cache) if prefix_cache is not None else None
        self._queues: dict[str | None, list[PlaybackTurn]] = {}
        for turn in self.source.turns:
            self._queues.setdefault(turn.purpose, []).append(turn)
        self._next: dict[str | None, int] = {k: 0 for k in self._queues}

    def _queue_for(self, purpose: str) -> str | None:
        if purpose in self._queues:
            return purpose
        if None in self._queues:
            return None
        raise PlaybackExhausted(
            f"playback source {self.source.origin} has no turns for purpose {purpose!r} "
            f"(it has {sorted(str(k) for k in self._queues)})"
        )

    def remaining(self, purpose: str = "agent") -> int:
        try:
            q = self._queue_for(purpose)
        except PlaybackExhausted:
            return 0
        return len(self._queues[q]) - self._next[q]

    def _complete(self, messages, *, purpose, estimated_prompt_tokens, **call):
        """The next recorded turn for `purpose`; the fallback model's answer once they are
        used up (a fallback takes the call's other arguments; a recorded turn ignores them)."""
        if self.fallback is not None and self.remaining(purpose) == 0:
            resp = self.fallback._complete(
                messages, purpose=purpose, estimated_prompt_tokens=estimated_prompt_tokens, **call
            )
            resp.meta = {"playback_fallback": self.fallback.backend, **resp.meta}
            return resp
        response = self._recorded_response(self._next_turn(purpose), estimated_prompt_tokens)
        if self.prefix_cache is not None:  # what the provider would have served, from the request as sent
            prompt = prompt_segments(messages, self.tokenizer, self.image_family)
            response.usage.cached_prompt_tokens = self.prefix_cache.serve(prompt)
        return response

    def _next_turn(self, purpose: str) -> PlaybackTurn:
        q = self._queue_for(purpose)
        queue = self._queues[q]
        i = self._next[q]
        if i >= len(queue):
            label = "" if q is None else f" for purpose {q!r}"
            raise PlaybackExhausted(
                f"playback source {self.source.origin} ran out of assistant turns{label} after {len(queue)} turn(s)"
            )
        self._next[q] = i + 1
        return queue[i]

    def _recorded_response(self, turn: PlaybackTurn, estimated_prompt_tokens: int) -> ChatResponse:
        completion_text = turn.content + (json.dumps(turn.tool_calls) if turn.tool_calls else "")
        completion = self.estimate_text_tokens(completion_text)
        usage = Usage(
            prompt_tokens=estimated_prompt_tokens,
            completion_tokens=completion,
            estimated_prompt_tokens=estimated_prompt_tokens,
            source="estimate",
            estimated_completion_tokens=completion,
            tokenizer=self.tokenizer,
            image_family=self.image_family,
        )
        raw = turn.to_message() | {
            "playback": {"source": self.source.origin, "kind": self.source.kind, "index": turn.index}
        }
        if turn.actions is not None:
            raw["actions"] = turn.actions
        return ChatResponse(
            content=turn.content,
            usage=usage,
            raw=raw,
            cached=False,
            tool_calls=turn.tool_calls,
            finish_reason="stop",
            meta={"playback_index": turn.index},
        )
