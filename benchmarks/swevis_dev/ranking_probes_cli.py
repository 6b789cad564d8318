"""benchmarks/ranking_probes.py: each probe of swevis_dev.ranking_probes against the shipped
re-ranker's features re-fitted listwise, every repository ranked by a fit without it, on the
cases `swevis devset measure` and `history` stored."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from swevis.arguments import OneLineParser, add_config_argument, input_folder, positive_int
from swevis.errors import SwevisError

PROBES = ("files", "recency", "trees", "dense", "literals")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser, " whose `devset` section gives the paths")
    parser.add_argument("--out", help="the folder `swevis devset measure` and `history` wrote (default: devset.work)")
    parser.add_argument("--mirrors", help="folder of <owner>+<name>/repo clones (default: devset.mirrors)")
    parser.add_argument("--probes", nargs="+", choices=PROBES, default=list(PROBES), help="the probes to run (default: all)")
    parser.add_argument("--dense-every", type=positive_int, default=3, help="the dense probe embeds 1 case in N (default 3)")


def run(args: argparse.Namespace) -> int:
    from swevis.config import load_user_config
    from swevis.localize.devset.caselists import read_cases
    from swevis.localize.devset.features import View, case_matrix
    from swevis.localize.devset.scoring import KS
    from swevis.localize.devset.runner import load_results
    from swevis.localize.devset.settings import DevsetSettings
    from swevis.localize.rerank import default_model, history_depth

    s = DevsetSettings.of(load_user_config(args.config)[0])
    out = input_folder(args.out or s.work, "work folder")
    mirrors = input_folder(args.mirrors or s.mirrors, "clones folder")
    cases = {c["case_id"]: c for c in read_cases(s.files)}
    results = load_results(out, set(cases))
    names = tuple(default_model()["features"])
    depth = history_depth(default_model())  # the past commits the shipped model's history counts
    mats = [case_matrix(r, cases[r["case_id"]], out, mirrors, depth) for r in results]
    views = [View(r, m, 0) for r, m in zip(results, mats)]
    print(f"{len(results)} cases; symbol hit at k = {'/'.join(map(str, KS))} (any gold hunk), held out by repository")
    return run_probes(args, results, views, mats, names, cases, out, mirrors, depth)


def run_probes(args, results, views, mats, names, cases, out: Path, mirrors: Path, depth: int) -> int:
    import numpy as np

    from swevis_dev.ranking_probes import TAU, dense_stage, hits, literal_recall, recency_column, trees
    from swevis.localize.devset.crossval import held_out, linear
    from swevis.localize.devset.features import ALL_NAMES, View
    from swevis.localize.devset.scoring import KS
    from swevis.localize.devset.variants import EXPAND

    cols = [ALL_NAMES.index(n) for n in names]
    ref_rows, reference = held_out(results, views, lambda r, v: v.m[:, cols], linear(names))
    print(f"  {'reference: the shipped features, listwise':<58}{hits(ref_rows)}", flush=True)
    if "files" in args.probes:
        wide = [View(r, m, EXPAND) for r, m in zip(results, mats)]
        rows, _ = held_out(results, wide, lambda r, v: v.m[:, cols], linear(names))
        print(f"  {f'files: + the definitions of the {EXPAND} best files':<58}{hits(rows)}", flush=True)
    if "recency" in args.probes:
        recency = {r["case_id"]: recency_column(out, r, v.cands, depth) for r, v in zip(results, views)}  # once, not per fold
        rows, _ = held_out(results, views, lambda r, v: np.hstack([v.m[:, cols], recency[r["case_id"]]]),
                           linear((*names, "recency")))
        print(f"  {f'recency: + changes decayed over {TAU} commits':<58}{hits(rows)}", flush=True)
    if "trees" in args.probes:
        try:
            rows, _ = held_out(results, views, lambda r, v: v.m[:, cols], trees)
            print(f"  {'trees: LightGBM lambdarank, the same features':<58}{hits(rows)}", flush=True)
        except ImportError:
            print("  trees: skipped, LightGBM is not installed (pip install lightgbm)")
    if "dense" in args.probes:
        try:
            ref_sample, rows = dense_stage(results, views, reference, cases, out, mirrors, args.dense_every)
            print(f"  {f'dense: reference on 1 case in {args.dense_every} ({len(rows) // len(KS)})':<58}{hits(ref_sample)}")
            print(f"  {'dense: + MiniLM cosine over its top 20':<58}{hits(rows)}", flush=True)
        except RuntimeError as exc:
            print(f"  dense: skipped, {exc}")
    if "literals" in args.probes:
        try:
            print("literals: " + json.dumps(literal_recall(results, cases, out, mirrors)))
        except RuntimeError as exc:
            raise SwevisError(str(exc)) from None
    return 0


def main(argv: list[str] | None = None) -> int:
    """The script's entry: a bad argument or input is one line on stderr and exit 2, as
    `swevis`'s own subcommands do."""
    parser = OneLineParser(prog="ranking_probes.py", description=__doc__)
    add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error already printed as one line
        return int(exc.code or 0)
    try:
        return run(args)
    except SwevisError as exc:
        print(f"ranking_probes.py: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
