"""Shared fixtures. Tests never reach the network: datasets and hubs are forced offline."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from helpers import git

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture
def toy_task(tmp_path: Path) -> dict:
    """A tiny git repository with one bug, its gold patch and test patch, as a SWE-bench row.

    Returns {"row": ..., "repo_dir": Path (non-bare repo usable as a mirror)}.
    """
    repo = tmp_path / "toy"
    (repo / "toy").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "toy" / "__init__.py").write_text("")
    (repo / "toy" / "calc.py").write_text(
        textwrap.dedent(
            '''\
            def mean(values):
                """Arithmetic mean of a non-empty sequence."""
                return sum(values) / (len(values) + 1)


            def total(values):
                return sum(values)
            '''
        )
    )
    (repo / "tests" / "test_calc.py").write_text(
        "from toy.calc import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n"
    )
    (repo / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    calc = repo / "toy" / "calc.py"
    calc.write_text(calc.read_text().replace("(len(values) + 1)", "len(values)"))
    patch = git(repo, "diff") + "\n"
    git(repo, "checkout", "-q", "--", ".")
    test_file = repo / "tests" / "test_calc.py"
    test_file.write_text(
        test_file.read_text().replace("from toy.calc import total", "from toy.calc import mean, total")
        + "\n\ndef test_mean():\n    assert mean([2, 4]) == 3\n"
    )
    test_patch = git(repo, "diff") + "\n"
    git(repo, "checkout", "-q", "--", ".")
    row = {
        "instance_id": "toyorg__toy-1",
        "repo": "toyorg/toy",
        "base_commit": base,
        "problem_statement": "mean() is wrong: mean([2, 4]) returns 2.0 instead of 3.",
        "hints_text": "",
        "created_at": "2025-01-01T00:00:00Z",
        "patch": patch,
        "test_patch": test_patch,
        "FAIL_TO_PASS": ["tests/test_calc.py::test_mean"],
        "PASS_TO_PASS": ["tests/test_calc.py::test_total"],
        "version": "0.1",
        "environment_setup_commit": base,
        "test_cmd": "python -m pytest -rA -p no:cacheprovider tests/test_calc.py",
        "log_parser": "pytest",
    }
    return {"row": row, "repo_dir": repo}
