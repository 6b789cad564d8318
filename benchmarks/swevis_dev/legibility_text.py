"""Legibility of non-code text (test logs, tracebacks, listings), measured like code.

What an agent re-sends is mostly not code: test output, tracebacks, directory listings. Each
text of `--texts` (default: the project's own fixtures in benchmarks/fixtures/noncode/, written
for this, no real project's output) is rendered the way the frontier renders a code window:
the study's renderer settings, one backbone's accounting (qwen3.5), the cheapest layout at each
forced font size (guard off), plain text (no lexer matches a .txt name), line numbers from 1.
Every page is read whole at send resolution by each installed reader (rapidocr; Tesseract
upscaled, swevis.render.tesseract) with swevis.render.ocr's protocol (text without the gutter).
`--code-windows N` adds N 100-line code windows of packages outside SWE-bench as the baseline.
Prints per text and size the realized ratio and each reader's accuracy (a text's pages pooled
by characters), and per size and kind the median over texts with a page counted at its lowest
reader ("both").

    nice .venv/bin/python benchmarks/bench_legibility_text.py [--sizes 5.75 6.5 7] [--texts FILE ...]
        [--code-windows 3] [--backbone qwen3.5] [--cache-dir .swevis-cache/ocr] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from swevis.analysis.single_read_windows import package_windows
from swevis.render import RenderSettings, render_window
from swevis.render.ocr import OcrCache, available_readers, ocr_page_accuracy

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "noncode"
PACKAGES = ["jinja2", "docker", "snakemake", "swebench", "polars", "pygments"]  # none is a SWE-bench repository
BACKBONES = {"qwen3.5": ("qwen3", "qwen3.5"), "kimi-k2.5": ("qwen3", "kimi-k2.5")}


def texts_of(paths: list[Path], code_windows: int, seed: int) -> list[dict]:
    """The texts to read: {kind, name, path, start_line, text}; a fixture's kind is its stem."""
    out = [{"kind": p.stem, "name": p.name, "path": p.name, "start_line": 1, "text": p.read_text()} for p in paths]
    for w in package_windows(PACKAGES, 100, code_windows, seed) if code_windows else []:
        out.append({"kind": "code", "name": f"{w['source']}:{w['start_line']}", "path": w["path"],
                    "start_line": w["start_line"], "text": w["text"]})
    return out


def read_text(item: dict, size: float, backbone: str, settings: RenderSettings, readers: list[str],
              cache: OcrCache | None = None) -> dict:
    """One text at one font size: every page drawn and read by each reader; a reader's accuracy
    is the mean over the text's pages (one page for the fixtures at these sizes)."""
    tok, fam = BACKBONES[backbone]
    res = render_window(item["path"], item["start_line"], item["text"], 1e6, tok, fam, settings, fonts=[size], guard=0.0)
    accs = {}
    for reader in readers:
        accs[reader] = statistics.fmean(ocr_page_accuracy(res, item["text"], p, cache, reader) for p in range(len(res.pages)))
    return {"kind": item["kind"], "name": item["name"], "size_px": size, "pages": len(res.pages),
            "lines": len(item["text"].splitlines()), "realized_ratio": res.layout["realized_ratio"],
            **accs, "both": min(accs.values())}


def summary(rows: list[dict], readers: list[str]) -> list[dict]:
    """Per font size and kind (and 'all non-code'): the median of each reader and of both."""
    out = []
    for size in sorted({r["size_px"] for r in rows}):
        sel = [r for r in rows if r["size_px"] == size]
        groups = {k: [r for r in sel if r["kind"] == k] for k in dict.fromkeys(r["kind"] for r in sel)}
        groups["all non-code"] = [r for r in sel if r["kind"] != "code"]
        for kind, mine in groups.items():
            if mine:
                out.append({"size_px": size, "kind": kind, "texts": len(mine),
                            **{x: statistics.median(r[x] for r in mine) for x in [*readers, "both"]}})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=float, nargs="+", default=[5.75, 6.5, 7.0])
    ap.add_argument("--texts", type=Path, nargs="+", default=None, help="text files (default: benchmarks/fixtures/noncode/*.txt)")
    ap.add_argument("--code-windows", type=int, default=0, help="code windows of packages outside SWE-bench, as a baseline")
    ap.add_argument("--backbone", choices=sorted(BACKBONES), default="qwen3.5")
    ap.add_argument("--seed", type=int, default=20260519)
    ap.add_argument("--json", default=None)
    ap.add_argument("--cache-dir", default=".swevis-cache/ocr", help="OCR words kept by page content (single_read.ocr.cache_dir)")
    args = ap.parse_args()
    cache = OcrCache(args.cache_dir) if args.cache_dir else None
    items = texts_of(args.texts or sorted(FIXTURES.glob("*.txt")), args.code_windows, args.seed)
    readers = available_readers()
    settings = RenderSettings.from_config({})
    print(f"{len(items)} texts; readers: {', '.join(readers)}; {args.backbone} accounting, cheapest layout per size")
    print(f"| text | size px | pages | realized ratio | {' | '.join(readers)} | both | time |")
    print("|---|---|---|---|" + "---|" * len(readers) + "---|---|")
    rows = []
    for size in args.sizes:
        for item in items:
            t0 = time.perf_counter()
            rows.append(read_text(item, size, args.backbone, settings, readers, cache))
            r = rows[-1]
            print(f"| {r['name']} | {size:g} | {r['pages']} | {r['realized_ratio']:.2f}x | "
                  + " | ".join(f"{r[x]:.3f}" for x in readers) + f" | {r['both']:.3f} | {time.perf_counter() - t0:.0f} s |",
                  flush=True)
    print(f"\n| size px | kind | texts | {' | '.join(f'{x} (median)' for x in readers)} | both (median) |")
    print("|---|---|---|" + "---|" * len(readers) + "---|")
    for s in summary(rows, readers):
        print(f"| {s['size_px']:g} | {s['kind']} | {s['texts']} | " + " | ".join(f"{s[x]:.3f}" for x in [*readers, "both"]) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "summary": summary(rows, readers)}, indent=2))
