"""The bundled Java and JavaScript instances (data/sample/polyglot/): D_loc ranks each gold file
in the top 5 on its repository's frozen tree. verso-12's issue names only the symptom's API
(`Versions.sorted`, `Versions.latest`); its fix is in `Prerelease`, which the named class
`Version` reaches through `compareTo` -> `Prerelease.compare`: the graph walk carries it there."""

from __future__ import annotations

import shutil

import pytest

from swevis.index import build_index, open_index
from swevis.localize import by_kind, localize_issue
from swevis.localize.coverage import gold_files
from swevis.tasks.bundled import SAMPLE_DIR, load_bundled_set

ROWS = {r["instance_id"]: r for r in load_bundled_set("polyglot", verify_commits=False)}


@pytest.fixture(scope="module")
def indexes(tmp_path_factory):
    """Each repository's frozen tree (every instance's base commit) indexed once: name -> (tree, index)."""
    out = {}
    for repo in sorted({r["repo"].split("/")[-1] for r in ROWS.values()}):
        tmp = tmp_path_factory.mktemp(repo)
        tree = tmp / repo
        shutil.copytree(SAMPLE_DIR / "repos" / repo, tree)
        build_index(tree, tmp / "idx.sqlite")
        out[repo] = (tree, open_index(tmp / "idx.sqlite"))
    yield out
    for _tree, idx in out.values():
        idx.close()


def _file_rank(indexes, instance_id: str, options: dict | None = None) -> int | None:
    row = ROWS[instance_id]
    tree, idx = indexes[row["repo"].split("/")[-1]]
    files = [c.path for c in by_kind(localize_issue(idx, row["problem_statement"], top_k=10, options=options,
                                                    repo_dir=tree), "file")]
    return min((files.index(g) + 1 for g in gold_files(row["patch"]) if g in files), default=None)


@pytest.mark.parametrize("instance_id", sorted(ROWS))
def test_the_gold_file_ranks_in_the_top_5(indexes, instance_id):
    rank = _file_rank(indexes, instance_id)
    assert rank is not None and rank <= 5, (instance_id, rank)


def test_the_walk_is_what_brings_verso_12s_gold_file_into_the_top_5(indexes):
    assert _file_rank(indexes, "swevis-samples__verso-12") <= 5
    assert _file_rank(indexes, "swevis-samples__verso-12", {"walk": False}) > 5
