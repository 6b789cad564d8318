"""Building the case lists from the clones: real fixes mined from the 12 SWE-bench Verified
repositories' histories, and real issue texts outside Verified.

`mine` walks each repository's first-parent history and keeps every fix that

- is a merged pull request (a "Merge pull request #N" commit, or a squashed "... (#N)"
  commit) whose text says it fixes something, or, for django, a "Fixed #T -- ..." commit;
- changes one to three existing, non-test Python source files (at most 120 lines: the gold,
  like SWE-bench's `patch`; test, doc and new files are left out of it);
- is not a SWE-bench Verified instance's fix: the pull request number N of
  `<owner>__<name>-N` in the Verified ids is refused; django's commits carry no number, so
  only those before caselists.DJANGO_BEFORE are taken.

It keeps the newest `per_repo` fixes of each repository (close in history, so one index per
repository is updated from case to case instead of built cold). Their "issue" is issue-like,
not an issue: the commit message (a merged pull request's title and its commits' messages),
which often names what the fix changed, so every number on them is reported apart from real
issue texts (`text_kind` = commit-message).

`list_issues` adds real issue texts (`text_kind` = issue): the SWE-bench test-split rows
outside Verified among the 570 that Devin was evaluated on, as a public repository copies
them (caselists.ISSUE_ROWS: one data.json a row). Their ids are SWE-bench instance ids, whose
number is the fix's pull request, so the same Verified check holds.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from pathlib import Path

from swevis.errors import SwevisError
from swevis.index.languages import Language, registered
from swevis.localize.devset.caselists import (
    DJANGO_BEFORE,
    ISSUE_ROWS,
    LISTS_LANGUAGE,
    MIRROR,
    POLYGLOT,
    POLYGLOT_FIELDS,
    CaseFiles,
    verified_prs,
    write_cases,
)
from swevis.localize.devset.gitio import clone_path, git

log = logging.getLogger(__name__)

MERGE = re.compile(r"^Merge pull request #(\d+) from ")
SQUASH = re.compile(r"\(#(\d+)\)\s*$")
DJANGO_FIX = re.compile(r"^Fixed #\d+(, #\d+)* -- ")
FIXLIKE = re.compile(r"\b(fix(e[sd])?|bug|error|crash(es|ed)?|incorrect(ly)?|wrong|regression|fail(s|ed|ure)?|"
                     r"raise[sd]?|exception|broken|issue)\b", re.I)
NOT_SOURCE = re.compile(r"(^|/)(tests?|testing|docs?|examples?|benchmarks?|asv_bench|tools|ci|\.github)/|"
                        r"(^|/)(test_[^/]*|[^/]*_test|conftest|setup|noxfile|conf)\.py$")
MAX_GOLD_FILES = 3
MAX_GOLD_LINES = 120
END = "%x00<end of commit>%x00"  # in the log format; NUL, marker, NUL in its output
END_OUT = "\x00<end of commit>\x00"


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


def code_language(name: str) -> Language:
    """The registered code language of that name (a case list's `language`)."""
    for language in registered("code"):
        if language.name == name:
            return language
    raise SwevisError(f"no registered code language {name!r} (swevis.index.languages)")


def gold_paths(git_dir: Path, base: str, fix: str, language: str = LISTS_LANGUAGE) -> list[str] | None:
    """The non-test source files of `language` `fix` changes over `base`, or None when the
    change is not a localization case (a new or deleted source file, no source file, too many
    or too large). A test file is one by NOT_SOURCE or by the language's conventions."""
    lang = code_language(language)
    specs = [f"*{ext}" for ext in lang.source_extensions]
    stat = git(git_dir, "diff", "--no-renames", "--numstat", "--diff-filter=ADM", base, fix, "--", *specs)
    status = git(git_dir, "diff", "--no-renames", "--name-status", "--diff-filter=ADM", base, fix, "--", *specs)
    kinds = dict(line.split("\t", 1)[::-1] for line in status.splitlines() if line)
    paths, lines = [], 0
    for line in stat.splitlines():
        added, removed, path = line.split("\t", 2)
        if NOT_SOURCE.search(path) or lang.is_test_path(path):
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


def fix_source(repo: str, git_dir: Path, sha: str, parents: list[str], ct: int, msg: str,
               verified: set[int]) -> tuple[str, str] | str | None:
    """(pull request, source) when the commit is a fix to consider, "verified" when it is a
    Verified instance's pull request, None otherwise."""
    subject = msg.split("\n", 1)[0]
    if repo == "django/django":
        if not DJANGO_FIX.match(subject) or ct >= DJANGO_BEFORE or len(parents) != 1:
            return None
        return "", "django-ticket-commit"
    m = MERGE.match(subject) if len(parents) == 2 else SQUASH.search(subject) if len(parents) == 1 else None
    if not m:
        return None
    pr, source = m.group(1), "merged-pr" if len(parents) == 2 else "squashed-pr"
    if int(pr) in verified:
        return "verified"
    if not FIXLIKE.search(pr_text(git_dir, sha, parents, msg) if source == "merged-pr" else msg):
        return None
    return pr, source


def candidates(repo: str, folder: str, git_dir: Path, verified: set[int], limit: int,
               language: str = LISTS_LANGUAGE) -> tuple[list[dict], int]:
    """The newest `limit` fixes of `language` in `repo`'s history (its clone `git_dir`, in the
    mirror folder `folder`) that qualify, newest first; and how many fixes on the way were
    refused as Verified instances' pull requests."""
    out, refused = [], 0
    for sha, parents, ct, msg in first_parent_log(git_dir):
        if len(out) >= limit:
            break
        found = fix_source(repo, git_dir, sha, parents, ct, msg, verified)
        refused += found == "verified"
        if not isinstance(found, tuple) or gold_paths(git_dir, parents[0], sha, language) is None:
            continue
        pr, source = found
        name = repo.split("/")[1]
        out.append({"case_id": f"mined__{name}-{pr or sha[:10]}", "repo": repo, "base_commit": parents[0],
                    "fix_commit": sha, "pull_request": pr, "committed": ct, "source": source,
                    "text_kind": "commit-message", "mirror": folder})
    return out, refused


def mine(mirrors: Path, per_repo: int, files: CaseFiles, mirror_of: dict[str, str] = MIRROR) -> list[dict]:
    """Choose the newest `per_repo` fixes of every repository and write them to the mined list."""
    vprs = verified_prs(files.verified)
    cases = []
    for repo, folder in sorted(mirror_of.items()):
        git_dir = clone_path(mirrors, folder)
        if not git_dir.is_dir():
            raise SwevisError(f"no clone of {repo} at {git_dir} (swevis devset fetch brings it)")
        found, refused = candidates(repo, folder, git_dir, vprs.get(repo, set()), per_repo)
        cases += found
        log.info("%s: %d fixes kept, %d refused on the way as Verified pull requests", repo, len(found), refused)
    write_cases(files.mined, cases)
    return cases


def mine_polyglot(mirrors: Path, per_repo: int, files: CaseFiles,
                  repos: dict[str, tuple[str, str]] = POLYGLOT) -> list[dict]:
    """The same choice of fixes in repositories of other code languages (caselists.POLYGLOT),
    each fix's gold in its repository's language; written to the polyglot list."""
    cases = []
    for repo, (folder, language) in sorted(repos.items()):
        git_dir = clone_path(mirrors, folder)
        if not git_dir.is_dir():
            raise SwevisError(f"no clone of {repo} at {git_dir} (swevis devset fetch --polyglot brings it)")
        found, _refused = candidates(repo, folder, git_dir, set(), per_repo, language)
        cases += [{**c, "language": language} for c in found]
        log.info("%s: %d %s fixes kept", repo, len(found), language)
    write_cases(files.polyglot, cases, POLYGLOT_FIELDS)
    return cases


def issue_row(mirrors: Path, case_id: str, rows: dict = ISSUE_ROWS) -> dict:
    """One SWE-bench row of the issue rows, from the clone of the repository that copies them."""
    git_dir = clone_path(mirrors, rows["mirror"])
    if not git_dir.is_dir():
        raise SwevisError(f"no clone of {rows['mirror'].replace('+', '/')} at {git_dir} (swevis devset fetch brings it)")
    return json.loads(git(git_dir, "show", f"{rows['commit']}:{rows['folder']}/{case_id}/data.json"))


def list_issues(mirrors: Path, files: CaseFiles, rows: dict = ISSUE_ROWS) -> list[dict]:
    """Every issue row in the 12 repositories that is not a Verified instance, oldest first
    per repository, written to the issue list (ids, commits, provenance)."""
    git_dir = clone_path(mirrors, rows["mirror"])
    listing = git(git_dir, "ls-tree", "-d", "--name-only", f"{rows['commit']}:{rows['folder']}") if git_dir.is_dir() else ""
    vprs, cases = verified_prs(files.verified), []
    for case_id in listing.split():
        row = issue_row(mirrors, case_id, rows)
        pr = int(case_id.rsplit("-", 1)[1])
        if row["repo"] not in MIRROR or pr in vprs.get(row["repo"], set()):
            continue
        created = dt.datetime.fromisoformat(row["created_at"].replace("Z", "+00:00"))
        cases.append({"case_id": case_id, "repo": row["repo"], "base_commit": row["base_commit"], "fix_commit": "",
                      "pull_request": pr, "committed": int(created.timestamp()), "source": "swe-bench-test",
                      "text_kind": "issue", "mirror": MIRROR[row["repo"]]})
    if not cases:
        raise SwevisError(f"no SWE-bench rows under {git_dir} at {rows['commit'][:10]} (swevis devset fetch brings it)")
    cases.sort(key=lambda c: (c["repo"], c["committed"]))
    write_cases(files.issues, cases)
    log.info("%d real issues outside Verified", len(cases))
    return cases


def commit_case(git_dir: Path, case: dict) -> tuple[list[str], str, str]:
    """A mined case's gold files, issue-like text and gold diff, from its fix commit."""
    paths = gold_paths(git_dir, case["base_commit"], case["fix_commit"], case.get("language") or LISTS_LANGUAGE)
    if paths is None:
        raise SwevisError(f"{case['case_id']}: {case['fix_commit']} is no longer a localization case")
    msg = git(git_dir, "log", "-1", "--format=%B", case["fix_commit"]).strip()
    parents = git(git_dir, "log", "-1", "--format=%P", case["fix_commit"]).split()
    text = pr_text(git_dir, case["fix_commit"], parents, msg) if case["source"] == "merged-pr" else msg
    return paths, text, git(git_dir, "diff", "--no-renames", case["base_commit"], case["fix_commit"], "--", *paths)
