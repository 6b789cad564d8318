"""Fixtures of the per-language index tests (test_index_{go,java,javascript,typescript,rust}):
a module names its fixture repository in `FIXTURE` (a folder of tests/fixtures/index) and gets
it copied and indexed once (`indexed`, `index`) or copied afresh for one test (`repo_copy`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from swevis.index import build_index, open_index


def _fixture_of(request) -> Path:
    fixture = getattr(request.module, "FIXTURE", None)
    if fixture is None:
        raise pytest.UsageError(f"{request.module.__name__} uses an index fixture but names no FIXTURE repository")
    return fixture


@pytest.fixture(scope="module")
def indexed(request, tmp_path_factory):
    """The module's FIXTURE copied and indexed: (build stats, index path)."""
    fixture = _fixture_of(request)
    tmp = tmp_path_factory.mktemp(fixture.name)
    repo = tmp / fixture.name
    shutil.copytree(fixture, repo)
    stats = build_index(repo, tmp / "idx.sqlite")
    return stats, tmp / "idx.sqlite"


@pytest.fixture(scope="module")
def index(indexed):
    """The module's FIXTURE indexed and open: (index, build stats)."""
    stats, db = indexed
    with open_index(db) as idx:
        yield idx, stats


@pytest.fixture
def repo_copy(request, tmp_path) -> Path:
    """A fresh copy of the module's FIXTURE for one test to change (tmp_path/<its name>)."""
    fixture = _fixture_of(request)
    repo = tmp_path / fixture.name
    shutil.copytree(fixture, repo)
    return repo
