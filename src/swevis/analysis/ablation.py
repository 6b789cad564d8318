"""The ablation of LET's variants (working memory, bug reproduction, patch verification):
results/table_ablation.csv and figure_ablation.png.

One row per (model, scope, condition, variant): accuracy and mean prompt tokens with the
same bootstrap CIs as Tables 1/2 (``tables.cell_stats``), the difference to plain LET in
the same model/scope/condition, a paired exact McNemar test on the instances both ran
(``stats.mcnemar_exact``; like accuracy, only instances whose environment is valid: n counts
them, n_invalid the others), and what the mechanisms did: the memory's hit rate and tokens
saved, how often the reproduction stage reproduced the issue, and how often verification
sent a patch back. Plain LET's own rows are included (variant ``let``) as the reference.
Memory and stage statistics are read from each run's traj.json (the ``variant`` block).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

import matplotlib.pyplot as plt
import polars as pl

from swevis.analysis.figures import save_figure
from swevis.agents.registry import base_name
from swevis.analysis.load import read_summaries, rows_frame
from swevis.analysis.stats import mcnemar_exact
from swevis.table_csv import write_table_csv
from swevis.analysis.tables import cell_stats, settings_from_config

COLUMNS = [
    "model", "backend", "scope", "condition", "variant", "memory", "reproduction", "verification", "n",
    "n_invalid", "accuracy", "accuracy_ci_low", "accuracy_ci_high", "let_accuracy", "delta_accuracy",
    "mcnemar_variant_only", "mcnemar_let_only", "mcnemar_p",
    "prompt_tokens_M", "prompt_tokens_ci_low", "prompt_tokens_ci_high", "let_prompt_tokens_M", "delta_prompt_tokens_pct",
    "memory_lookups", "memory_hit_rate", "memory_tokens_saved_mean", "memory_resent_lines",
    "reproduced_rate", "verification_returns_mean", "verification_passed_rate",
]


def _variant_stats(paths: Iterable[str]) -> dict[str, Any]:
    lookups = hits = saved = resent = 0
    runs = reproduced = repro_runs = returns = verified = verify_runs = 0
    for p in paths:
        tp = Path(p) / "traj.json"
        if not tp.exists():
            continue
        v = (json.loads(tp.read_text()).get("variant")) or {}
        runs += 1
        m = v.get("memory")
        if m:
            lookups += int(m.get("lookups") or 0)
            hits += int(m.get("hits") or 0)
            saved += int(m.get("tokens_saved") or 0)
            resent += int(m.get("resent_lines") or 0)
        if "reproduction" in v:
            repro_runs += 1
            reproduced += bool(v["reproduction"].get("reproduced"))
        if "verification" in v:
            verify_runs += 1
            rounds = v["verification"] or []
            returns += sum(1 for r in rounds if r.get("outcome") == "returned_to_editor")
            verified += bool(rounds and rounds[-1].get("passed"))
    return {
        "memory_lookups": lookups if runs else None,
        "memory_hit_rate": round(hits / lookups, 4) if lookups else None,
        "memory_tokens_saved_mean": round(saved / runs, 1) if lookups else None,
        "memory_resent_lines": resent if lookups else None,
        "reproduced_rate": round(reproduced / repro_runs, 4) if repro_runs else None,
        "verification_returns_mean": round(returns / verify_runs, 4) if verify_runs else None,
        "verification_passed_rate": round(verified / verify_runs, 4) if verify_runs else None,
    }


def ablation_table(
    summaries: list[dict[str, Any]], variants: dict[str, dict[str, Any]], config: dict[str, Any],
    base_agent: str | None = None,
) -> pl.DataFrame:
    """Each variant beside its base agent (the agent it is a variant of: LET) in every
    ablation cell; `base_agent` None: the first variant's base."""
    settings = settings_from_config(config)
    if base_agent is None:
        base_agent = base_name(next(iter(variants))) if variants else ""
    rows = [r for s in summaries for r in s["rows"]]
    df = rows_frame(rows)
    paths = {(r["model"], r["agent"], r["scope"], r["condition"]): [] for r in rows}
    for r in rows:
        paths[(r["model"], r["agent"], r["scope"], r["condition"])].append(r["path"])
    out = []
    cells = sorted({(r["model"], r["scope"], r["condition"]) for r in rows if r["agent"] in variants})
    # conditions as agents.ablation lists them (text first, as in Tables 1/2): the cells it runs
    ordered = sorted(config["agents"]["ablation"]["conditions"], key=lambda c: c != "text")
    order = {c: i for i, c in enumerate(ordered)}
    cells.sort(key=lambda c: (c[0], c[1], order.get(c[2], len(order)), c[2]))
    for model, scope, condition in cells:
        base = df.filter((pl.col("model") == model) & (pl.col("agent") == base_agent) & (pl.col("scope") == scope) & (pl.col("condition") == condition))
        b_acc = cell_stats(base, "accuracy", settings)
        b_tok = cell_stats(base, "prompt_tokens", settings)
        base_resolved = _resolved_by_instance(base)
        for variant in [base_agent, *variants]:
            cell = df.filter((pl.col("model") == model) & (pl.col("agent") == variant) & (pl.col("scope") == scope) & (pl.col("condition") == condition))
            if cell.height == 0:
                continue
            acc = cell_stats(cell, "accuracy", settings)
            tok = cell_stats(cell, "prompt_tokens", settings)
            mine = _resolved_by_instance(cell)
            shared = sorted(set(mine) & set(base_resolved))
            only_v = sum(1 for i in shared if mine[i] >= 0.5 > base_resolved[i])
            only_b = sum(1 for i in shared if base_resolved[i] >= 0.5 > mine[i])
            flags = variants.get(variant, {})
            backend = "+".join(sorted({b for b in cell["backend"].to_list() if b})) or "unknown"
            out.append({
                "model": model, "backend": backend, "scope": scope, "condition": condition, "variant": variant,
                "memory": bool(flags.get("memory")), "reproduction": bool(flags.get("reproduction")),
                "verification": bool(flags.get("verification")), "n": acc["n"], "n_invalid": acc["n_invalid"],
                "accuracy": _r(acc["mean"], 1), "accuracy_ci_low": _r(acc["ci_low"], 1), "accuracy_ci_high": _r(acc["ci_high"], 1),
                "let_accuracy": _r(b_acc["mean"], 1),
                "delta_accuracy": _r(acc["mean"] - b_acc["mean"], 1) if acc["mean"] is not None and b_acc["mean"] is not None else None,
                "mcnemar_variant_only": only_v if variant != base_agent else None,
                "mcnemar_let_only": only_b if variant != base_agent else None,
                "mcnemar_p": _r(mcnemar_exact(only_v, only_b), 4) if variant != base_agent and shared else None,
                "prompt_tokens_M": _r(tok["mean"], 6), "prompt_tokens_ci_low": _r(tok["ci_low"], 6),
                "prompt_tokens_ci_high": _r(tok["ci_high"], 6), "let_prompt_tokens_M": _r(b_tok["mean"], 6),
                "delta_prompt_tokens_pct": _r(100.0 * (tok["mean"] / b_tok["mean"] - 1.0), 2) if tok["mean"] and b_tok["mean"] else None,
                **_variant_stats(paths[(model, variant, scope, condition)]),
            })
    return pl.DataFrame(out, schema={c: _dtype(c) for c in COLUMNS}, orient="row") if out else pl.DataFrame(schema={c: _dtype(c) for c in COLUMNS})


