"""Legibility of the pages obs-rN and hist-rN send: a seeded sample of them, drawn and read
whole by both OCR readers (rapidocr and Tesseract) against the text each page shows.

Fetches nothing: it takes folders of trajectories (any format `swevis replay` reads), replays
each under obs-r{ratio} and hist-r{ratio} (accounted as --model from config.yaml, agents.pages
as configured) and keeps every text the replay sends as pages (a run that stays text, or a
history block kept as text by the never-dearer rule, is not a page). From all those pages it
draws --pages per family (seeded), renders each text as the replay would, with the page drawn,
and scores the page by swevis.render.ocr's protocol with each reader; a page counts at its
lower reading (the frontier's rule in swevis.analysis.single_read).

    .venv/bin/python benchmarks/bench_page_legibility.py DIR [DIR ...] [--model qwen3.5]
        [--ratio 3] [--pages 12] [--seed 1] [--trajectories N] [--families obs,hist]
        [--obs-run-chars N] [--hist-run-chars N] [--hist-min-font-px PX]
        [--threshold 0.93] [--cache DIR] [--jobs 2]

Prints one table row per family: the pages it sends in all, the pages read, the median
rapidocr, Tesseract and both (lower) readings, the 95% interval of the median of both from
order statistics (swevis.analysis.stats.median_ci; its coverage in brackets), the share of
pages whose lower reading is at least --threshold, and the font px of the pages read. Each OCR reads single-threaded; run it
under `nice`.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from swevis.agents.observation.pages import Shown, observing
from swevis.analysis.stats import median_ci
from swevis.config import load_config
from swevis.counterfactual.formats import trajectory_files
from swevis.counterfactual.replay import recorded_costs
from swevis.errors import SwevisError
from swevis.render.ocr import RAPIDOCR, TESSERACT, OcrCache, ocr_page_accuracy, read_without_direction_classifier
from swevis.render.tesseract import MISSING, available

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def sent_texts(path: str, condition: str, model: str, cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """The texts one trajectory's replay under `condition` sends as pages (text, label, pages,
    the TextPages that drew it, and the trajectory), as swevis.agents.observation.pages.observing sees them."""
    profile = {**cfg["models"][model]}
    sent: list[dict[str, Any]] = []

    def keep(shown: Shown) -> None:
        sent.append({"text": shown.text, "label": shown.label, "pages": shown.pages, "how": shown.how})

    with observing(keep):
        recorded_costs(path, [condition], model_name=model, profile=profile, agents_cfg=cfg["agents"],
                       render_cfg=cfg["single_read"].get("render", {}),
                       prompt_cache=cfg["counterfactual"]["prompt_cache"])
    return [{**s, "trajectory": path} for s in sent]


def _sent_job(job: tuple[str, str, str, dict[str, Any]]) -> list[dict[str, Any]]:
    return sent_texts(*job)


def draw(item: dict[str, Any]):
    """(the text as rendered, the RenderResult with its pages drawn): the very drawing
    TextPages made when it sent them (TextPages.draw), with rasterize on."""
    return item["how"].draw(item["text"], item["label"], rasterize=True)


def sample_pages(items: list[dict[str, Any]], k: int, seed: int) -> list[tuple[int, int]]:
    """`k` (item, page) pairs drawn uniformly, without replacement, from every page sent."""
    population = [(i, p) for i, it in enumerate(items) for p in range(it["pages"])]
    return sorted(random.Random(seed).sample(population, min(k, len(population))))


def read_pages(items: list[dict[str, Any]], picks: list[tuple[int, int]], cache: OcrCache | None) -> list[dict[str, Any]]:
    """Each picked page drawn and read by both readers; its reading is the lower one."""
    rows, drawn = [], {}
    for i, page in picks:
        if i not in drawn:
            drawn[i] = draw(items[i])
        body, res = drawn[i]
        acc = {r: ocr_page_accuracy(res, body, page, cache, r) for r in (RAPIDOCR, TESSERACT)}
        rows.append({"label": items[i]["label"], "trajectory": Path(items[i]["trajectory"]).name, "page": page,
                     "font_px": res.layout["font_px"], RAPIDOCR: acc[RAPIDOCR], TESSERACT: acc[TESSERACT],
                     "both": min(acc.values())})
    return rows


def summary(family: str, sent: int, rows: list[dict[str, Any]], threshold: float) -> dict[str, Any]:
    """One table row: medians per reader and both (with the 95% order-statistic interval of
    the median of both), the share at least `threshold`, fonts."""
    if not rows:
        return {"family": family, "sent": sent, "read": 0}
    fonts = sorted({r["font_px"] for r in rows})
    both, low, high, level = median_ci([r["both"] for r in rows])
    return {"family": family, "sent": sent, "read": len(rows),
            RAPIDOCR: statistics.median(r[RAPIDOCR] for r in rows),
            TESSERACT: statistics.median(r[TESSERACT] for r in rows),
            "both": both, "both_ci": (low, high), "ci_level": level,
            "share": sum(r["both"] >= threshold for r in rows) / len(rows), "threshold": threshold,
            "fonts": fonts}


def _line(s: dict[str, Any]) -> str:
    if not s["read"]:
        return f"{s['family']:<8} {s['sent']:>6} {0:>5}  (no page sent)"
    fonts = ", ".join(f"{f:g}" for f in s["fonts"])
    ci = f"{s['both_ci'][0]:.3f}-{s['both_ci'][1]:.3f} ({s['ci_level']:.0%})"
    return (f"{s['family']:<8} {s['sent']:>6} {s['read']:>5} {s[RAPIDOCR]:>9.3f} {s[TESSERACT]:>9.3f} {s['both']:>6.3f} "
            f"{ci:>19} {s['share']:>8.0%}  {fonts}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", help="folders of trajectories, pooled")
    parser.add_argument("--model", default="qwen3.5")
    parser.add_argument("--ratio", default="3")
    parser.add_argument("--pages", type=int, default=12, help="pages read per family")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--trajectories", type=int, help="replay only this many trajectories, drawn with --seed")
    parser.add_argument("--families", default="obs,hist", help="the page families read, comma-separated")
    parser.add_argument("--obs-run-chars", type=int, help="agents.pages.obs_run_chars (default: as configured)")
    parser.add_argument("--hist-run-chars", type=int, help="agents.pages.hist_run_chars (default: as configured)")
    parser.add_argument("--hist-min-font-px", type=float, help="agents.pages.hist_min_font_px (default: as configured)")
    parser.add_argument("--no-direction-classifier", action="store_true",
                        help="rapidocr without its direction classifier (ocr.read_without_direction_classifier)")
    parser.add_argument("--threshold", type=float, default=0.93)
    parser.add_argument("--cache", help="a folder for OCR words (swevis.render.ocr.OcrCache); default none")
    parser.add_argument("--jobs", type=int, default=2, help="replays side by side (the OCR runs in one process)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every page read")
    args = parser.parse_args(argv)
    if not available():
        print(f"error: {MISSING}", file=sys.stderr)
        return 2
    if args.no_direction_classifier:
        read_without_direction_classifier()
    cfg = load_config(PROJECT_ROOT / "config.yaml")
    for key in ("obs_run_chars", "hist_run_chars", "hist_min_font_px"):
        if getattr(args, key) is not None:
            cfg["agents"]["pages"] = {**cfg["agents"].get("pages", {}), key: getattr(args, key)}
    if args.model not in cfg["models"]:
        print(f"error: no model {args.model!r} in config.yaml", file=sys.stderr)
        return 2
    files = [str(p) for d in args.dirs for p in trajectory_files(d, None)]
    if args.trajectories and args.trajectories < len(files):
        files = sorted(random.Random(args.seed).sample(files, args.trajectories))
    cache = OcrCache(args.cache) if args.cache else None
    started = time.perf_counter()
    print(f"{len(files)} trajectories, accounted as {args.model}; {args.pages} pages a family (seed {args.seed}); "
          f"a page counts at its lower reading")
    print(f"{'family':<8} {'sent':>6} {'read':>5} {'rapidocr':>9} {'tesseract':>9} {'both':>6} {'both: interval':>19} "
          f"{'>=' + str(args.threshold):>8}  font px")
    for family in [f.strip() for f in args.families.split(",")]:
        condition = f"{family}-r{args.ratio}"
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            items = [s for part in pool.map(_sent_job, [(f, condition, args.model, cfg) for f in files]) for s in part]
        rows = read_pages(items, sample_pages(items, args.pages, args.seed), cache)
        if args.verbose:
            for r in rows:
                print(f"  {r['trajectory']} {r['label']} p{r['page']} {r['font_px']:g}px rapidocr {r[RAPIDOCR]:.3f} "
                      f"tesseract {r[TESSERACT]:.3f}", file=sys.stderr)
        print(_line(summary(condition, sum(it["pages"] for it in items), rows, args.threshold)), flush=True)
    print(f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


def run_script() -> int:
    """main() as the script runs it: an input error (SwevisError) is one line and exit 2."""
    try:
        return main()
    except SwevisError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
