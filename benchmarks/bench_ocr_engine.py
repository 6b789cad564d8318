"""CPU seconds of reading the default frontier's pages under rapidocr's engine settings.

Draws the pages the embedded default's frontier reads (single_read.ocr's sample, chosen by
swevis.analysis.single_read.frontier for each backbone in turn; none is read while drawing)
and reads each of the first `--pages` with swevis.render.ocr's engine (RAPIDOCR_ENGINE) and
with one engine setting changed (`--set KEY=VALUE`; default: onnxruntime's memory arena off,
as rapidocr ships it), the two in turn page by page so that a shared machine's load hits both
alike. Prints per page the process CPU seconds of each read and whether both read the same
words, then the totals.

    .venv/bin/python benchmarks/bench_ocr_engine.py [--pages 4] [--config config.yaml]
        [--set EngineConfig.onnxruntime.enable_cpu_mem_arena=false]
"""

from __future__ import annotations

import argparse
import time

import yaml

from swevis.analysis.single_read import frontier
from swevis.analysis.single_read_windows import package_windows
from swevis.config import load_config
from swevis.render import ocr
from swevis.render.settings import RenderSettings
from swevis.workflow import study_backbones


class FrontierPages:
    """Stands in for the OCR cache: keeps every page the frontier would give rapidocr, reads none."""

    def __init__(self):
        self.pages = []

    def words(self, image, reader=ocr.RAPIDOCR):
        if reader == ocr.RAPIDOCR:
            self.pages.append(image.copy())
        return []


def frontier_pages(config_path: str) -> list:
    """The pages the config's frontier reads, backbone by backbone, font by font."""
    cfg = load_config(config_path)
    sr = cfg["single_read"]
    o = sr["ocr"]
    wins = package_windows(list(o["frontier_packages"]), int(o["frontier_lines"]), int(o["frontier_windows"]),
                           int(sr["seed"]))
    pages = FrontierPages()
    frontier(wins, [float(f) for f in o["frontier_fonts"]], study_backbones(cfg), RenderSettings.from_config(sr["render"]),
             o, seed=int(sr["seed"]), cache=pages, readers=[ocr.RAPIDOCR])
    return pages.pages


def timed_words(engine, image) -> tuple[float, list]:
    """A page's words read by `engine`, and the process CPU seconds that took."""
    started = time.process_time()
    words = ocr.ocr_words(image) if engine is None else _read_with(engine, image)
    return time.process_time() - started, words


def _read_with(engine, image) -> list:
    swevis_engine = ocr._engine
    ocr._engine = lambda: engine
    try:
        return ocr.ocr_words(image)
    finally:
        ocr._engine = swevis_engine


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=4)
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("--set", default="EngineConfig.onnxruntime.enable_cpu_mem_arena=false")
    args = ap.parse_args()
    key, value = args.set.split("=", 1)
    from rapidocr import RapidOCR

    other = RapidOCR(params={**ocr.RAPIDOCR_ENGINE, **ocr.RAPIDOCR_LIMITS, key: yaml.safe_load(value)})
    pages = frontier_pages(args.config)[: args.pages]
    strip = pages[0].crop((0, 0, pages[0].width, min(96, pages[0].height)))
    timed_words(None, strip), timed_words(other, strip)  # both load their models before the first timed read
    totals = {"swevis": 0.0, args.set: 0.0}
    same = 0
    print(f"{'page':>4} {'size':>10} {'swevis CPU s':>12} {args.set + ' CPU s':>12} same words")
    for i, page in enumerate(pages, 1):
        cpu_ours, words_ours = timed_words(None, page)
        cpu_other, words_other = timed_words(other, page)
        totals["swevis"] += cpu_ours
        totals[args.set] += cpu_other
        same += words_ours == words_other
        print(f"{i:>4} {page.width:>4}x{page.height:<5} {cpu_ours:>12.2f} {cpu_other:>12.2f} {words_ours == words_other}")
    print(f"{len(pages)} pages: swevis {totals['swevis']:.2f} CPU s, {args.set} {totals[args.set]:.2f} CPU s "
          f"({totals['swevis'] / totals[args.set]:.2f}x); the same words on {same} of {len(pages)}")


if __name__ == "__main__":
    main()
