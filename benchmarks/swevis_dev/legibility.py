"""Legibility at small sizes, per font: OCR accuracy of whole pages at send resolution.

Each candidate font (render.font: DejaVu Sans Mono, and the monospace fonts of Debian
packages when installed: fonts-liberation, fonts-noto-mono, fonts-hack, fonts-jetbrains-mono,
fonts-inconsolata, fonts-go) renders `--windows` 100-line windows of installed packages that
are not SWE-bench repositories (`--packages`, by default the frontier's: jinja2, docker,
snakemake, swebench, polars, pygments; swevis_dev.tesseract_reader.PACKAGES are tuning windows the
frontier does not read) at
each forced font size (guard off), with line pitch `--line-height` x the size. Page 1 of each
render is read whole, as sent (no upscaling), by the project's reader (rapidocr, the
swevis.render.ocr protocol) and, when the `tesseract` program is installed (Debian
tesseract-ocr), by Tesseract as an independent second reader (swevis.render.tesseract: the
page prepared as tesseract.READ says, the same protocol). Each font is drawn in each of `--modes`: words joined by '+', aa (FreeType's hinted
greyscale), bilevel (hinted, one bit a pixel), super (drawn at 4x, box-filtered down: no
hinting at send size), mono (no syntax colours), grid (rows on the 32-px merged-patch grid),
stroke<px> (bolder strokes), lh<x> (line pitch x size). Prints per font, mode and size the
cell area (advance x line pitch, px^2: what a character costs), the median realized ratio at
r3's page shape and the median accuracy of each reader; then per font and mode the guard: the
smallest size from which every measured size reads at least `--threshold` (median).
`--write-guards TABLE` merges those guards into a copy of the renderer's table: TABLE if it
exists (so runs add up), else the shipped one (src/swevis/data/legibility_guards.json, read by
swevis.render.guards). TABLE is never inside the package: the shipped table changes only by a
reviewed copy of TABLE (docs/single-read.md, "The guard table").

    nice .venv/bin/python benchmarks/bench_legibility.py [--windows 2] [--sizes 5.5 6 6.5 7]
        [--fonts "DejaVu Sans Mono" /usr/share/fonts/truetype/hack/Hack-Regular.ttf] [--line-height 1.2]
        [--modes aa super super+lh1.1 bilevel+mono] [--threshold 0.93] [--no-tesseract | --no-rapidocr] [--json OUT]
        [--packages click httpx]
        [--write-guards benchmarks/out/legibility_guards.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import swevis
from swevis.analysis.single_read_windows import VERIFIED_PACKAGES, package_windows
from swevis.errors import SwevisError
from swevis.render import RenderSettings, render_window
from swevis.render.core import MissingGlyphs
from swevis.render.guards import DRAWING_KEYS, drawing_key, font_key, guard_table, smallest_clearing
from swevis.render import tesseract
from swevis.render.ocr import ocr_page_accuracy, protocol

PACKAGES = ["jinja2", "docker", "snakemake", "swebench", "polars", "pygments"]  # none is a SWE-bench repository
DEBIAN_FONTS = [
    "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoMono-Regular.ttf",
    "/usr/share/fonts/truetype/hack/Hack-Regular.ttf",
    "/usr/share/fonts/truetype/jetbrains-mono/JetBrainsMono-Regular.ttf",
    "/usr/share/fonts/truetype/inconsolata/Inconsolata.otf",
    "/usr/share/fonts/fonts-go/Go-Mono.ttf",
]


def tesseract_accuracy(result, text: str, page: int) -> float | None:
    """Tesseract's reading of one whole page (swevis.render.tesseract.READ),
    scored by swevis.render.ocr's protocol; None where the program is not installed."""
    if not tesseract.available():
        return None
    return ocr_page_accuracy(result, text, page, None, "tesseract")


MODE_WORDS = {
    "aa": {"font_mode": "antialias"},
    "bilevel": {"font_mode": "bilevel"},
    "super": {"font_mode": "supersample"},
    "bicubic": {"font_mode": "supersample-bicubic"},
    "mono": {"highlight": False},
    "grid": {"rows_on_patch_grid": True},
}


def mode_settings(mode: str, line_height: float) -> dict:
    """A mode name -> render settings: words joined by '+', each of MODE_WORDS, `stroke<px>`
    (render.stroke_px) or `lh<x>` (render.line_height), e.g. 'bilevel+mono+lh1.1'."""
    out: dict = {"line_height": line_height}
    for word in mode.split("+"):
        if word in MODE_WORDS:
            out.update(MODE_WORDS[word])
        elif word.startswith("stroke"):
            out["stroke_px"] = float(word.removeprefix("stroke"))
        elif word.startswith("lh"):
            out["line_height"] = float(word.removeprefix("lh"))
        else:
            raise SystemExit(f"unknown mode word {word!r} (known: {', '.join(MODE_WORDS)}, stroke<px>, lh<x>)")
    return out


