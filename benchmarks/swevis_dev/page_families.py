"""The page families on recorded trajectories: prompt-token and cache-aware-bill savings of
text, r3, obs-r3 and hist-r3 under each hist policy, keep and block (config agents.pages),
with each family's ceiling and the share of it realized.

Fetches nothing: it takes folders of trajectories (any format `swevis replay` reads), each
reported as one set. docs/counterfactual.md (Page families) says which public trajectories
its numbers come from and how they were selected.

    .venv/bin/python benchmarks/bench_page_families.py DIR [DIR ...] [--model qwen3.5]
        [--ratio 3] [--hist transcript:2:4,outputs:2:4] [--base text,r{r},obs-r{r}] [--mask 5,5:4,5:4+hist]
        [--obs-run-chars N] [--hist-run-chars N]
        [--hist-min-font-px PX] [--cached-price 0.2] [--jobs 2]

--hist lists the hist settings to try, each policy:keep:block (agents.pages.hist_policy,
hist_keep, hist_block); --hist "" tries none. --mask lists the maskings to try (none by
default): `M` is mask-kM (naive), `M:B` maskb-kM in frozen blocks of B calls
(agents.pages.mask_block), `M:B+hist` maskb-kM+hist-r{ratio} (hist's blocks of B calls over the
masked history; the other hist settings as configured). --obs-run-chars sets agents.pages.obs_run_chars
for the base conditions (0: every line of a text run on its pages), --hist-run-chars
agents.pages.hist_run_chars for the hist settings (0: every line of a block on its pages),
--hist-min-font-px their agents.pages.hist_min_font_px (5.75: the code windows' guard).

The bill is the prompt's part of the cache-aware spend (swevis.counterfactual.cache) with the
input price 1 and the cached input price --cached-price (default 0.2: the qwen family's
documented discount); output tokens are the same in every condition and are left out.
Each ratio is pooled over a set: the text condition's total over the condition's.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from swevis.config import load_config
from swevis.conditions import Condition
from swevis.counterfactual.ceiling import ceiling_ratio, ceiling_table
from swevis.counterfactual.formats import trajectory_files
from swevis.counterfactual.replay import recorded_costs

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def _replay(job: tuple[str, list[str], dict[str, Any], str, dict[str, Any], dict[str, Any]]) -> list[dict[str, Any]]:
    """Per-call records of one trajectory under `conditions` with agents.pages = pages."""
    path, conditions, pages, model, profile, cfg = job
    agents = {**cfg["agents"], "pages": pages}
    rows, steps, _ = recorded_costs(path, conditions, model_name=model, profile=profile, agents_cfg=agents,
                                    render_cfg=cfg["single_read"].get("render", {}),
                                    prompt_cache=cfg["counterfactual"]["prompt_cache"])
    return [{**s, "trajectory": path, "truncated": rows[0]["truncated"]} for s in steps]  # the ceiling counts them


def _all(pool: ProcessPoolExecutor, files: list[str], conditions: list[str], pages: dict[str, Any], model: str,
         profile: dict[str, Any], cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """The per-call records of every trajectory of a set under `conditions`."""
    jobs = [(f, conditions, pages, model, profile, cfg) for f in files]
    return [s for part in pool.map(_replay, jobs) for s in part]


def _settings(args: argparse.Namespace) -> list[dict[str, Any]]:
    out = []
    cut = {key: getattr(args, key) for key in ("hist_run_chars", "hist_min_font_px") if getattr(args, key, None) is not None}
    for item in filter(None, args.hist.split(",")):
        policy, keep, block = item.split(":")
        out.append({"hist_policy": policy, "hist_keep": int(keep), "hist_block": int(block), **cut})
    return out


def _maskings(args: argparse.Namespace) -> list[tuple[str, dict[str, Any], str]]:
    """(condition, agents.pages, label) of each --mask item."""
    out = []
    for item in filter(None, args.mask.split(",")):
        spec, _, family = item.partition("+")
        keep, _, block = spec.partition(":")
        if not block:
            out.append((f"mask-k{keep}", {}, f"M={keep}"))
            continue
        pages = {"mask_block": int(block), **({"hist_block": int(block)} if family else {})}
        shown = f"+hist-r{args.ratio}" if family else ""
        out.append((f"maskb-k{keep}{shown}", pages, f"M={keep} B={block}"))
    return out


def _table(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    conditions = list(dict.fromkeys(s["condition"] for s in steps))
    return ceiling_table(steps, {c: ceiling_ratio(Condition.parse(c)) for c in conditions})


def _line(name: str, setting: str, r: dict[str, Any]) -> str:
    def x(v: float | None) -> str:
        return "-" if v is None else f"{v:.3f}x"

    def pct(v: float | None) -> str:
        return "-" if v is None else f"{v:.1%}"

    return (f"{name:<14} {r['condition']:<16} {setting:<22} {x(r['reduction']):>8} {x(r['family_ceiling_reduction']):>8} "
            f"{pct(r['family_realized_share']):>8}  {x(r['bill_reduction']):>8} {x(r['family_ceiling_bill_reduction']):>8} "
            f"{pct(r['family_bill_realized_share']):>8}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", help="folders of trajectories, one set each")
    parser.add_argument("--model", default="qwen3.5")
    parser.add_argument("--ratio", default="3")
    parser.add_argument("--hist", default="transcript:2:4,outputs:2:4", help="policy:keep:block, comma-separated")
    parser.add_argument("--base", default="text,r{r},obs-r{r}",
                        help="the conditions replayed once per set ({r}: --ratio); text is needed")
    parser.add_argument("--obs-run-chars", type=int, help="agents.pages.obs_run_chars (default: as configured)")
    parser.add_argument("--hist-run-chars", type=int, help="agents.pages.hist_run_chars (default: as configured)")
    parser.add_argument("--hist-min-font-px", type=float, help="agents.pages.hist_min_font_px (default: as configured)")
    parser.add_argument("--mask", default="", help="M (mask-kM), M:B (maskb-kM, mask_block B) or M:B+hist, comma-separated")
    parser.add_argument("--cached-price", type=float, default=0.2)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    cfg = load_config(PROJECT_ROOT / "config.yaml")
    profile = {**cfg["models"][args.model], "cost_per_1k_prompt": 1.0, "cost_per_1k_cached_prompt": args.cached_price,
               "cost_per_1k_completion": 0.0}
    r = args.ratio
    fixed = {} if args.obs_run_chars is None else {"obs_run_chars": args.obs_run_chars}
    base = [c.strip().format(r=r) for c in args.base.split(",")]
    print(f"accounted as {args.model} (prefix cache {profile.get('prompt_cache')}), bill: input 1, cached input "
          f"{args.cached_price}; pooled over each set")
    print(f"{'set':<14} {'cond':<16} {'setting':<22} {'prompt':>8} {'ceiling':>8} {'realized':>8}  {'bill':>8} "
          f"{'ceiling':>8} {'realized':>8}")
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for folder in args.dirs:
            files = [str(p) for p in trajectory_files(folder, None)]
            name = f"{Path(folder).name} ({len(files)})"
            steps = _all(pool, files, base, fixed, args.model, profile, cfg)
            for row in _table(steps):
                print(_line(name, "-", row), flush=True)
            text = [s for s in steps if s["condition"] == "text"]
            for s in _settings(args):
                label = f"{s['hist_policy']} K={s['hist_keep']} B={s['hist_block']}"
                for row in _table(text + _all(pool, files, [f"hist-r{r}"], s, args.model, profile, cfg)):
                    print(_line(name, label, row), flush=True)
            for condition, pages, label in _maskings(args):
                replayed = _all(pool, files, [condition], {**fixed, **pages}, args.model, profile, cfg)
                for row in _table(text + replayed):
                    print(_line(name, label, row), flush=True)
    print(f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0
