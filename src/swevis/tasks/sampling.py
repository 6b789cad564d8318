"""Seeded sampling stratified by language and repository, representing every repository.

Two levels, each by the same rule. Languages first: each language gets one instance per
repository of it, and the remaining n - k (k repositories in all) are allocated in
proportion to the languages' sizes by the largest-remainder method (ties broken by size,
then name), never exceeding a language's size. Then, within each language, its repositories
share its allocation by that rule again (one each first). With one language (SWE-bench
Verified) the first level gives it all n, and the sample is the one stratified by repository
alone. Within a repository the instances are drawn with `random.Random(f"{seed}/{repo}")`
from the sorted ids (`f"{seed}/{language}/{repo}"` for a repository whose rows are of
several languages): string seeds are hashed with SHA-512 by CPython, so the draw is the same
on any machine and any Python 3 version.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from typing import Any, Sequence

from swevis.errors import TaskSourceError
from swevis.tasks.languages import row_language


def allocate(sizes: dict[str, int], n: int, minimum: dict[str, int] | None = None) -> dict[str, int]:
    """How many instances each stratum gets: `minimum` each (one when not given), the rest in
    proportion to the sizes."""
    total = sum(sizes.values())
    floor = minimum or dict.fromkeys(sizes, 1)
    if n > total:
        raise TaskSourceError(f"asked for {n} instances but the source has only {total}")
    if n < sum(floor.values()):
        k = sum(floor.values())
        raise TaskSourceError(
            f"asked for {n} instances but the source has {k} repositories; "
            f"n must be at least {k} so that every repository is represented"
        )
    alloc = {repo: floor[repo] for repo in sizes}
    remaining = n - sum(alloc.values())
    open_repos = {repo for repo in sizes if sizes[repo] > alloc[repo]}
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


def stratified_sample(rows: Sequence[dict[str, Any]], n: int | None, seed: int) -> list[dict[str, Any]]:
    """A seeded sample of `n` rows covering every repository, stratified by language and
    repository, sorted by instance_id."""
    ids = [row["instance_id"] for row in rows]
    dupes = [i for i, c in Counter(ids).items() if c > 1]
    if dupes:
        raise TaskSourceError(f"duplicate instance ids in the source: {', '.join(sorted(dupes)[:5])}")
    if n is None or n == len(rows):
        return sorted(rows, key=lambda r: r["instance_id"])
    groups: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for row in rows:
        groups.setdefault(row_language(row), {}).setdefault(row["repo"], []).append(row)
    per_language = allocate(
        {lang: sum(map(len, repos.values())) for lang, repos in groups.items()}, n,
        minimum={lang: len(repos) for lang, repos in groups.items()},
    )
    languages_of = Counter(repo for repos in groups.values() for repo in repos)
    chosen: list[dict[str, Any]] = []
    for language in sorted(groups):
        repos = groups[language]
        alloc = allocate({repo: len(group) for repo, group in repos.items()}, per_language[language])
        for repo in sorted(repos):
            group = sorted(repos[repo], key=lambda r: r["instance_id"])
            rng = random.Random(f"{seed}/{repo}" if languages_of[repo] == 1 else f"{seed}/{language}/{repo}")
            chosen.extend(rng.sample(group, alloc[repo]))
    return sorted(chosen, key=lambda r: r["instance_id"])
