"""Script adapters log a user error as one line and exit 2 (no traceback in the rule's log)."""

from pathlib import Path

import pytest

from swevis.config import ConfigError
from swevis.logutil import script_logging


def test_a_user_error_in_a_script_is_one_line_and_exit_2(tmp_path: Path):
    log = tmp_path / "rule.log"
    with pytest.raises(SystemExit) as stop:
        with script_logging(log):
            raise ConfigError("config key 'agents/environment': no such environment\n  (second line)")
    assert stop.value.code == 2
    lines = log.read_text().strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in log.read_text()
    assert lines[0].endswith("error: config key 'agents/environment': no such environment (second line)")


def test_sigterm_runs_the_scripts_clean_up(tmp_path: Path):
    """A cancelled job (SIGTERM) still leaves its context managers: the agent's container
    and workspace are closed by them, not left behind."""
    import subprocess
    import sys
    import time

    started, cleaned = tmp_path / "started", tmp_path / "cleaned"
    script = tmp_path / "job.py"
    script.write_text(
        "import time\nfrom pathlib import Path\nfrom swevis.logutil import script_logging\n"
        f"with script_logging({str(tmp_path / 'rule.log')!r}):\n"
        "    try:\n"
        f"        Path({str(started)!r}).touch()\n"
        "        time.sleep(60)\n"
        "    finally:\n"
        f"        Path({str(cleaned)!r}).touch()\n"
    )
    proc = subprocess.Popen([sys.executable, str(script)])
    deadline = time.monotonic() + 30
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.terminate()
    assert proc.wait(timeout=30) == 128 + 15
    assert cleaned.exists()
    assert "terminated (signal 15)" in (tmp_path / "rule.log").read_text()


def test_a_job_that_exits_without_teardown_keeps_its_exit_handlers_and_output(tmp_path: Path):
    """exit_without_teardown skips the modules' teardown, not what a job leaves behind: the
    exit handlers run (a temporary folder is removed, the log file flushed), buffered stdout
    is written, the exit code is 0, and no line after the call runs."""
    import subprocess
    import sys

    log = tmp_path / "rule.log"
    script = tmp_path / "job.py"
    script.write_text(
        "import sys, tempfile\n"
        "from swevis.logutil import exit_without_teardown, script_logging\n"
        f"with script_logging({str(log)!r}) as log:\n"
        "    scratch = tempfile.TemporaryDirectory()\n"
        "    print(scratch.name, end=' ')\n"
        "    log.info('done')\n"
        "exit_without_teardown()\n"
        "print('after')\n"
    )
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    scratch = Path(out.stdout.split()[0])
    assert out.stdout.split() == [str(scratch)] and not scratch.exists()
    assert log.read_text().rstrip().endswith("swevis.script: done")
