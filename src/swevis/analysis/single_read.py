"""The single-read cost study (Table 4, Figure 3) and the OCR readability frontier."""

from __future__ import annotations

import dataclasses
import logging
import random
import statistics
import time

from swevis import __version__
from swevis.conditions import Condition
from swevis.render import raster
from swevis.render.core import RenderResult, prepare_lines, render_window
from swevis.render.guards import smallest_clearing
from swevis.analysis.stats import median_ci
from swevis.render.ocr import READERS, OcrCache, available_readers, ocr_page_accuracy, protocol
from swevis.render.settings import RenderSettings
from swevis.tokens import tokenizer_info

log = logging.getLogger(__name__)

OCR_MEASURED = "measured"
OCR_NOT_SAMPLED = "not sampled"  # a seeded pick outside the default sample (single_read.ocr.full)


# ---- costs --------------------------------------------------------------------------------
#
# The study is split so that only what a table reports is drawn: every render's layout is
# computed undrawn (its token counts depend on the pages' sizes alone, swevis.tokens), and only
# the seeded OCR pages are drawn and read, one job per backbone (`ocr_rows`), beside the
# layouts job; `merge_ocr` joins them into costs.parquet.


def layout_rows(
    windows: list[dict],
    ratios: list[float],
    backbones: dict[str, dict],
    settings: RenderSettings,
    rasterize_all: bool,
) -> tuple[list[dict], dict]:
    """One row per window x ratio x backbone from the undrawn layout (no OCR columns filled).

    rasterize_all: also draw every page (not kept), a check that costs time only.
    Returns (rows, stats) with stats = wall time, renders/s, search and raster time.
    """
    rows: list[dict] = []
    t_search = t_raster = 0.0
    t0 = time.perf_counter()
    for bname, b in backbones.items():
        counted_by = tokenizer_info(b["tokenizer"])["counted_by"]
        for r in ratios:
            for w in windows:
                res = render_window(
                    w["path"], w["start_line"], w["text"], r, b["tokenizer"], b["image_family"], settings,
                    rasterize=rasterize_all,
                )
                t_search += res.timings["search_s"]
                t_raster += res.timings["raster_s"]
                rows.append(_cost_row(w, w["n_lines"], float(r), bname, b, counted_by, res))
    wall = time.perf_counter() - t0
    stats = {
        "renders": len(rows),
        "windows": len(windows),
        "wall_s": wall,
        "renders_per_s": len(rows) / wall if wall else None,
        "windows_per_s": len(windows) / wall if wall else None,
        "search_s": t_search,
        "raster_s": t_raster,
    }
    return _in_table_order(rows, windows, ratios, list(backbones)), stats


def _in_table_order(rows: list[dict], windows: list[dict], ratios: list[float], backbones: list[str]) -> list[dict]:
    """Rows in the order of the one-process study: backbone, ratio, window size, window."""
    pos = {w["window_id"]: i for i, w in enumerate(windows)}
    return sorted(
        rows, key=lambda r: (backbones.index(r["backbone"]), ratios.index(r["ratio"]), r["lines"], pos[r["window_id"]])
    )


def in_ocr_sample(ocr: dict, lines: int) -> bool:
    """Whether a Table 4 cell of `lines`-line windows is OCR'd: every cell under ocr.full, else
    the cells of windows up to ocr.sample_max_lines lines (the default sample)."""
    return bool(ocr["full"]) or lines <= int(ocr["sample_max_lines"])


def ocr_picks(
    windows: list[dict], ratios: list[float], bname: str, backbone: dict, settings: RenderSettings, ocr: dict, seed: int
) -> list[dict]:
    """The seeded OCR pages of one backbone: per cell (window size x ratio), `pages_per_cell`
    windows and one page of each, drawn by the same seeded generator in the same order as
    the one-process study did, so a cell measured here reads the very page it read.

    Each pick: window (index), ratio, lines, page, measure (whether the cell is in the sample).
    """
    if not ocr["enabled"]:
        return []
    per_cell = int(ocr["pages_per_cell"])
    by_size: dict[int, list[int]] = {}
    for i, w in enumerate(windows):
        by_size.setdefault(w["n_lines"], []).append(i)
    picks = []
    for r in ratios:
        for n, idxs in sorted(by_size.items()):
            rng = random.Random(f"{seed}:ocr:{bname}:{r}:{n}")
            chosen = set(rng.sample(idxs, min(per_cell, len(idxs))))
            for i in idxs:  # window order: the page draws follow it
                if i not in chosen:
                    continue
                w = windows[i]
                res = render_window(
                    w["path"], w["start_line"], w["text"], r, backbone["tokenizer"], backbone["image_family"],
                    settings, rasterize=False,
                )
                page = rng.randrange(res.layout["pages"])
                picks.append({"window": i, "ratio": float(r), "lines": n, "page": page, "measure": in_ocr_sample(ocr, n)})
    return picks


