"""Real issues of the other code languages: fixes that name the issue they close, with the
issue's own text (not the fix's message) as the problem statement.

`issue_candidates` walks a polyglot repository's first-parent history (caselists.POLYGLOT) for
fixes whose message (a merged pull request's: its title and its commits' messages) says it
fixes, closes or resolves an issue (`fixes #N`, `closes owner/name#N`, `resolves <issue URL>`)
and whose change qualifies as a mined fix's does (mining.gold_paths: one to three existing,
non-test source files of the repository's language). One case an issue, its newest fix; a
message naming several issues outside its subject is ambiguous and left out.
Whether #N is an issue and not a pull request only its text tells: the list
(devset/issues_polyglot.csv) keeps the candidates whose number is an issue.

The texts are never committed. `fetch_issue` reads one from the GitHub REST API
(GET /repos/{owner}/{name}/issues/{n}, with GITHUB_TOKEN if set) and refuses a pull request;
`fetch_issue_texts` writes them to a JSON-lines file, one {repo, number, title, body, url} a
line, which `prepare --issue-texts FILE` reads instead of the API.
"""

from __future__ import annotations

import json
import logging
import os
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from swevis.errors import SwevisError
from swevis.fsutil import write_atomic
from swevis.localize.devset.caselists import GITHUB_ISSUE, POLYGLOT
from swevis.localize.devset.gitio import clone_path
from swevis.localize.devset.mining import MERGE, SQUASH, first_parent_log, gold_paths, pr_text

log = logging.getLogger(__name__)

CASE_ID = re.compile(r"^issue__(?P<name>[^/]+)-(?P<number>\d+)$")
TIMEOUT = 30  # seconds for one API request


def issue_refs(text: str, repo: str) -> list[int]:
    """The issues of `repo` a fix's message says it fixes, closes or resolves, in order."""
    owner, name = (re.escape(part) for part in repo.split("/"))
    target = rf"(?:(?:{owner}/{name})?#|https?://github\.com/{owner}/{name}/issues/)(\d+)"
    verb = r"\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\b:?\s+"
    found = re.findall(verb + target, text, re.I)
    return list(dict.fromkeys(int(n) for n in found))


def closed_issue(subject: str, text: str, repo: str, pr: str) -> int | None:
    """The issue a fix closes: the first its subject names, else the one its whole message
    names (a message naming several, as a squash of stacked fixes does, is ambiguous: None)."""
    in_subject = [n for n in issue_refs(subject, repo) if str(n) != pr]
    if in_subject:
        return in_subject[0]
    anywhere = [n for n in issue_refs(text, repo) if str(n) != pr]
    return anywhere[0] if len(anywhere) == 1 else None


def issue_candidates(repo: str, folder: str, git_dir: Path, language: str, limit: int) -> list[dict]:
    """The newest `limit` fixes in `repo`'s history that name an issue they close and qualify as
    localization cases; one case an issue (its newest fix), newest first."""
    out, seen = [], set()
    for sha, parents, ct, msg in first_parent_log(git_dir):
        if len(out) >= limit:
            break
        subject = msg.split("\n", 1)[0]
        merged = MERGE.match(subject) if len(parents) == 2 else None
        squashed = SQUASH.search(subject) if len(parents) == 1 else None
        pr = (merged or squashed).group(1) if merged or squashed else ""
        text = pr_text(git_dir, sha, parents, msg) if merged else msg
        issue = closed_issue(subject, text, repo, pr)
        if issue is None or issue in seen or not parents or gold_paths(git_dir, parents[0], sha, language) is None:
            continue
        seen.add(issue)
        out.append({"case_id": f"issue__{repo.split('/')[1]}-{issue}", "repo": repo, "base_commit": parents[0],
                    "fix_commit": sha, "pull_request": pr, "committed": ct,
                    "source": GITHUB_ISSUE, "text_kind": "issue", "mirror": folder, "language": language})
    return out


