"""Render a code window to PNG pages and print its token accounting.

    swevis render FILE --lines A-B --ratio R --model qwen3.5 -o DIR [--ocr]

--model is a model profile of config.yaml (its tokenizer and image family are used) or an
image family of swevis.tokens (its record's default tokenizer is used).
"""

from __future__ import annotations

import argparse
import json
import re

from swevis.arguments import add_config_argument, output_folder, positive_float
from swevis.conditions import ratio_arg
from swevis.errors import SwevisError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="source file to render")
    parser.add_argument("--lines", default=None, help="line range A-B (1-based, inclusive); default: whole file")
    parser.add_argument("--ratio", type=ratio_arg, default=3.0, help="nominal compression ratio r (budget = text tokens / r): 3, 2.5 or r3")
    parser.add_argument("--model", default="qwen3.5", help="model profile from --config, or an image family")
    parser.add_argument("--tokenizer", default=None, help="override the text tokenizer (qwen3, cl100k_base, ...)")
    parser.add_argument("--family", default=None, help="override the image-token family")
    add_config_argument(parser, " for model profiles and renderer settings")
    parser.add_argument("--min-font", type=positive_float, default=None, help="override the readability guard (px)")
    parser.add_argument("-o", "--out", default=None, help="folder for the PNG pages and layout.json")
    parser.add_argument("--ocr", action="store_true", help="also OCR one strip per page (rapidocr, slow)")
    parser.add_argument("--json", action="store_true", help="print the layout record as JSON")


def _parse_lines(spec: str | None) -> tuple[int, int | None]:
    if spec is None:
        return 1, None
    m = re.fullmatch(r"\s*(\d+)\s*(?:[-:]\s*(\d+)\s*)?", spec)
    if not m:
        raise SwevisError(f"--lines must look like A-B, got {spec!r}")
    a = int(m.group(1))
    b = int(m.group(2)) if m.group(2) else a
    if a < 1 or b < a:
        raise SwevisError(f"--lines {spec}: need 1 <= A <= B")
    return a, b


def run(args: argparse.Namespace) -> int:
    if args.out:
        output_folder(args.out, "-o/--out")
    from swevis.config import load_user_config
    from swevis.render import RenderSettings, read_window, render_window, save_pages
    from swevis.tokens import FAMILIES

    cfg, config_name = load_user_config(args.config)
    profiles = cfg["models"]
    if args.model in profiles:
        family = profiles[args.model]["image_family"]
        tokenizer = profiles[args.model]["tokenizer"]
    elif args.model in FAMILIES:
        family = args.model
        tokenizer = FAMILIES[family].default_tokenizer
    else:
        known = sorted(set(profiles) | set(FAMILIES))
        raise SwevisError(f"--model {args.model!r} is neither a profile in {config_name} nor a family; known: {', '.join(known)}")
    family = args.family or family
    tokenizer = args.tokenizer or tokenizer
    render_cfg = dict(cfg.get("single_read", {}).get("render", {}))
    if args.min_font is not None:
        render_cfg["min_font_px"] = args.min_font
    settings = RenderSettings.from_config(render_cfg)
    start, end = _parse_lines(args.lines)
    text = read_window(args.file, start, end)
    res = render_window(args.file, start, text, args.ratio, tokenizer, family, settings)
    L = res.layout
    files = save_pages(res, args.out) if args.out else []
    if args.ocr:
        from swevis.render.ocr import ocr_page_accuracy

        L["ocr_accuracy_per_page"] = [round(ocr_page_accuracy(res, text, i), 4) for i in range(len(res.pages))]
    if args.json:
        print(json.dumps(dict(L, files=files), indent=2))
        return 0
    print(f"{args.file}:{L['start_line']}-{L['end_line']} ({L['lines']} lines), r={L['ratio']:g}, family {family}")
    print(f"  text tokens    {L['text_tokens']:>7}   counted by {L['counted_by']}")
    print(f"  budget B       {L['budget']:>7.1f}   = text tokens / r")
    print(
        f"  image tokens   {L['image_tokens']:>7}   {L['pages']} page(s) {', '.join(f'{a}x{b}' for a, b in L['page_sizes'])}"
        f" (wrapper tokens included; c0 = {L['message_overhead_c0']} per message not included)"
    )
    print(f"  realized ratio {L['realized_ratio']:>7.2f}   font {L['font_px']:g}px, wrap {L['wrap']}, {L['columns']} column(s)")
    flags = [k for k in ("guard_bound", "floor_bound") if L[k]]
    print(f"  guard          {L['guard_px']:>7g}px  {'(' + ', '.join(flags) + ')' if flags else ''}")
    if args.ocr:
        print(f"  OCR accuracy   {L['ocr_accuracy_per_page']}")
    for f in files:
        print(f"  wrote {f}")
    return 0
