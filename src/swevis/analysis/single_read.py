"""The single-read cost study (Table 4, Figure 3) and the OCR readability frontier."""

from __future__ import annotations

import logging
import random
import statistics
import time

from swevis import __version__
from swevis.conditions import Condition
from swevis.render.core import RenderResult, render_window
from swevis.render.ocr import ocr_page_accuracy, protocol
from swevis.render.settings import RenderSettings
from swevis.tokens import tokenizer_info

log = logging.getLogger(__name__)


# ---- costs --------------------------------------------------------------------------------


def run_costs(
    windows: list[dict],
    ratios: list[float],
    backbones: dict[str, dict],
    settings: RenderSettings,
    ocr: dict,
    seed: int,
    rasterize_all: bool,
) -> tuple[list[dict], dict]:
    """One row per window x ratio x backbone; OCR accuracy of one seeded whole page of each of
    `ocr["pages_per_cell"]` seeded windows per cell (the protocol of swevis.render.ocr).

    ocr: a validated single_read.ocr section; a partial one is filled through
    swevis.config.filled_section.
    Returns (rows, stats) with stats = wall time, windows/s, search and raster time.
    """
    ocr_on = bool(ocr["enabled"])
    per_cell = int(ocr["pages_per_cell"])
    by_size: dict[int, list[int]] = {}
    for i, w in enumerate(windows):
        by_size.setdefault(w["n_lines"], []).append(i)
    rows: list[dict] = []
    t_search = t_raster = t_ocr = 0.0
    t0 = time.perf_counter()
    for bname, b in backbones.items():
        tok, fam = b["tokenizer"], b["image_family"]
        counted_by = tokenizer_info(tok)["counted_by"]
        for r in ratios:
            for n, idxs in sorted(by_size.items()):
                rng = random.Random(f"{seed}:ocr:{bname}:{r}:{n}")
                ocr_pick = set(rng.sample(idxs, min(per_cell, len(idxs)))) if ocr_on else set()
                for i in idxs:
                    w = windows[i]
                    need_pages = rasterize_all or i in ocr_pick
                    res = render_window(
                        w["path"], w["start_line"], w["text"], r, tok, fam, settings, rasterize=need_pages
                    )
                    t_search += res.timings["search_s"]
                    t_raster += res.timings["raster_s"]
                    acc = None
                    if i in ocr_pick:
                        t1 = time.perf_counter()
                        acc = ocr_page_accuracy(res, w["text"], rng.randrange(len(res.pages)))
                        t_ocr += time.perf_counter() - t1
                    rows.append(_cost_row(w, n, float(r), bname, b, counted_by, res, acc))
    wall = time.perf_counter() - t0
    renders = len(rows)
    stats = {
        "renders": renders,
        "windows": len(windows),
        "wall_s": wall,
        "renders_per_s": renders / wall if wall else None,
        "windows_per_s": len(windows) / wall if wall else None,
        "search_s": t_search,
        "raster_s": t_raster,
        "ocr_s": t_ocr,
        "ocr_protocol": protocol() if ocr_on else None,
    }
    return rows, stats


def _cost_row(
    w: dict, n: int, ratio: float, bname: str, backbone: dict, counted_by: str, res: RenderResult, acc: float | None
) -> dict:
    """One costs.parquet row: the window, the backbone, the layout chosen and its timings."""
    L = res.layout
    return {
        "window_id": w["window_id"],
        "source": w.get("source", ""),
        "path": w["path"],
        "start_line": w["start_line"],
        "lines": n,
        "ratio": ratio,
        "backbone": bname,
        "tokenizer": backbone["tokenizer"],
        "counted_by": counted_by,
        "image_family": backbone["image_family"],
        "text_tokens": L["text_tokens"],
        "budget": L["budget"],
        "visual_tokens": L["image_tokens"],
        "pages": L["pages"],
        "font_px": L["font_px"],
        "font_px_seen": L["font_px_seen"],
        "resolution": L["resolution"],
        "page_sizes": ";".join(f"{a}x{b}" for a, b in L["page_sizes"]),
        "columns": L["columns"],
        "wrap": L["wrap"],
        "fill": L["fill"],
        "realized_ratio": L["realized_ratio"],
        "guard_px": L["guard_px"],
        "guard_bound": L["guard_bound"],
        "floor_bound": L["floor_bound"],
        "search_mode": L["search_mode"],
        "message_overhead_c0": L["message_overhead_c0"],
        "ocr_accuracy": acc,
        "search_s": res.timings["search_s"],
        "raster_s": res.timings["raster_s"],
        "swevis_version": __version__,
    }