def polyglot_candidates(mirrors: Path, limit: int, repos: dict[str, tuple[str, str]] = POLYGLOT) -> list[dict]:
    """Every polyglot repository's issue candidates (the newest `limit` each)."""
    cases = []
    for repo, (folder, language) in sorted(repos.items()):
        git_dir = clone_path(mirrors, folder)
        if not git_dir.is_dir():
            raise SwevisError(f"no clone of {repo} at {git_dir} (swevis devset fetch --polyglot brings it)")
        found = issue_candidates(repo, folder, git_dir, language, limit)
        log.info("%s: %d fixes that name an issue", repo, len(found))
        cases += found
    return cases


def issue_number(case: dict) -> int:
    """The issue a case of the list is (its id: issue__<name>-<number>)."""
    m = CASE_ID.match(case["case_id"])
    if not m:
        raise SwevisError(f"{case['case_id']}: not an issue case id (issue__<name>-<number>)")
    return int(m["number"])


def fetch_issue(api: str, repo: str, number: int, token: str | None = None) -> dict:
    """Issue `number` of `repo` from the GitHub REST API: {repo, number, title, body, url}.
    A pull request (the API serves those as issues too) is refused."""
    url = f"{api.rstrip('/')}/repos/{repo}/issues/{number}"
    headers = {"Accept": "application/vnd.github+json", "User-Agent": "swevis-devset"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=TIMEOUT) as resp:
            data = json.loads(resp.read().decode())
    except (urllib.error.URLError, OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SwevisError(f"GET {url}: {e}") from None
    if not isinstance(data, dict):
        raise SwevisError(f"GET {url}: not an issue (a JSON {type(data).__name__})")
    if "pull_request" in data:
        raise SwevisError(f"{repo}#{number} is a pull request, not an issue")
    return {"repo": repo, "number": number, "title": data.get("title") or "", "body": data.get("body") or "",
            "url": data.get("html_url") or url}


def fetch_issue_texts(cases: list[dict], api: str, path: Path) -> int:
    """Each case's issue from the API, written to `path` (JSON lines); returns how many."""
    token = os.environ.get("GITHUB_TOKEN") or None
    rows = [fetch_issue(api, c["repo"], issue_number(c), token) for c in cases]
    write_atomic(path, "".join(json.dumps(r) + "\n" for r in rows))
    log.info("%d issue texts written to %s", len(rows), path)
    return len(rows)


def read_issue_texts(path: Path) -> dict[tuple[str, int], dict]:
    """{(repo, number): row} of an issue-texts file (what fetch_issue_texts writes)."""
    if not path.is_file():
        raise SwevisError(f"{path}: no issue-texts file (swevis devset issue-texts writes one)")
    rows = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not all(isinstance(row.get(k), str) for k in ("title", "body")):
                raise TypeError("title and body must be strings")
            rows[(row["repo"], int(row["number"]))] = row
        except (json.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError):
            raise SwevisError(f"{path}:{n}: not an issue row ({{repo, number, title, body}})") from None
    return rows


def problem_statement(row: dict) -> str:
    """An issue's text as a problem statement: its title, a blank line, its opening description."""
    return f"{row['title'].strip()}\n\n{row['body'].strip()}".strip()


def issue_texts(api: str, path: Path | None = None) -> Callable[[dict], str]:
    """Where a case's problem statement comes from: the issue-texts file at `path`, or (none
    given) the API at `api`, with GITHUB_TOKEN if set."""
    if path is None:
        token = os.environ.get("GITHUB_TOKEN") or None
        return lambda case: problem_statement(fetch_issue(api, case["repo"], issue_number(case), token))
    rows = read_issue_texts(path)

    def from_file(case: dict) -> str:
        key = (case["repo"], issue_number(case))
        if key not in rows:
            raise SwevisError(f"{case['case_id']}: no issue {key[0]}#{key[1]} in {path}")
        return problem_statement(rows[key])

    return from_file
