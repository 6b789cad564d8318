"""Each case's past commits, stored once so that the history features of every candidate are
counted without reading git again per fit.

`store_history` writes OUT/history/<owner+name>.json per repository: the last `depth`
non-merge commits touching source files of a registered code language before each case's
base (git rev-list over the pathspecs swevis.localize.history.read_history walks) and,
parsed once for all its cases, what each of them changed. `history_columns` turns a case's stored past into the features D_loc computes
from a checkout (swevis.localize.history.history_features); without a store they are 0.
"""

from __future__ import annotations

import json
import logging
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

from swevis.errors import SwevisError
from swevis.fsutil import write_atomic
from swevis.localize.devset.gitio import clone_path, git
from swevis.localize.history import HISTORY_FEATURES, History, code_pathspecs, git_log, history_features, read_history

log = logging.getLogger(__name__)


def store_path(out: Path, repo: str) -> Path:
    return out / "history" / f"{repo.replace('/', '+')}.json"


def store_history(cases: list[dict], mirrors: Path, out: Path, depth: int) -> None:
    """Per repository, each case's last `depth` commits and what each changed; logs the
    query-time cost (one read_history at the newest case's base per repository)."""
    per: dict[str, list[dict]] = {}
    for c in cases:
        per.setdefault(c["repo"], []).append(c)
    for repo, cs in sorted(per.items()):
        git_dir = clone_path(mirrors, cs[0]["mirror"])
        lists = {c["case_id"]: git(git_dir, "rev-list", "--no-merges", f"-n{depth}", c["base_commit"],
                                   "--", *code_pathspecs()).split() for c in cs}
        union = sorted({h for v in lists.values() for h in v})
        h = git_log(["--git-dir", str(git_dir)], ["--no-walk=unsorted", "--stdin"], "\n".join(union) + "\n")
        commits = {k: [sorted(f), sorted(map(list, d))] for k, (f, d) in zip(h.hashes, h.commits)}
        if set(commits) != set(union):
            raise SwevisError(f"{repo}: git log read {len(commits)} of {len(union)} commits")
        write_atomic(store_path(out, repo), json.dumps({"depth": depth, "lists": lists, "commits": commits}))
        newest = max(cs, key=lambda c: int(c["committed"]))
        t, t_wall = time.process_time(), time.time()
        read_history(["--git-dir", str(git_dir)], newest["base_commit"], depth)
        log.info("%s: %d cases, %d commits; read_history at depth %d: %.2f CPU s in python, %.2f s wall",
                 repo, len(cs), len(union), depth, time.process_time() - t, time.time() - t_wall)


@lru_cache(maxsize=16)
def _read_store(path: str, mtime_ns: int) -> dict:
    return json.loads(Path(path).read_text()) if mtime_ns else {}


def case_history(out: Path, r: dict, depth: int) -> History | None:
    """The History before a case's base commit, from OUT/history (None before it was stored)."""
    path = store_path(out, r["repo"])
    h = _read_store(str(path), path.stat().st_mtime_ns if path.exists() else 0)
    if r["case_id"] not in h.get("lists", {}):
        return None
    if h["depth"] < depth:
        raise SwevisError(f"{path} counts {h['depth']} commits, fewer than {depth}: store the history deeper")
    hashes = h["lists"][r["case_id"]]
    commits = [(frozenset(h["commits"][k][0]), frozenset(map(tuple, h["commits"][k][1]))) for k in hashes]
    return History(commits, hashes)


def history_columns(r: dict, history: History | None, depth: int) -> np.ndarray:
    """The history features (HISTORY_FEATURES) of a case's candidates; 0 without a history."""
    cols = np.zeros((len(r["y"]), len(HISTORY_FEATURES)))
    if history is not None:
        for i, c in enumerate(r["candidates"]):
            f = history_features(history, depth, c[0], c[1])
            cols[i] = [f[n] for n in HISTORY_FEATURES]
    return cols
