"""Renderer benchmark.

1. For 100-line windows of real code (matplotlib's installed source, seeded sample): the
   layout-search time against the time to rasterize the chosen layout alone (target: search
   <= 25% of rasterization), per ratio, under qwen3.5 accounting; PNG encoding reported apart.
2. The single-read study's throughput: windows (and renders) per second for a small seeded
   study (every ratio and backbone of config.yaml, no OCR).

    .venv/bin/python benchmarks/bench_render.py [--windows 20] [--study-per-size 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import time

from swevis.config import load_config
from swevis.render import RenderSettings, render_window
from swevis.render.core import prepare_lines
from swevis.render.raster import rasterize
from swevis.analysis.single_read import layout_rows
from swevis.workflow import study_backbones
from swevis.analysis.single_read_windows import matplotlib_source_root, sample_windows


def bench_search_vs_raster(windows, ratios, family, settings, repeats=3):
    out = {}
    for r in ratios:
        search, raster, png = [], [], []
        for w in windows:
            lines = prepare_lines(w["text"])
            best_s = min(
                render_window(w["path"], w["start_line"], w["text"], r, "qwen3", family, settings, rasterize=False).timings["search_s"]
                for _ in range(repeats)
            )
            plan = render_window(w["path"], w["start_line"], w["text"], r, "qwen3", family, settings, rasterize=False).plan
            best_r = float("inf")
            for _ in range(repeats):
                t0 = time.perf_counter()
                pages = rasterize(lines, w["start_line"], w["path"], plan)
                best_r = min(best_r, time.perf_counter() - t0)
            t0 = time.perf_counter()
            for p in pages:
                p.save(io.BytesIO(), format="PNG")
            png.append(time.perf_counter() - t0)
            search.append(best_s)
            raster.append(best_r)
        out[f"r{r:g}"] = {
            "search_ms_median": 1000 * statistics.median(search),
            "raster_ms_median": 1000 * statistics.median(raster),
            "png_encode_ms_median": 1000 * statistics.median(png),
            "search_over_raster_median": statistics.median(s / r_ for s, r_ in zip(search, raster)),
            "search_over_raster_max": max(s / r_ for s, r_ in zip(search, raster)),
            "search_over_raster_total": sum(search) / sum(raster),
        }
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--windows", type=int, default=20)
    ap.add_argument("--study-per-size", type=int, default=3)
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    sr = cfg["single_read"]
    settings = RenderSettings.from_config(sr["render"])
    wins = sample_windows([matplotlib_source_root()], [100], args.windows, seed=int(sr["seed"]))
    render_window("warm.py", 1, "x = 1\n", 1, "qwen3", "qwen3.5", settings)  # load tokenizer + font
    result = {"search_vs_raster_100_lines_qwen3.5": bench_search_vs_raster(wins, sr["ratios"], "qwen3.5", settings)}
    study_wins = sample_windows([matplotlib_source_root()], list(sr["window_lines"]), args.study_per_size, seed=int(sr["seed"]))
    rows, stats = layout_rows(
        study_wins, [float(r) for r in sr["ratios"]], study_backbones(cfg), settings, rasterize_all=True
    )
    result["study_throughput"] = {
        k: stats[k] for k in ("windows", "renders", "wall_s", "windows_per_s", "renders_per_s", "search_s", "raster_s")
    }
    result["study_throughput"]["note"] = "every window x ratio x backbone rendered and rasterized (not saved), no OCR"
    from swevis import __version__

    result["swevis_version"] = __version__
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
