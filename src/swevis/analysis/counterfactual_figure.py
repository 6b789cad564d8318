"""The counterfactual figure: the per-trajectory reduction per condition (left) and the gap
to the ceiling decomposed per condition other than text (right, stacked; swevis.analysis.counterfactual)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from swevis.analysis.counterfactual import TERMS  # noqa: E402
from swevis.analysis.figures import save_figure  # noqa: E402


def counterfactual_figure(costs: pl.DataFrame, decomposition: pl.DataFrame, out: str | Path, dpi: int) -> None:
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.2))
    conditions = list(dict.fromkeys(costs["condition"].to_list()))
    backbones = list(dict.fromkeys(costs["backbone"].to_list()))
    width = 0.8 / len(backbones)
    for b, backbone in enumerate(backbones):
        for c, condition in enumerate(conditions):
            values = costs.filter((pl.col("condition") == condition) & (pl.col("backbone") == backbone))["reduction"]
            x = c + (b - (len(backbones) - 1) / 2) * width
            left.scatter([x] * len(values), values.to_list(), s=14, color=f"C{b}", alpha=0.7,
                         label=backbone if c == 0 else None)
            left.hlines(values.median(), x - width / 2, x + width / 2, color=f"C{b}")
    left.set_xticks(range(len(conditions)), conditions)
    left.axhline(1.0, color="grey", lw=0.6, ls=":")
    left.set_ylabel("reduction vs text (per trajectory; bar = median)")
    left.legend(title="backbone", fontsize=8)
    labels = [f"{r['condition']} {r['backbone']}" for r in decomposition.iter_rows(named=True)]
    pos = [0.0] * decomposition.height
    neg = [0.0] * decomposition.height
    for i, term in enumerate(TERMS):
        values = decomposition[term].to_list()
        bottoms = [p if v >= 0 else n for v, p, n in zip(values, pos, neg)]
        right.bar(range(len(values)), values, bottom=bottoms, color=f"C{i}", label=term.replace("_", " "))
        pos = [p + max(v, 0) for v, p in zip(values, pos)]
        neg = [n + min(v, 0) for v, n in zip(values, neg)]
    right.scatter(range(decomposition.height), decomposition["gap_tokens"].to_list(), marker="_", s=200, color="black",
                  zorder=3, label="gap (sum)")
    right.set_xticks(range(len(labels)), labels, fontsize=8, rotation=45, ha="right")  # mem+rN rows: many bars
    right.axhline(0, color="grey", lw=0.6)
    right.set_ylabel("prompt tokens above the ceiling")
    right.legend(fontsize=7, ncol=2, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    save_figure(fig, out, dpi)
