"""Spend caps: stop a runaway trajectory, or a whole condition, cleanly.

Two levels, both from config (``agents`` section):

- **per trajectory** (``max_trajectory_tokens``, ``max_trajectory_calls``,
  ``max_trajectory_cost``): counted over the trajectory's accounted usage -- the numbers its
  ``traj.json`` reports, resumed steps and response-cache hits included -- so a rerun stops
  at exactly the same step.
- **per condition** (``max_condition_tokens``, ``max_condition_calls``,
  ``max_condition_cost``): counted in a ledger file that every job of the condition updates
  under an exclusive POSIX lock (``fcntl.lockf``, which NFS and Lustre honour where the
  jobs share a filesystem). Only real requests are entered (not cache hits, not playback).

Cost is cache-aware: ``(prompt_tokens - cached_prompt_tokens) / 1000 * cost_per_1k_prompt +
cached_prompt_tokens / 1000 * cost_per_1k_cached_prompt + completion_tokens / 1000 *
cost_per_1k_completion`` with the model profile's prices (0 when unset; a cached price left
null is the uncached one). ``cached_prompt_tokens`` is what the endpoint reported serving from
its prefix cache (swevis.models.openai_backend.reported_cached_tokens); the check before a
request cannot know it and prices the whole prompt uncached.

The check runs before each request: a request is refused when a cap is already reached, or
when the prompt alone (its estimate) would cross the token or cost cap. The refusal raises
:class:`CostLimitExceeded`, which the agents turn into exit status ``cost_limit``.
Parallel jobs of one condition can overshoot its cap by at most one request each (each
checks, then calls); a trajectory never overshoots by more than its last response.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from swevis.fsutil import write_atomic
from swevis.models.base import ChatModel, ChatResponse, ModelError

CAP_KEYS = {
    "trajectory": ("max_trajectory_tokens", "max_trajectory_calls", "max_trajectory_cost"),
    "condition": ("max_condition_tokens", "max_condition_calls", "max_condition_cost"),
}


class CostLimitExceeded(ModelError):
    """A spend cap refused the next request (the agents' exit status ``cost_limit``)."""

    def __init__(self, message: str, *, scope: str, key: str, limit: float, spent: float):
        super().__init__(message)
        self.scope = scope
        self.key = key
        self.limit = limit
        self.spent = spent


@dataclass
class Spend:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    cached_prompt_tokens: int = 0  # of prompt_tokens, served from the endpoint's prefix cache

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Spend) -> Spend:
        return Spend(
            self.calls + other.calls,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            round(self.cost + other.cost, 10),
            self.cached_prompt_tokens + other.cached_prompt_tokens,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"tokens": self.tokens}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Spend:
        return cls(
            int(d.get("calls") or 0),
            int(d.get("prompt_tokens") or 0),
            int(d.get("completion_tokens") or 0),
            float(d.get("cost") or 0.0),
            int(d.get("cached_prompt_tokens") or 0),
        )


def is_priced(profile: dict[str, Any]) -> bool:
    """Whether the profile sets any price (without, a spend of 0 would read as "free")."""
    return any(profile.get(k) for k in ("cost_per_1k_prompt", "cost_per_1k_cached_prompt", "cost_per_1k_completion"))


def cached_prompt_price(profile: dict[str, Any]) -> float:
    """The price of 1000 prompt tokens served from the prefix cache: cost_per_1k_cached_prompt,
    or the uncached price when the profile leaves it null (no discount known)."""
    cached = profile.get("cost_per_1k_cached_prompt")
    return float(profile.get("cost_per_1k_prompt") or 0.0) if cached is None else float(cached)


def call_cost(profile: dict[str, Any], prompt_tokens: int, completion_tokens: int, cached_prompt_tokens: int = 0) -> float:
    """Cache-aware spend of token counts at the profile's prices: the uncached prompt tokens
    at the input price, the cached ones at the cached-input price, the output at its own."""
    p = float(profile.get("cost_per_1k_prompt") or 0.0)
    c = float(profile.get("cost_per_1k_completion") or 0.0)
    cached = min(max(int(cached_prompt_tokens or 0), 0), prompt_tokens)
    prompt = (prompt_tokens - cached) / 1000.0 * p + cached / 1000.0 * cached_prompt_price(profile)
    return round(prompt + completion_tokens / 1000.0 * c, 10)


def spend_of_usage(profile: dict[str, Any], usage: dict[str, Any]) -> Spend:
    """One call's spend from a usage record (``ChatResponse.record()["usage"]`` or a step's)."""
    pt = int(usage.get("prompt_tokens") or 0)
    ct = int(usage.get("completion_tokens") or 0)
    cached = int(usage.get("cached_prompt_tokens") or 0)
    return Spend(1, pt, ct, call_cost(profile, pt, ct, cached), cached)


