"""Plain helpers the tests import by name (fixtures live in conftest.py)."""

from __future__ import annotations

import csv
import os
import sqlite3
import subprocess
from pathlib import Path

import snakemake_fork

from swevis.index import build_index, open_index

PROJECT_ROOT = Path(__file__).resolve().parents[1]
FIXTURES = PROJECT_ROOT / "tests" / "fixtures"


def git(cwd: Path, *args: str) -> str:
    """Run git with a fixed identity and unsigned commits, so commits made by tests never need a
    user config; its output, stripped."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    return subprocess.run(["git", "-c", "commit.gpgsign=false", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def indexed_repo(tmp_path: Path, files: dict[str, str]):
    """A repository of `files` (path -> text) under tmp_path/repo, indexed: (repo, open index)."""
    repo = tmp_path / "repo"
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    build_index(repo, tmp_path / "i.sqlite")
    return repo, open_index(tmp_path / "i.sqlite")


SNAKEMAKE = snakemake_fork.SNAKEMAKE

# The tiny study of the end-to-end, report, jobs, killed-run and sample-growth tests (run once a
# worker: tests/workflow/conftest.py)
TINY_STUDY = """
tasks:
  source: bundled
  instance_ids: [swevis-samples__ledgerkit-117, swevis-samples__tabulon-305]
models:
  qwen3.5: {backend: playback, model_id: qwen3.5-397b-a17b, tokenizer: qwen3, image_family: qwen3.5}
agents:
  matrix:
    - {agent: mini, scope: normal, conditions: [text]}
    - {agent: plb, scope: normal, conditions: [text, r3]}
    - {agent: let, scope: normal, conditions: [text, r3]}
  variants: {}
single_read:
  window_lines: [10, 30]
  ratios: [1, 3]
  windows_per_size: 2
  include_matplotlib: false
  # OCR reads one 10-line frontier page (font 6; font 9's row is not read) and the 10-line
  # cells' Table 4 pages (the 30-line ones are 'not sampled'): OCR values in both tables from
  # the fewest text rows (whole-page OCR takes about 0.1 CPU s a row)
  ocr: {frontier_fonts: [6, 9], sample_frontier_fonts: [6], frontier_windows: 1, frontier_pages: 1, frontier_lines: 10,
        sample_max_lines: 10, frontier_packages: [requests]}
counterfactual:
  conditions: [text, r3]
  bootstrap: {resamples: 50}
"""
TINY_TARGETS = ["results/table1.csv", "results/table3.csv"]


# columns of a results table that say when or with what it was made, not what it measured
VOLATILE_COLUMNS = ("config_hash", "created", "git_commit", "swevis_version", "wall_time_s", "duration_s")


def study_tables(study: Path) -> dict[str, list[dict]]:
    """Every results/*.csv of a study by name, its rows without the VOLATILE_COLUMNS: two runs of
    one study that measured the same things compare equal."""
    def rows(path: Path) -> list[dict]:
        with open(path, newline="") as fh:
            return [{k: v for k, v in row.items() if k not in VOLATILE_COLUMNS} for row in csv.DictReader(fh)]

    return {p.name: rows(p) for p in sorted((study / "results").glob("*.csv"))}


# every table of an index, so an update can be compared with a cold build row for row
INDEX_TABLES = ("files", "symbols", "edges", "targets", "attrs", "chunks", "dirs", "has_file", "bm25_docs",
                "doc_tokens", "bm25_model", "units")


def index_rows(db: Path) -> dict[str, list]:
    """Every row of every table of the index at `db`, in rowid order."""
    con = sqlite3.connect(db)
    try:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in INDEX_TABLES}
    finally:
        con.close()


def run_snakemake(
    workdir: Path, *args: str, cores: int | None = 2, env: dict[str, str] | None = None, timeout: float | None = None,
    prelude: str | None = None,
) -> subprocess.CompletedProcess:
    """The project's Snakefile run in `workdir` by the virtualenv's snakemake; `env` adds to os.environ
    (which conftest.py keeps offline); output captured for the assertion messages. `prelude`: a
    module of tests/ imported first (snakemake_fork.run)."""
    cmd = ["--snakefile", str(PROJECT_ROOT / "Snakefile"), "--directory", str(workdir)]
    cmd += [] if cores is None else ["--cores", str(cores)]
    return snakemake_fork.run([*cmd, *args], env={**os.environ, **(env or {})}, timeout=timeout, prelude=prelude)


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


def call_targets(idx, path: str) -> set[tuple[str, str, str, str]]:
    """(caller, callee's file, callee, how) of every resolved call out of `path` of an open index."""
    return set(idx.con.execute(
        "SELECT ss.qualname, df.path, ds.qualname, t.how FROM targets t JOIN files f ON f.id = t.src_file"
        " JOIN symbols ds ON ds.id = t.dst_symbol JOIN files df ON df.id = ds.file_id"
        " LEFT JOIN symbols ss ON ss.id = t.src_symbol WHERE f.path = ?", (path,)).fetchall())


def agent_conversation(calls: int, output: str, command: str = "pytest -x") -> list[dict]:
    """A system prompt, a task and `calls` calls of mini's shape (a turn with one action block,
    then its output, `module_` in it numbered by call): the history the page families and the
    masking rewrite. `command` may name the call's index as {i}."""
    messages = [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "Fix the bug."}]
    for i in range(calls):
        action = command.format(i=i)
        messages.append({"role": "assistant", "content": f"Step {i}: run the tests.\n```mswea_bash_command\n{action}\n```"})
        messages.append({"role": "user", "content": output.replace("module_", f"module_{i}_")})
    return messages
