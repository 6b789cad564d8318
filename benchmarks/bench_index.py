"""Index benchmark: this tree's index against an earlier revision's, on one checkout, in one run.

For each version of the code (`--before REV`, exported with `git archive`, and this worktree's
src or `--after REV`) it measures in fresh subprocesses, the two versions' runs interleaved so machine load
hits both alike: the CPU seconds of a cold build (median of `--repeat`), the peak RSS of that
process, the database's size, and the CPU seconds of updating an index of a second version of
the repository to this one (median of `--repeat`) (`--second DIR`; without it, a copy of the checkout with
`--edit` files edited stands in), and whether that update's rows equal the cold build's.
CPU seconds are what to compare on a loaded machine; wall times are not reported.

    .venv/bin/python benchmarks/bench_index.py CHECKOUT [--second DIR] [--before REV] [--json out.json]
    .venv/bin/python benchmarks/bench_index.py --mirror GIT_DIR [--months 4] [--repeat 1]

--mirror measures a full-history clone (a bare git directory, e.g. django's as the search
tool's `fetch` brings it: /work/.mirror/swe-bench+django__django/repo): its newest commit is
the checkout, and the last first-parent commit at least `--months` older is the second version
(an update across months of real history, not edited copies). Nothing here reaches the network;
without CHECKOUT or a clone at --mirror it says so and exits.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# the last revision before ids in path order, row copying and the one-pass query
BEFORE = "52450dd"
TABLES = ("files", "symbols", "edges", "targets", "attrs", "chunks", "dirs", "has_file", "bm25_docs", "doc_tokens", "units")

STEP = r"""
import json, resource, sys, time
from swevis.index import build_index
repo, db, force = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
c = time.process_time()
s = build_index(repo, db, force=force)
print(json.dumps({"cpu": time.process_time() - c, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "mode": s.mode, "parsed": s.files_parsed, "files": s.n_files, "timings": s.timings}))
"""


def step(src: Path, repo: Path, db: Path, force: bool) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, "-c", STEP, str(repo), str(db), "1" if force else "0"],
                         capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def export_rev(rev: str, into: Path) -> Path:
    """`src` of revision `rev` under `into`, with `schemas/` for revisions that kept the
    config schema there (before it moved into the package's data)."""
    into.mkdir(parents=True)
    has_schemas = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{rev}:schemas"], capture_output=True).returncode == 0
    paths = ["src", "schemas"] if has_schemas else ["src"]
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, *paths], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into / "src"


def edited_copy(src: Path, dst: Path, n: int) -> Path:
    """A second version of the checkout: `n` of its Python files (spread over the tree) edited."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".git", "__pycache__"))
    files = sorted(dst.rglob("*.py"))
    for p in files[:: max(1, len(files) // max(n, 1))][:n]:
        text = p.read_text(encoding="utf-8", errors="replace")
        p.write_text(text + f"\n\ndef _bench_added_{p.stem.replace('-', '_')}(value):\n    return value\n")
    return dst


def lay_out(git_dir: Path, rev: str, dest: Path) -> Path:
    """The tree of `rev` in `git_dir` as plain files under `dest` (blobs a snapshot lacks skipped)."""
    dest.mkdir(parents=True)
    env = {**os.environ, "GIT_INDEX_FILE": str(dest) + ".gitindex"}
    subprocess.run(["git", "--git-dir", str(git_dir), "--work-tree", str(dest), "read-tree", "-u", "--reset", rev],
                   check=True, capture_output=True, env=env)
    return dest


def from_mirror(git_dir: Path, months: int, work: Path) -> tuple[Path, Path, str]:
    """(newest checkout, checkout `months` older, description) of a full-history clone."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "--git-dir", str(git_dir), *args], check=True, capture_output=True,
                              text=True).stdout.strip()

    head, when = git("log", "-1", "--format=%H %cI", "HEAD").split()
    older = git("rev-list", "-1", "--first-parent", f"--before={when[:10]} -{months} months", "HEAD")
    if not older:
        raise SystemExit(f"bench_index: {git_dir} has no commit {months} months before {when[:10]}")
    old_when = git("log", "-1", "--format=%cI", older)
    changed = len(git("diff", "--name-only", older, head, "--", "*.py").splitlines())
    name = git_dir.parent.name
    repo = lay_out(git_dir, head, work / "new" / name)
    second = lay_out(git_dir, older, work / "old" / name)
    return repo, second, f"{name} {head[:10]} ({when[:10]}), update from {older[:10]} ({old_when[:10]}, {changed} .py files differ)"


def same_rows(a: Path, b: Path) -> bool:
    cons = [sqlite3.connect(a), sqlite3.connect(b)]
    try:
        present = [{r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} for con in cons]
        if present[0] != present[1]:
            return False
        return all(
            cons[0].execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall()
            == cons[1].execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall()
            for t in TABLES if t in present[0]  # an older schema has fewer tables
        )
    finally:
        for con in cons:
            con.close()


