"""The ablation: every configured variant beside its base agent (LET's variants of
agents.variants: working memory, bug reproduction, patch verification; Prometheus's of
agents.prometheus.ablations: each of its components off alone), in results/table_ablation.csv
and figure_ablation.png.

One row per (base, model, scope, condition, variant), the base agent's own row first (its
``variant`` is the base's name): accuracy and mean prompt tokens with the same bootstrap CIs
as Tables 1/2 (``tables.cell_stats``), model calls (traj.json totals.calls: sum and mean per
run), the mean prompt tokens the endpoint served from its prefix cache and the rest
(cached_ / uncached_prompt_tokens_M) and cache-aware spend (totals.cost: cached prompt tokens
at the cached-input price; null when the profile sets no price), each also as a ratio to
the base in the same model/scope/condition, a paired exact McNemar test on the instances both
ran (``stats.mcnemar_exact``; like accuracy, only instances whose environment is valid: n
counts them, n_invalid the others), and what the mechanisms did, read from each run's
traj.json: the memory's hit rate and tokens saved, how often a reproduction stage reproduced
the issue, how often verification sent a patch back, how many candidate patches were written.

Where the paper reports the effect of the component a variant removes (PAPER_EFFECTS:
Prometheus's working memory), the row carries the paper's numbers beside swevis's measured
change in the same direction (the base against the variant).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

import matplotlib.pyplot as plt
import polars as pl

from swevis.analysis.figures import save_figure
from swevis.analysis.load import read_summaries, rows_frame
from swevis.analysis.stats import mcnemar_exact
from swevis.table_csv import write_table_csv
from swevis.analysis.tables import cell_stats, settings_from_config

COLUMNS = [
    "base", "model", "backend", "scope", "condition", "variant", "entry", "n", "n_invalid",
    "accuracy", "accuracy_ci_low", "accuracy_ci_high", "base_accuracy", "delta_accuracy", "accuracy_ratio",
    "mcnemar_variant_only", "mcnemar_base_only", "mcnemar_p",
    "prompt_tokens_M", "prompt_tokens_ci_low", "prompt_tokens_ci_high", "base_prompt_tokens_M",
    "delta_prompt_tokens_pct", "prompt_tokens_ratio",
    "calls_total", "calls_mean", "base_calls_mean", "calls_ratio",
    "cached_prompt_tokens_M", "uncached_prompt_tokens_M",
    "spend_cache_aware_total", "spend_cache_aware_mean", "base_spend_cache_aware_mean", "spend_cache_aware_ratio",
    "memory_lookups", "memory_hit_rate", "memory_hits_exact", "memory_hits_semantic", "memory_hits_window",
    "memory_calls_saved", "memory_tokens_saved_mean", "memory_resent_lines",
    "reproduced_rate", "verification_returns_mean", "verification_passed_rate", "candidates_mean",
    "paper_resolution_change_pct", "paper_cost_change_pct", "measured_resolution_change_pct",
    "measured_calls_change_pct", "measured_prompt_tokens_change_pct", "measured_spend_cache_aware_change_pct",
]
# The paper's reported effect of one component, keyed by (base agent, the config key its
# ablation turns off): the change from the variant without it to the base with it, in % of
# the variant. Prometheus §4.3.1 (Figure 7), 50 SWE-bench Verified instances: 70.00% resolved
# at $200.79 with working memory, 56.00% at $367.73 without it.
PAPER_EFFECTS: dict[tuple[str, str], dict[str, Any]] = {
    ("prometheus", "memory"): {"component": "working memory", "source": "§4.3.1, 50 SWE-bench Verified instances",
                               "resolution_change_pct": 25.0, "cost_change_pct": -45.4},
}
_STRINGS = ("base", "model", "backend", "scope", "condition", "variant", "entry")
_COUNTS = ("n", "n_invalid", "mcnemar_variant_only", "mcnemar_base_only", "memory_lookups", "memory_hits_exact",
           "memory_hits_semantic", "memory_hits_window", "memory_calls_saved", "memory_resent_lines", "calls_total")


def paper_effect(base: str, entry: dict[str, Any]) -> dict[str, Any] | None:
    """The paper's effect of the one component a variant turns off ({key: false}), or None."""
    if len(entry) != 1:
        return None
    [(key, value)] = entry.items()
    return PAPER_EFFECTS.get((base, key)) if value is False else None