# ---- Table 4 ------------------------------------------------------------------------------


def _ratio_label(r: float) -> str:
    return str(Condition(r))


def table4(rows: list[dict], backbone: str, ratios: list[float]) -> tuple[list[dict], list[dict]]:
    """The paper's shape: Lines | Raw text | r1..r7, cells 'mean tokens (mean pages)'.

    A cell where the readability guard kept some windows from the budget is marked
    '[guard k/N]'; where the family's smallest image is above the budget, '[floor k/N]'.
    Returns (table rows, OCR rows: median/mean OCR accuracy of the sampled pages per cell).
    """
    sel = [r for r in rows if r["backbone"] == backbone]
    sizes = sorted({r["lines"] for r in sel})
    table, ocr_rows = [], []
    for n in sizes:
        cell_rows = [r for r in sel if r["lines"] == n]
        text = [r["text_tokens"] for r in cell_rows if r["ratio"] == ratios[0]]
        out = {"Lines": n, "Raw text": f"{statistics.fmean(text):.1f}"}
        o = {"Lines": n}
        for ratio in ratios:
            c = [r for r in cell_rows if r["ratio"] == float(ratio)]
            if not c:
                continue
            tok = statistics.fmean(r["visual_tokens"] for r in c)
            pages = statistics.fmean(r["pages"] for r in c)
            cell = f"{tok:.1f} ({pages:.2f})"
            g = sum(1 for r in c if r["guard_bound"])
            fl = sum(1 for r in c if r["floor_bound"])
            if g:
                cell += f" [guard {g}/{len(c)}]"
            if fl:
                cell += f" [floor {fl}/{len(c)}]"
            out[_ratio_label(ratio)] = cell
            accs = [r["ocr_accuracy"] for r in c if r["ocr_accuracy"] is not None]
            o[_ratio_label(ratio)] = (
                f"{statistics.median(accs):.3f} (n={len(accs)})" if accs else "n/a"
            )
        table.append(out)
        ocr_rows.append(o)
    return table, ocr_rows


