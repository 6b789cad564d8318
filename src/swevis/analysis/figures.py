"""Figures 2, 4, 5 (action classes over the normalized trajectory) and 6 (evidence coverage
against resolution), with matplotlib's Agg backend. Each figure has one panel per model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from swevis.agents.registry import base_name  # noqa: E402
from swevis.analysis.load import ACTION_CLASSES  # noqa: E402

COLORS = {"read": "#4C72B0", "search": "#DD8452", "edit": "#55A868", "test": "#C44E52", "other": "#8C8C8C"}



def save_figure(fig, out: str | Path, dpi: int) -> Path:
    """Lay out, write (creating the folder) and close a figure. bbox_inches="tight" grows the
    image to every label and legend, also those placed outside the axes, so none is clipped."""
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=dpi, bbox_inches="tight", pad_inches=0.1)
    plt.close(fig)
    return out


def action_bins(action_lists: list[list[str]], bins: int = 10) -> tuple[np.ndarray, dict[str, float], int]:
    """Shares of each action class per normalized-position bin.

    Step i of a trajectory with n classified steps sits at (i + 0.5) / n; returns
    (matrix [bins x classes] of shares per bin (rows sum to 1 where a bin has steps),
    overall share per class, number of steps)."""
    counts = np.zeros((bins, len(ACTION_CLASSES)))
    idx = {c: k for k, c in enumerate(ACTION_CLASSES)}
    for actions in action_lists:
        n = len(actions)
        for i, a in enumerate(actions):
            b = min(int((i + 0.5) / n * bins), bins - 1)
            counts[b, idx.get(a, idx["other"])] += 1
    totals = counts.sum(axis=1, keepdims=True)
    shares = np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)
    n_steps = int(counts.sum())
    overall = {c: float(counts[:, k].sum() / n_steps) if n_steps else 0.0 for c, k in idx.items()}
    return shares, overall, n_steps


def _panels(n: int, width: float = 5.2, height: float = 3.6):
    fig, axes = plt.subplots(1, max(n, 1), figsize=(width * max(n, 1), height), squeeze=False)
    return fig, list(axes[0])


def action_figure(rows: list[dict[str, Any]], agent: str, title: str, models: list[str], out: str | Path, *, bins: int = 10, dpi: int = 150) -> Path:
    fig, axes = _panels(len(models))
    x = (np.arange(bins) + 0.5) / bins
    for ax, model in zip(axes, models):
        lists = [r["actions"] for r in rows if r["model"] == model and base_name(r["agent"]) == agent and r.get("actions")]
        shares, overall, n_steps = action_bins(lists, bins)
        bottom = np.zeros(bins)
        for k, c in enumerate(ACTION_CLASSES):
            ax.bar(x, shares[:, k], width=1.0 / bins * 0.92, bottom=bottom, color=COLORS[c], label=f"{c} {100 * overall[c]:.1f}%")
            bottom += shares[:, k]
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel("normalized trajectory position")
        ax.set_ylabel("share of actions")
        ax.set_title(f"{title} on {model} ({len(lists)} runs, {n_steps} steps)", fontsize=10)
        if not lists:
            ax.text(0.5, 0.5, "no trajectories", ha="center", va="center", transform=ax.transAxes)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, fontsize=8, frameon=False)
    return save_figure(fig, out, dpi)


def coverage_bins(rows: list[dict[str, Any]], edges=(0.0, 0.2, 0.4, 0.6, 0.8, 1.0)) -> list[dict[str, Any]]:
    """Resolve rate per coverage bin ([a, b) and the last bin closed, so coverage 1.0 counts)."""
    out = []
    for k in range(len(edges) - 1):
        a, b = edges[k], edges[k + 1]
        last = k == len(edges) - 2
        sel = [r for r in rows if r.get("evidence_coverage") is not None and (a <= r["evidence_coverage"] < b or (last and r["evidence_coverage"] == b))]
        out.append({"low": a, "high": b, "n": len(sel), "resolve_rate": (sum(r["resolved"] for r in sel) / len(sel)) if sel else None})
    return out


def coverage_figure(rows: list[dict[str, Any]], models: list[str], out: str | Path, *, agent: str, dpi: int = 150, seed: int = 0) -> Path:
    fig, axes = _panels(len(models))
    rng = np.random.default_rng(seed)
    for ax, model in zip(axes, models):
        sel = [r for r in rows if r["model"] == model and base_name(r["agent"]) == agent and r.get("evidence_coverage") is not None
               and r.get("valid", True)]  # a resolve rate counts valid environments only, as the tables do
        if sel:
            cov = np.array([r["evidence_coverage"] for r in sel])
            res = np.array([1.0 if r["resolved"] else 0.0 for r in sel])
            ax.scatter(cov + rng.uniform(-0.012, 0.012, cov.size), res + rng.uniform(-0.06, 0.06, res.size), s=12, alpha=0.45,
                       c=np.where(res > 0, "#55A868", "#C44E52"), edgecolors="none", label="runs")
            bins = coverage_bins(sel)
            xs = [(b["low"] + b["high"]) / 2 for b in bins if b["n"]]
            ys = [b["resolve_rate"] for b in bins if b["n"]]
            ax.plot(xs, ys, "-o", color="black", label="resolve rate per bin")
            for b in bins:
                if b["n"]:
                    ax.annotate(f"n={b['n']}", ((b["low"] + b["high"]) / 2, b["resolve_rate"]), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=7)
        else:
            ax.text(0.5, 0.5, "no LET runs with coverage", ha="center", va="center", transform=ax.transAxes)
        ax.set_xlim(-0.05, 1.05)
        ax.set_ylim(-0.15, 1.15)
        ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
        ax.set_xlabel("locator evidence coverage of the gold patch")
        ax.set_ylabel("resolved (points) / resolve rate (line)")
        ax.set_title(f"LET on {model} ({len(sel)} runs)", fontsize=10)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, fontsize=8, frameon=False)
    return save_figure(fig, out, dpi)