@dataclass
class SpendCaps:
    """Caps of one scope; None = no cap."""

    scope: str  # "trajectory" | "condition"
    tokens: int | None = None
    calls: int | None = None
    cost: float | None = None

    @classmethod
    def from_config(cls, scope: str, cfg: dict[str, Any]) -> SpendCaps:
        tk, ck, costk = CAP_KEYS[scope]
        for key in (tk, ck, costk):
            value = cfg.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int | float) or value < 0):
                raise ModelError(f"config key 'agents/{key}': must be a number >= 0 or null, not {value!r}")
        return cls(scope, cfg.get(tk), cfg.get(ck), cfg.get(costk))

    @property
    def active(self) -> bool:
        return any(v is not None for v in (self.tokens, self.calls, self.cost))

    def check(self, spent: Spend, *, next_prompt_tokens: int, profile: dict[str, Any]) -> None:
        """Raise CostLimitExceeded if the next request (prompt estimate given) must not be made."""
        tk, ck, costk = CAP_KEYS[self.scope]
        if self.calls is not None and spent.calls >= self.calls:
            self._stop(ck, self.calls, spent.calls, f"{spent.calls} calls made")
        if self.tokens is not None and spent.tokens + next_prompt_tokens > self.tokens:
            self._stop(tk, self.tokens, spent.tokens,
                       f"{spent.tokens} tokens spent, the next prompt is ~{next_prompt_tokens}")
        if self.cost is not None:
            upcoming = call_cost(profile, next_prompt_tokens, 0)
            if spent.cost + upcoming > self.cost:
                self._stop(costk, self.cost, spent.cost,
                           f"cost {spent.cost:.4f} spent, the next prompt costs ~{upcoming:.4f}")

    def _stop(self, key: str, limit: float, spent: float, detail: str) -> None:
        raise CostLimitExceeded(
            f"{self.scope} spend cap agents.{key}={limit} reached ({detail}); stopped before the next request",
            scope=self.scope, key=key, limit=limit, spent=spent,
        )


class SpendLedger:
    """Running spend of one condition, shared by its jobs: a JSON file updated under a lock.

    The lock is an exclusive POSIX record lock on ``<ledger>.lock`` (``fcntl.lockf``);
    the JSON is replaced atomically, so a reader never sees half a file. Delete the ledger
    file to reset the condition's budget.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.lock_path = self.path.with_name(self.path.name + ".lock")

    @contextlib.contextmanager
    def _locked(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX)
            yield
        finally:
            with contextlib.suppress(OSError):
                fcntl.lockf(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _read_unlocked(self) -> dict[str, Any]:
        if not self.path.exists():
            return {"format": "swevis-ledger-1", "total": Spend().to_dict(), "by_instance": {}}
        try:
            data = json.loads(self.path.read_text())
            if not isinstance(data, dict) or not isinstance(data.get("total"), dict):
                raise ValueError("no 'total' object")
        except ValueError as exc:
            raise ModelError(f"spend ledger {self.path} is unreadable ({exc}); fix or delete it") from None
        data.setdefault("by_instance", {})
        return data

    def read(self) -> Spend:
        with self._locked():
            return Spend.from_dict(self._read_unlocked()["total"])

    def add(self, spend: Spend, instance: str = "") -> Spend:
        with self._locked():
            data = self._read_unlocked()
            total = Spend.from_dict(data["total"]) + spend
            data["total"] = total.to_dict()
            if instance:
                data["by_instance"][instance] = (
                    Spend.from_dict(data["by_instance"].get(instance, {})) + spend
                ).to_dict()
            write_atomic(self.path, json.dumps(data, indent=1, sort_keys=True))
            return total


class SpendGuard(ChatModel):
    """A chat model that checks the spend caps before every request of ``inner``.

    It works as a top-level model (``complete``) and as a playback fallback (``_complete``,
    which :class:`~swevis.models.playback.PlaybackModel` calls), so resumed trajectories are
    guarded the same way. ``prior`` seeds the trajectory's spend (steps restored from a
    journal). Responses from the response cache count for the trajectory, not the ledger.
    """

    def __init__(
        self,
        inner: ChatModel,
        *,
        trajectory_caps: SpendCaps | None = None,
        condition_caps: SpendCaps | None = None,
        ledger: SpendLedger | None = None,
        prior: Spend | None = None,
        instance: str = "",
    ):
        estimator, text_counter = inner.estimators
        super().__init__(inner.profile_name, inner.profile, estimator=estimator, text_counter=text_counter)
        self.inner = inner
        self.backend = inner.backend
        self.model_id = inner.model_id
        self.trajectory_caps = trajectory_caps or SpendCaps("trajectory")
        self.condition_caps = condition_caps or SpendCaps("condition")
        if self.condition_caps.active and ledger is None:
            raise ModelError("per-condition spend caps need a ledger file (agents.ledger_dir)")
        self.ledger = ledger
        self.spent = prior or Spend()
        self.instance = instance

    def _complete(self, messages, *, max_tokens, purpose, tools, tool_choice, stop, estimated_prompt_tokens) -> ChatResponse:
        self.trajectory_caps.check(self.spent, next_prompt_tokens=estimated_prompt_tokens, profile=self.profile)
        if self.condition_caps.active:
            self.condition_caps.check(self.ledger.read(), next_prompt_tokens=estimated_prompt_tokens, profile=self.profile)
        response = self.inner._complete(
            messages, max_tokens=max_tokens, purpose=purpose, tools=tools, tool_choice=tool_choice, stop=stop,
            estimated_prompt_tokens=estimated_prompt_tokens,
        )
        spend = spend_of_usage(self.profile, response.usage.to_dict())
        self.spent = self.spent + spend
        if self.ledger is not None and not response.cached:
            self.ledger.add(spend, self.instance)
        return response

    def close(self) -> None:
        if hasattr(self.inner, "close"):
            self.inner.close()
