"""Tables 1-3 and the statistics beyond the paper, as polars DataFrames.

Units: accuracy in percent (1 decimal in the wide tables), prompt tokens in millions
(2 decimals in the wide tables; the long tables keep full precision). Infrastructure
failures that reach the tables (the tests ran but yielded no results for the patch) count
as unresolved and are reported in their own column; a harness that could not run fails
its job instead (swevis.harness.cache.raise_harness_errors). Runs of
instances whose environment failed validation are left out of accuracy (n counts the valid
instances, n_invalid the others); the wide tables show each cell's cached prompt tokens and
cache-aware spend per run beside its prompt tokens; the long tables add each cell's spend over all its runs,
cache-aware (spend_cache_aware_total / _mean: cached prompt tokens at the cached-input price;
empty without prices), beside its prompt tokens (all, cached, uncached) and completion tokens.
"""

from __future__ import annotations

from typing import Any, Iterable

import polars as pl

from swevis.analysis.load import rows_frame, spend_stats
from swevis.analysis.stats import bootstrap_ci, mcnemar_exact, spread
from swevis.config import check_profile, schema_defaults, with_defaults

KEYS = ["model", "agent", "scope", "condition"]


def table_layout(matrix: list[dict[str, Any]], baseline: dict[str, str]) -> tuple[list[tuple[str, str]], list[str]]:
    """Rows ((agent, scope), matrix order) and columns (conditions, text first, then in the
    order the matrix names them) of Tables 1/2, from agents.matrix: the one source of the
    study's cells. The baseline cell is the "mini" column, not a row, when it runs only the
    baseline condition and other cells exist (a matrix of the baseline alone is its row)."""
    rows: list[tuple[str, str]] = []
    conditions: list[str] = []
    for cell in matrix:
        pair = (cell["agent"], cell["scope"])
        only_baseline = list(cell["conditions"]) == [baseline["condition"]]
        if len(matrix) > 1 and only_baseline and pair == (baseline["agent"], baseline["scope"]):
            continue
        if pair not in rows:
            rows.append(pair)
        conditions += [c for c in cell["conditions"] if c not in conditions]
    return rows, sorted(conditions, key=lambda c: c != "text")


def settings_from_config(config: dict[str, Any]) -> dict[str, Any]:
    """The `analysis` section over the schema's defaults, the table layout from
    agents.matrix (the schema's default matrix when the config has none) and the table
    models from `models`; a table model that is no profile is a ConfigError."""
    defaults = schema_defaults()
    s = with_defaults(defaults["analysis"], config.get("analysis"))
    matrix = (config.get("agents") or {}).get("matrix") or defaults["agents"]["matrix"]
    s["rows"], s["conditions"] = table_layout(matrix, s["baseline"])
    s["agents"] = list(dict.fromkeys(agent for agent, _ in s["rows"]))
    s["scopes"] = list(dict.fromkeys(scope for _, scope in s["rows"]))
    models = list((config.get("models") or {}).keys())
    s["model_order"] = models
    for model in s["table_models"] or []:
        check_profile(model, models, "analysis/table_models")
    s["table_models"] = list(s["table_models"] or models)[:2]
    return s


def frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return rows_frame(rows)


def _backend(df: pl.DataFrame) -> str:
    vals = sorted({b for b in df["backend"].to_list() if b}) if df.height else []
    return "+".join(vals) if vals else "unknown"


def _cell(df: pl.DataFrame, model: str, agent: str, scope: str, condition: str) -> pl.DataFrame:
    return df.filter(
        (pl.col("model") == model) & (pl.col("agent") == agent) & (pl.col("scope") == scope) & (pl.col("condition") == condition)
    )