def _mechanisms(traj: dict[str, Any]) -> tuple[dict | None, dict | None, list | None, list | None]:
    """(memory summary, reproduction, verification rounds, candidates) of one run, or None
    each where the run had no such mechanism: LET's variants keep them in the ``variant``
    block; Prometheus keeps its memory there and the rest at the top level (its
    reproduction's ``accepted``, the verified path's ``vote.verifications``)."""
    v = traj.get("variant") or {}
    reproduction = v.get("reproduction") if "reproduction" in v else traj.get("reproduction")
    if reproduction is not None and "reproduced" not in reproduction:
        reproduction = {**reproduction, "reproduced": reproduction.get("accepted") is not None}
    vote = traj.get("vote") or {}
    rounds = v["verification"] if "verification" in v else vote.get("verifications")
    return v.get("memory"), reproduction, rounds, traj.get("candidates")


def _memory_stats(memories: list[dict[str, Any]], runs: int) -> dict[str, Any]:
    """The working memory over a cell's runs: lookups, the hit rate, hits by kind (exact and
    semantic: a query or sub-query answered from memory; window: code shown before, sent as a
    reference), the model calls the query hits spared and the tokens all hits saved. A run's
    memory summary written before the kinds were counted contributes None to them."""
    total = {k: sum(int(m.get(k) or 0) for m in memories)
             for k in ("lookups", "hits", "tokens_saved", "resent_lines", "calls_saved")}
    lookups = total["lookups"]
    by_kind = {k: (sum(int(m[f"hits_{k}"]) for m in memories) if all(f"hits_{k}" in m for m in memories) else None)
               for k in ("exact", "semantic", "window")}
    return {
        "memory_lookups": lookups if runs else None,
        "memory_hit_rate": round(total["hits"] / lookups, 4) if lookups else None,
        **{f"memory_hits_{k}": (v if lookups else None) for k, v in by_kind.items()},
        "memory_calls_saved": total["calls_saved"] if lookups and by_kind["exact"] is not None else None,
        "memory_tokens_saved_mean": round(total["tokens_saved"] / runs, 1) if lookups else None,
        "memory_resent_lines": total["resent_lines"] if lookups else None,
    }


def _mechanism_stats(paths: Iterable[str]) -> dict[str, Any]:
    memories: list[dict[str, Any]] = []
    runs = reproduced = repro_runs = returns = verified = verify_runs = candidates = candidate_runs = 0
    for p in paths:
        tp = Path(p) / "traj.json"
        if not tp.exists():
            continue
        memory, reproduction, rounds, found = _mechanisms(json.loads(tp.read_text()))
        runs += 1
        if memory:
            memories.append(memory)
        if reproduction is not None:
            repro_runs += 1
            reproduced += bool(reproduction.get("reproduced"))
        if rounds is not None:
            verify_runs += 1
            returns += sum(1 for r in rounds if r.get("outcome") == "returned_to_editor")
            verified += bool(rounds and rounds[-1].get("passed"))
        if found is not None:
            candidate_runs += 1
            candidates += len(found)
    return {
        **_memory_stats(memories, runs),
        "reproduced_rate": round(reproduced / repro_runs, 4) if repro_runs else None,
        "verification_returns_mean": round(returns / verify_runs, 4) if verify_runs else None,
        "verification_passed_rate": round(verified / verify_runs, 4) if verify_runs else None,
        "candidates_mean": round(candidates / candidate_runs, 4) if candidate_runs else None,
    }


def _cell_numbers(cell: pl.DataFrame, settings: dict[str, Any]) -> dict[str, Any]:
    """Accuracy and prompt tokens (with CIs), model calls, cached prompt tokens and cache-aware
    spend of one cell's runs."""
    acc = cell_stats(cell, "accuracy", settings)
    tok = cell_stats(cell, "prompt_tokens", settings)
    runs = cell.height
    return {
        "acc": acc, "tok": tok, "resolved": _resolved_by_instance(cell),
        "calls_total": acc["calls_total"], "calls_mean": acc["calls_total"] / runs if runs else None,
        "cached_mean": acc["cached_prompt_tokens_total"] / runs if runs else None,
        "uncached_mean": acc["uncached_prompt_tokens_total"] / runs if runs else None,
        "spend_total": acc["spend_cache_aware_total"], "spend_mean": acc["spend_cache_aware_mean"],
    }


def _millions(x: float | None) -> float | None:
    return None if x is None else x / 1e6


def _ratio(x: float | None, y: float | None) -> float | None:
    return round(x / y, 4) if x is not None and y else None


def _change_pct(new: float | None, old: float | None) -> float | None:
    """`new` against `old`, in % of `old`."""
    return round(100.0 * (new / old - 1.0), 2) if new is not None and old else None


