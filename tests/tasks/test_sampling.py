import csv
import hashlib
from collections import Counter

import pytest

from swevis.errors import TaskSourceError
from swevis.tasks.sampling import allocate, stratified_sample

from helpers import FIXTURES


@pytest.fixture(scope="module")
def verified_rows():
    with open(FIXTURES / "swebench" / "verified_ids.csv") as fh:
        return list(csv.DictReader(fh))


def test_verified_sample_of_100_covers_all_12_repositories(verified_rows):
    sample = stratified_sample(verified_rows, 100, seed=20260519)
    counts = Counter(r["repo"] for r in sample)
    assert len(sample) == 100
    assert len({r["instance_id"] for r in sample}) == 100
    assert set(counts) == {r["repo"] for r in verified_rows}
    assert len(counts) == 12


def test_allocation_is_proportional_beyond_the_first_one(verified_rows):
    sizes = Counter(r["repo"] for r in verified_rows)
    alloc = allocate(dict(sizes), 100)
    assert sum(alloc.values()) == 100
    assert min(alloc.values()) >= 1
    for repo, size in sizes.items():
        # one guaranteed, the other 88 within one instance of their proportional share
        share = 88 * size / sum(sizes.values())
        assert abs((alloc[repo] - 1) - share) < 1.0, repo
    assert alloc["django/django"] == 42


def test_same_seed_same_sample_pinned_across_machines(verified_rows):
    a = stratified_sample(verified_rows, 100, seed=20260519)
    b = stratified_sample(list(reversed(verified_rows)), 100, seed=20260519)
    assert [r["instance_id"] for r in a] == [r["instance_id"] for r in b]
    # Pinned: this exact list must come out on any machine and Python 3 version.
    assert [r["instance_id"] for r in a][:5] == PINNED_FIRST_FIVE
    assert hashlib.sha256(",".join(r["instance_id"] for r in a).encode()).hexdigest() == PINNED_SHA256
    c = stratified_sample(verified_rows, 100, seed=7)
    assert [r["instance_id"] for r in a] != [r["instance_id"] for r in c]


def test_allocation_respects_small_repositories():
    assert allocate({"a": 1, "b": 1, "c": 100}, 5) == {"a": 1, "b": 1, "c": 3}
    assert allocate({"a": 2, "b": 50, "c": 3}, 55) == {"a": 2, "b": 50, "c": 3}
    assert allocate({"a": 2, "b": 2}, 4) == {"a": 2, "b": 2}


def test_n_errors():
    with pytest.raises(TaskSourceError, match="only 3"):
        allocate({"a": 1, "b": 2}, 4)
    with pytest.raises(TaskSourceError, match="every repository"):
        allocate({"a": 1, "b": 2, "c": 3}, 2)


def test_duplicate_ids_are_refused():
    rows = [{"instance_id": "a__b-1", "repo": "a/b"}] * 2
    with pytest.raises(TaskSourceError, match="duplicate"):
        stratified_sample(rows, 1, seed=0)


PINNED_FIRST_FIVE = [
    "astropy__astropy-13033",
    "astropy__astropy-13236",
    "astropy__astropy-14096",
    "astropy__astropy-14369",
    "astropy__astropy-8707",
]
PINNED_SHA256 = "f9bdaec3c29c464d8b31e02a8dad28d6664e998d3ada38de3bea9eb352741808"

