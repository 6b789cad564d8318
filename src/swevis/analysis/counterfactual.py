"""The counterfactual replay of a set of recorded trajectories as a study: per-step records
for every backbone (swevis.counterfactual.replay's recorded mode), the reduction table with
bootstrap CIs over trajectories, and the decomposition of the gap to the ceiling.

The decomposition, per trajectory, backbone and condition rN, mem+rN or mem (N = 1: text
with the memory). An observation j is
part of every later call's prompt, so it counts w_j times (w_j: the calls after it). With
T_j and C_j its prompt tokens under text and under rN (count_message_tokens of the message),
m the fixed tokens of a message with empty content (message overhead and reply priming) and,
per code window w of the observation, t_w the tokens of its recorded text and c_w its tokens
as shown under rN (text tokens when kept as text; note + image tokens when rendered):

- ceiling: every observation at its budget, C*_j = T_j / N. The ceiling's prompt tokens are
  P* = P_c - gap, with gap = sum_j w_j (C_j - T_j / N); ceiling_reduction = P_text / P*.
- message_overhead = m - m / N: the message frame no rendering removes.
- not_code_window = (C_j - m - sum c_w) - (T_j - m - sum t_w) / N: the output around the
  windows and outputs with no window (test runs, listings; also a window the pipeline did not
  read as a code read).
- over_size_limit, kept_as_text, render_failed = c_w - t_w / N of a window kept as text
  because it is longer than agents.max_window_chars, because its pages would cost more
  (never dearer), or because it could not be rendered (render_failed also takes a window
  with a character no font of the renderer draws, text_reason missing_glyph).
- page_overhead = c_w - image_tokens (the note and its message parts) of every rendered
  window, plus image_tokens - t_w / N of a window whose pages hit the family's per-image
  token floor (floor_bound).
- guard_bound = image_tokens - t_w / N of a window the readability guard kept above the
  budget (the smallest admissible font costs more than the budget).
- layout_tolerance = image_tokens - t_w / N of the other rendered windows: the layout's band
  around the budget (render.ratio_tolerance), and the numbering the text shows but the pages
  draw; can be negative.
- memory = c_w - f_w of every window under mem / mem+rN, f_w its tokens as rN alone shows it
  (then the terms above take f_w for c_w): the working memory's note in place of lines shown
  before, at most 0 but for a note dearer than a tiny window. The ceiling stays rendering's
  (T_j / N), so the memory can take a condition below it.

Each term is weighted by w_j and summed; the terms add up to the gap exactly (up to float
rounding), by construction: per observation they sum to C_j - T_j / N.

Beside this ceiling (every observation compressed, code or not), the tables carry the
code-window ceiling of swevis.counterfactual.ceiling: the code windows' share of the
cumulative prompt (code_share), the reduction rendering exactly them at T/N gives
(code_ceiling_reduction), the share of that saving realized (realized_share) and its gap by
term (code_gap_*); and the condition's page family (code, obs, hist) with its own ceiling
(swevis.counterfactual.ceiling.family_ceiling) and the share of it realized, in prompt tokens
(family_ceiling_reduction, family_realized_share) and on the cache-aware bill, the prompt's
part (bill_reduction, family_ceiling_bill_reduction, family_bill_realized_share; empty when
the profile sets no price).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import polars as pl

from swevis.counterfactual.ceiling import (
    CODE_TERMS, ceiling_ratio, family_ceiling, family_shares, realized_share, trajectory_ceiling,
)
from swevis.counterfactual.replay import ReplayCondition, recorded_costs
from swevis.counterfactual.formats import trajectory_files
from swevis.counterfactual.formats import read_trajectory
from swevis.analysis.stats import bootstrap
from swevis.errors import SwevisError
from swevis.tokens import count_message_tokens

TERMS = (
    "not_code_window", "message_overhead", "over_size_limit", "kept_as_text", "render_failed",
    "page_overhead", "guard_bound", "layout_tolerance", "memory",
)
REASON_TERM = {"over_max_window_chars": "over_size_limit", "cheaper_as_text": "kept_as_text",
               "render_failed": "render_failed", "missing_glyph": "render_failed"}
WINDOW_COST = pl.Struct({"text_tokens": pl.Int64, "tokens": pl.Int64, "kind": pl.Utf8, "text_reason": pl.Utf8,
                         "pages": pl.Int64, "image_tokens": pl.Int64, "guard_bound": pl.Boolean,
                         "floor_bound": pl.Boolean, "full_tokens": pl.Int64, "memory": pl.Utf8})
STEP_SCHEMA = {"windows": pl.List(pl.Utf8), "command": pl.Utf8, "window_costs": pl.List(WINDOW_COST),
               "cached_prompt_tokens": pl.Int64, "spend_cache_aware": pl.Float64, "prompt_spend_cache_aware": pl.Float64,
               "family": pl.Utf8, "ceiling_eligible_tokens": pl.Int64}


def replay_set(folder: str | Path, conditions: Sequence[str], backbones: dict[str, dict[str, Any]], *,
               agents_cfg: dict, render_cfg: dict, prompt_cache: dict | None = None) -> pl.DataFrame:
    """One record per recorded call x condition x backbone, for every trajectory below the
    folder (recorded-observation mode). Each record carries the trajectory, its format, the
    backbone and the backbone's empty-message tokens (`message_tokens`, m above), and the
    call's cached prompt tokens and cache-aware spend under the backbone's provider prefix
    cache (`prompt_cache`: config counterfactual.prompt_cache; None: the schema's)."""
    conditions = [str(ReplayCondition.parse(str(c))) for c in conditions]
    if "text" not in conditions:
        raise SwevisError("config key 'counterfactual.conditions' must include text: every reduction is against it")
    root = Path(folder)
    files = trajectory_files(str(root), root / ".no-output")
    trajs = [(f, read_trajectory(f)) for f in files]  # every file is read before anything is accounted
    records: list[dict] = []
    for name, profile in backbones.items():
        m = count_message_tokens([{"role": "user", "content": ""}], profile["tokenizer"], profile["image_family"])
        for path, traj in trajs:
            _, steps, _ = recorded_costs(path, conditions, model_name=name, profile=profile, agents_cfg=agents_cfg,
                                         render_cfg=render_cfg, traj=traj, prompt_cache=prompt_cache)
            tag = {"trajectory": path.relative_to(root).as_posix(), "format": traj.format,
                   "instance_id": traj.instance_id, "truncated": traj.truncated, "backbone": name, "message_tokens": m}
            records += [{**tag, **s} for s in steps]
    return pl.DataFrame(records, schema_overrides=STEP_SCHEMA, infer_schema_length=None)


def _observation_terms(C: int, T: int, m: int, costs: list[dict], ratio: float) -> dict[str, float]:
    """The gap terms of one observation (module docstring); they sum to C - T / ratio."""
    terms = dict.fromkeys(TERMS, 0.0)
    terms["message_overhead"] = m - m / ratio
    shown = budget = 0.0
    for w in costs:
        full = w["tokens"] if w.get("full_tokens") is None else w["full_tokens"]  # without the memory
        terms["memory"] += w["tokens"] - full
        shown += w["tokens"]
        budget += w["text_tokens"]
        over = full - w["text_tokens"] / ratio
        if w["kind"] == "image":
            terms["page_overhead"] += full - w["image_tokens"]
            pages_over = w["image_tokens"] - w["text_tokens"] / ratio
            key = "guard_bound" if w["guard_bound"] else "page_overhead" if w["floor_bound"] else "layout_tolerance"
            terms[key] += pages_over
        elif w["text_reason"] in REASON_TERM:
            terms[REASON_TERM[w["text_reason"]]] += over
        else:  # not read as a code window by the pipeline (or text shown as text): output like any other
            shown -= full
            budget -= w["text_tokens"]
    terms["not_code_window"] = (C - m - shown) - (T - m - budget) / ratio
    return terms


def trajectory_costs(steps: pl.DataFrame) -> pl.DataFrame:
    """Per trajectory, backbone and condition: prompt tokens (and the cached ones, with the
    cache-aware spend), the text condition's, the reduction, and for the other conditions the
    ceiling and the gap terms (module docstring)."""
    key = ["trajectory", "backbone"]
    text_steps = steps.filter(pl.col("condition") == "text")
    text: dict[tuple[str, str], dict[int, int]] = {}  # (trajectory, backbone) -> step -> observation tokens
    for r in text_steps.iter_rows(named=True):
        text.setdefault((r["trajectory"], r["backbone"]), {})[r["step"]] = r["observation_tokens"]
    text_prompt = {(t, b): int(p) for t, b, p in text_steps.group_by(key).agg(pl.col("prompt_tokens").sum()).iter_rows()}
    text_records = {k: sorted(g.to_dicts(), key=lambda r: r["step"]) for k, g in text_steps.group_by(key)}
    code_keys = ["code_tokens_weighted", "code_share", "code_ceiling_prompt_tokens", "code_gap_tokens",
                 *[f"code_gap_{t}" for t in CODE_TERMS]]
    rows = []
    for (traj, backbone, condition), g in steps.group_by([*key, "condition"], maintain_order=True):
        parsed = ReplayCondition.parse(condition)
        ratio = ceiling_ratio(parsed.observation, parsed.memory)
        # the gap terms and the code-window ceiling describe a condition that renders (masking alone does not)
        renders = ratio is not None and not math.isinf(ratio)
        g = g.sort("step")
        n = g.height
        prompt = int(g["prompt_tokens"].sum())
        row = {"trajectory": traj, "backbone": backbone, "condition": condition, "truncated": bool(g["truncated"][0]),
               "calls": n, "prompt_tokens": prompt, **_cache_sums(g)}
        terms = dict.fromkeys(TERMS, 0.0)
        if renders:
            for i, r in enumerate(g.iter_rows(named=True)):
                if r["observation_kind"] == "none":
                    continue
                obs = _observation_terms(r["observation_tokens"], text[(traj, backbone)][r["step"]],
                                         r["message_tokens"], r["window_costs"] or [], ratio)
                for k, v in obs.items():
                    terms[k] += (n - 1 - i) * v
        gap = sum(terms.values())
        code = dict.fromkeys(code_keys, None)
        family = dict.fromkeys(FAMILY_KEYS, None)
        if ratio is not None:
            records = list(g.iter_rows(named=True))
            code = trajectory_ceiling(records, text[(traj, backbone)], text_prompt[(traj, backbone)], ratio) \
                if renders else code
            family = family_ceiling(records, text_records[(traj, backbone)], ratio)
        # masking alone compresses nothing: the every-observation-compressed ceiling is not its (None)
        ceiling = prompt - gap if renders or ratio is None else None
        rows.append({**row, "family": g["family"][0], "gap_tokens": gap, "ceiling_prompt_tokens": ceiling, **terms,
                     **code, **family})
    out = pl.DataFrame(rows)
    base = out.filter(pl.col("condition") == "text").select(*key, pl.col("prompt_tokens").alias("text_prompt_tokens"))
    return out.join(base, on=key, how="left").with_columns(
        reduction=pl.col("text_prompt_tokens") / pl.col("prompt_tokens"),
        ceiling_reduction=pl.col("text_prompt_tokens") / pl.col("ceiling_prompt_tokens"),
    )


FAMILY_KEYS = ("family_ceiling_prompt_tokens", "text_prompt_bill", "prompt_bill", "family_ceiling_prompt_bill")


def _family_ceiling(g: pl.DataFrame) -> dict[str, Any]:
    """The page family of a group and its ceiling and realized share, in prompt tokens and on
    the cache-aware bill (swevis.counterfactual.ceiling.family_ceiling); None under text."""
    if g["family_ceiling_prompt_tokens"].null_count():
        return {"family": g["family"][0], **family_shares(0, 0, None, None, None, None)}
    sums = {c: None if g[c].null_count() else float(g[c].sum()) for c in ("text_prompt_tokens", "prompt_tokens", *FAMILY_KEYS)}
    return {"family": g["family"][0], **family_shares(sums["text_prompt_tokens"], sums["prompt_tokens"],
            sums["family_ceiling_prompt_tokens"], sums["text_prompt_bill"], sums["prompt_bill"], sums["family_ceiling_prompt_bill"])}


def _cache_sums(g: pl.DataFrame) -> dict[str, Any]:
    """The calls' cached prompt tokens and cache-aware spend (None when any call's is unpriced)."""
    spend = g["spend_cache_aware"]
    return {"cached_prompt_tokens": int(g["cached_prompt_tokens"].sum()),
            "spend_cache_aware": None if spend.null_count() else float(spend.sum())}


def _aggregate(rows: list[dict]) -> float:
    return sum(r["text_prompt_tokens"] for r in rows) / sum(r["prompt_tokens"] for r in rows)


def _median(rows: list[dict]) -> float:
    return float(np.median([r["reduction"] for r in rows]))


def reduction_table(costs: pl.DataFrame, *, resamples: int, seed: int) -> pl.DataFrame:
    """Per condition and backbone: trajectories (and how many were cut short), the aggregate reduction (sum of text prompt
    tokens / sum of the condition's) and the median per-trajectory reduction, each with a 95%
    bootstrap CI over trajectories, and the aggregate ceiling; beside the prompt tokens, the
    cached and uncached ones under the backbone's prefix cache and the cache-aware spend
    (empty when the profile sets no price)."""
    rows = []
    for (condition, backbone), g in costs.group_by(["condition", "backbone"], maintain_order=True):
        items = g.to_dicts()
        agg = bootstrap(items, _aggregate, resamples=resamples, seed=seed)
        med = bootstrap(items, _median, resamples=resamples, seed=seed)
        rows.append({
            "condition": condition, "backbone": backbone, "trajectories": g.height,
            "truncated": int(g["truncated"].sum()),  # trajectories cut short before their run ended
            "text_prompt_tokens": int(g["text_prompt_tokens"].sum()), "prompt_tokens": int(g["prompt_tokens"].sum()),
            "cached_prompt_tokens": int(g["cached_prompt_tokens"].sum()),
            "uncached_prompt_tokens": int(g["prompt_tokens"].sum() - g["cached_prompt_tokens"].sum()),
            "spend_cache_aware": None if g["spend_cache_aware"].null_count() else float(g["spend_cache_aware"].sum()),
            "aggregate_reduction": agg[0], "aggregate_ci_low": agg[1], "aggregate_ci_high": agg[2],
            "median_reduction": med[0], "median_ci_low": med[1], "median_ci_high": med[2],
            "ceiling_reduction": None if g["ceiling_prompt_tokens"].null_count()
            else float(g["text_prompt_tokens"].sum() / g["ceiling_prompt_tokens"].sum()),
            **_code_ceiling(g), **_family_ceiling(g),
        })
    return pl.DataFrame(rows)


def _code_ceiling(g: pl.DataFrame) -> dict[str, float | None]:
    """The code-window ceiling of a group of trajectories (swevis.counterfactual.ceiling); None under text."""
    if g["code_ceiling_prompt_tokens"].null_count():
        return {"code_share": None, "code_ceiling_reduction": None, "realized_share": None}
    p_text, p, ceiling = (float(g[c].sum()) for c in ("text_prompt_tokens", "prompt_tokens", "code_ceiling_prompt_tokens"))
    return {"code_share": float(g["code_tokens_weighted"].sum()) / p_text, "code_ceiling_reduction": p_text / ceiling,
            "realized_share": realized_share(p_text, p, ceiling)}


def decomposition_table(costs: pl.DataFrame) -> pl.DataFrame:
    """Per condition that renders (not text, not masking alone) and backbone: the gap to the ceiling in prompt tokens,
    each term in tokens and as its share of the gap (terms sum to gap_tokens); likewise the
    gap to the code-window ceiling (code_gap_*, summing to code_gap_tokens)."""
    visual = costs.filter((pl.col("condition") != "text") & pl.col("ceiling_prompt_tokens").is_not_null())
    out = visual.group_by(["condition", "backbone"], maintain_order=True).agg(
        pl.len().alias("trajectories"),
        pl.col("text_prompt_tokens").sum(), pl.col("prompt_tokens").sum(), pl.col("ceiling_prompt_tokens").sum(),
        pl.col("gap_tokens").sum(), *[pl.col(t).sum() for t in TERMS],
        pl.col("code_gap_tokens").sum(), *[pl.col(f"code_gap_{t}").sum() for t in CODE_TERMS],
    )
    return out.with_columns(
        reduction=pl.col("text_prompt_tokens") / pl.col("prompt_tokens"),
        ceiling_reduction=pl.col("text_prompt_tokens") / pl.col("ceiling_prompt_tokens"),
        **{f"{t}_share": pl.when(pl.col("gap_tokens") != 0).then(pl.col(t) / pl.col("gap_tokens")) for t in TERMS},
        **{f"code_gap_{t}_share": pl.when(pl.col("code_gap_tokens") != 0).then(pl.col(f"code_gap_{t}") / pl.col("code_gap_tokens"))
           for t in CODE_TERMS},
    )
