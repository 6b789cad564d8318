"""Seeded stratified sampling that represents every repository.

Each repository first gets one instance; the remaining n - k are allocated in proportion
to the repositories' sizes by the largest-remainder method (ties broken by size, then
name), never exceeding a repository's size. Within a repository the instances are drawn
with `random.Random(f"{seed}/{repo}")` from the sorted ids: string seeds are hashed with
SHA-512 by CPython, so the draw is the same on any machine and any Python 3 version.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from typing import Any, Sequence

from swevis.errors import TaskSourceError


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """How many instances each repository gets: at least one each, the rest in proportion."""
    total = sum(sizes.values())
    if n > total:
        raise TaskSourceError(f"asked for {n} instances but the source has only {total}")
    if n < len(sizes):
        raise TaskSourceError(
            f"asked for {n} instances but the source has {len(sizes)} repositories; "
            f"n must be at least {len(sizes)} so that every repository is represented"
        )
    alloc = {repo: 1 for repo in sizes}
    remaining = n - len(sizes)
    open_repos = {repo for repo in sizes if sizes[repo] > 1}
    while remaining > 0:
        weight = sum(sizes[r] for r in open_repos)
        quotas = {r: Fraction(remaining * sizes[r], weight) for r in open_repos}
        floors = {r: int(q) for r, q in quotas.items()}
        left = remaining - sum(floors.values())
        order = sorted(open_repos, key=lambda r: (-(quotas[r] - floors[r]), -sizes[r], r))
        for r in order[:left]:
            floors[r] += 1
        # Apply, capping at each repository's size; what a full repository cannot take is
        # redistributed over the others in the next round.
        given = 0
        for r in sorted(open_repos):
            take = min(floors[r], sizes[r] - alloc[r])
            alloc[r] += take
            given += take
        remaining -= given
        open_repos = {r for r in open_repos if alloc[r] < sizes[r]}
        if given == 0:  # cannot happen when n <= total; guards against an endless loop
            raise AssertionError("allocation made no progress")
    return alloc


def stratified_sample(
    rows: Sequence[dict[str, Any]], n: int | None, seed: int, key: str = "repo"
) -> list[dict[str, Any]]:
    """A seeded sample of `n` rows covering every value of `key`, sorted by instance_id."""
    ids = [row["instance_id"] for row in rows]
    dupes = [i for i, c in Counter(ids).items() if c > 1]
    if dupes:
        raise TaskSourceError(f"duplicate instance ids in the source: {', '.join(sorted(dupes)[:5])}")
    if n is None or n == len(rows):
        return sorted(rows, key=lambda r: r["instance_id"])
    by_repo: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_repo.setdefault(row[key], []).append(row)
    alloc = allocate({repo: len(group) for repo, group in by_repo.items()}, n)
    chosen: list[dict[str, Any]] = []
    for repo in sorted(by_repo):
        group = sorted(by_repo[repo], key=lambda r: r["instance_id"])
        rng = random.Random(f"{seed}/{repo}")
        chosen.extend(rng.sample(group, alloc[repo]))
    return sorted(chosen, key=lambda r: r["instance_id"])
