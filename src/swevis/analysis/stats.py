"""Statistics the paper does not report: bootstrap CIs, exact McNemar, repeat spread."""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np


def bootstrap_ci(
    values: Sequence[float],
    *,
    resamples: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[float | None, float | None, float | None]:
    """(mean, low, high): percentile bootstrap of the mean over the given per-instance
    values (seeded; a single value gives a zero-width interval; none gives Nones)."""
    x = np.asarray([v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))], dtype=float)
    if x.size == 0:
        return None, None, None
    mean = float(x.mean())
    if x.size == 1 or resamples <= 0:
        return mean, mean, mean
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.size, size=(resamples, x.size))
    means = x[idx].mean(axis=1)
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    # The percentile interval always contains the sample mean up to float error; clamp.
    return mean, float(min(low, mean)), float(max(high, mean))


def bootstrap(items: Sequence[Any], statistic: Callable[[list[Any]], float], *, resamples: int, seed: int,
              level: float = 0.95) -> tuple[float, float, float]:
    """(estimate, low, high): percentile bootstrap of `statistic` over resampled items
    (trajectories, instances), seeded; the interval is clamped to contain the estimate, as
    bootstrap_ci does for the mean (which it computes vectorized, for the tables)."""
    items = list(items)
    est = float(statistic(items))
    if len(items) < 2 or resamples <= 0:
        return est, est, est
    rng = np.random.default_rng(seed)
    values = [statistic([items[i] for i in idx]) for idx in rng.integers(0, len(items), size=(resamples, len(items)))]
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(values, [alpha, 1.0 - alpha])
    return est, float(min(low, est)), float(max(high, est))


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for the discordant counts b and c:
    min(1, 2 * P[X <= min(b, c)]) with X ~ Binomial(b + c, 1/2); 1.0 when b + c = 0."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2.0 * tail)


def spread(values: Sequence[float]) -> dict[str, float | None]:
    """sd (sample), min and max of per-repeat values (sd None below two values)."""
    x = [float(v) for v in values if v is not None]
    if not x:
        return {"sd": None, "min": None, "max": None}
    sd = float(np.std(x, ddof=1)) if len(x) > 1 else None
    return {"sd": sd, "min": min(x), "max": max(x)}


def median_ci(values: Sequence[float], level: float = 0.95) -> tuple[float | None, float | None, float | None, float | None]:
    """(median, low, high, achieved level): the distribution-free interval of the median from
    order statistics, [x_(k), x_(n+1-k)] with the largest k whose binomial(n, 1/2) tails keep
    coverage >= level. Below 6 values no such k exists: [min, max] and its coverage
    1 - 2^(1-n), which says how little those pages can tell. None for no values."""
    x = sorted(float(v) for v in values if v is not None)
    n = len(x)
    if not n:
        return None, None, None, None
    med = float(np.median(x))
    k, covered = 1, 1.0 - 2.0 / 2**n
    while k < n // 2:
        tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n  # P(X <= k): x_(k+1) above the median
        if 1.0 - 2.0 * tail < level:
            break
        k, covered = k + 1, 1.0 - 2.0 * tail
    return med, x[k - 1], x[n - k], covered
