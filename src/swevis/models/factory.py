"""Build a chat model from a named config profile (config section ``models.<name>``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from swevis.models.base import ChatModel, Estimator, ModelConfigError, TextCounter, is_live, resolve_profile
from swevis.models.openai_backend import OpenAIChatModel
from swevis.models.playback import PlaybackModel
from swevis.models.prefix_cache import CacheRule
from swevis.redaction import register_secret


def make_model(
    profile_name: str,
    profile: dict[str, Any],
    *,
    cache_dir: str | Path | None = None,
    estimator: Estimator | None = None,
    text_counter: TextCounter | None = None,
    playback_source: Any = None,
    environ: Mapping[str, str] | None = None,
    prompt_cache: dict[str, dict[str, int]] | None = None,
) -> ChatModel:
    """The backend the profile names.

    ``cache_dir``: response cache folder (backend openai, temperature 0; None disables it).
    ``playback_source``: demonstration or trajectory (path or data) for backend playback,
    whose calls pass through the prefix cache of the profile's family (``prompt_cache``: config
    counterfactual.prompt_cache; None: the schema's) so a playback run reports cached tokens.
    ``estimator``/``text_counter``: token estimators; default ``swevis.tokens``.
    ``environ``: where the API key variable is looked up (default ``os.environ``).
    """
    resolved = resolve_profile(profile_name, profile)
    backend = resolved["backend"]
    if backend == "openai":
        return OpenAIChatModel(
            profile_name,
            profile,
            cache_dir=cache_dir,
            estimator=estimator,
            text_counter=text_counter,
            environ=environ,
        )
    if backend == "playback":
        if playback_source is None:
            raise ModelConfigError(
                f"model profile '{profile_name}' uses backend playback, which needs a playback source "
                "(a demonstration or a trajectory)"
            )
        rule = CacheRule.from_config(resolved["prompt_cache"], prompt_cache, profile_name)
        return PlaybackModel(profile_name, profile, source=playback_source, prefix_cache=rule, estimator=estimator,
                             text_counter=text_counter)
    raise ModelConfigError(f"config key 'models/{profile_name}/backend': unknown backend {backend!r} (openai, playback)")


def register_api_keys(profiles: Mapping[str, dict[str, Any]], environ: Mapping[str, str] | None = None) -> list[str]:
    """Register for redaction the API key of every live profile of a config (config section
    ``models``), not only the one a run uses (registered when its model is built): a key is
    a secret whichever profile it belongs to. Returns the variables registered."""
    environ = os.environ if environ is None else environ
    names = {resolve_profile(name, p)["api_key_env"] for name, p in profiles.items() if is_live(p)}
    return sorted(n for n in names if n and register_secret(environ.get(n), n))