def draw_page(res: RenderResult, text: str, page: int, settings: RenderSettings) -> RenderResult:
    """`res` with page `page` drawn (the others left None): each page is drawn on its own
    image, so it is the very image `render_window(rasterize=True)` would have drawn."""
    plan = res.plan
    one = dataclasses.replace(plan, page_sizes=[plan.page_sizes[page]], page_columns=[plan.page_columns[page]])
    pages: list = [None] * plan.pages
    pages[page] = raster.rasterize(prepare_lines(text, settings.tab_size), res.start_line, res.path, one)[0]
    return dataclasses.replace(res, pages=pages)


def ocr_rows(
    windows: list[dict], picks: list[dict], bname: str, backbone: dict, settings: RenderSettings,
    cache: OcrCache | None,
) -> tuple[list[dict], dict]:
    """Draw and read the measured picks of one backbone; a pick outside the sample is kept as
    'not sampled'. Returns (rows keyed by window_id, backbone, ratio; stats)."""
    rows = []
    t_raster = t_ocr = 0.0
    for p in picks:
        w = windows[p["window"]]
        row = {"window_id": w["window_id"], "backbone": bname, "ratio": p["ratio"], "ocr_page": p["page"]}
        if not p["measure"]:
            rows.append(dict(row, ocr_accuracy=None, ocr_status=OCR_NOT_SAMPLED))
            continue
        t0 = time.perf_counter()
        res = render_window(
            w["path"], w["start_line"], w["text"], p["ratio"], backbone["tokenizer"], backbone["image_family"],
            settings, rasterize=False,
        )
        res = draw_page(res, w["text"], p["page"], settings)
        t1 = time.perf_counter()
        acc = ocr_page_accuracy(res, w["text"], p["page"], cache)
        t_raster += t1 - t0
        t_ocr += time.perf_counter() - t1
        rows.append(dict(row, ocr_accuracy=acc, ocr_status=OCR_MEASURED))
        log.info("OCR %s r=%g %d lines page %d: %.3f", bname, p["ratio"], p["lines"], p["page"], acc)
    measured = sum(1 for r in rows if r["ocr_status"] == OCR_MEASURED)
    stats = {"ocr_pages": measured, "ocr_not_sampled": len(rows) - measured, "ocr_raster_s": t_raster, "ocr_s": t_ocr}
    if cache is not None:
        stats.update(ocr_cache_hits=cache.hits, ocr_cache_misses=cache.misses)
    return rows, stats


def merge_ocr(rows: list[dict], ocr: list[dict]) -> list[dict]:
    """The layout rows with the OCR columns of their picks (a render nobody picked: None)."""
    by_key = {(o["window_id"], o["backbone"], o["ratio"]): o for o in ocr}
    out = []
    for r in rows:
        o = by_key.get((r["window_id"], r["backbone"], r["ratio"]), {})
        out.append(
            dict(r, ocr_accuracy=o.get("ocr_accuracy"), ocr_page=o.get("ocr_page"), ocr_status=o.get("ocr_status"))
        )
    return out