def cell_stats(cell: pl.DataFrame, metric: str, settings: dict[str, Any]) -> dict[str, Any]:
    """Mean, bootstrap CI over instances (repeats averaged within an instance first), n and
    the spread of the per-repeat means. metric: "accuracy" (%) or "prompt_tokens" (M).
    Accuracy counts only instances with a valid environment; spend counts every run."""
    extra = {"n_invalid": cell.filter(~pl.col("valid"))["instance_id"].n_unique(), **spend_stats(cell.to_dicts())}
    if metric == "accuracy":
        cell = cell.filter(pl.col("valid"))
    if cell.height == 0:
        return {"n": 0, "n_runs": 0, "repeats": 0, "mean": None, "ci_low": None, "ci_high": None, "sd_repeats": None, "min_repeat": None, "max_repeat": None, "infra_failures": 0, **extra}
    if metric == "accuracy":
        value = pl.col("resolved").cast(pl.Float64) * 100.0
    elif metric == "prompt_tokens":
        value = pl.col("prompt_tokens").cast(pl.Float64) / 1e6
    else:
        raise ValueError(f"unknown metric {metric!r}")
    per_instance = cell.group_by("instance_id").agg(value.mean().alias("v")).sort("instance_id")
    b = settings["bootstrap"]
    mean, lo, hi = bootstrap_ci(per_instance["v"].to_list(), resamples=int(b["resamples"]), level=float(b["level"]), seed=int(b["seed"]))
    per_repeat = cell.group_by("repeat").agg(value.mean().alias("v")).sort("repeat")["v"].to_list()
    sp = spread(per_repeat)
    return {
        "n": per_instance.height,
        "n_runs": cell.height,
        "repeats": len(per_repeat),
        "mean": mean,
        "ci_low": lo,
        "ci_high": hi,
        "sd_repeats": sp["sd"],
        "min_repeat": sp["min"] if len(per_repeat) > 1 else None,
        "max_repeat": sp["max"] if len(per_repeat) > 1 else None,
        "infra_failures": int(cell["infra_failure"].sum()),
        **extra,
    }


def _per_run_millions(stats: dict[str, Any]) -> float | None:
    """A cell's cached prompt tokens per run, in millions (None without runs)."""
    return stats["cached_prompt_tokens_total"] / stats["n_runs"] / 1e6 if stats["n_runs"] else None


def _fmt_x(x: float | None) -> str | None:
    return None if x is None else f"{x:.2f}x"


def _round(x: float | None, nd: int) -> float | None:
    return None if x is None else round(x, nd)


