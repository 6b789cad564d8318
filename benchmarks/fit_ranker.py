"""Fit D_loc's symbol re-ranker (swevis.localize.rerank) on gold patches, and estimate it
leave-one-case-out.

Every case is an issue text, its repository and its gold patch. A candidate symbol is a
positive when a gold hunk touches it (swevis.localize.coverage.gold_symbols). The script

1. collects every case's candidate features once (swevis.localize.dloc.issue_evidence);
2. for each case, fits on all the others and ranks that case with D_loc: the mean of these
   leave-one-case-out hit rates is the estimate of how the fitted ranker does on an issue it
   was not fitted on (the in-sample numbers beside it are optimistic);
3. fits on every case and, with --write, stores the weights with the cases, the L2 strength
   and both estimates in src/swevis/data/ranker_weights.json.

The shipped weights no longer come from here: they are fitted on the mined development set of
real fixes and issues (benchmarks/eval_devset.py cv --write), 1,518 cases from the 12
repositories of SWE-bench Verified, rather than on these 42 small cases; --write would replace
them. This script stays for the small sets' leave-one-case-out and blind measurements.

    .venv/bin/python benchmarks/fit_ranker.py [--l2 1.0] [--exclude SET ...] [--write | --out FILE]
    .venv/bin/python benchmarks/fit_ranker.py [--exclude SET ...] --blind SET

The cases are the bundled sample (src/swevis/data/sample/instances) and every held-out set
(benchmarks/heldout_localization*/) but those named by --exclude and --blind. --blind SET fits
without SET and measures it once: D_loc re-ranked, D_loc with the heuristic alone, and BM25
alone. That is how a new held-out set is spent: on a fit that never saw it. The two sets
spent so far, as they were:

    fit_ranker.py --exclude heldout_localization_3 --blind heldout_localization_2   (18 cases)
    fit_ranker.py --blind heldout_localization_3                                    (30 cases)
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from swevis.localize.coverage import gold_symbols
from swevis.analysis.localization import evaluate_instance, load_sample_instances, summarize
from swevis.localize.dloc import issue_evidence
from swevis.localize.rerank import FEATURES, fit, vector

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_localize import SAMPLE, case_index, heldout_rows, heldout_sets, measure  # noqa: E402

OUT = ROOT / "src" / "swevis" / "data" / "ranker_weights.json"
KS = (1, 3, 5, 10)
LEVELS = ("file", "symbol", "span")


def set_name(name: str) -> str:
    """A held-out set's folder name as given on the command line (a path, a trailing slash)."""
    known = {f.name for f in heldout_sets()}
    base = Path(name).name
    if base not in known:
        raise SystemExit(f"no held-out set {name!r}: expected one of {', '.join(sorted(known))}")
    return base


def training_rows(exclude: list[str] = ()) -> list[dict]:
    """The bundled sample and every held-out set not excluded (by folder name)."""
    exclude = {set_name(x) for x in exclude}
    rows = load_sample_instances(SAMPLE)
    for folder in heldout_sets():
        if folder.name not in exclude:
            rows += heldout_rows(folder)
    return rows


def case_matrix(index, row: dict) -> tuple[np.ndarray, np.ndarray, int]:
    """(X, y, gold symbols no candidate matched) of one case."""
    sc, feats = issue_evidence(index, row["problem_statement"])
    gold = {(p, q) for p, names in gold_symbols(index, row["patch"]) for q in names}
    sids = sorted(feats)
    x = np.array([vector(feats[sid]) for sid in sids]).reshape(len(sids), len(FEATURES))
    keys = [(sc.syms[sid].path, sc.syms[sid].qualname) for sid in sids]
    y = np.array([1.0 if key in gold else 0.0 for key in keys])
    # a property and its setter share a qualified name: both are positives, one gold symbol
    return x, y, len(gold - set(keys))


def model_of(weights: np.ndarray, bias: float) -> dict:
    return {"features": list(FEATURES), "weights": [round(float(w), 6) for w in weights], "bias": round(bias, 6)}


def table(per_case_rows: list[dict]) -> dict[str, float]:
    """{"symbol@5": mean hit rate, ...} of D_loc over evaluate_instance rows (summarize's means)."""
    return {f"{r['level']}@{r['k']}": r["dloc"] for r in summarize(per_case_rows)}


