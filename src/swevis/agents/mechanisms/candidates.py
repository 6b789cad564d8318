"""Candidate patches and their aggregation into the one patch an agent submits.

An agent that samples several candidate patches (Prometheus without a reproduction, or when
refinement gives up) reduces them to one in three steps, each here once for every agent:

1. :func:`normalize_patch` puts a unified diff in a canonical text for comparison, so two
   candidates that make the same change compare equal whatever git printed around it.
2. :func:`dedupe` groups the candidates by that text, in the order they first occur, with
   how many candidates each group holds.
3. :func:`aggregate` picks the winner among the groups that passed their regression tests
   (among all groups when none passed, as the paper says): a model picks by number when the
   agent gives one (:func:`aggregation_prompt`, :func:`parse_choice`), and
   :func:`majority_vote` decides otherwise, or when the model's answers are unusable.

The model may be asked ``votes`` times with the same prompt; the plurality of its usable
answers wins (ties to the earlier candidate), and asking stops as soon as the leader cannot
be caught; the authors' code asks up to 10 times this way (the schema's default). The model
is asked only when the pool holds more than one distinct patch. An answer that names no
candidate leaves the decision to the majority vote, with a ``warning`` in the record.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from swevis.agents.prompts import Choose, render_prompt

log = logging.getLogger(__name__)

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
# header lines that say nothing about the change itself (blob ids, modes, git's own header)
_METADATA = ("diff --git ", "index ", "old mode ", "new mode ", "similarity index ", "dissimilarity index ")
_NEW_OR_DELETED = ("new file mode ", "deleted file mode ")
_TIMESTAMP = re.compile(r"\s+\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:\s*[+-]\d{4})?$")
# the model's pick: "CHOICE: 2", "choice = #2", "<choice>2</choice>", "Choice: candidate 2"
_CHOICE = re.compile(r"\bchoice\b\s*[:=#>]?\s*(?:candidate\s*)?#?\s*(\d+)", re.I)
_BARE_CHOICE = re.compile(r"\s*(?:candidate\s*)?#?(\d+)[.)]?\s*", re.I)


@dataclass
class _FilePatch:
    """One file's part of a diff while it is read: its paths, kept markers and hunks."""

    git_header: str = ""
    old: str | None = None
    new: str | None = None
    markers: list[str] = field(default_factory=list)
    hunks: list[list[str]] = field(default_factory=list)


def _header_path(text: str) -> str:
    """A ---/+++ line's path without a trailing timestamp (diff -u prints one)."""
    return _TIMESTAMP.sub("", text.split("\t")[0].rstrip())


def _git_paths(header: str) -> tuple[str, str]:
    """The a/ and b/ paths of a ``diff --git a/X b/Y`` line (for a file without ---/+++)."""
    rest = header[len("diff --git "):].rstrip()
    splits = [m.start() for m in re.finditer(" b/", rest)]
    if not splits:  # --no-prefix: "X X" when the file keeps its name
        half = len(rest) // 2
        return (rest[:half], rest[half + 1:]) if rest[:half] == rest[half + 1:] else (rest, rest)
    same = [s for s in splits if rest[2:s] == rest[s + 3:]]
    at = (same or splits)[0]
    return rest[:at], rest[at + 1:]


def _read_hunk(lines: list[str], i: int, header: re.Match) -> tuple[list[str], int]:
    """The canonical hunk starting after the header at ``lines[i - 1]``, and the next index.

    Added and removed lines are kept byte for byte; context lines lose trailing whitespace;
    the header is rebuilt from the lines read (explicit counts, no section heading)."""
    old_left = int(header.group(2) if header.group(2) is not None else 1)
    new_left = int(header.group(4) if header.group(4) is not None else 1)
    body: list[str] = []
    while i < len(lines) and (old_left > 0 or new_left > 0 or lines[i].startswith("\\")):
        line = lines[i]
        if line.startswith("\\"):  # "\ No newline at end of file" belongs to the line before
            body.append(line.rstrip())
        elif line.startswith("+"):
            new_left -= 1
            body.append(line)
        elif line.startswith("-"):
            old_left -= 1
            body.append(line)
        elif line.startswith(" ") or line.strip() == "":
            old_left, new_left = old_left - 1, new_left - 1
            body.append(" " + line[1:].rstrip())
        else:  # the hunk ended before its counts did: a malformed diff
            break
        i += 1
    old_len = sum(1 for b in body if b[0] in " -")
    new_len = sum(1 for b in body if b[0] in " +")
    return [f"@@ -{header.group(1)},{old_len} +{header.group(3)},{new_len} @@", *body], i


