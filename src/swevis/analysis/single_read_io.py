"""File-level entry points of the single-read study (called by the Snakemake adapters)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import polars as pl

from swevis import __version__
from swevis.fsutil import atomic_path, write_json_atomic
from swevis.provenance import provenance
from swevis.render.ocr import OcrCache, protocol
from swevis.render.settings import RenderSettings
from swevis.analysis.single_read import (
    OCR_MEASURED,
    figure3,
    frontier,
    frontier_summary,
    layout_rows,
    merge_ocr,
    ocr_picks,
    ocr_rows,
    reads_font,
    table4,
)
from swevis.table_csv import write_table_csv
from swevis.analysis.single_read_windows import matplotlib_source_root, package_windows, sample_windows

log = logging.getLogger(__name__)


def _write_parquet(rows: list[dict], path: str | Path) -> None:
    with atomic_path(path) as tmp:
        pl.DataFrame(rows, infer_schema_length=None).write_parquet(tmp)


def _read_rows(path: str | Path) -> list[dict]:
    return pl.read_parquet(path).to_dicts()


def source_roots(checkouts_json: str | Path | None, cfg: dict) -> list[str]:
    """Checkouts of the sampled instances (deduplicated by repo@commit) + matplotlib + extras."""
    roots: list[str] = []
    if checkouts_json:
        manifests = json.loads(Path(checkouts_json).read_text())
        seen = set()
        for m in sorted(manifests, key=lambda m: (m.get("repo", ""), m.get("base_commit", ""))):
            key = (m.get("repo"), m.get("base_commit"))
            if key in seen or not m.get("path"):
                continue
            seen.add(key)
            roots.append(m["path"])
    if cfg["include_matplotlib"]:
        roots.append(matplotlib_source_root())
    roots.extend(cfg["extra_source_roots"])
    return roots


def sample_study_windows(checkouts_json, cfg: dict, out_path) -> int:
    roots = source_roots(checkouts_json, cfg)
    log.info("window sources: %s", roots)
    wins = sample_windows(roots, list(cfg["window_lines"]), int(cfg["windows_per_size"]), int(cfg["seed"]))
    for w in wins:
        w["seed"] = int(cfg["seed"])
        w["swevis_version"] = __version__
    _write_parquet(wins, out_path)
    return len(wins)


def _ocr_cache(cache_dir) -> OcrCache | None:
    return OcrCache(cache_dir) if cache_dir else None


def study_layouts(windows_path, cfg: dict, backbones: dict, out_path, stats_path) -> dict:
    """Every window x ratio x backbone laid out, undrawn: the token columns of costs.parquet."""
    wins = _read_rows(windows_path)
    settings = RenderSettings.from_config(cfg["render"])
    rows, stats = layout_rows(
        wins, [float(r) for r in cfg["ratios"]], backbones, settings, rasterize_all=bool(cfg["rasterize_all"])
    )
    _write_parquet(rows, out_path)
    write_json_atomic(stats_path, stats)
    return stats


def study_ocr(windows_path, cfg: dict, bname: str, backbone: dict, out_path, cache_dir=None) -> dict:
    """The seeded OCR pages of one backbone's Table 4 cells, drawn and read (single_read.ocr)."""
    wins = _read_rows(windows_path)
    settings = RenderSettings.from_config(cfg["render"])
    ocr = cfg["ocr"]
    picks = ocr_picks(wins, [float(r) for r in cfg["ratios"]], bname, backbone, settings, ocr, int(cfg["seed"]))
    log.info("%s: %d OCR picks, %d in the sample", bname, len(picks), sum(p["measure"] for p in picks))
    rows, stats = ocr_rows(wins, picks, bname, backbone, settings, _ocr_cache(cache_dir))
    schema = {"window_id": pl.Utf8, "backbone": pl.Utf8, "ratio": pl.Float64, "ocr_page": pl.Int64,
              "ocr_accuracy": pl.Float64, "ocr_status": pl.Utf8}
    with atomic_path(out_path) as tmp:
        pl.DataFrame(rows, schema=schema).write_parquet(tmp)
    return stats


def study_costs(layouts_path, layout_stats_path, ocr_paths, cfg: dict, backbones: dict, out_path, stats_path) -> dict:
    """costs.parquet: the layouts joined with the OCR pages of every backbone (the gather)."""
    ocr = [r for p in ocr_paths for r in _read_rows(p)]
    rows = merge_ocr(_read_rows(layouts_path), ocr)
    _write_parquet(rows, out_path)
    stats = json.loads(Path(layout_stats_path).read_text())
    measured = [r for r in ocr if r["ocr_status"] == OCR_MEASURED]
    stats.update(
        ocr_pages=len(measured),
        ocr_not_sampled=len(ocr) - len(measured),
        ocr_scope=ocr_scope(cfg["ocr"]),
        ocr_protocol=protocol() if cfg["ocr"]["enabled"] else None,
    )
    settings = RenderSettings.from_config(cfg["render"])
    stats.update(provenance(cfg, backbones=backbones, render_settings=settings.to_dict()))
    write_json_atomic(stats_path, stats)
    return stats


