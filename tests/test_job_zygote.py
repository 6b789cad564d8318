"""The job zygote (tests/job_zygote.py) runs a script job as `python SCRIPT` would: the same
output, exit code, folder and environment; a job whose client is killed is killed too."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import snakemake_fork

CLIENT = [sys.executable, "-S", "-I", str(Path(snakemake_fork.__file__).with_name("job_client.py"))]
SCRIPT = """\
import os, sys
print("argv", sys.argv[1:], "cwd", os.getcwd(), "name", __name__, "var", os.environ.get("JOB_VAR"))
print("first on sys.path:", sys.path[0] == os.path.dirname(os.path.abspath(__file__)))
print("to stderr", file=sys.stderr)
if sys.argv[1] == "raise":
    raise ValueError("a job that fails")
sys.exit(int(sys.argv[1]))
"""


@pytest.fixture(scope="module")
def zygote() -> str:
    socket = snakemake_fork._ensure_zygote()
    if socket is None:
        pytest.fail("the job zygote does not serve here (its reason is on stderr)")
    return socket


def run_both(script: Path, arg: str, cwd: Path, zygote: str) -> tuple[subprocess.CompletedProcess, ...]:
    env = {**os.environ, "JOB_VAR": "from the job"}
    direct = subprocess.run([sys.executable, str(script), arg], cwd=cwd, env=env, capture_output=True, text=True)
    forked = subprocess.run([*CLIENT, str(script), arg], cwd=cwd, capture_output=True, text=True,
                            env={**env, "SWEVIS_TEST_JOB_ZYGOTE": zygote})
    return direct, forked


@pytest.mark.parametrize("arg", ["0", "3", "raise"])
def test_a_forked_job_prints_and_exits_as_a_started_one(zygote, tmp_path, arg):
    script = tmp_path / "scripts" / "job.py"
    script.parent.mkdir()
    script.write_text(SCRIPT)
    direct, forked = run_both(script, arg, tmp_path, zygote)
    assert forked.returncode == direct.returncode == {"0": 0, "3": 3, "raise": 1}[arg]
    assert forked.stdout == direct.stdout
    assert "var from the job" in forked.stdout and "first on sys.path: True" in forked.stdout
    assert forked.stderr.splitlines()[0] == "to stderr"
    assert forked.stderr.splitlines()[-1] == direct.stderr.splitlines()[-1]


def test_a_job_whose_client_is_killed_is_killed(zygote, tmp_path):
    pid_file = tmp_path / "pid"
    script = tmp_path / "sleeper.py"
    script.write_text(f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n")
    client = subprocess.Popen([*CLIENT, str(script)], env={**os.environ, "SWEVIS_TEST_JOB_ZYGOTE": zygote})
    deadline = time.monotonic() + 20
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline and client.poll() is None, "the job never started"
        time.sleep(0.05)
    job = int(pid_file.read_text())
    client.send_signal(signal.SIGTERM)
    client.wait()
    while Path(f"/proc/{job}").exists() and "Z" not in Path(f"/proc/{job}/stat").read_text().split()[2]:
        assert time.monotonic() < deadline, "the job outlived its client"
        time.sleep(0.05)