def _parse_files(text: str) -> list[_FilePatch]:
    """The files of a unified diff (git's or diff -u's), read line by line."""
    lines = text.split("\n")  # not splitlines(): a form feed in an added line is content
    if lines and lines[-1] == "":
        lines.pop()
    files: list[_FilePatch] = []
    current: _FilePatch | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        bare = line.rstrip()
        if line.startswith("diff --git "):
            current = _FilePatch(git_header=bare)
            files.append(current)
        elif line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            if current is None or current.old is not None or current.hunks:
                current = _FilePatch()
                files.append(current)
            current.old, current.new = _header_path(line[4:]), _header_path(lines[i + 1][4:])
            i += 1
        elif current is not None and (hunk := _HUNK.match(line)):
            body, i = _read_hunk(lines, i + 1, hunk)
            current.hunks.append(body)
            continue
        elif current is not None and bare and not bare.startswith(_METADATA):
            # new/deleted file without its mode; renames, copies and binary changes as they are
            current.markers.append(bare.split(" mode ")[0] if bare.startswith(_NEW_OR_DELETED) else bare)
        i += 1
    return files


def _canonical_paths(f: _FilePatch) -> tuple[str, str]:
    """A file's (old, new) paths, git's a/ b/ prefixes made uniform."""
    old, new = (f.old, f.new) if f.old is not None else _git_paths(f.git_header)
    git_style = (old.startswith("a/") or old == "/dev/null") and (new.startswith("b/") or new == "/dev/null")
    if not git_style:
        old = old if old == "/dev/null" else "a/" + old
        new = new if new == "/dev/null" else "b/" + new
    return old, new


def normalize_patch(diff: str) -> str:
    """The canonical text of a unified diff, for comparing candidates (never for applying).

    Dropped: git's ``diff --git`` and ``index`` lines, file modes, similarity lines, the
    timestamps diff -u prints, text before the first file, hunks that add and remove nothing,
    and files left with nothing. Normalised: line endings and trailing whitespace of header,
    hunk-header and context lines; hunk headers rebuilt with explicit counts and without the
    section heading git derives from the context; ``a/``/``b/`` path prefixes; the files
    sorted by path. Added and removed lines are never changed. An empty diff gives ""."""
    out: list[tuple[str, list[str]]] = []
    for f in _parse_files(diff):
        hunks = [h for h in f.hunks if any(line[0] in "+-" for line in h[1:])]
        if not hunks and not f.markers:
            continue
        old, new = _canonical_paths(f)
        key = (new if new != "/dev/null" else old)[2:]
        out.append((key, [f"--- {old}", f"+++ {new}", *f.markers, *(line for h in hunks for line in h)]))
    out.sort(key=lambda item: item[0])
    return "".join(line + "\n" for _key, lines in out for line in lines)


def dedupe(candidates: Sequence[str]) -> list[dict[str, Any]]:
    """The candidates grouped by normalised text, in order of first occurrence.

    Each group: ``patch`` (its first candidate as generated, the patch submitted if it wins),
    ``normalized``, ``hash`` (of the normalised text), ``members`` (indices into
    ``candidates``) and ``count``. A candidate that normalises to "" (no change) belongs to no
    group."""
    order: list[str] = []
    members: dict[str, list[int]] = {}
    for i, diff in enumerate(candidates):
        text = normalize_patch(diff)
        if not text:
            continue
        if text not in members:
            order.append(text)
            members[text] = []
        members[text].append(i)
    return [
        {"patch": candidates[members[t][0]], "normalized": t, "hash": hashlib.sha256(t.encode()).hexdigest()[:16],
         "members": members[t], "count": len(members[t])}
        for t in order
    ]


def _pool(groups: Sequence[dict[str, Any]], passed: Sequence[bool]) -> tuple[list[int], str]:
    """The groups a winner is chosen among: those that passed, else all of them."""
    if len(passed) != len(groups):
        raise ValueError(f"passed has {len(passed)} entries for {len(groups)} patch groups")
    chosen = [i for i, ok in enumerate(passed) if ok]
    return (chosen, "passed") if chosen else (list(range(len(groups))), "all")


