"""The bundled sample: small SWE-bench-format repositories written for swevis, shipped as source.

Each repository is a plain source tree under data/sample/repos/<name>. Its base commit is
made reproducibly: the tree (minus caches) committed with a fixed author, committer, date
and message, every file mode 100644. The same tree gives the same commit id on any machine,
and `load_bundled_instances` refuses to run if a tree no longer matches the ids recorded in
the instances (the repos are frozen once other stages build on them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from swevis.errors import RepoError, TaskValidationError
from swevis.tasks.schema import validate_row

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "data" / "sample"
BUNDLED_OWNER = "swevis-samples"
# the folder of the study's sample; every other folder beside repos/ is a probe set
STUDY_SET = "instances"
_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".git")
_COMMIT_ENV = {
    "GIT_AUTHOR_NAME": "swevis",
    "GIT_AUTHOR_EMAIL": "samples@swevis.invalid",
    "GIT_AUTHOR_DATE": "2025-01-01T00:00:00+0000",
    "GIT_COMMITTER_NAME": "swevis",
    "GIT_COMMITTER_EMAIL": "samples@swevis.invalid",
    "GIT_COMMITTER_DATE": "2025-01-01T00:00:00+0000",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}
_GIT_OPTS = ["-c", "core.autocrlf=false", "-c", "commit.gpgsign=false", "-c", f"core.hooksPath={os.devnull}"]


def is_bundled(repo: str) -> bool:
    return repo.startswith(BUNDLED_OWNER + "/")


def repo_tree(repo: str, sample_dir: Path = SAMPLE_DIR) -> Path:
    """The source tree of a bundled repository (owner/name)."""
    tree = sample_dir / "repos" / repo.split("/", 1)[1]
    if not is_bundled(repo) or not tree.is_dir():
        raise RepoError(f"{repo} is not a bundled repository (no folder {tree})")
    return tree


def _git(args: list[str], cwd: Path) -> str:
    env = {**os.environ, **_COMMIT_ENV}
    proc = subprocess.run(["git", *_GIT_OPTS, *args], cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RepoError(f"git {' '.join(args)} failed in {cwd}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def commit_tree(tree: Path, work_dir: Path, message: str) -> str:
    """Commit a copy of `tree` as the single commit of a new repository in `work_dir`."""
    shutil.copytree(tree, work_dir, ignore=_IGNORED)
    _git(["init", "-q", "-b", "main"], work_dir)
    _git(["add", "--chmod=-x", "--all", "."], work_dir)
    _git(["commit", "-q", "--no-verify", "-m", message], work_dir)
    return _git(["rev-parse", "HEAD"], work_dir)


def bundled_commit(repo: str, sample_dir: Path = SAMPLE_DIR) -> str:
    """The reproducible base commit id of a bundled repository (builds it in a temp dir)."""
    with tempfile.TemporaryDirectory(prefix="swevis-bundled-") as tmp:
        return commit_tree(repo_tree(repo, sample_dir), Path(tmp) / "repo", f"{repo}: base")


def build_bundled_mirror(repo: str, mirror: Path, sample_dir: Path = SAMPLE_DIR) -> str:
    """Create the bare mirror of a bundled repository; returns its base commit id."""
    with tempfile.TemporaryDirectory(prefix="swevis-bundled-") as tmp:
        work = Path(tmp) / "repo"
        sha = commit_tree(repo_tree(repo, sample_dir), work, f"{repo}: base")
        partial = mirror.with_name(mirror.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        mirror.parent.mkdir(parents=True, exist_ok=True)
        _git(["clone", "-q", "--bare", str(work), str(partial)], mirror.parent)
        shutil.rmtree(mirror, ignore_errors=True)
        partial.rename(mirror)
    return sha


def _read_instance_dir(folder: Path) -> dict[str, Any]:
    meta_path = folder / "meta.json"
    try:
        row = json.loads(meta_path.read_text())
    except FileNotFoundError:
        raise TaskValidationError(f"{meta_path}: missing") from None
    except json.JSONDecodeError as exc:
        raise TaskValidationError(f"{meta_path}: invalid JSON ({exc.msg})") from None
    for field, name in (("problem_statement", "problem_statement.md"), ("patch", "patch.diff"), ("test_patch", "test_patch.diff")):
        path = folder / name
        if not path.exists():
            raise TaskValidationError(f"{path}: missing (field '{field}')")
        row[field] = path.read_text()
    return row


def bundled_set_names(sample_dir: Path = SAMPLE_DIR) -> list[str]:
    """The instance sets of the bundled sample: every folder beside repos/ (`instances`, the
    study's sample; the others are probe sets, which only the matrix entries naming them run)."""
    return sorted(p.name for p in Path(sample_dir).iterdir() if p.is_dir() and p.name != "repos")


def probe_set_names(sample_dir: Path = SAMPLE_DIR) -> list[str]:
    """The bundled probe sets (agents.matrix `probe_sets`): every set but the study's."""
    return [name for name in bundled_set_names(sample_dir) if name != STUDY_SET]


def load_bundled_set(name: str, sample_dir: Path = SAMPLE_DIR, verify_commits: bool = True) -> list[dict[str, Any]]:
    """Every instance of one bundled set (data/sample/<name>/) as a validated SWE-bench row,
    sorted by instance_id; with `verify_commits`, each row's base_commit must be what its
    repository's frozen tree commits to."""
    set_dir = Path(sample_dir) / name
    if name == "repos" or not set_dir.is_dir():
        raise TaskValidationError(f"bundled sample has no instance set {name!r} ({set_dir})")
    rows = []
    for number, folder in enumerate(sorted(p for p in set_dir.iterdir() if p.is_dir()), start=1):
        row = validate_row(_read_instance_dir(folder), str(folder), number)
        if row["instance_id"] != folder.name:
            raise TaskValidationError(f"{folder}, field 'instance_id': {row['instance_id']!r} differs from its folder name")
        rows.append(row)
    if verify_commits:
        _verify_commits(rows, set_dir, Path(sample_dir))
    return rows


def _verify_commits(rows: list[dict[str, Any]], set_dir: Path, sample_dir: Path) -> None:
    commits: dict[str, str] = {}
    for row in rows:
        if row["repo"] not in commits:
            commits[row["repo"]] = bundled_commit(row["repo"], sample_dir)
        if row["base_commit"] != commits[row["repo"]]:
            raise TaskValidationError(
                f"{set_dir / row['instance_id']}, field 'base_commit': {row['base_commit']} but the "
                f"bundled tree of {row['repo']} commits to {commits[row['repo']]}; the bundled repositories "
                "are frozen (restore the tree, or update every instance of that repository on purpose)"
            )


def load_bundled_instances(sample_dir: Path = SAMPLE_DIR, verify_commits: bool = True) -> list[dict[str, Any]]:
    """Every instance of the study's bundled sample (data/sample/instances/), sorted by instance_id."""
    return load_bundled_set(STUDY_SET, sample_dir, verify_commits)