def measure(versions: dict[str, Path], repo: Path, old: Path, work: Path, repeat: int) -> dict[str, dict]:
    res = {name: {"cold": []} for name in versions}
    for i in range(repeat):
        for name, src in versions.items():
            r = step(src, repo, work / f"{name}-cold.sqlite", True)
            res[name]["cold"].append(r)
    for name, src in versions.items():
        step(src, old, work / f"{name}-old.sqlite", True)
        res[name]["updates"] = []
    for i in range(repeat):  # as many updates as cold builds, interleaved likewise: the median is reported
        for name, src in versions.items():
            upd = work / f"{name}-update.sqlite"
            shutil.copyfile(work / f"{name}-old.sqlite", upd)
            res[name]["updates"].append(step(src, repo, upd, False))
    for name in versions:
        ups = sorted(res[name]["updates"], key=lambda r: r["cpu"])
        res[name]["update"] = ups[len(ups) // 2]
        res[name]["db_mb"] = (work / f"{name}-cold.sqlite").stat().st_size / 1e6
        res[name]["same"] = same_rows(work / f"{name}-update.sqlite", work / f"{name}-cold.sqlite")
    return res


def report(res: dict[str, dict], repo: Path) -> list[tuple]:
    def row(label, get, fmt="{:.2f}"):
        b, a = get(res["before"]), get(res["after"])
        ratio = f"{a / b:.2f}" if isinstance(a, float) and b else ""
        return (label, fmt.format(b), fmt.format(a), ratio)

    cold = res["after"]["cold"][0]
    rows = [
        row("cold CPU s (median)", lambda r: statistics.median(x["cpu"] for x in r["cold"])),
        row("cold peak RSS MB", lambda r: max(x["rss_mb"] for x in r["cold"]), "{:.0f}"),
        row("database MB", lambda r: r["db_mb"], "{:.1f}"),
        row("update CPU s (median)", lambda r: r["update"]["cpu"]),
        row("update: files parsed", lambda r: r["update"]["parsed"], "{}"),
        row("update rows == cold rows", lambda r: r["same"], "{}"),
    ]
    print(f"index benchmark on {repo} ({cold['files']} files); {len(res['after']['cold'])} cold builds and updates"
          " per version")
    print(f"{'':28s} {'before':>10s} {'after':>10s} {'after/before':>13s}")
    for label, b, a, ratio in rows:
        print(f"{label:28s} {b:>10s} {a:>10s} {ratio:>13s}")
    for name in ("before", "after"):
        cold_cpu = statistics.median(x["cpu"] for x in res[name]["cold"])
        print(f"{name}: update / cold CPU = {res[name]['update']['cpu'] / cold_cpu:.2f}")
    for name in ("before", "after"):
        print(f"{name}, cold build phases (s; _cpu: CPU s): {res[name]['cold'][0]['timings']}")
        print(f"{name}, update phases (s; _cpu: CPU s): {res[name]['update']['timings']}")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkout", nargs="?", help="repository checkout to index (a django checkout, say)")
    ap.add_argument("--second", help="another version of the same repository, for the update (default: an edited copy)")
    ap.add_argument("--edit", type=int, default=20, help="files edited in the stand-in second version")
    ap.add_argument("--before", default=BEFORE, help=f"revision to compare against (default {BEFORE})")
    ap.add_argument("--after", help="revision to measure instead of this worktree's src")
    ap.add_argument("--repeat", type=int, default=3, help="cold builds and updates per version")
    ap.add_argument("--json", help="also write the measurements here")
    ap.add_argument("--mirror", help="a full-history bare clone: measure its newest commit, update from an older one")
    ap.add_argument("--months", type=int, default=4, help="with --mirror: how much older the second version is")
    args = ap.parse_args()
    if args.mirror and not Path(args.mirror, "HEAD").is_file():
        print(f"bench_index: skipped: no git clone at {args.mirror} (bring one with the search tool's fetch;"
              " nothing is downloaded here)")
        return 0
    if not args.checkout and not args.mirror:
        print("bench_index: skipped: give a repository checkout or --mirror GIT_DIR to index (nothing is downloaded)")
        return 0
    with tempfile.TemporaryDirectory(prefix="swevis-bench-index-") as d:
        work = Path(d)
        if args.mirror:
            repo, old, what = from_mirror(Path(args.mirror).resolve(), args.months, work)
            print(f"bench_index: {what}")
        else:
            repo = Path(args.checkout).resolve()
            if not repo.is_dir():
                print(f"bench_index: {repo} is not a folder", file=sys.stderr)
                return 2
            old = Path(args.second).resolve() if args.second else edited_copy(repo, work / "second" / repo.name, args.edit)
        after = export_rev(args.after, work / "after") if args.after else ROOT / "src"
        versions = {"before": export_rev(args.before, work / "before"), "after": after}
        res = measure(versions, repo, old, work, args.repeat)
        rows = report(res, repo)
    if args.json:
        Path(args.json).write_text(json.dumps({"repo": str(repo), "before": args.before, "results": res,
                                               "table": rows}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
