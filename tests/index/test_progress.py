"""`swevis index` and a first `swevis localize` report progress on stderr: a live count of
files when stderr is a terminal (a pty here), one summary line when it is not."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

SWEVIS = [str(Path(sys.executable).parent / "swevis")]  # the installed console script


def _repo(tmp_path: Path, n: int = 5) -> Path:
    repo = tmp_path / "proj"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("")
    for i in range(n):
        (repo / "pkg" / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
    return repo


def _run_on_pty(cmd: list[str]) -> tuple[int, str, str]:
    """Run `cmd` with stderr on a pseudo-terminal: (exit code, stdout, what the terminal showed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, env={**os.environ, "TERM": "xterm"})
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    out = proc.stdout.read().decode()
    proc.wait(timeout=60)
    os.close(master)
    return proc.returncode, out, shown.decode(errors="replace")


def test_index_on_a_terminal_draws_files_parsed_of_total(tmp_path):
    repo = _repo(tmp_path)
    code, out, shown = _run_on_pty([*SWEVIS, "index", str(repo), "--db", str(tmp_path / "i.sqlite")])
    assert code == 0, shown
    assert "\rindexing proj: 6/6 files (6 parsed)" in shown
    assert "indexed proj: 6 of 6 files parsed, 0 unchanged, 0 removed (cold," in shown
    assert "index: " in out  # the report itself stays on stdout


def test_index_into_a_pipe_writes_one_summary_line(tmp_path):
    repo = _repo(tmp_path)
    db = tmp_path / "i.sqlite"
    r = subprocess.run([*SWEVIS, "index", str(repo), "--db", str(db)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("indexed ")]
    assert lines == [lines[0]] and "6 of 6 files parsed" in lines[0], r.stderr
    assert "\r" not in r.stderr and "\x1b" not in r.stderr
    (repo / "pkg" / "m0.py").write_text("def f0(x):\n    return x - 1\n")
    again = subprocess.run([*SWEVIS, "index", str(repo), "--db", str(db)], capture_output=True, text=True)
    assert "indexed proj: 1 of 6 files parsed, 5 unchanged, 0 removed (incremental," in again.stderr


def test_first_localize_shows_the_index_build_and_a_second_does_not(tmp_path):
    repo = _repo(tmp_path)
    issue = tmp_path / "issue.md"
    issue.write_text("f3 returns the wrong value")
    cmd = [*SWEVIS, "localize", str(repo), "--issue", str(issue), "--db", str(tmp_path / "i.sqlite")]
    code, out, shown = _run_on_pty(cmd)
    assert code == 0, shown
    assert "\rindexing proj: 6/6 files" in shown and "indexed proj: 6 of 6 files parsed" in shown
    assert "== symbols" in out
    second = subprocess.run(cmd, capture_output=True, text=True)
    assert second.returncode == 0 and "indexed" not in second.stderr