def ocr_scope(ocr: dict) -> str:
    """What Table 4's OCR numbers rest on, in words (costs.stats.json)."""
    if not ocr["enabled"]:
        return "off"
    if ocr["full"]:
        return "full: the seeded pages of every Table 4 cell"
    return (
        f"default sample: the seeded pages of the Table 4 cells of windows up to {ocr['sample_max_lines']} lines "
        "(single_read.ocr.full: true reads every cell)"
    )


def frontier_ocr_scope(ocr: dict) -> str:
    """What the frontier's OCR numbers rest on, in words (frontier_summary.json)."""
    if ocr["full"]:
        return f"full: {ocr['frontier_pages']} seeded pages per font and backbone"
    read = [f for f in ocr["frontier_fonts"] if reads_font(ocr, f)]
    at = f" at fonts {', '.join(f'{x:g}' for x in read)} px" if ocr["sample_frontier_fonts"] else ""
    return (
        f"default sample: {ocr['sample_frontier_pages']} of the {ocr['frontier_pages']} seeded pages per font and "
        f"backbone{at} (single_read.ocr.full: true reads them all)"
    )


def study_tables(costs_path, ratios, backbones: list[str], table4_path, per_backbone, ocr_paths, figure_path) -> None:
    rows = _read_rows(costs_path)
    ratios = [float(r) for r in ratios]
    for i, b in enumerate(backbones):
        table, ocr = table4(rows, b, ratios)
        sel = next(r for r in rows if r["backbone"] == b)
        prov = {
            "backbone": b,
            "image_family": sel["image_family"],
            "counted_by": sel["counted_by"],
            "swevis_version": __version__,
        }
        table = [dict(t, **prov) for t in table]
        write_table_csv(table, per_backbone[i])
        write_table_csv([dict(o, **prov) for o in ocr], ocr_paths[i])
        if i == 0:
            write_table_csv(table, table4_path)
    with atomic_path(figure_path) as tmp:
        figure3(rows, backbones, ratios, str(tmp))


def study_frontier_part(cfg: dict, bname: str, backbone: dict, out_path, cache_dir=None,
                        readers: list[str] | None = None) -> list[dict]:
    """The readability frontier of one backbone on windows of installed packages, read by
    `readers` (default: every installed one)."""
    ocr = cfg["ocr"]
    wins = package_windows(
        list(ocr["frontier_packages"]), int(ocr["frontier_lines"]), int(ocr["frontier_windows"]), int(cfg["seed"])
    )
    settings = RenderSettings.from_config(cfg["render"])
    fonts = [float(f) for f in ocr["frontier_fonts"]]
    rows = frontier(wins, fonts, {bname: backbone}, settings, ocr, seed=int(cfg["seed"]), cache=_ocr_cache(cache_dir),
                    readers=readers)
    _write_parquet(rows, out_path)
    return rows


def study_frontier(part_paths, cfg: dict, backbones: dict, out_path, summary_path) -> dict:
    """frontier.csv (the backbones' rows in their order) and the guard each one justifies."""
    rows = [r for p in part_paths for r in _read_rows(p)]
    write_table_csv(rows, out_path)
    settings = RenderSettings.from_config(cfg["render"])
    summary = frontier_summary(rows, guard_threshold=float(cfg["ocr"]["guard_threshold"]))
    readers = sorted({x for r in rows for x in (r.get("ocr_readers") or "").split("+") if x})
    summary = {
        "per_backbone": summary,
        "configured_guard_px": settings.guard_px(),
        "ocr_scope": frontier_ocr_scope(cfg["ocr"]),
        "readers": readers,
        "readable_page": "every reader clears the threshold: a page counts at its lowest reader's accuracy"
                         + ("" if "tesseract" in readers else " (tesseract not installed: rapidocr alone)"),
        "ocr_ci": "95% interval of the median from order statistics (fewer than 6 pages: min to max, "
                  "coverage 1 - 2^(1-n)); a best ratio's or guard's _ci is what the interval's ends give",
        **provenance(cfg, backbones=backbones),
    }
    write_json_atomic(summary_path, summary)
    return summary