def _paper_columns(effect: dict[str, Any] | None, mine: dict[str, Any], ref: dict[str, Any]) -> dict[str, Any]:
    """The paper's effect of the component and swevis's, both as the base (with it) against
    the variant (without it); empty for a row the paper reports nothing for."""
    if effect is None:
        return {}
    return {
        "paper_resolution_change_pct": effect["resolution_change_pct"],
        "paper_cost_change_pct": effect["cost_change_pct"],
        "measured_resolution_change_pct": _change_pct(ref["acc"]["mean"], mine["acc"]["mean"]),
        "measured_calls_change_pct": _change_pct(ref["calls_mean"], mine["calls_mean"]),
        "measured_prompt_tokens_change_pct": _change_pct(ref["tok"]["mean"], mine["tok"]["mean"]),
        "measured_spend_cache_aware_change_pct": _change_pct(ref["spend_mean"], mine["spend_mean"]),
    }


def _row(variant: str, is_base: bool, mine: dict[str, Any], ref: dict[str, Any]) -> dict[str, Any]:
    """The numbers of one variant's cell against its base's (`ref`)."""
    acc, tok, b_acc, b_tok = mine["acc"], mine["tok"], ref["acc"], ref["tok"]
    shared = sorted(set(mine["resolved"]) & set(ref["resolved"]))
    only_v = sum(1 for i in shared if mine["resolved"][i] >= 0.5 > ref["resolved"][i])
    only_b = sum(1 for i in shared if ref["resolved"][i] >= 0.5 > mine["resolved"][i])
    return {
        "variant": variant, "n": acc["n"], "n_invalid": acc["n_invalid"],
        "accuracy": _r(acc["mean"], 1), "accuracy_ci_low": _r(acc["ci_low"], 1), "accuracy_ci_high": _r(acc["ci_high"], 1),
        "base_accuracy": _r(b_acc["mean"], 1),
        "delta_accuracy": _r(acc["mean"] - b_acc["mean"], 1) if acc["mean"] is not None and b_acc["mean"] is not None else None,
        "accuracy_ratio": _ratio(acc["mean"], b_acc["mean"]),
        "mcnemar_variant_only": None if is_base else only_v,
        "mcnemar_base_only": None if is_base else only_b,
        "mcnemar_p": _r(mcnemar_exact(only_v, only_b), 4) if not is_base and shared else None,
        "prompt_tokens_M": _r(tok["mean"], 6), "prompt_tokens_ci_low": _r(tok["ci_low"], 6),
        "prompt_tokens_ci_high": _r(tok["ci_high"], 6), "base_prompt_tokens_M": _r(b_tok["mean"], 6),
        "delta_prompt_tokens_pct": _change_pct(tok["mean"], b_tok["mean"]),
        "prompt_tokens_ratio": _ratio(tok["mean"], b_tok["mean"]),
        "calls_total": mine["calls_total"], "calls_mean": _r(mine["calls_mean"], 4),
        "base_calls_mean": _r(ref["calls_mean"], 4), "calls_ratio": _ratio(mine["calls_mean"], ref["calls_mean"]),
        "cached_prompt_tokens_M": _r(_millions(mine["cached_mean"]), 6),
        "uncached_prompt_tokens_M": _r(_millions(mine["uncached_mean"]), 6),
        "spend_cache_aware_total": mine["spend_total"], "spend_cache_aware_mean": mine["spend_mean"],
        "base_spend_cache_aware_mean": ref["spend_mean"],
        "spend_cache_aware_ratio": _ratio(mine["spend_mean"], ref["spend_mean"]),
    }


def ablation_table(
    summaries: list[dict[str, Any]], variants: dict[str, dict[str, Any]], config: dict[str, Any]
) -> pl.DataFrame:
    """Each variant ({name: {"base": agent, "entry": its config entry}}) beside its base agent
    in every ablation cell a variant ran in, bases in the order `variants` names them."""
    settings = settings_from_config(config)
    rows = [r for s in summaries for r in s["rows"]]
    df = rows_frame(rows)
    paths: dict[tuple[str, str, str, str], list[str]] = {}
    for r in rows:
        paths.setdefault((r["model"], r["agent"], r["scope"], r["condition"]), []).append(r["path"])
    # conditions as agents.ablation lists them (text first, as in Tables 1/2): the cells it runs
    ordered = sorted(config["agents"]["ablation"]["conditions"], key=lambda c: c != "text")
    order = {c: i for i, c in enumerate(ordered)}
    bases = list(dict.fromkeys(v["base"] for v in variants.values()))
    out = []
    for base in bases:
        mine = [name for name, v in variants.items() if v["base"] == base]
        cells = sorted({(r["model"], r["scope"], r["condition"]) for r in rows if r["agent"] in mine},
                       key=lambda c: (c[0], c[1], order.get(c[2], len(order)), c[2]))
        for model, scope, condition in cells:
            def cell_of(agent: str) -> pl.DataFrame:
                return df.filter((pl.col("model") == model) & (pl.col("agent") == agent)
                                 & (pl.col("scope") == scope) & (pl.col("condition") == condition))

            ref = _cell_numbers(cell_of(base), settings)
            for variant in [base, *mine]:
                cell = cell_of(variant)
                if cell.height == 0:
                    continue
                numbers = ref if variant == base else _cell_numbers(cell, settings)
                entry = variants[variant]["entry"] if variant != base else {}
                backend = "+".join(sorted({b for b in cell["backend"].to_list() if b})) or "unknown"
                out.append({
                    "base": base, "model": model, "backend": backend, "scope": scope, "condition": condition,
                    "entry": json.dumps(entry, sort_keys=True) if variant != base else None,
                    **_row(variant, variant == base, numbers, ref),
                    **_mechanism_stats(paths[(model, variant, scope, condition)]),
                    **_paper_columns(paper_effect(base, entry) if variant != base else None, numbers, ref),
                })
    schema = {c: _dtype(c) for c in COLUMNS}
    return pl.DataFrame(out, schema=schema, orient="row") if out else pl.DataFrame(schema=schema)


