"""File-level entry points of the single-read study (called by the Snakemake adapters)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import polars as pl

from swevis import __version__
from swevis.fsutil import atomic_path, write_json_atomic
from swevis.provenance import provenance
from swevis.render.settings import RenderSettings
from swevis.analysis.single_read import figure3, frontier, frontier_summary, run_costs, table4
from swevis.analysis.table_csv import write_table_csv
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


def study_costs(windows_path, cfg: dict, backbones: dict, out_path, stats_path) -> dict:
    wins = _read_rows(windows_path)
    settings = RenderSettings.from_config(cfg["render"])
    rows, stats = run_costs(
        wins,
        [float(r) for r in cfg["ratios"]],
        backbones,
        settings,
        ocr=cfg["ocr"],
        seed=int(cfg["seed"]),
        rasterize_all=bool(cfg["rasterize_all"]),
    )
    _write_parquet(rows, out_path)
    stats.update(provenance(cfg, backbones=backbones, render_settings=settings.to_dict()))
    write_json_atomic(stats_path, stats)
    return stats


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


def study_frontier(cfg: dict, backbones: dict, out_path, summary_path) -> dict:
    """The readability frontier on windows of installed packages (single_read.ocr.frontier_*)."""
    ocr = cfg["ocr"]
    wins = package_windows(
        list(ocr["frontier_packages"]), int(ocr["frontier_lines"]), int(ocr["frontier_windows"]), int(cfg["seed"])
    )
    settings = RenderSettings.from_config(cfg["render"])
    fonts = [float(f) for f in ocr["frontier_fonts"]]
    rows = frontier(wins, fonts, backbones, settings, ocr, seed=int(cfg["seed"]))
    write_table_csv(rows, out_path)
    summary = frontier_summary(rows, guard_threshold=float(ocr["guard_threshold"]))
    summary = {
        "per_backbone": summary,
        "configured_guard_px": settings.min_font_px,
        **provenance(cfg, backbones=backbones),
    }
    write_json_atomic(summary_path, summary)
    return summary
