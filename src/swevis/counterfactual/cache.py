"""The counterfactual replay's bill: each replayed call's cached prompt tokens (the
profile's provider prefix cache, swevis.models.prefix_cache, served by the playback model)
and its cache-aware spend (swevis.models.spend), summed per condition.
"""

from __future__ import annotations

from typing import Any

from swevis.models.spend import call_cost, is_priced


def call_billing(profile: dict[str, Any], usage: dict[str, Any]) -> dict[str, Any]:
    """A replayed call's cached prompt tokens (the prefix cache's) and its cache-aware spend
    at the profile's prices, and the prompt's part of it (None when the profile sets none: 0
    is not "free")."""
    cached = int(usage.get("cached_prompt_tokens") or 0)
    spend = call_cost(profile, int(usage["prompt_tokens"]), int(usage["completion_tokens"]), cached)
    prompt_spend = call_cost(profile, int(usage["prompt_tokens"]), 0, cached)  # the input side: what rendering changes
    priced = is_priced(profile)
    return {"cached_prompt_tokens": cached, "spend_cache_aware": spend if priced else None,
            "prompt_spend_cache_aware": prompt_spend if priced else None}


def condition_totals(rows: list[dict[str, Any]], per_step: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each condition's row (`condition` names it) with the sum of its calls' cached prompt
    tokens and cache-aware spend (None when unpriced)."""
    for r in rows:
        calls = [s for s in per_step if s["condition"] == r["condition"]]
        spends = [s["spend_cache_aware"] for s in calls]
        r["cached_prompt_tokens"] = sum(s["cached_prompt_tokens"] for s in calls)
        r["spend_cache_aware"] = None if None in spends else round(sum(spends), 6)
    return rows