def _cost_row(w: dict, n: int, ratio: float, bname: str, backbone: dict, counted_by: str, res: RenderResult) -> dict:
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
    Returns (table rows, OCR rows: median OCR accuracy of the sampled pages per cell and, per
    row, `ocr_pages`, how many pages were OCR'd).
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
            o[_ratio_label(ratio)] = _ocr_cell(c)
        o["ocr_pages"] = sum(1 for r in cell_rows if r.get("ocr_status") == OCR_MEASURED)
        table.append(out)
        ocr_rows.append(o)
    return table, ocr_rows


def _ocr_cell(cell: list[dict]) -> str:
    """'median (n=k)' of the cell's OCR'd pages; 'not sampled' where its seeded pages lie
    outside the default sample (single_read.ocr.full reads them); 'n/a' where OCR is off."""
    accs = [r["ocr_accuracy"] for r in cell if r["ocr_accuracy"] is not None]
    if accs:
        return f"{statistics.median(accs):.3f} (n={len(accs)})"
    if any(r.get("ocr_status") == OCR_NOT_SAMPLED for r in cell):
        return OCR_NOT_SAMPLED
    return "n/a"


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
    cache: OcrCache | None = None,
    readers: list[str] | None = None,
) -> list[dict]:
    """For each backbone and font size: the realized ratio the windows reach at that size (the
    cheapest layout with that font, the guard lifted) and the OCR accuracy at that size.

    OCR: one seeded page, read whole as the model is sent it, of each of
    `ocr["frontier_pages"]` seeded windows (the protocol of swevis.render.ocr); without
    ocr.full, only the first `ocr["sample_frontier_pages"]` of them (in window order) are
    read, at the fonts of `ocr["sample_frontier_fonts"]` (all when empty), and `ocr_n` says
    how many were. Every page is read by each of `readers` (default: those installed,
    rapidocr and Tesseract), and a page's accuracy (`ocr_*`) is the lowest of its readers':
    a page is readable only if every reader clears the threshold. Layouts are computed
    undrawn; only read pages are drawn. One backbone is one job of the workflow; the rows do
    not depend on the others.
    """
    readers = list(readers or available_readers())
    out = []
    for bname, b in backbones.items():
        for f in fonts:
            out.append(_frontier_row(windows, f, bname, b, settings, ocr, seed, cache, readers))
            log.info("frontier %s f=%.1f ratio=%.2f ocr=%s", bname, f, out[-1]["realized_ratio_median"], out[-1]["ocr_median"])
    return out


def reads_font(ocr: dict, font: float) -> bool:
    """Whether the frontier OCRs its pages at `font`: always under ocr.full, else when the font
    sample is empty or names it."""
    sample = [float(x) for x in ocr["sample_frontier_fonts"]]
    return bool(ocr["full"]) or not sample or float(font) in sample


def _frontier_row(
    windows: list[dict], f: float, bname: str, b: dict, settings: RenderSettings, ocr: dict, seed: int,
    cache: OcrCache | None, readers: list[str],
) -> dict:
    """One frontier.csv row: one backbone at one font size."""
    tok, fam = b["tokenizer"], b["image_family"]
    rng = random.Random(f"{seed}:frontier:{bname}:{f}")
    pick = set(rng.sample(range(len(windows)), min(int(ocr["frontier_pages"]), len(windows))))
    n_read = len(pick) if ocr["full"] else min(len(pick), int(ocr["sample_frontier_pages"]))
    if not reads_font(ocr, f):
        n_read = 0
    ratios, pages, tokens, texts = [], [], [], []
    accs: dict[str, list[float]] = {r: [] for r in readers}
    read = 0
    for i, w in enumerate(windows):
        res = render_window(w["path"], w["start_line"], w["text"], 1e6, tok, fam, settings, fonts=[f], guard=0.0, rasterize=False)
        L = res.layout
        ratios.append(L["realized_ratio"])
        pages.append(L["pages"])
        tokens.append(L["image_tokens"])
        texts.append(L["text_tokens"])
        if i in pick:
            page = rng.randrange(L["pages"])  # drawn for every pick, in window order, read or not
            if read < n_read:
                drawn = draw_page(res, w["text"], page, settings)
                for r in readers:
                    accs[r].append(ocr_page_accuracy(drawn, w["text"], page, cache, r))
                read += 1
    both = [min(a) for a in zip(*accs.values())]
    return {
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
        **_ocr_columns("ocr", both),
        "ocr_n": len(both),
        "ocr_picked": len(pick),
        "ocr_readers": "+".join(readers),
        **{k: v for r in READERS for k, v in _ocr_columns(r, accs.get(r, []), pages_column=True).items()},
        "ocr_protocol": " | ".join(protocol(r) for r in readers),
        "swevis_version": __version__,
    }


def _ocr_columns(prefix: str, accs: list[float], pages_column: bool = False) -> dict:
    """`<prefix>_median`, `_min` and the median's 95% interval `_ci_low`/`_ci_high` (order
    statistics, swevis.analysis.stats.median_ci); with pages_column, `_pages`, each page's
    accuracy (';'-joined, in window order). None where no page was read."""
    med, low, high, _ = median_ci(accs)
    out = {f"{prefix}_median": med, f"{prefix}_min": min(accs) if accs else None,
           f"{prefix}_ci_low": low, f"{prefix}_ci_high": high}
    if pages_column:
        out[f"{prefix}_pages"] = ";".join(f"{a:.4f}" for a in accs) if accs else None
    return out


