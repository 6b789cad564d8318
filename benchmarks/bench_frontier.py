"""Readability frontier as the model sees a page, per nominal ratio r.

Windows: `--windows` 100-line windows of installed packages that are not SWE-bench
repositories (`--packages`, default those of bench_legibility; window k from package k mod len,
seeded by single_read.seed). `--font FILE --guard PX` measure another font at its own guard
(bench_legibility.py measures the guard per font). Each window is
rendered at each r with the study's renderer settings (guard on) under one backbone's
accounting; one seeded page per render is OCR'd whole (swevis.render.ocr's protocol: no strips,
no upscaling, code text without the line-number gutter). Prints one row per r: median realized
ratio T_text/T_img, median OCR accuracy with its 95% interval (order statistics) and min,
mean pages, mean font px as seen. Each page is read by every installed reader (`--readers`;
rapidocr, and Tesseract when its program is installed, swevis.render.tesseract): the OCR
columns count a page at its lowest reader (readable only if both clear), and each reader's
own median follows.

    .venv/bin/python benchmarks/bench_frontier.py [--windows 12] [--ratios 1 2 3 5 7] [--backbone qwen3.5]
        [--packages jinja2 docker ...] [--font FILE --guard PX] [--render KEY=VALUE ...] [--config config.yaml]
        [--readers rapidocr tesseract] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

import yaml

from swevis.config import load_config
from swevis.render import RenderSettings, render_window
from swevis.analysis.stats import median_ci
from swevis.render.ocr import available_readers, ocr_page_accuracy, protocol
from swevis.workflow import study_backbones
from swevis.analysis.single_read_windows import package_windows

PACKAGES = ["jinja2", "docker", "snakemake", "swebench", "polars", "pygments"]  # none is a SWE-bench repository


def measure(windows, ratios, backbone, settings, seed, readers=("rapidocr",)):
    """Per r: realized ratios and OCR accuracies (per reader, and a page's lowest) of one
    seeded page of each window's render."""
    out = []
    for r in ratios:
        rng = random.Random(f"{seed}:bench_frontier:{r}")
        ratios_r, accs, pages, fonts = [], [], [], []
        per_reader = {x: [] for x in readers}
        t0 = time.perf_counter()
        for w in windows:
            res = render_window(w["path"], w["start_line"], w["text"], r, backbone["tokenizer"],
                                backbone["image_family"], settings)
            ratios_r.append(res.layout["realized_ratio"])
            pages.append(res.layout["pages"])
            fonts.append(res.layout["font_px_seen"])
            page = rng.randrange(len(res.pages))
            for x in readers:
                per_reader[x].append(ocr_page_accuracy(res, w["text"], page, None, x))
            accs.append(min(per_reader[x][-1] for x in readers))
        med, low, high, _ = median_ci(accs)
        out.append({
            "r": r,
            "realized_ratio_median": statistics.median(ratios_r),
            "ocr_median": med,
            "ocr_ci": [low, high],
            "ocr_min": min(accs),
            **{f"{x}_median": statistics.median(per_reader[x]) for x in readers},
            "pages_mean": statistics.fmean(pages),
            "font_px_seen_mean": statistics.fmean(fonts),
            "windows": len(windows),
            "seconds": time.perf_counter() - t0,
        })
        print(_row(out[-1]), flush=True)
    return out


def _row(e: dict) -> str:
    each = "".join(f" {v:.3f} |" for k, v in e.items() if k.endswith("_median") and k != "realized_ratio_median"
                   and k != "ocr_median")
    return (f"| r{e['r']:g} | {e['realized_ratio_median']:.2f}x | {e['ocr_median']:.3f} "
            f"[{e['ocr_ci'][0]:.3f}, {e['ocr_ci'][1]:.3f}] | {e['ocr_min']:.3f} |{each} "
            f"{e['pages_mean']:.2f} | {e['font_px_seen_mean']:.1f} | {e['seconds']:.0f} s |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--windows", type=int, default=12)
    ap.add_argument("--ratios", type=float, nargs="+", default=None, help="default: single_read.ratios")
    ap.add_argument("--backbone", default=None, help="a model profile; default: the study's first backbone")
    ap.add_argument("--json", default=None)
    ap.add_argument("--readers", nargs="+", choices=["rapidocr", "tesseract"], default=None,
                    help="OCR readers (default: every installed one)")
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("--packages", nargs="+", default=PACKAGES, help="installed packages outside SWE-bench to sample from")
    ap.add_argument("--font", default=None, help="render.font: a font file (default: the configured font)")
    ap.add_argument("--guard", type=float, default=None, help="render.min_font_px for that font")
    ap.add_argument("--render", nargs="+", default=[], metavar="KEY=VALUE",
                    help="more render settings (YAML values), e.g. font_mode=antialias line_height=1.1")
    args = ap.parse_args()
    cfg = load_config(args.config)
    sr = cfg["single_read"]
    backbones = study_backbones(cfg)
    name = args.backbone or next(iter(backbones))
    seed = int(sr["seed"])
    wins = package_windows(list(args.packages), int(sr["ocr"]["frontier_lines"]), args.windows, seed)
    render = {**sr["render"], **({"font": args.font} if args.font else {}),
              **({"min_font_px": args.guard} if args.guard is not None else {}),
              **{k: yaml.safe_load(v) for k, _, v in (kv.partition("=") for kv in args.render)}}
    settings = RenderSettings.from_config(render)
    print(f"{len(wins)} windows of {sr['ocr']['frontier_lines']} lines from {sorted({w['source'] for w in wins})}; "
          f"backbone {name} ({backbones[name]['image_family']}); font {render.get('font', 'DejaVu Sans Mono')} "
          f"({settings.font_mode}, line height {settings.line_height}) at guard {settings.guard_px()} px")
    readers = args.readers or available_readers()
    for x in readers:
        print(f"- {x}: {protocol(x)}")
    print(f"| r | realized ratio (median) | OCR median [95% CI], page at its lowest reader | OCR min | "
          f"{''.join(f'{x} median | ' for x in readers)}pages | font px seen | time |")
    print("|---|---|---|---|" + "---|" * len(readers) + "---|---|---|")
    rows = measure(wins, args.ratios or [float(r) for r in sr["ratios"]], backbones[name],
                   settings, seed, readers)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"backbone": name, "protocols": {x: protocol(x) for x in readers}, "rows": rows}, fh, indent=2)


if __name__ == "__main__":
    main()
