"""Legibility at small sizes, per font: OCR accuracy of whole pages at send resolution.

Each candidate font (render.font: DejaVu Sans Mono, and the monospace fonts of Debian
packages when installed: fonts-liberation, fonts-noto-mono, fonts-hack, fonts-jetbrains-mono,
fonts-inconsolata, fonts-go) renders `--windows` 100-line windows of installed packages that
are not SWE-bench repositories (jinja2, docker, snakemake, swebench, polars, pygments) at
each forced font size (guard off), with line pitch `--line-height` x the size. Page 1 of each
render is read whole, as sent (no upscaling), by the project's reader (rapidocr, the
swevis.render.ocr protocol) and, when the `tesseract` program is installed (Debian
tesseract-ocr), by tesseract as an independent second reader (its line numbers dropped
the same way). Prints per font and size the median realized ratio at r3's page shape and the
median accuracy of each reader; then per font the guard: the smallest size whose median
accuracy is at least `--threshold` for the project's reader (and for tesseract, if run).

    nice .venv/bin/python benchmarks/bench_legibility.py [--windows 2] [--sizes 5.5 6 6.5 7]
        [--fonts "DejaVu Sans Mono" /usr/share/fonts/truetype/hack/Hack-Regular.ttf] [--line-height 1.2]
        [--threshold 0.93] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from swevis.analysis.single_read_windows import package_windows
from swevis.render import RenderSettings, prepare_lines, render_window
from swevis.render.ocr import char_accuracy, ocr_page_accuracy
from swevis.render.raster import visible_rows

PACKAGES = ["jinja2", "docker", "snakemake", "swebench", "polars", "pygments"]  # none is a SWE-bench repository
DEBIAN_FONTS = [
    "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoMono-Regular.ttf",
    "/usr/share/fonts/truetype/hack/Hack-Regular.ttf",
    "/usr/share/fonts/truetype/jetbrains-mono/JetBrainsMono-Regular.ttf",
    "/usr/share/fonts/truetype/inconsolata/Inconsolata.otf",
    "/usr/share/fonts/fonts-go/Go-Mono.ttf",
]
GUTTER = re.compile(r"^\s*(\d+|\u21aa)\s+")


def tesseract_accuracy(result, text: str, page: int) -> float | None:
    """tesseract's reading of one whole page (--psm 6, one block of text), each line's leading
    line number or continuation mark dropped, against the page's code text; None without it."""
    if shutil.which("tesseract") is None:
        return None
    plan = result.plan
    lines = prepare_lines(text)
    ref = "\n".join(r[plan.gutter :] for c in range(len(plan.page_columns[page]))
                    for r in visible_rows(lines, result.start_line, plan, page, c))
    with tempfile.TemporaryDirectory() as tmp:
        png = Path(tmp) / "page.png"
        result.pages[page].save(png)
        out = subprocess.run(["tesseract", str(png), "-", "--psm", "6"], capture_output=True, text=True, timeout=300)
    hyp = "\n".join(GUTTER.sub("", line) for line in out.stdout.splitlines())
    return char_accuracy(ref, hyp)


def measure(fonts: list[str], sizes: list[float], windows: list[dict], line_height: float) -> list[dict]:
    rows = []
    for name in fonts:
        settings = RenderSettings.from_config({"font": name, "line_height": line_height})
        for size in sizes:
            t0 = time.perf_counter()
            ratios, rapid, tess = [], [], []
            for w in windows:
                res = render_window(w["path"], w["start_line"], w["text"], 3.0, "qwen3", "qwen3.5", settings,
                                    fonts=[size], guard=0.0)
                ratios.append(res.layout["realized_ratio"])
                rapid.append(ocr_page_accuracy(res, w["text"], 0))
                second = tesseract_accuracy(res, w["text"], 0)
                if second is not None:
                    tess.append(second)
            rows.append({"font": Path(name).stem if "/" in name else name, "size_px": size, "windows": len(windows),
                         "realized_ratio": statistics.median(ratios), "rapidocr": statistics.median(rapid),
                         "tesseract": statistics.median(tess) if tess else None, "seconds": time.perf_counter() - t0})
            r = rows[-1]
            tess_s = "-" if r["tesseract"] is None else f"{r['tesseract']:.3f}"
            print(f"| {r['font']} | {size:g} | {r['realized_ratio']:.2f}x | {r['rapidocr']:.3f} | {tess_s} | {r['seconds']:.0f} s |",
                  flush=True)
    return rows


def guards(rows: list[dict], threshold: float) -> dict[str, dict[str, float | None]]:
    """Per font and reader: the smallest size whose median accuracy reaches the threshold."""
    out: dict[str, dict[str, float | None]] = {}
    for font in dict.fromkeys(r["font"] for r in rows):
        mine = sorted((r for r in rows if r["font"] == font), key=lambda r: r["size_px"])
        out[font] = {reader: next((r["size_px"] for r in mine if (r[reader] or 0) >= threshold), None)
                     for reader in ("rapidocr", "tesseract")}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--windows", type=int, default=2)
    ap.add_argument("--sizes", type=float, nargs="+", default=[5.5, 6.0, 6.5, 7.0])
    ap.add_argument("--fonts", nargs="+", default=None, help="font names or files (default: DejaVu and the Debian fonts found)")
    ap.add_argument("--line-height", type=float, default=1.2)
    ap.add_argument("--threshold", type=float, default=0.93)
    ap.add_argument("--seed", type=int, default=20260519)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    fonts = args.fonts or ["DejaVu Sans Mono", *[f for f in DEBIAN_FONTS if Path(f).is_file()]]
    windows = package_windows(PACKAGES, 100, args.windows, args.seed)
    print(f"{len(windows)} windows of 100 lines from {sorted({w['source'] for w in windows})}; line pitch "
          f"{args.line_height} x size; qwen3.5 pages at r3's shape; second reader: "
          f"{'tesseract' if shutil.which('tesseract') else 'none installed'}")
    print("| font | size px | realized ratio (median) | rapidocr (median) | tesseract (median) | time |")
    print("|---|---|---|---|---|---|")
    rows = measure(fonts, args.sizes, windows, args.line_height)
    found = guards(rows, args.threshold)
    print(f"\nguard per font (smallest size with median accuracy >= {args.threshold}):")
    for font, g in found.items():
        print(f"- {font}: rapidocr {g['rapidocr'] or 'none of the sizes'}, tesseract {g['tesseract'] or 'none of the sizes'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "guards": found, "threshold": args.threshold}, indent=2))


if __name__ == "__main__":
    main()