def blind(folder: Path, model: dict) -> None:
    """One measurement of a held-out set the model was not fitted on: symbol/file/span hit@k of
    D_loc re-ranked by `model`, of D_loc's heuristic alone, and of BM25 alone, per case too."""
    rows = heldout_rows(folder)
    with tempfile.TemporaryDirectory(prefix="fit-ranker-blind-") as tmp:
        learned_sum, learned = measure(rows, Path(tmp), {"ranker": "learned"}, model=model)
        heuristic_sum, heuristic = measure(rows, Path(tmp), {"ranker": "heuristic"})
    print(f"\nblind: {folder.name} ({len(rows)} cases), a model fitted without it")
    print(f"{'':>10} | {'re-ranked':>9} | {'heuristic':>9} | {'BM25':>6}")
    lt = {(r["k"], r["level"]): r for r in learned_sum}
    ht = {(r["k"], r["level"]): r for r in heuristic_sum}
    for k in KS:
        for level in LEVELS:
            print(f"{level + '@' + str(k):>10} | {lt[(k, level)]['dloc']:>9.3f} | {ht[(k, level)]['dloc']:>9.3f} | "
                  f"{lt[(k, level)]['bm25']:>6.3f}")
    print("symbol hit@5 per case (re-ranked / heuristic / BM25):")
    pick = {(r["instance_id"]): r for r in heuristic if r["k"] == 5 and r["level"] == "symbol"}
    for r in learned:
        if r["k"] == 5 and r["level"] == "symbol":
            h = pick[r["instance_id"]]
            print(f"  {r['instance_id']:<28} {r['dloc']:.2f} / {h['dloc']:.2f} / {r['bm25']:.2f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--l2", type=float, default=1.0, help="L2 strength on the weights (the bias is not shrunk)")
    ap.add_argument("--exclude", nargs="+", default=[], metavar="SET", help="held-out set folders not to fit on")
    ap.add_argument("--write", action="store_true", help=f"write the model fitted on every case to {OUT}")
    ap.add_argument("--out", type=Path, help="write the model fitted on every case to this file instead")
    ap.add_argument("--blind", help="a held-out set folder under benchmarks/ to measure with the model fitted here")
    args = ap.parse_args(argv)

    rows = training_rows(args.exclude + ([args.blind] if args.blind else []))
    with tempfile.TemporaryDirectory(prefix="fit-ranker-") as tmp:
        opened: dict = {}
        indexes = [case_index(row, Path(tmp), opened) for row in rows]
        mats = [case_matrix(ix, r) for ix, r in zip(indexes, rows)]
        print(f"{len(rows)} cases, {sum(len(m[1]) for m in mats)} candidate symbols, "
              f"{int(sum(m[1].sum() for m in mats))} of them positive; {sum(m[2] for m in mats)} gold symbols are no candidate")
        loo = []
        for i, (ix, row) in enumerate(zip(indexes, rows)):
            w, b = fit([(m[0], m[1]) for j, m in enumerate(mats) if j != i], l2=args.l2)
            loo.extend(evaluate_instance(ix, row, ks=KS, model=model_of(w, b)))
        model = model_of(*fit([(m[0], m[1]) for m in mats], l2=args.l2))
        fitted = [r for ix, row in zip(indexes, rows) for r in evaluate_instance(ix, row, ks=KS, model=model)]
        for idx in opened.values():
            idx.close()

    est_loo, est_in = table(loo), table(fitted)
    print(f"\n{'':>10} | {'leave-one-case-out':>18} | {'in-sample':>9}")
    for k in KS:
        for level in LEVELS:
            key = f"{level}@{k}"
            print(f"{key:>10} | {est_loo[key]:>18.3f} | {est_in[key]:>9.3f}")
    for prefix in sorted({r["instance_id"].split("__")[0] for r in rows}):
        part = [r for r in loo if r["instance_id"].startswith(prefix + "__")]
        t = table(part)
        print(f"leave-one-case-out, {prefix} ({len({r['instance_id'] for r in part})}): file@5 {t['file@5']:.3f}, "
              f"symbol@1 {t['symbol@1']:.3f}, symbol@5 {t['symbol@5']:.3f}, span@5 {t['span@5']:.3f}")
    print("symbol misses at k=5 (leave-one-case-out):",
          ", ".join(r["instance_id"] for r in loo if r["k"] == 5 and r["level"] == "symbol" and r["dloc"] < 1.0)
          or "none")
    print("\nweights:")
    for name, weight in zip(FEATURES, model["weights"]):
        print(f"  {name:>15} {weight:+.3f}")
    print(f"  {'bias':>15} {model['bias']:+.3f}")

    if args.blind:
        folder = ROOT / "benchmarks" / set_name(args.blind)
        overlap = {r["instance_id"] for r in rows} & {r["instance_id"] for r in heldout_rows(folder)}
        if overlap:  # cannot happen by construction; a blind number must never rest on it
            raise SystemExit(f"the fit saw blind cases: {sorted(overlap)}")
        blind(folder, model)
    if args.write or args.out:
        model.update({
            "fitted_on": [r["instance_id"] for r in rows],
            "l2": args.l2,
            "fitted": dt.date.today().isoformat(),
            "leave_one_case_out": est_loo,
            "in_sample": est_in,
            "how": "benchmarks/fit_ranker.py --write" + (" --exclude " + " ".join(args.exclude) if args.exclude else ""),
            "args": ["--l2", str(args.l2)] + (["--exclude", *args.exclude] if args.exclude else []),
        })
        out = args.out or OUT
        out.write_text(json.dumps(model, indent=1) + "\n")
        print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