def _resolved_by_instance(cell: pl.DataFrame) -> dict[str, float]:
    """Resolve rate per instance over its repeats, valid environments only (an invalid one
    says nothing about the agent, so it must not enter a McNemar pair)."""
    valid = cell.filter(pl.col("valid"))
    return dict(valid.group_by("instance_id").agg(pl.col("resolved").mean()).iter_rows())


def _dtype(col: str):
    if col in ("model", "backend", "scope", "condition", "variant"):
        return pl.String
    if col in ("memory", "reproduction", "verification"):
        return pl.Boolean
    if col in ("n", "n_invalid", "mcnemar_variant_only", "mcnemar_let_only", "memory_lookups", "memory_resent_lines"):
        return pl.Int64
    return pl.Float64


def _r(x: float | None, nd: int) -> float | None:
    return None if x is None else round(float(x), nd)


def ablation_figure(table: pl.DataFrame, out_path: str | Path, dpi: int = 150) -> None:
    """Prompt tokens (bars, with CIs) and accuracy (markers) per variant, one panel per
    model x scope, conditions side by side."""
    panels = sorted({(m, s) for m, s in zip(table["model"].to_list(), table["scope"].to_list())}) or [("", "")]
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 3.6 * len(panels)), squeeze=False)
    for ax, (model, scope) in zip(axes[:, 0], panels):
        sub = table.filter((pl.col("model") == model) & (pl.col("scope") == scope)) if table.height else table
        conds = list(dict.fromkeys(sub["condition"].to_list())) if sub.height else []
        variants = list(dict.fromkeys(sub["variant"].to_list())) if sub.height else []
        width = 0.8 / max(len(variants), 1)
        ax2 = ax.twinx()
        for j, v in enumerate(variants):
            xs, ys, lo, hi, acc = [], [], [], [], []
            for i, c in enumerate(conds):
                r = sub.filter((pl.col("variant") == v) & (pl.col("condition") == c))
                if r.height == 0:
                    continue
                xs.append(i + (j - (len(variants) - 1) / 2) * width)
                y = r["prompt_tokens_M"][0] * 1000
                ys.append(y)
                lo.append(y - (r["prompt_tokens_ci_low"][0] or 0) * 1000)
                hi.append((r["prompt_tokens_ci_high"][0] or 0) * 1000 - y)
                acc.append(r["accuracy"][0])
            bars = ax.bar(xs, ys, width=width * 0.95, label=v, yerr=[lo, hi], capsize=2)
            ax2.plot(xs, acc, "o", color=bars.patches[0].get_facecolor() if bars.patches else None, markeredgecolor="black")
        ax.set_xticks(range(len(conds)), conds)
        ax.set_ylabel("mean prompt tokens (thousands)")
        ax2.set_ylabel("accuracy (%), markers")
        ax2.set_ylim(-5, 105)
        backend = ",".join(sorted(set(sub["backend"].to_list()))) if sub.height else ""
        ax.set_title(f"LET variants: {model} {scope} ({backend})")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=max(len(variants), 1), fontsize=8, frameon=False)
        ax.grid(axis="y", alpha=0.3)
    save_figure(fig, out_path, dpi)


def build_ablation(summary_paths: list[str], variants: dict[str, dict[str, Any]], config: dict[str, Any],
                   table_path: str, figure_path: str | None = None) -> pl.DataFrame:
    table = ablation_table(read_summaries(summary_paths), variants, config)
    write_table_csv(table, table_path)
    if figure_path:
        ablation_figure(table, figure_path, int(settings_from_config(config)["figure_dpi"]))
    return table