def majority_vote(groups: Sequence[dict[str, Any]], passed: Sequence[bool]) -> dict[str, Any]:
    """The most frequent patch among the groups that passed their regression tests (among all
    groups when none passed), ties to the earliest; a record of the decision and why.

    ``method``: ``single`` when the pool holds one candidate, ``majority`` (or
    ``fallback-majority`` when none passed) otherwise, ``none`` when there is no group."""
    pool, among = _pool(groups, passed)
    if not pool:
        return {"winner": None, "method": "none", "pool": among, "reason": "no candidate patch changes anything"}
    winner = min(pool, key=lambda i: (-groups[i]["count"], i))
    most, total = groups[winner]["count"], sum(groups[i]["count"] for i in pool)
    state = "passed the regression tests" if among == "passed" else "none passed the regression tests"
    if total == 1:
        return {"winner": winner, "method": "single", "pool": among,
                "reason": f"the only candidate in the pool ({state})"}
    tied = [i for i in pool if groups[i]["count"] == most]
    reason = f"{most} of {total} candidates in the pool are this patch, the most"
    if len(tied) > 1:
        reason += f" (tied with {len(tied) - 1} other(s); the earliest wins)"
    method = "majority" if among == "passed" else "fallback-majority"
    return {"winner": winner, "method": method, "pool": among, "reason": f"{reason}; pool: {state}"}


def aggregation_prompt(issue: str, patches: Sequence[str], *, passed: bool) -> list[dict[str, str]]:
    """The messages asking a model to pick one of ``patches`` (numbered from 1)."""
    return [
        {"role": "system", "content": render_prompt("prometheus_aggregate_system")},
        {"role": "user", "content": render_prompt(
            "prometheus_aggregate_instance", issue=issue, candidates=list(patches), passed=passed,
        )},
    ]


def parse_choice(text: str, n: int) -> int | None:
    """The candidate a model's answer picks, as an index 0..n-1 of the n shown as 1..n.

    Reads the last ``CHOICE: k`` (or ``<choice>k``) of the answer, else an answer that is
    only a number; None when there is none or k is not one of 1..n."""
    found = _CHOICE.findall(text)
    if found:
        k = int(found[-1])
    elif bare := _BARE_CHOICE.fullmatch(text):
        k = int(bare.group(1))
    else:
        return None
    return k - 1 if 1 <= k <= n else None


def _ask(choose: Choose, messages: list[dict[str, str]], n: int,
         votes: int) -> tuple[int | None, list[str], list[int | None]]:
    """Ask up to ``votes`` times; the plurality pick (ties to the lower number) or None, the
    answers and each answer's pick (1..n or None). Stops once the leader cannot be caught."""
    answers: list[str] = []
    picks: list[int | None] = []
    tally: Counter[int] = Counter()
    for asked in range(1, votes + 1):
        answers.append(choose(messages))
        pick = parse_choice(answers[-1], n)
        picks.append(None if pick is None else pick + 1)
        if pick is not None:
            tally[pick] += 1
        ranked = sorted(tally.values(), reverse=True) + [0, 0]
        if ranked[0] - ranked[1] > votes - asked:
            break
    if not tally:
        return None, answers, picks
    return min(tally, key=lambda k: (-tally[k], k)), answers, picks


def aggregate(groups: Sequence[dict[str, Any]], passed: Sequence[bool], choose: Choose | None = None, *,
              issue: str | None = None, votes: int = 1) -> dict[str, Any]:
    """The winning patch group and why, as a JSON-ready record (``patch`` is the winner's, ""
    when there is none).

    With ``choose`` and more than one distinct patch in the pool, the model picks among them
    (``method: model``), asked ``votes`` times; without it, or when none of its answers names
    a candidate, :func:`majority_vote` decides (``majority``, ``fallback-majority`` when none
    passed, ``single`` for one candidate). ``passed`` says for each group whether it passed
    its regression tests; ``issue`` is what the model is shown with the candidates."""
    if votes < 1:
        raise ValueError(f"votes must be at least 1, got {votes}")
    decision = majority_vote(groups, passed)
    record: dict[str, Any] = {
        "candidates": [{"hash": g["hash"], "count": g["count"], "passed": bool(ok), "members": list(g["members"])}
                       for g, ok in zip(groups, passed)],
        **decision,
    }
    pool, among = _pool(groups, passed)
    if choose is not None and len(pool) > 1:
        if not issue:
            raise ValueError("aggregate: the model needs the issue text to choose")
        messages = aggregation_prompt(issue, [groups[i]["patch"] for i in pool], passed=among == "passed")
        pick, answers, picks = _ask(choose, messages, len(pool), votes)
        record.update(answers=answers, picks=picks)
        if pick is None:
            record["reason"] = f"no usable model answer ({len(answers)} asked); {decision['reason']}"
            record["warning"] = (f"no aggregation answer of {len(answers)} named one of the {len(pool)} candidates: "
                                 f"the majority vote decides ({decision['method']})")
            log.warning(record["warning"])
        else:
            agreed = picks.count(pick + 1)
            record.update(winner=pool[pick], method="model", reason=(
                f"the model picked candidate {pick + 1} of {len(pool)} in {agreed} of {len(answers)} answer(s)"))
    record["patch"] = "" if record["winner"] is None else groups[record["winner"]]["patch"]
    return record
