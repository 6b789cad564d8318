"""Plain helpers the tests import by name (fixtures live in conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from swevis.index import build_index, open_index

PROJECT_ROOT = Path(__file__).resolve().parents[1]
FIXTURES = PROJECT_ROOT / "tests" / "fixtures"


def git(cwd: Path, *args: str) -> str:
    """Run git with a fixed identity, so commits made by tests never need a user config."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def indexed_repo(tmp_path: Path, files: dict[str, str]):
    """A repository of `files` (path -> text) under tmp_path/repo, indexed: (repo, open index)."""
    repo = tmp_path / "repo"
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    build_index(repo, tmp_path / "i.sqlite")
    return repo, open_index(tmp_path / "i.sqlite")


SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")


def run_snakemake(
    workdir: Path, *args: str, cores: int | None = 2, env: dict[str, str] | None = None, timeout: float | None = None
) -> subprocess.CompletedProcess:
    """The project's Snakefile run in `workdir` by the virtualenv's snakemake; `env` adds to os.environ
    (which conftest.py keeps offline); output captured for the assertion messages."""
    cmd = [SNAKEMAKE, "--snakefile", str(PROJECT_ROOT / "Snakefile"), "--directory", str(workdir)]
    cmd += [] if cores is None else ["--cores", str(cores)]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=timeout)


def bash_block(cmd: str) -> str:
    """A model turn in mini-swe-agent 2.x's format: a thought and one command block."""
    return f"THOUGHT: next.\n\n```mswea_bash_command\n{cmd}\n```"


def money_turns(edit: str) -> list[str]:
    """Five turns on ledgerkit-117 (search, read, an edit appending `edit`, a diff, submit):
    the live-model failure tests fail the endpoint at one of them."""
    return [
        bash_block("grep -n 'def round' ledgerkit/money.py"),
        bash_block("sed -n '100,130p' ledgerkit/money.py"),
        bash_block(f"echo '{edit}' >> ledgerkit/money.py"),
        bash_block("git diff --stat"),
        bash_block("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
    ]


def engine_unavailable(reason: str) -> None:
    """Skip a test whose engine (Docker, SLURM) is not here, with the reason; fail instead
    under SWEVIS_REQUIRE_ENGINES=1 (CI), where a skipped engine test must not look like a pass."""
    import pytest

    if os.environ.get("SWEVIS_REQUIRE_ENGINES") == "1":
        pytest.fail(reason)
    pytest.skip(reason)
