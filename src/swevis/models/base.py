"""The chat interface shared by every backend: messages in, one assistant turn out.

Messages are OpenAI chat format. A message's ``content`` is a string or a list of parts,
``{"type": "text", "text": ...}`` or
``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}``.
An image part may carry an optional ``"swevis_label"`` (e.g. ``"page 2 of src/x.py:10-60"``);
it is never sent, and names the image when the image cap replaces it by a placeholder.

Every call returns a :class:`ChatResponse` whose :class:`Usage` holds the server-reported
token counts (when the server reports them) beside the token models' own estimate for the
same request (``swevis.tokens``), so the analysis can calibrate one against the other.
"""

from __future__ import annotations

import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from swevis.config import ConfigError, filled_section
from swevis.errors import InfrastructureError, SwevisError
from swevis.models.messages import apply_image_cap, prepare_messages
from swevis.paths import MODEL
from swevis.redaction import redact_data
from swevis.tokens import count_message_tokens, text_tokens

# ---------------------------------------------------------------- errors


class ModelError(SwevisError):
    """Base class of every error a chat backend raises."""


class ModelConfigError(ModelError, ValueError):
    """A model profile that cannot be used (unknown backend, missing key, bad value); names the key."""


class ContextLengthExceeded(ModelError):
    """The request does not fit the model's context window (an HTTP 400 saying so)."""


class ModelCallFailed(ModelError):
    """A call that did not produce a usable response.

    ``reason`` is one of ``retries_exhausted`` (429/5xx/timeouts after the client's
    retries), ``connection`` (endpoint unreachable after retries), ``invalid_response``
    (truncated or unparseable bodies after our own retries), ``rejected`` (a 4xx that is not
    retried: bad request, auth, not found) or ``too_many_images`` (image policy ``reject``).
    All but ``too_many_images`` are raised as :class:`EndpointFailed`; ``too_many_images``
    is the conversation outgrowing a configured limit, an outcome like the context window.
    """

    def __init__(self, message: str, *, reason: str, status_code: int | None = None, attempts: int | None = None):
        super().__init__(message)
        self.reason = reason
        self.status_code = status_code
        self.attempts = attempts


class EndpointFailed(ModelCallFailed, InfrastructureError):
    """The endpoint could not serve a call: unreachable, 429/5xx/timeouts past the client's
    retries, unusable bodies past ours, or a request it refused (bad key, unknown model id,
    a request it rejects for any reason but the context window). The machinery failed, not
    the model: the job fails and the next run retries it (the journal keeps earlier steps)."""


class MissingAPIKey(ModelConfigError, InfrastructureError):
    """The profile's API key variable is empty or unset when a request has to be made. The
    job fails before any request, and a run with the key set retries it."""


class PlaybackExhausted(ModelError):
    """A playback backend was asked for more assistant turns than its source recorded."""


class PlaybackSourceError(ModelError, ValueError):
    """A playback source (demonstration or trajectory) that cannot be read; names the file."""


# ---------------------------------------------------------------- results

UsageSource = Literal["server", "estimate"]


@dataclass
class Usage:
    """Token accounting of one call.

    ``prompt_tokens``/``completion_tokens`` are the numbers to bill and analyse: the
    server's when it reported usage (``source == "server"``), else the estimate
    (``source == "estimate"``). The ``estimated_*`` fields always hold the estimate and the
    ``server_*`` fields the server's report (None when absent), side by side.
    ``cached_prompt_tokens`` is the part of ``prompt_tokens`` the endpoint served from its
    prefix cache, billed at the profile's cached-input price (swevis.models.spend): the
    server's report, 0 when it reported none (an estimate knows of no cache).
    """

    prompt_tokens: int
    completion_tokens: int
    estimated_prompt_tokens: int | None
    source: UsageSource
    estimated_completion_tokens: int | None = None
    server_prompt_tokens: int | None = None
    server_completion_tokens: int | None = None
    server_cached_prompt_tokens: int | None = None
    cached_prompt_tokens: int = 0
    tokenizer: str | None = None
    image_family: str | None = None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"total_tokens": self.total_tokens}


