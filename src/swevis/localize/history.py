"""A prior from the repository's own history: how often each file and each definition was
changed in the last commits before the checkout.

Fixes land where code churns: among a well-found file's definitions, the one edited most
recently and most often is more often the edited one than its quiet neighbours. The counts
come from one `git log -p -U0` over the last `depth` non-merge commits that touch source files
of a registered code language (Python: *.py), reachable from the commit the index describes
(never later: a fix's own commit is not in its base's history). A hunk is attributed to the
definition its hunk header names (git's built-in header pattern of the language: the nearest
`def`/`class` line above it in Python) and to every definition line it changes (the
language's `definition` pattern), matched to a candidate by file and last name component.
On django it costs about 0.3 CPU s for the 300 commits the shipped model counts, 1-1.7 for
1,000 (`swevis devset history` stores it per
case); read once per checkout and HEAD.
Without a git directory the features are 0.
"""

from __future__ import annotations

import math
import re
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from swevis.index.build import git_head
from swevis.index.languages import Language, language_for, registered

HISTORY_FEATURES = ("hist_file", "hist_sym")
DEFAULT_DEPTH = 1000
_DIFF = re.compile(r"^diff --git a/(.*) b/(.*)$")


@lru_cache(maxsize=16)
def _definitions(language: Language) -> tuple[re.Pattern, re.Pattern] | None:
    """(a definition in a hunk header, a changed line that is a definition) of a language."""
    if not language.definition:
        return None
    return re.compile(r"\b" + language.definition), re.compile(r"^[+-]\s*" + language.definition)


def _git_setup(languages: tuple[Language, ...]) -> tuple[str, list[str]]:
    """(a gitattributes text naming each language's hunk-header pattern, the pathspecs of the
    code languages' source files)."""
    code = [lang for lang in languages if lang.kind == "code"]
    attributes = "".join(f"*{ext} diff={lang.git_diff_driver}\n" for lang in code if lang.git_diff_driver
                         for ext in lang.source_extensions)
    return attributes, [f"*{ext}" for lang in code for ext in lang.source_extensions]


def code_pathspecs() -> list[str]:
    """The pathspecs of every registered code language's source files: the commits a history
    counts are those touching one of them."""
    return _git_setup(registered())[1]


@dataclass
class History:
    """Per commit (newest first), the files and the (file, definition name) pairs it changed."""

    commits: list[tuple[frozenset[str], frozenset[tuple[str, str]]]] = field(default_factory=list)
    hashes: list[str] = field(default_factory=list)
    _counts: dict[int, tuple[Counter, Counter]] = field(default_factory=dict, repr=False)

    def counts(self, depth: int) -> tuple[Counter, Counter]:
        """(commits per file, commits per (file, name)) over the newest `depth` commits."""
        if depth not in self._counts:
            files, syms = Counter(), Counter()
            for f, s in self.commits[:depth]:
                files.update(f)
                syms.update(s)
            self._counts[depth] = (files, syms)
        return self._counts[depth]


def parse_log(text: str) -> History:
    """A History from `git log --format=%x00%H -p -U0` output with the languages' hunk headers."""
    commits: list[tuple[set[str], set[tuple[str, str]]]] = []
    hashes, path, defs = [], None, None
    for line in text.splitlines():
        if line.startswith("\x00"):
            commits.append((set(), set()))
            hashes.append(line[1:].strip())
            path = None
        elif not commits:
            continue
        elif line.startswith("diff --git "):
            m = _DIFF.match(line)
            path = m.group(2) if m else None
            if path:
                commits[-1][0].add(path)
                language = language_for(path)
                defs = _definitions(language) if language is not None else None
        elif path and defs and line.startswith("@@"):
            header = line.split("@@", 2)[-1]
            commits[-1][1].update((path, n) for n in defs[0].findall(header)[:1])
        elif path and defs and not line.startswith(("+++", "---")) and (m := defs[1].match(line)):
            commits[-1][1].add((path, m.group(1)))
    return History([(frozenset(f), frozenset(s)) for f, s in commits], hashes)


def git_log(git_args: list[str], log_args: list[str], stdin: str | None = None) -> History:
    """`git log -p -U0` of the code languages' source files with their hunk headers, parsed;
    git_args locate the repository (["-C", checkout] or ["--git-dir", clone]). Empty when git
    cannot read it or no code language is registered."""
    attributes, pathspecs = _git_setup(registered())
    if not pathspecs:
        return History()
    with tempfile.NamedTemporaryFile("w", suffix=".gitattributes") as attrs:
        attrs.write(attributes)
        attrs.flush()
        cmd = ["git", "-c", f"core.attributesFile={attrs.name}", *git_args, "log", "--no-renames", "-p", "-U0",
               "--no-color", "--no-ext-diff", "--format=%x00%H", *log_args, "--", *pathspecs]
        out = subprocess.run(cmd, capture_output=True, input=stdin.encode() if stdin is not None else None)
    if out.returncode != 0:
        return History()
    return parse_log(out.stdout.decode("utf-8", "replace"))


def read_history(git_args: list[str], commit: str = "HEAD", depth: int = DEFAULT_DEPTH) -> History:
    """The last `depth` non-merge commits touching code files up to `commit`."""
    return git_log(git_args, ["--no-merges", f"-n{depth}", commit])


def repo_history(repo_dir: str | Path | None, depth: int) -> History:
    """The history of a checkout (its .git), or an empty one when it has none; read once per
    checkout, HEAD and depth (about 0.3 CPU s on django at depth 300: D_loc's own query is
    about 0.1 s, so an agent's repeated calls must not pay it again)."""
    head = git_head(Path(repo_dir)) if repo_dir is not None and depth > 0 else None
    if head is None:
        return History()
    return _cached_history(str(Path(repo_dir).resolve()), head, depth)


@lru_cache(maxsize=8)
def _cached_history(repo: str, head: str, depth: int) -> History:
    return read_history(["-C", repo], head, depth)


def history_features(history: History, depth: int, path: str, qualname: str) -> dict[str, float]:
    """hist_file, hist_sym: log(1 + commits changing its file / a definition of its name in its
    file) over the last `depth` commits, scaled so that every one of them scores 1."""
    files, syms = history.counts(depth)
    scale = math.log1p(depth) or 1.0
    name = qualname.rsplit(".", 1)[-1]
    return {"hist_file": math.log1p(files.get(path, 0)) / scale, "hist_sym": math.log1p(syms.get((path, name), 0)) / scale}