def measure(fonts: list[str], sizes: list[float], windows: list[dict], line_height: float,
            modes: list[str] = ("aa",), second: bool = True, first: bool = True) -> list[dict]:
    rows = []
    for name in fonts:
        for mode in modes:
            rows += measure_font(name, mode, sizes, windows, line_height, second, first)
    return rows


def measure_font(name: str, mode: str, sizes: list[float], windows: list[dict], line_height: float,
                 second: bool = True, first: bool = True) -> list[dict]:
    """One font in one mode at each size (a size the font cannot draw, e.g. a bitmap font off
    its strike, is reported and skipped)."""
    rows = []
    settings = RenderSettings.from_config({"font": name, **mode_settings(mode, line_height)})
    for size in sizes:
        t0 = time.perf_counter()
        ratios, rapid, tess, cell = [], [], [], 0.0
        try:
            for w in windows:
                res = render_window(w["path"], w["start_line"], w["text"], 3.0, "qwen3", "qwen3.5", settings,
                                    fonts=[size], guard=0.0)
                ratios.append(res.layout["realized_ratio"])
                cell = res.plan.advance * res.plan.line_px
                if first:
                    rapid.append(ocr_page_accuracy(res, w["text"], 0))
                other = tesseract_accuracy(res, w["text"], 0) if second else None
                if other is not None:
                    tess.append(other)
        except (OSError, MissingGlyphs) as exc:  # FreeType: no strike of this size; a glyph no font draws
            print(f"| {font_label(name)} | {mode} | {size:g} | cannot draw: {exc} |", flush=True)
            continue
        rows.append({"font": font_label(name), "mode": mode, "size_px": size, "windows": len(windows),
                     "cell_px2": cell, "realized_ratio": statistics.median(ratios),
                     "rapidocr": statistics.median(rapid) if rapid else None,
                     "rapidocr_min": min(rapid) if rapid else None, "tesseract": statistics.median(tess) if tess else None,
                     "seconds": time.perf_counter() - t0})
        r = rows[-1]
        shown = {k: "-" if r[k] is None else f"{r[k]:.3f}" for k in ("rapidocr", "rapidocr_min", "tesseract")}
        print(f"| {r['font']} | {mode} | {size:g} | {cell:.1f} | {r['realized_ratio']:.2f}x | {shown['rapidocr']} "
              f"| {shown['rapidocr_min']} | {shown['tesseract']} | {r['seconds']:.0f} s |", flush=True)
    return rows


def font_label(name: str) -> str:
    return Path(name).name.split(".")[0] if "/" in name else name


def guards(rows: list[dict], threshold: float) -> dict[str, dict[str, float | None]]:
    """Per font and mode and reader: the smallest size whose median accuracy reaches the
    threshold, and the best realized ratio among the sizes that reach it."""
    out: dict[str, dict[str, float | None]] = {}
    for key in dict.fromkeys((r["font"], r.get("mode", "aa")) for r in rows):
        mine = sorted((r for r in rows if (r["font"], r.get("mode", "aa")) == key), key=lambda r: r["size_px"])
        ok = [r for r in mine if (r["rapidocr"] or 0) >= threshold]
        out[" / ".join(key)] = {
            **{reader: smallest_reading(mine, reader, threshold) for reader in ("rapidocr", "tesseract")},
            "best_ratio": max((r["realized_ratio"] for r in ok), default=None),
        }
    return out


def smallest_reading(rows: list[dict], reader: str, threshold: float) -> float | None:
    """The guard one reader's rows justify (swevis.render.guards.smallest_clearing)."""
    return smallest_clearing({r["size_px"]: r[reader] for r in rows}, threshold)


def check_guard_table_path(path: Path) -> None:
    """A benchmark never writes package data: the guard table it writes lies outside src/swevis."""
    package = Path(swevis.__file__).resolve().parent
    if path.resolve().is_relative_to(package):
        raise SystemExit(f"--write-guards: {path} is inside the swevis package; write the table elsewhere "
                         "(benchmarks/out/legibility_guards.json), review it, and copy it over in a commit")