def _resolved_by_instance(cell: pl.DataFrame) -> dict[str, float]:
    """Resolve rate per instance over its repeats, valid environments only (an invalid one
    says nothing about the agent, so it must not enter a McNemar pair)."""
    valid = cell.filter(pl.col("valid"))
    return dict(valid.group_by("instance_id").agg(pl.col("resolved").mean()).iter_rows())


def _dtype(col: str):
    if col in _STRINGS:
        return pl.String
    if col in _COUNTS:
        return pl.Int64
    return pl.Float64


def _r(x: float | None, nd: int) -> float | None:
    return None if x is None else round(float(x), nd)


def paper_note(rows: pl.DataFrame) -> str:
    """One line per row with a paper reference: the paper's effect of the component beside
    swevis's measured one, and the backend the measurement comes from."""
    lines = []
    for r in rows.filter(pl.col("paper_resolution_change_pct").is_not_null()).iter_rows(named=True):
        def pct(x: float | None) -> str:
            return "n/a" if x is None else f"{x:+.1f}%"

        effect = paper_effect(r["base"], json.loads(r["entry"])) or {}
        source = "playback backend: demonstrations, not a model" if r["backend"] == "playback" else f"{r['backend']} backend"
        lines.append(
            f"{effect.get('component', 'the component')} ({r['base']} against {r['variant']}, {r['condition']}): "
            f"paper {pct(r['paper_cost_change_pct'])} cost, {pct(r['paper_resolution_change_pct'])} resolution "
            f"({effect.get('source', '')}); swevis ({source}) "
            f"{pct(r['measured_calls_change_pct'])} calls, {pct(r['measured_prompt_tokens_change_pct'])} prompt tokens, "
            f"{pct(r['measured_spend_cache_aware_change_pct'])} spend (cache-aware), {pct(r['measured_resolution_change_pct'])} resolution"
        )
    return "\n".join(lines)


def ablation_figure(table: pl.DataFrame, out_path: str | Path, dpi: int = 150) -> None:
    """Prompt tokens (bars, with CIs) and accuracy (markers) per variant, one panel per
    base agent x model x scope, conditions side by side; under a panel whose rows carry a
    paper reference, the paper's effect beside swevis's (paper_note)."""
    panels = list(dict.fromkeys(zip(table["base"].to_list(), table["model"].to_list(), table["scope"].to_list())))
    panels = panels or [("", "", "")]
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 4.0 * len(panels)), squeeze=False)
    for ax, (base, model, scope) in zip(axes[:, 0], panels):
        sub = table.filter((pl.col("base") == base) & (pl.col("model") == model) & (pl.col("scope") == scope)) if table.height else table
        _panel(ax, sub)
        backend = ",".join(sorted(set(sub["backend"].to_list()))) if sub.height else ""
        ax.set_title(f"{base} and its variants: {model} {scope} ({backend})")
        note = paper_note(sub) if sub.height else ""
        if note:
            ax.text(0.0, -0.32, note, transform=ax.transAxes, fontsize=7, va="top", wrap=True)
    fig.tight_layout()
    save_figure(fig, out_path, dpi)


def _panel(ax: Any, sub: pl.DataFrame) -> None:
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
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=max(len(variants), 1), fontsize=8, frameon=False)
    ax.grid(axis="y", alpha=0.3)


def build_ablation(summary_paths: list[str], variants: dict[str, dict[str, Any]], config: dict[str, Any],
                   table_path: str, figure_path: str | None = None) -> pl.DataFrame:
    table = ablation_table(read_summaries(summary_paths), variants, config)
    write_table_csv(table, table_path)
    if figure_path:
        ablation_figure(table, figure_path, int(settings_from_config(config)["figure_dpi"]))
    return table