def main_table(df: pl.DataFrame, model: str, settings: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Table 1/2 for `model`: (wide, long).

    wide: one row per agent x scope, columns acc_<c> (%), tok_<c> (M), cached_<c> (cached
    prompt tokens, M) and spend_<c> (cache-aware spend, per run; empty without prices) for c
    in mini + conditions, reduction_text ("1.42x" = mini tokens / text tokens), reduction_visual
    ("lo-hi x" over the visual conditions), their numeric forms, n, infra failures,
    repeats and (k > 1) acc_<c>_sd. long: one row per cell and metric with n, mean and CI.
    """
    conds = list(settings["conditions"])
    visual = [c for c in conds if c != "text"]
    base = settings["baseline"]
    mdf = df.filter(pl.col("model") == model)
    backend = _backend(mdf)
    mini = {m: cell_stats(_cell(mdf, model, base["agent"], base["scope"], base["condition"]), m, settings) for m in ("accuracy", "prompt_tokens")}
    long_rows = []
    for metric in ("accuracy", "prompt_tokens"):
        long_rows.append({"model": model, "backend": backend, "agent": base["agent"], "scope": base["scope"], "condition": base["condition"], "column": "mini", "metric": metric, **mini[metric]})
    wide_rows = []
    max_repeats = 1
    for agent, scope in settings["rows"]:  # matrix order, as documented
        row: dict[str, Any] = {"model": model, "backend": backend, "agent": agent, "scope": scope}
        stats = {"mini": mini}
        for c in conds:
            stats[c] = {m: cell_stats(_cell(mdf, model, agent, scope, c), m, settings) for m in ("accuracy", "prompt_tokens")}
            for metric in ("accuracy", "prompt_tokens"):
                long_rows.append({"model": model, "backend": backend, "agent": agent, "scope": scope, "condition": c, "column": c, "metric": metric, **stats[c][metric]})
        for col in ["mini", *conds]:
            row[f"acc_{col}"] = _round(stats[col]["accuracy"]["mean"], 1)
        for col in ["mini", *conds]:
            row[f"tok_{col}"] = _round(stats[col]["prompt_tokens"]["mean"], 2)
        for col in ["mini", *conds]:  # the bill beside the tokens: cached ones, cache-aware spend
            row[f"cached_{col}"] = _round(_per_run_millions(stats[col]["prompt_tokens"]), 2)
        for col in ["mini", *conds]:
            row[f"spend_{col}"] = stats[col]["prompt_tokens"]["spend_cache_aware_mean"]
        mini_tok = stats["mini"]["prompt_tokens"]["mean"]
        text_tok = stats.get("text", {}).get("prompt_tokens", {}).get("mean") if "text" in stats else None
        red_text = mini_tok / text_tok if mini_tok and text_tok else None
        reds = [mini_tok / stats[c]["prompt_tokens"]["mean"] for c in visual if mini_tok and stats[c]["prompt_tokens"]["mean"]]
        row["reduction_text"] = _fmt_x(red_text)
        row["reduction_visual"] = f"{min(reds):.2f}-{max(reds):.2f}x" if reds else None
        row["reduction_text_x"] = red_text  # rounded once, by table_csv (to 0.001)
        row["reduction_visual_min_x"] = min(reds) if reds else None
        row["reduction_visual_max_x"] = max(reds) if reds else None
        cells = [stats[c]["accuracy"] for c in conds]
        row["n_min"] = min(s["n"] for s in cells)
        row["n_max"] = max(s["n"] for s in cells)
        row["n_invalid"] = max(s["n_invalid"] for s in cells)
        row["infra_failures"] = sum(s["infra_failures"] for s in cells)
        row["repeats"] = max([s["repeats"] for s in cells] + [stats["mini"]["accuracy"]["repeats"]])
        max_repeats = max(max_repeats, row["repeats"])
        for col in ["mini", *conds]:
            row[f"_sd_{col}"] = _round(stats[col]["accuracy"]["sd_repeats"], 2)
        wide_rows.append(row)
    wide = pl.DataFrame(wide_rows)
    sd_cols = [c for c in wide.columns if c.startswith("_sd_")]
    if max_repeats > 1 or max(1, int(settings.get("repeats") or 1)) > 1:
        wide = wide.rename({c: f"acc_{c[4:]}_sd" for c in sd_cols})
    else:
        wide = wide.drop(sd_cols)
    long = pl.DataFrame(long_rows, infer_schema_length=None)
    return wide, long


def mcnemar_table(df: pl.DataFrame, settings: dict[str, Any]) -> pl.DataFrame:
    """Paired exact McNemar of every visual condition against the text condition of the same
    model, agent and scope, on the (instance, repeat) pairs present in both (instances with
    a valid environment only)."""
    visual = [c for c in settings["conditions"] if c != "text"]
    df = df.filter(pl.col("valid"))
    out = []
    combos = df.select("model", "agent", "scope").unique().sort("model", "agent", "scope").iter_rows()
    for model, agent, scope in combos:
        text = _cell(df, model, agent, scope, "text").select("instance_id", "repeat", pl.col("resolved").alias("t"))
        if text.height == 0:
            continue
        for c in visual:
            vis = _cell(df, model, agent, scope, c)
            if vis.height == 0:
                continue
            pairs = text.join(vis.select("instance_id", "repeat", pl.col("resolved").alias("v")), on=["instance_id", "repeat"], how="inner")
            t, v = pairs["t"], pairs["v"]
            both = int((t & v).sum())
            text_only = int((t & ~v).sum())
            visual_only = int((~t & v).sum())
            neither = int((~t & ~v).sum())
            n = pairs.height
            out.append(
                {
                    "model": model,
                    "backend": _backend(vis),
                    "agent": agent,
                    "scope": scope,
                    "condition": c,
                    "baseline": "text",
                    "n_pairs": n,
                    "both_resolved": both,
                    "text_only": text_only,
                    "visual_only": visual_only,
                    "neither": neither,
                    "acc_text": 100.0 * (both + text_only) / n if n else None,  # table_csv rounds to 0.1
                    "acc_visual": 100.0 * (both + visual_only) / n if n else None,
                    "diff_pp": 100.0 * (visual_only - text_only) / n if n else None,
                    "p_value": mcnemar_exact(text_only, visual_only),
                }
            )
    schema = {
        "model": pl.String, "backend": pl.String, "agent": pl.String, "scope": pl.String, "condition": pl.String,
        "baseline": pl.String, "n_pairs": pl.Int64, "both_resolved": pl.Int64, "text_only": pl.Int64,
        "visual_only": pl.Int64, "neither": pl.Int64, "acc_text": pl.Float64, "acc_visual": pl.Float64,
        "diff_pp": pl.Float64, "p_value": pl.Float64,
    }
    return pl.DataFrame(out, schema=schema)


CALIBRATION_SCHEMA = {
    "model": pl.String, "backend": pl.String, "modality": pl.String, "n_steps": pl.Int64,
    "estimated_total": pl.Int64, "server_total": pl.Int64, "total_ratio": pl.Float64,
    "ratio_mean": pl.Float64, "ratio_median": pl.Float64, "ratio_p05": pl.Float64, "ratio_p95": pl.Float64,
    "mape_pct": pl.Float64, "note": pl.String,
}


def calibration_table(rows: Iterable[dict[str, Any]], models: list[str] | None = None) -> pl.DataFrame:
    """Estimated / server-reported prompt tokens over the steps with server usage, per model
    and modality (text condition vs visual conditions) plus "all". A model without server
    usage gets one row with n_steps 0 and a note (e.g. under the playback backend)."""
    import numpy as np

    rows = list(rows)
    models = list(models or []) + sorted({r["model"] for r in rows} - set(models or []))
    out = []
    for model in models:
        mrows = [r for r in rows if r["model"] == model]
        backend = "+".join(sorted({r["backend"] for r in mrows if r.get("backend")})) or "unknown"
        groups = {
            "all": [p for r in mrows for p in r.get("usage_pairs") or []],
            "text": [p for r in mrows if r["condition"] == "text" for p in r.get("usage_pairs") or []],
            "visual": [p for r in mrows if r["condition"] != "text" for p in r.get("usage_pairs") or []],
        }
        if not groups["all"]:
            out.append({"model": model, "backend": backend, "modality": "all", "n_steps": 0, "note": f"no server-reported usage (backend {backend}); nothing to calibrate"})
            continue
        for modality, pairs in groups.items():
            if not pairs:
                continue
            est = np.array([p[0] for p in pairs], dtype=float)
            srv = np.array([p[1] for p in pairs], dtype=float)
            ratio = est / srv
            out.append(
                {
                    "model": model,
                    "backend": backend,
                    "modality": modality,
                    "n_steps": len(pairs),
                    "estimated_total": int(est.sum()),
                    "server_total": int(srv.sum()),
                    "total_ratio": float(est.sum() / srv.sum()),
                    "ratio_mean": float(ratio.mean()),
                    "ratio_median": float(np.median(ratio)),
                    "ratio_p05": float(np.quantile(ratio, 0.05)),
                    "ratio_p95": float(np.quantile(ratio, 0.95)),
                    "mape_pct": float(100.0 * np.mean(np.abs(est - srv) / srv)),
                    "note": None,
                }
            )
    return pl.DataFrame(out, schema=CALIBRATION_SCHEMA)


TABLE3_SCHEMA = {
    "model": pl.String, "backend": pl.String, "block": pl.String, "group": pl.String,
    "bucket": pl.String, "outcome": pl.String, "n": pl.Int64, "share_pct": pl.Float64,
    "locator_tokens_m": pl.Float64, "locator_share_pct": pl.Float64,
    "editor_tokens_m": pl.Float64, "editor_share_pct": pl.Float64,
}


def table3(df: pl.DataFrame, model: str, settings: dict[str, Any]) -> pl.DataFrame:
    """LET cost breakdown of one model, pooled over all LET scopes and conditions.

    block "phase_split", groups all / resolved / unresolved: mean locator and editor prompt
    tokens (M) and the mean per-task locator / editor shares (they sum to 100%; tasks with
    no phase tokens are left out of the shares).
    block "editor_buckets": evidence-coverage bucket (high / mid / low, thresholds
    coverage_high / coverage_mid) x outcome: share of tasks (sums to 100%) and mean
    editor prompt tokens (M). A task without coverage (no gold patch hunk) is "low".
    """
    agent = settings["table3_agent"]
    let = df.filter((pl.col("model") == model) & (pl.col("agent") == agent))
    backend = _backend(let)
    out = []
    scored = let.filter(pl.col("valid"))  # an outcome needs a valid environment
    groups = {"all": let, "resolved": scored.filter(pl.col("resolved")), "unresolved": scored.filter(~pl.col("resolved"))}
    for name, g in groups.items():
        loc = g["locator_prompt_tokens"].cast(pl.Float64)
        ed = g["editor_prompt_tokens"].cast(pl.Float64)
        tot = loc + ed
        shares = (loc / tot).filter(tot > 0)
        loc_share = float(shares.mean()) * 100.0 if shares.len() else None
        out.append(
            {
                "model": model, "backend": backend, "block": "phase_split", "group": name, "n": g.height,
                "locator_tokens_m": float(loc.mean()) / 1e6 if g.height else None,
                "editor_tokens_m": float(ed.mean()) / 1e6 if g.height else None,
                "locator_share_pct": loc_share,
                "editor_share_pct": None if loc_share is None else 100.0 - loc_share,
            }
        )
    total = scored.height
    bucket_col = pl.col("coverage_bucket").fill_null("low")
    for bucket in ("high", "mid", "low"):
        for outcome, flag in (("resolved", True), ("unresolved", False)):
            g = scored.filter((bucket_col == bucket) & (pl.col("resolved") == flag))
            out.append(
                {
                    "model": model, "backend": backend, "block": "editor_buckets",
                    "group": f"{bucket} evidence, {outcome}", "bucket": bucket, "outcome": outcome, "n": g.height,
                    "share_pct": 100.0 * g.height / total if total else None,
                    "editor_tokens_m": float(g["editor_prompt_tokens"].cast(pl.Float64).mean()) / 1e6 if g.height else None,
                }
            )
    return pl.DataFrame(out, schema=TABLE3_SCHEMA)
