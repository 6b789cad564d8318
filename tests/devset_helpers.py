"""Helpers of the development-set tests (tests/localize/test_devset_*.py, the ranking probes and
the devset workflow): small git histories, their bare remotes and clones, and stored case
results shaped as `swevis devset measure` writes them."""

from __future__ import annotations

import csv
import os
from pathlib import Path

from helpers import FIXTURES, git

from swevis.localize.devset.caselists import CaseFiles
from swevis.localize.devset.features import ALL_NAMES


def commit_files(repo: Path, files: dict[str, str], message: str, date: str = "2024-05-01T12:00:00") -> str:
    """Write `files` (path -> text) and commit them all at `date`; the new commit's hash."""
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A")
    os.environ["GIT_COMMITTER_DATE"] = os.environ["GIT_AUTHOR_DATE"] = date
    try:
        git(repo, "commit", "-q", "-m", message)
    finally:
        del os.environ["GIT_COMMITTER_DATE"], os.environ["GIT_AUTHOR_DATE"]
    return git(repo, "rev-parse", "HEAD")


def merge_pr(repo: Path, number: int, files: dict[str, str], title: str, message: str,
             date: str = "2024-05-02T12:00:00") -> str:
    """A pull request merged with a "Merge pull request #N" commit; the merge's hash."""
    git(repo, "checkout", "-q", "-b", f"pr{number}")
    commit_files(repo, files, message, date)
    git(repo, "checkout", "-q", "main")
    os.environ["GIT_COMMITTER_DATE"] = os.environ["GIT_AUTHOR_DATE"] = date
    try:
        git(repo, "merge", "-q", "--no-ff", f"pr{number}", "-m", f"Merge pull request #{number} from me/pr{number}\n\n{title}")
    finally:
        del os.environ["GIT_COMMITTER_DATE"], os.environ["GIT_AUTHOR_DATE"]
    return git(repo, "rev-parse", "HEAD")


def new_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    return path


def publish(work: Path, remotes: Path, folder: str) -> Path:
    """A bare copy of `work` at REMOTES/<owner>/<name>.git, as `swevis devset fetch` finds it
    for the mirror folder `<owner>+<name>`."""
    bare = remotes / (folder.replace("+", "/", 1) + ".git")
    bare.parent.mkdir(parents=True, exist_ok=True)
    git(work.parent, "clone", "-q", "--bare", str(work), str(bare))
    return bare


def case_files(folder: Path) -> CaseFiles:
    """Case lists in `folder` (made by the test) checked against the real Verified ids."""
    folder.mkdir(parents=True, exist_ok=True)
    return CaseFiles(folder, FIXTURES / "swebench" / "verified_ids.csv")


def write_list(path: Path, rows: list[dict]) -> Path:
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return path


def stored_result(repo: str, case: str, gold_first: bool) -> dict:
    """A stored case result: two candidates with evidence, one added from a best file (c[6] = 1);
    the gold symbol is `f` (quoted in its body: body_quote 1) or the added `h`."""
    names = list(ALL_NAMES)

    def row(heur, quote):
        return [heur if n == "heuristic" else quote if n == "body_quote" else 0.0 for n in names]

    cands = [["a.py", "f", "function", 1, 2, 1.0, 0], ["a.py", "g", "function", 4, 5, 1.0, 0],
             ["a.py", "h", "function", 7, 8, 1.0, 1]]
    gold = "f" if gold_first else "h"
    return {"case_id": case, "repo": repo, "text_kind": "issue" if case[-1] in "02468" else "commit-message",
            "features": names, "x": [row(0.5, 1.0 if gold == "f" else 0.0), row(1.0, 0.0),
                                     row(0.0, 1.0 if gold == "h" else 0.0)],
            "y": [float(c[1] == gold) for c in cands], "candidates": cands, "gold_symbols": [["a.py", [gold]]],
            "dloc": {"file": [["a.py", None, None, None]], "symbol": [["a.py", "g", 4, 5]]}}


def random_results(seed: int, n: int = 36) -> list[dict]:
    """`n` stored results over 3 repositories with every feature stored, drawn from a seeded
    generator: cases varied enough that each variant's fit differs (the pinned numbers of
    tests/localize/test_devset_crossval.py were measured on them by the scripts the package
    replaced)."""
    import random

    rng = random.Random(seed)
    out = []
    for i in range(n):
        cands = [["m%d.py" % rng.randrange(3), f"f{j}", "function", 4 * j + 1, 4 * j + 3, round(rng.random(), 6),
                  rng.choice([0, 0, 0, 1, 3])] for j in range(rng.randint(3, 9))]
        y = [0.0] * len(cands)
        y[rng.randrange(len(cands))] = 1.0
        x = [[round(rng.random(), 6) if rng.random() < 0.7 else 0.0 for _ in ALL_NAMES] for _ in cands]
        for row, label in zip(x, y):  # the gold reads a little more like the issue
            row[ALL_NAMES.index("body_quote")] += 0.5 * label
        gold = [[c[0], [c[1]]] for c, label in zip(cands, y) if label]
        out.append({"case_id": f"c{i:02d}", "repo": f"o/r{i % 3}", "text_kind": "issue" if i % 2 else "commit-message",
                    "features": list(ALL_NAMES), "x": x, "y": y, "candidates": cands, "gold_symbols": gold,
                    "dloc": {"file": [[p, None, None, None] for p in ("m0.py", "m1.py", "m2.py")],
                             "symbol": [[c[0], c[1], c[3], c[4]] for c in cands]}})
    return out


CALC = {
    "add": "def add(a, b):\n    return a {op} b\n",
    "mean": "def mean(values):\n    total = add(sum(values), 0)\n    return total / {den}\n",
    "scale": "def scale(values, factor):\n    return [v * {factor} for v in values]\n",
    "clamp": "def clamp(x, low, high):\n    return max(low, min(x, {hi}))\n",
}
# (function, its buggy and fixed placeholder, the squashed fix's message): every fix names the
# function's symptom so D_loc finds it among the others
CALC_FIXES = [
    ("add", ("-", "+"), "Fix add subtracting its arguments instead of adding them (#{n})"),
    ("mean", ("2", "len(values)"), "Fix mean dividing by 2 instead of the number of values (#{n})"),
    ("scale", ("factor + 1", "factor"), "Fix scale multiplying by factor + 1 (#{n})"),
    ("clamp", ("low", "high"), "Fix clamp ignoring the high bound (#{n})"),
]


def calc_history(work: Path, module: str, first_pr: int) -> Path:
    """A small library whose history is four squashed fixes, one a function."""
    new_repo(work)
    state = {name: bug for name, (bug, _fix), _msg in CALC_FIXES}

    def source() -> str:
        keys = {"add": "op", "mean": "den", "scale": "factor", "clamp": "hi"}
        return "\n\n".join(CALC[name].format(**{keys[name]: state[name]}) for name in CALC)

    commit_files(work, {f"{module}/__init__.py": "", f"{module}/ops.py": source()}, "initial", "2024-01-01T12:00:00")
    for i, (name, (_bug, fix), message) in enumerate(CALC_FIXES):
        state[name] = fix
        commit_files(work, {f"{module}/ops.py": source()}, message.format(n=first_pr + i), f"2024-02-0{i + 1}T12:00:00")
    return work
