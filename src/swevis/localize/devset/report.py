"""The development set's tables, printed: hit@k of the release's D_loc and BM25, the variants
held out by repository, where symbol hit@5 is lost, and hit@k of the small and dev-split cases.
"""

from __future__ import annotations

from swevis.localize.devset.scoring import KS, LOST, TOP, mean


def print_release(rows: list[dict], measure: str) -> None:
    """Pooled and per-repository hit@k of D_loc (the release's) and BM25 (`measure`: "any"
    gold hit, or the "share" of gold hit)."""
    print(f"\n{measure} of gold hit at k = {'/'.join(map(str, KS))}, D_loc (release) | BM25")
    print(f"{'repository':<28}{'n':>5}  {'file':^23}  {'symbol':^23}  {'span':^23}")
    repos = sorted({r["repo"] for r in rows})
    kinds = sorted({r["kind"] for r in rows})
    for repo in [*repos, *(f"all: {k}" for k in kinds if len(kinds) > 1), "all"]:
        sel = [r for r in rows if repo in ("all", r["repo"], f"all: {r['kind']}")]
        n = len({r["case"] for r in sel})
        cells = []
        for level in ("file", "symbol", "span"):
            d = "/".join(f"{100 * mean([r[measure] for r in sel if r['method'] == 'dloc' and r['level'] == level and r['k'] == k]):.0f}" for k in KS)
            b = mean([r[measure] for r in sel if r["method"] == "bm25" and r["level"] == level and r["k"] == 5])
            cells.append(f"{d:>15} |{100 * b:>3.0f}@5")
        print(f"{repo:<28}{n:>5}  " + "  ".join(cells))


def hit_line(rows: list[dict]) -> str:
    """Symbol hit at every k in %: any gold hunk | share of gold hunks."""
    a = "/".join(f"{100 * mean([x['any'] for x in rows if x['k'] == k]):.1f}" for k in KS)
    s = "/".join(f"{100 * mean([x['share'] for x in rows if x['k'] == k]):.1f}" for k in KS)
    return f"{a:>24} | {s}"


def print_variants(table: dict[str, list[dict]], best: str, n_cases: int, same: int) -> None:
    """The release against every variant measured, pooled and by text kind; where the chosen
    one and the release lose symbol hit@5; and both per held-out repository."""
    print(f"the release weights over the stored features rank {same} of {n_cases} cases' top {TOP} symbols"
          " exactly as the run's release D_loc did")
    print(f"\nsymbol hit at k = {'/'.join(map(str, KS))} (any gold hunk | share of gold hunks), "
          f"{n_cases} cases, leave-one-repository-out for every re-fit")
    kinds = sorted({x["kind"] for x in table["release"]})
    for name, rows in table.items():
        print(f"  {name:<34} {hit_line(rows)}")
        for kind in kinds if len(kinds) > 1 else ():
            sel = [x for x in rows if x["kind"] == kind]
            print(f"    {kind} ({len(sel) // len(KS)}){'':<{max(0, 27 - len(kind))}}{hit_line(sel)}")
    print(f"\nchosen by held-out symbol hit@5: {best}")
    print_lost(table, ["release", best])
    print(f"\n{'held-out repository':<28}{'n':>5}  {'release':>24}   {best} (CV)")
    for repo in sorted({x["repo"] for x in table["release"]}):
        rel = [x for x in table["release"] if x["repo"] == repo]
        cv = [x for x in table[best] if x["repo"] == repo]
        print(f"{repo:<28}{len(rel) // len(KS):>5}  {hit_line(rel).split(' | ')[0]:>24}   {hit_line(cv).split(' | ')[0]}")


def print_lost(table: dict, names: list[str], k: int = 5) -> None:
    """Where symbol hit@k is lost, per method: shares of the cases, pooled and per repository."""
    print(f"\nwhere symbol hit@{k} is lost (% of cases; files: the release's top {k})")
    keys = list(LOST)
    print(f"{'method / held-out repository':<34}{'n':>5}{'hit':>6}" + "".join(f"{c[:11]:>12}" for c in keys))
    for name in names:
        rows = [x for x in table[name] if x["k"] == k and x["any"] == x["any"]]
        for repo in ["all", *sorted({x["repo"] for x in rows})]:
            sel = [x for x in rows if repo in ("all", x["repo"])]
            cells = "".join(f"{100 * sum(x['lost'] == c for x in sel) / len(sel):>12.1f}" for c in keys)
            label = name if repo == "all" else f"  {repo}"
            print(f"{label[:34]:<34}{len(sel):>5}{100 * mean([x['any'] for x in sel]):>6.1f}{cells}")
    print("  " + "; ".join(f"{c}: {v}" for c, v in LOST.items()))


def print_hits(title: str, summary: list[dict], per: list[dict]) -> None:
    """hit@k of D_loc / BM25 per level (swevis.localize.evaluation's summary) and the cases
    whose symbol hit@5 is below 1."""
    n = summary[0]["n_instances"] if summary else 0
    print(f"\n{title} ({n} instances): hit@k, D_loc / BM25 only")
    print(f"{'k':>3} | {'file':>13} | {'symbol':>13} | {'span':>13}")
    by = {(r["k"], r["level"]): r for r in summary}
    for k in KS:
        cells = [f"{by[(k, lv)]['dloc']:.3f} / {by[(k, lv)]['bm25']:.3f}" for lv in ("file", "symbol", "span")]
        print(f"{k:>3} | " + " | ".join(f"{c:>13}" for c in cells))
    misses = [r["instance_id"] for r in per if r["k"] == 5 and r["level"] == "symbol" and r["dloc"] < 1.0]
    print(f"symbol misses at k=5: {', '.join(misses) if misses else 'none'}")
