"""The clones and each case's inputs, outside the repository: what `measure` reads.

`fetch_mirrors` brings (or updates) the bare clones the cases need: their repositories' and
the one that copies the SWE-bench issue rows. `prepare` writes, for every case of the
lists, OUT/cases/<id>/{problem_statement.md, patch.diff, meta.json}: a real issue's problem
statement and patch from its SWE-bench row, a mined fix's text and diff from its commit, a
polyglot repository's real issue its text from GitHub (swevis.localize.devset.polyissues) and
its diff from the commit that fixed it. A case already prepared is left as it is (a rerun
resumes).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

from swevis.errors import SwevisError

from swevis.fsutil import write_atomic
from swevis.localize.coverage import gold_files
from swevis.localize.devset.caselists import FIELDS, GITHUB_ISSUE, ISSUE_ROWS
from swevis.localize.devset.gitio import clone_path, fetch_clone, git
from swevis.localize.devset.mining import commit_case, issue_row

log = logging.getLogger(__name__)


def clone_folders(cases: list[dict]) -> list[str]:
    """The clones the cases need: their repositories' and, for SWE-bench's real issues, the
    issue rows'."""
    issues = any(c["text_kind"] == "issue" and c["source"] != GITHUB_ISSUE for c in cases)
    return sorted({c["mirror"] for c in cases} | ({ISSUE_ROWS["mirror"]} if issues else set()))


def fetch_mirrors(mirrors: Path, remote: str, folders: list[str]) -> dict[str, str]:
    """Clone (or update) the `<owner>+<name>` folders' repositories; {folder: its HEAD commit}."""
    heads = {}
    for folder in folders:
        clone = fetch_clone(remote, folder, mirrors)
        heads[folder] = git(clone, "rev-parse", "HEAD").strip()
        log.info("%s: %s at %s", folder, clone, heads[folder][:10])
    return heads


def prepare(cases: list[dict], mirrors: Path, out: Path, rows: dict = ISSUE_ROWS,
            issue_text: Callable[[dict], str] | None = None) -> int:
    """Each case's text, gold diff and meta under OUT/cases/<id>/; returns how many were written.
    `issue_text` gives a GitHub issue case's text (polyissues.issue_texts)."""
    written = 0
    for case in cases:
        cdir = out / "cases" / case["case_id"]
        if (cdir / "meta.json").exists():
            continue
        if case["source"] == GITHUB_ISSUE:
            if issue_text is None:
                raise SwevisError(f"{case['case_id']}: a GitHub issue, and no issue texts given (API or --issue-texts)")
            paths, _message, patch = commit_case(clone_path(mirrors, case["mirror"]), case)
            text = issue_text(case)
        elif case["text_kind"] == "issue":
            row = issue_row(mirrors, case["case_id"], rows)
            text, patch = row["problem_statement"], row["patch"]
            paths = gold_files(patch)
        else:
            paths, text, patch = commit_case(clone_path(mirrors, case["mirror"]), case)
        write_atomic(cdir / "problem_statement.md", text + "\n")
        write_atomic(cdir / "patch.diff", patch)
        meta = {"instance_id": case["case_id"], **{k: case[k] for k in FIELDS if k != "case_id"},
                **({"language": case["language"]} if case.get("language") else {}), "gold_files": paths}
        write_atomic(cdir / "meta.json", json.dumps(meta, indent=1))  # last: it marks the case prepared
        written += 1
    log.info("%d cases prepared under %s (%d already were)", written, out / "cases", len(cases) - written)
    return written