def write_guards(path: Path, fonts: list[str], args, rows: list[dict]) -> None:
    """Merge this run's guards into a copy of the renderer's table (swevis.render.guards): one
    row per font and way of drawing, replacing a row of the same key, keeping the others."""
    table = json.loads(path.read_text()) if path.is_file() else json.loads(json.dumps(guard_table()))
    if table.get("threshold", args.threshold) != args.threshold:
        raise SystemExit(f"{path} holds guards at threshold {table['threshold']}, not {args.threshold}")
    new = []
    for name in fonts:
        for mode in args.modes:
            s = RenderSettings.from_config({"font": name, **mode_settings(mode, args.line_height)})
            mine = sorted((r for r in rows if r["font"] == font_label(name) and r["mode"] == mode),
                          key=lambda r: r["size_px"])
            if not mine:
                continue
            guard = smallest_reading(mine, "rapidocr", args.threshold)
            new.append({**{k: getattr(s, k) for k in DRAWING_KEYS}, "font": font_key(name), "min_font_px": guard,
                        "measured": {str(r["size_px"]): round(r["rapidocr"], 3) for r in mine},
                        "cell_px2": {str(r["size_px"]): round(r["cell_px2"], 1) for r in mine},
                        "windows": len(args.window_list), "date": time.strftime("%Y-%m-%d", time.gmtime())})
    keys = {drawing_key(r) for r in new}
    if len(keys) < len(new):
        raise SystemExit("two modes of this run draw the same way; name each way of drawing once")
    table["rows"] = [r for r in table["rows"] if drawing_key(r) not in keys] + new
    table.update({"threshold": args.threshold, "reader": protocol(), "packages": args.packages, "seed": args.seed,
                  "written_by": "benchmarks/bench_legibility.py --write-guards"})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(table, indent=1) + "\n")
    print(f"wrote {len(new)} guard row(s) to {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--windows", type=int, default=2)
    ap.add_argument("--sizes", type=float, nargs="+", default=[5.5, 6.0, 6.5, 7.0])
    ap.add_argument("--fonts", nargs="+", default=None, help="font names or files (default: DejaVu and the Debian fonts found)")
    ap.add_argument("--line-height", type=float, default=1.2)
    ap.add_argument("--modes", nargs="+", default=["aa"],
                    help="drawing modes, words joined by '+': aa, bilevel, super, bicubic, mono, grid, stroke<px>, lh<x>")
    ap.add_argument("--threshold", type=float, default=0.93)
    ap.add_argument("--seed", type=int, default=20260519)
    ap.add_argument("--no-tesseract", action="store_true", help="skip the second reader (Tesseract, upscaled)")
    ap.add_argument("--no-rapidocr", action="store_true", help="Tesseract alone (no guards can be written)")
    ap.add_argument("--packages", nargs="+", default=PACKAGES, help="installed packages the windows come from")
    ap.add_argument("--json", default=None)
    ap.add_argument("--write-guards", default=None, metavar="TABLE",
                    help="merge the guards into this copy of the renderer's table (made from the shipped one if "
                         "missing; never a file of the package: the shipped table is replaced by a reviewed copy)")
    args = ap.parse_args()
    if args.write_guards:
        check_guard_table_path(Path(args.write_guards))
    if args.write_guards and args.packages != PACKAGES:
        raise SystemExit(f"--write-guards: the renderer's table is measured on {' '.join(PACKAGES)}; leave --packages out")
    bad = sorted(set(args.packages) & VERIFIED_PACKAGES)
    if bad:
        raise SystemExit(f"--packages: {', '.join(bad)} are SWE-bench Verified repositories (never measured on)")
    fonts = args.fonts or ["DejaVu Sans Mono", *[f for f in DEBIAN_FONTS if Path(f).is_file()]]
    try:
        windows = package_windows(args.packages, 100, args.windows, args.seed)
    except SwevisError as exc:  # a package that is not installed: one line
        raise SystemExit(str(exc)) from None
    print(f"{len(windows)} windows of 100 lines from {sorted({w['source'] for w in windows})}; line pitch "
          f"{args.line_height} x size; qwen3.5 pages at r3's shape; second reader: "
          f"{'tesseract' if tesseract.available() else 'none installed'}")
    print("| font | mode | size px | cell px^2 | realized ratio (median) | rapidocr (median) | rapidocr (min) "
          "| tesseract (median) | time |")
    print("|---|---|---|---|---|---|---|---|---|")
    if args.no_rapidocr and (args.write_guards or args.no_tesseract):
        raise SystemExit("--no-rapidocr: the guards are rapidocr's, and some reader must read")
    rows = measure(fonts, args.sizes, windows, args.line_height, args.modes, not args.no_tesseract, not args.no_rapidocr)
    found = guards(rows, args.threshold)
    print(f"\nguard per font (smallest size with median accuracy >= {args.threshold}):")
    for font, g in found.items():
        best = "-" if g["best_ratio"] is None else f"{g['best_ratio']:.2f}x"
        print(f"- {font}: rapidocr {g['rapidocr'] or 'none of the sizes'} (best ratio there {best}), "
              f"tesseract {g['tesseract'] or 'none of the sizes'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "guards": found, "threshold": args.threshold}, indent=2))
    if args.write_guards:
        args.window_list = windows
        write_guards(Path(args.write_guards), fonts, args, rows)
