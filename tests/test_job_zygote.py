"""The job zygote (tests/job_zygote.py) runs a script job as `python SCRIPT` would: the same
output, exit code, folder and environment, the same end under a signal; a job whose client is
killed outright is stopped."""

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
import os, sys, threading, time
print("argv", sys.argv[1:], "cwd", os.getcwd(), "name", __name__, "var", os.environ.get("JOB_VAR"))
print("first on sys.path:", sys.path[0] == os.path.dirname(os.path.abspath(__file__)))
print("to stderr", file=sys.stderr, flush=True)
sys.excepthook = lambda kind, value, tb: print("hooked:", kind.__name__, value, file=sys.stderr)
threading.Thread(target=lambda: (time.sleep(0.2), print("thread done"))).start()
if sys.argv[1] == "raise":
    raise ValueError("a job that fails")
sys.exit(int(sys.argv[1]) if sys.argv[1].isdigit() else sys.argv[1])
"""
SLEEPER = """\
import os, signal, sys, time
signal.signal(signal.SIGTERM, lambda *_: (open(sys.argv[1] + ".term", "w").close(), sys.exit(143)))
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(60)
"""


@pytest.fixture(scope="module")
def zygote():
    """A zygote of this module's own (whatever SWEVIS_TEST_JOB_FORK says), stopped after it."""
    proc, path, serving = snakemake_fork._start_zygote()
    try:
        if not serving:
            pytest.fail("the job zygote does not serve here (its reason is in the warnings)")
        yield path
    finally:
        proc.stdin.close()
        proc.wait()


def client_env(zygote: str) -> dict[str, str]:
    return {**os.environ, "JOB_VAR": "from the job", "SWEVIS_TEST_JOB_ZYGOTE": zygote}


@pytest.mark.parametrize("arg", ["0", "3", "raise", "a message"])
def test_a_forked_job_prints_and_exits_as_a_started_one(zygote, tmp_path, arg):
    script = tmp_path / "scripts" / "job.py"
    script.parent.mkdir()
    script.write_text(SCRIPT)
    env = client_env(zygote)
    direct = subprocess.run([sys.executable, str(script), arg], cwd=tmp_path, env=env, capture_output=True, text=True)
    forked = subprocess.run([*CLIENT, str(script), arg], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert forked.returncode == direct.returncode == {"0": 0, "3": 3, "raise": 1, "a message": 1}[arg]
    assert forked.stdout == direct.stdout
    assert "var from the job" in forked.stdout and "first on sys.path: True" in forked.stdout
    assert "thread done" in forked.stdout
    assert forked.stderr == direct.stderr


def start_sleeper(zygote: str, tmp_path: Path) -> tuple[subprocess.Popen, int, Path]:
    script, pid_file = tmp_path / "sleeper.py", tmp_path / "pid"
    script.write_text(SLEEPER)
    client = subprocess.Popen([*CLIENT, str(script), str(pid_file)], env=client_env(zygote))
    deadline = time.monotonic() + 20
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline and client.poll() is None, "the job never started"
        time.sleep(0.05)
    return client, int(pid_file.read_text()), pid_file


def gone(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().split()[2] == "Z"


def test_a_signal_to_the_client_reaches_the_job_and_the_client_ends_as_it_did(zygote, tmp_path):
    client, job, pid_file = start_sleeper(zygote, tmp_path)
    client.send_signal(signal.SIGTERM)
    assert client.wait(timeout=20) == 143
    assert pid_file.with_suffix(".term").exists(), "the job's SIGTERM handler did not run"


def test_a_job_whose_client_is_killed_outright_is_stopped(zygote, tmp_path):
    client, job, pid_file = start_sleeper(zygote, tmp_path)
    client.kill()
    client.wait()
    deadline = time.monotonic() + 20
    while not gone(job):
        assert time.monotonic() < deadline, "the job outlived its client"
        time.sleep(0.05)
    assert pid_file.with_suffix(".term").exists(), "the job was not asked to stop first"


TOKENIZER_LOADED = """\
from swevis.tokens import text
print(text._id_encoder.cache_info().currsize, text.text_tokens("def area(r): return 3.14 * r * r", "qwen3"))
"""


def test_a_forked_job_counts_with_the_tokenizer_the_zygote_loaded(zygote, tmp_path):
    """The zygote loaded the Qwen3 tokenizer (tests/job_warm.py) from the session's cache: a
    job finds it loaded and counts as a started job, which loads its own."""
    script = tmp_path / "count.py"
    script.write_text(TOKENIZER_LOADED)
    env = client_env(zygote)
    direct = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True)
    forked = subprocess.run([*CLIENT, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True)
    (loaded_direct, count_direct), (loaded_forked, count_forked) = (p.stdout.split() for p in (direct, forked))
    assert (loaded_direct, loaded_forked) == ("0", "1"), (direct.stderr, forked.stderr)
    assert count_forked == count_direct and int(count_direct) > 5