@dataclass
class ChatResponse:
    """One assistant turn.

    ``raw`` is the server's JSON body (openai) or the recorded message (playback).
    ``cached`` is True when the response came from the on-disk response cache (no request
    was made; usage is the original call's). ``meta`` carries call details worth logging:
    model id, purpose, cache key, attempts, latency, finish reason, images sent/omitted.
    """

    content: str
    usage: Usage
    raw: dict[str, Any]
    cached: bool = False
    tool_calls: list[dict[str, Any]] | None = None
    finish_reason: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def to_message(self) -> dict[str, Any]:
        """The assistant message to append to the conversation."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            msg["tool_calls"] = self.tool_calls
        return msg

    def record(self) -> dict[str, Any]:
        """A JSON-ready usage record for trajectories (no message content)."""
        return {"usage": self.usage.to_dict(), "cached": self.cached, "finish_reason": self.finish_reason, **self.meta}


# ---------------------------------------------------------------- estimators

Estimator = Callable[[list[dict[str, Any]], str, str], Any]
TextCounter = Callable[[str, str], Any]


def _as_int(value: Any) -> int:
    """Accept an int, or a count object/dict with a ``total`` (the token models may return either)."""
    if isinstance(value, bool):
        raise TypeError("token count must be a number")
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, dict):
        for key in ("total", "total_tokens", "tokens"):
            if key in value:
                return int(value[key])
    for attr in ("total", "total_tokens", "tokens"):
        if hasattr(value, attr):
            return int(getattr(value, attr))
    raise TypeError(f"cannot read a token count from {type(value).__name__}")


def default_estimator() -> Estimator:
    """``swevis.tokens.count_message_tokens(messages, tokenizer, image_family)``."""
    return count_message_tokens


def default_text_counter(estimator: Estimator, image_family: str) -> TextCounter:
    """``swevis.tokens.text_tokens(text, tokenizer)``: the text's own tokens, without the
    per-message overhead an estimate of a whole message carries."""
    return text_tokens


def resolve_profile(profile_name: str, profile: dict[str, Any]) -> dict[str, Any]:
    """The profile as config section ``models.<name>`` after validation: every schema default
    filled in (a validated config carries them already; tests and hand runs pass bare dicts)."""
    key = profile_name if re.fullmatch(MODEL, profile_name) else "profile"
    known = filled_section("models", {key: {}})[key]
    unknown = set(profile) - set(known)
    if unknown:
        raise ModelConfigError(f"config key 'models/{profile_name}': unknown key(s) {sorted(unknown)}")
    try:
        return filled_section("models", {key: dict(profile)})[key]
    except ConfigError as exc:
        raise ModelConfigError(str(exc)) from None


def is_live(profile: dict[str, Any]) -> bool:
    """Whether a profile calls an endpoint (paid, resumable, guarded by the spend caps) rather
    than playing back recorded turns: the one place that decides playback or live."""
    return resolve_profile("profile", profile)["backend"] != "playback"


class ChatModel(ABC):
    """One model profile. ``complete`` is the whole interface the agents use.

    The base class prepares messages the same way for every backend (drops keys the API
    does not know, such as mini-swe-agent's ``extra``; applies the image cap), computes the
    token estimate on exactly what would be sent, and keeps per-instance counters.
    """

    backend: str = "?"

    def __init__(
        self,
        profile_name: str,
        profile: dict[str, Any],
        *,
        estimator: Estimator | None = None,
        text_counter: TextCounter | None = None,
    ):
        self.profile_name = profile_name
        self.profile = resolve_profile(profile_name, profile)
        self.model_id: str = self.profile["model_id"] or profile_name
        self.tokenizer: str = self.profile["tokenizer"]
        self.image_family: str = self.profile["image_family"]
        self._estimator = estimator
        self._text_counter = text_counter
        self.n_calls = 0
        self.n_cache_hits = 0

    @property
    def estimators(self) -> tuple[Estimator | None, TextCounter | None]:
        """The token estimators this model was given, for a model that wraps it."""
        return self._estimator, self._text_counter

    # -- estimates ---------------------------------------------------------------

    def estimate_prompt_tokens(self, messages: list[dict[str, Any]]) -> int:
        if self._estimator is None:
            self._estimator = default_estimator()
        return _as_int(self._estimator(messages, self.tokenizer, self.image_family))

    def estimate_text_tokens(self, text: str) -> int:
        if self._text_counter is None:
            if self._estimator is None:
                self._estimator = default_estimator()
            self._text_counter = default_text_counter(self._estimator, self.image_family)
        return _as_int(self._text_counter(text, self.tokenizer))

    # -- the call ----------------------------------------------------------------

    def max_tokens_for(self, purpose: str, max_tokens: int | None) -> int:
        if max_tokens is not None:
            return int(max_tokens)
        if purpose == "preloc":
            return int(self.profile["preloc_max_tokens"])
        return int(self.profile["max_tokens"])

    def prepare(self, messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, int]]:
        """What would be sent for ``messages``: API keys only, image cap applied, and no
        registered secret (an observation of a command that printed a pass-through token)."""
        prepared = redact_data(prepare_messages(messages))
        cap = self.profile["max_images_per_request"]
        prepared, stats = apply_image_cap(prepared, cap)
        if stats["omitted"] and self.profile["image_policy"] == "reject":
            raise ModelCallFailed(
                f"model '{self.profile_name}': request has {stats['omitted'] + stats['sent']} images, "
                f"more than max_images_per_request={cap} (image_policy: reject)",
                reason="too_many_images",
            )
        return prepared, stats

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        max_tokens: int | None = None,
        purpose: str = "agent",
        tools: list[dict[str, Any]] | None = None,
        tool_choice: Any = None,
        stop: list[str] | None = None,
    ) -> ChatResponse:
        """One assistant turn for ``messages``.

        ``purpose`` names the call site ("agent", "preloc", "locator", "editor", ...): it
        picks the max output ("preloc" uses preloc_max_tokens) and, under playback, the queue
        of recorded turns. ``tools``/``tool_choice``/``stop`` are passed through to the
        endpoint and are part of the cache key.
        """
        if not isinstance(messages, list) or not messages:
            raise ModelError("complete() needs a non-empty list of messages")
        prepared, image_stats = self.prepare(messages)
        estimate = self.estimate_prompt_tokens(prepared)
        started = time.monotonic()
        response = self._complete(
            prepared,
            max_tokens=self.max_tokens_for(purpose, max_tokens),
            purpose=purpose,
            tools=tools,
            tool_choice=tool_choice,
            stop=stop,
            estimated_prompt_tokens=estimate,
        )
        self.n_calls += 1
        self.n_cache_hits += int(response.cached)
        response.meta = {
            "backend": self.backend,
            "profile": self.profile_name,
            "model_id": self.model_id,
            "purpose": purpose,
            "images_sent": image_stats["sent"],
            "images_omitted": image_stats["omitted"],
            "latency_s": round(time.monotonic() - started, 4),
            **response.meta,
        }
        return response

    @abstractmethod
    def _complete(
        self,
        messages: list[dict[str, Any]],
        *,
        max_tokens: int,
        purpose: str,
        tools: list[dict[str, Any]] | None,
        tool_choice: Any,
        stop: list[str] | None,
        estimated_prompt_tokens: int,
    ) -> ChatResponse: ...

    def __repr__(self) -> str:
        return f"{type(self).__name__}(profile={self.profile_name!r}, model_id={self.model_id!r})"