def frontier_summary(rows: list[dict], thresholds=(0.93, 0.90), *, guard_threshold: float) -> dict:
    """Per backbone, over the pages every reader read (a page counts at its lowest reader's
    accuracy), and per reader (`per_reader`): the largest median realized ratio at median OCR
    >= each threshold, and the guard the frontier justifies (smallest font whose median OCR,
    and every larger font's, is >= guard_threshold); each with the range its medians' 95%
    intervals allow (`_ci`: [from the interval's low ends, from its high ends]). `agreement`
    says how far the readers agree on the same pages. Fonts whose pages were not read (ocr_n
    0) say nothing either way."""
    out = {}
    for b in sorted({r["backbone"] for r in rows}):
        sel = sorted((r for r in rows if r["backbone"] == b), key=lambda r: r["font_px"])
        readers = [x for x in (sel[0].get("ocr_readers") or "rapidocr").split("+") if x]
        entry = _frontier_entry(sel, "ocr", thresholds, guard_threshold)
        entry["guard_threshold"] = guard_threshold
        entry["readers"] = readers
        entry["per_reader"] = {x: _frontier_entry(sel, x, thresholds, guard_threshold) for x in readers if f"{x}_median" in sel[0]}
        if len(readers) == 2 and all(f"{x}_pages" in sel[0] for x in readers):
            entry["agreement"] = reader_agreement(sel, readers, guard_threshold)
        out[b] = entry
    return out


def _frontier_entry(sel: list[dict], prefix: str, thresholds, guard_threshold: float) -> dict:
    """Best ratio and guard from the `<prefix>_median` column, with the ranges its interval
    ends (`<prefix>_ci_low`, `_ci_high`) give."""
    entry = {}
    for t in thresholds:
        font, ratio = _best_at(sel, f"{prefix}_median", t)
        entry[f"best_ratio_at_ocr_{t:.2f}"] = ratio
        entry[f"font_at_ocr_{t:.2f}"] = font
        entry[f"best_ratio_at_ocr_{t:.2f}_ci"] = [_best_at(sel, f"{prefix}_{end}", t)[1] for end in ("ci_low", "ci_high")]
    entry["guard_px"] = _guard(sel, f"{prefix}_median", guard_threshold)
    entry["guard_px_ci"] = [_guard(sel, f"{prefix}_{end}", guard_threshold) for end in ("ci_high", "ci_low")]
    entry["pages_per_font"] = max((r.get("ocr_n") or 0 for r in sel), default=0)  # every reader reads each page
    return entry


def _best_at(sel: list[dict], column: str, t: float) -> tuple[float | None, float | None]:
    """(font, median realized ratio) of the cheapest font whose `column` is >= t."""
    ok = [r for r in sel if r.get(column) is not None and r[column] >= t]
    best = max(ok, key=lambda r: r["realized_ratio_median"]) if ok else None
    return (best["font_px"], best["realized_ratio_median"]) if best else (None, None)


def _guard(sel: list[dict], column: str, t: float) -> float | None:
    """The smallest read font from which every larger read font's `column` is >= t."""
    return smallest_clearing({r["font_px"]: r.get(column) for r in sel}, t)


def _pages(row: dict, reader: str) -> list[float]:
    text = row.get(f"{reader}_pages")
    return [float(x) for x in text.split(";")] if text else []


def reader_agreement(sel: list[dict], readers: list[str], threshold: float) -> dict:
    """How far two readers agree on the same pages: the median absolute difference of their
    accuracies, the share of pages both call readable or both unreadable at `threshold`, and
    the median (second - first), over every read page and per font."""
    a_name, b_name = readers
    per_font, diffs, agree = {}, [], 0
    for r in sel:
        pairs = list(zip(_pages(r, a_name), _pages(r, b_name)))
        if not pairs:
            continue
        d = [y - x for x, y in pairs]
        same = sum((x >= threshold) == (y >= threshold) for x, y in pairs)
        per_font[f"{r['font_px']:g}"] = {"pages": len(pairs), "median_difference": statistics.median(d),
                                         "agree_at_threshold": same / len(pairs)}
        diffs += d
        agree += same
    if not diffs:
        return {"pages": 0}
    return {"pages": len(diffs), "difference": f"{b_name} - {a_name}", "median_difference": statistics.median(diffs),
            "median_abs_difference": statistics.median(abs(x) for x in diffs),
            "agree_at_threshold": agree / len(diffs), "per_font": per_font}