def figure3(rows: list[dict], backbones: list[str], ratios: list[float], out_path: str) -> None:
    """Cost surface: mean prompt tokens against window lines, one line per r, plus raw text."""
    # Lazy: matplotlib.pyplot takes ~0.6 s to import (python -X importtime), and only the
    # figure needs it, not the render CLI's OCR check that imports this module.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(backbones), figsize=(5.2 * len(backbones), 4.2), squeeze=False)
    for ax, b in zip(axes[0], backbones):
        sel = [r for r in rows if r["backbone"] == b]
        sizes = sorted({r["lines"] for r in sel})
        text = [statistics.fmean(r["text_tokens"] for r in sel if r["lines"] == n and r["ratio"] == ratios[0]) for n in sizes]
        ax.plot(sizes, text, "k--", marker="s", label="raw text")
        for ratio in ratios:
            ys = [statistics.fmean(r["visual_tokens"] for r in sel if r["lines"] == n and r["ratio"] == ratio) for n in sizes]
            ax.plot(sizes, ys, marker="o", label=_ratio_label(ratio))
        ax.set_xlabel("window lines")
        ax.set_ylabel("prompt tokens (mean)")
        fam = sel[0]["image_family"] if sel else ""
        ax.set_title(f"{b} ({fam} image tokens)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_path, dpi=120, bbox_inches="tight", pad_inches=0.1)  # no label clipped
    plt.close(fig)


# ---- readability frontier -----------------------------------------------------------------


def frontier(
    windows: list[dict],
    fonts: list[float],
    backbones: dict[str, dict],
    settings: RenderSettings,
    ocr: dict,
    seed: int,
) -> list[dict]:
    """For each backbone and font size: the realized ratio the windows reach at that size (the
    cheapest layout with that font, the guard lifted) and the OCR accuracy at that size.

    OCR: one seeded page, read whole as the model is sent it, of each of
    `ocr["frontier_pages"]` seeded windows (the protocol of swevis.render.ocr).
    """
    n_ocr = int(ocr["frontier_pages"])
    out = []
    for bname, b in backbones.items():
        tok, fam = b["tokenizer"], b["image_family"]
        for f in fonts:
            rng = random.Random(f"{seed}:frontier:{bname}:{f}")
            pick = set(rng.sample(range(len(windows)), min(n_ocr, len(windows))))
            ratios, accs, pages, tokens, texts = [], [], [], [], []
            for i, w in enumerate(windows):
                res = render_window(
                    w["path"], w["start_line"], w["text"], 1e6, tok, fam, settings,
                    fonts=[f], guard=0.0, rasterize=i in pick,
                )
                L = res.layout
                ratios.append(L["realized_ratio"])
                pages.append(L["pages"])
                tokens.append(L["image_tokens"])
                texts.append(L["text_tokens"])
                if i in pick:
                    page = rng.randrange(len(res.pages))
                    accs.append(ocr_page_accuracy(res, w["text"], page))
            out.append(
                {
                    "backbone": bname,
                    "image_family": fam,
                    "tokenizer": tok,
                    "counted_by": tokenizer_info(tok)["counted_by"],
                    "lines": windows[0]["n_lines"] if windows else None,
                    "font_px": f,
                    "windows": len(windows),
                    "sources": ",".join(sorted({w["source"] for w in windows})),
                    "realized_ratio_median": statistics.median(ratios),
                    "realized_ratio_mean": statistics.fmean(ratios),
                    "image_tokens_mean": statistics.fmean(tokens),
                    "text_tokens_mean": statistics.fmean(texts),
                    "pages_mean": statistics.fmean(pages),
                    "ocr_median": statistics.median(accs) if accs else None,
                    "ocr_min": min(accs) if accs else None,
                    "ocr_n": len(accs),
                    "ocr_protocol": protocol(),
                    "swevis_version": __version__,
                }
            )
            log.info("frontier %s f=%.1f ratio=%.2f ocr=%s", bname, f, out[-1]["realized_ratio_median"], out[-1]["ocr_median"])
    return out


def frontier_summary(rows: list[dict], thresholds=(0.93, 0.90), *, guard_threshold: float) -> dict:
    """Per backbone: the largest median realized ratio at median OCR >= each threshold, and the
    guard the frontier justifies (smallest font whose median OCR, and every larger font's, is
    >= guard_threshold)."""
    out = {}
    for b in sorted({r["backbone"] for r in rows}):
        sel = sorted((r for r in rows if r["backbone"] == b), key=lambda r: r["font_px"])
        entry = {}
        for t in thresholds:
            ok = [r for r in sel if r["ocr_median"] is not None and r["ocr_median"] >= t]
            best = max(ok, key=lambda r: r["realized_ratio_median"]) if ok else None
            entry[f"best_ratio_at_ocr_{t:.2f}"] = best["realized_ratio_median"] if best else None
            entry[f"font_at_ocr_{t:.2f}"] = best["font_px"] if best else None
        guard = None
        for r in reversed(sel):
            if r["ocr_median"] is not None and r["ocr_median"] >= guard_threshold:
                guard = r["font_px"]
            else:
                break
        entry["guard_px"] = guard
        entry["guard_threshold"] = guard_threshold
        out[b] = entry
    return out
