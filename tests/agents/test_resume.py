"""Resumable trajectories, by fault injection: a live trajectory (scripted server on
127.0.0.1) runs in a child process that is SIGKILLed mid-trajectory -- once while a model
request is in flight, once while a command runs -- and a rerun resumes from the journal.

The final trajectory has every step exactly once, the working tree is rebuilt by re-running
the journal's recorded actions (an append done before the kill is in the patch once), and the server
saw at most steps + 1 chat requests over both runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import bash_block

from swevis.agents.run.resume import JOURNAL_FORMAT, ResumingRecorder, TrajectoryJournal, journal_identity, read_journal
from swevis.agents.run.runner import RunSpec, run_instance
from swevis.agents.run.trajectory import StepRecorder
from scripted_server import ScriptedServer, conversation

IID = "swevis-samples__ledgerkit-117"
KEY_ENV = "SWEVIS_RESUME_TEST_KEY"


def turns(marker_dir: Path) -> list[str]:
    started, gate = marker_dir / "started", marker_dir / "gate"
    return [
        bash_block("grep -n 'def round' ledgerkit/money.py"),
        bash_block("sed -n '100,130p' ledgerkit/money.py"),
        bash_block("echo 'RESUMED = True' >> ledgerkit/money.py"),
        # step 3 parks while the gate file exists (the command-kill case waits for `started`)
        bash_block(f"touch {started}; while test -f {gate}; do sleep 0.05; done; git diff --stat"),
        bash_block("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
    ]


class Endpoint:
    """A scripted server whose reply depends on the conversation so far; it can park request k."""

    def __init__(self, turn_texts: list[str]):
        self.turns = turn_texts
        self.block_at: int | None = None
        self.release = threading.Event()
        self.server = ScriptedServer(responder=self._respond)

    def _respond(self, index, request):
        if self.block_at is not None and index == self.block_at:
            self.release.wait(30)
        return conversation(self.turns)(index, request)

    def __enter__(self):
        self.server.start()
        return self

    def __exit__(self, *exc):
        self.release.set()
        self.server.stop()


def profile(base_url: str) -> dict:
    return {
        "backend": "openai", "base_url": base_url, "model_id": "live-model", "api_key_env": KEY_ENV,
        "tokenizer": "qwen3", "image_family": "qwen3.5", "max_retries": 0, "request_timeout_s": 60,
    }


def spec_dict(row, mirror, tmp: Path, base_url: str, out: str) -> dict:
    return {
        "model_name": "live", "profile": profile(base_url), "agent": "mini", "scope": "normal", "condition": "text",
        "row": row, "mirror": mirror, "out_dir": str(tmp / out), "agents_cfg": {"environment": "local", "allow_live_on_host": True},
        "journal_path": str(tmp / "journal" / "live" / "mini-normal" / "text" / f"{IID}.jsonl"),
        "workspace": str(tmp / "ws"), "ledger_path": str(tmp / "ledger.json"),
    }


CHILD = """
import json, sys
from swevis.agents.run.runner import RunSpec, run_instance
run_instance(RunSpec(**json.load(open(sys.argv[1]))))
"""


def start_child(tmp: Path, spec: dict) -> subprocess.Popen:
    (tmp / "spec.json").write_text(json.dumps(spec))
    (tmp / "child.py").write_text(CHILD)
    return subprocess.Popen(
        [sys.executable, str(tmp / "child.py"), str(tmp / "spec.json")],
        stdout=open(tmp / "child.out", "w"), stderr=subprocess.STDOUT, env={**os.environ, KEY_ENV: "sk-resume"},
    )


def wait_for(cond, proc, timeout=60.0, what=""):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        if proc.poll() is not None:
            raise AssertionError(f"child exited ({proc.returncode}) before {what}")
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def journal_steps(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(1 for line in path.read_text().splitlines()[1:] if line.strip())


@pytest.fixture(scope="module")
def reference(instance, tmp_path_factory):
    """The same trajectory without a kill: its steps and patch."""
    row, mirror = instance
    tmp = tmp_path_factory.mktemp("ref")
    os.environ[KEY_ENV] = "sk-resume"
    with Endpoint(turns(tmp / "none")) as ep:
        traj = run_instance(RunSpec(**spec_dict(row, mirror, tmp, ep.server.base_url, "out")))
        assert len(ep.server.chat_requests) == 5
    assert traj["exit_status"] == "submitted"
    return [s["action"] for s in traj["steps"]], (tmp / "out" / "patch.diff").read_text()


@pytest.mark.parametrize("where", ["model_call", "command"])
@pytest.mark.slow
def test_kill_9_mid_trajectory_then_resume(instance, reference, tmp_path, monkeypatch, where):
    row, mirror = instance
    _, ref_patch = reference
    monkeypatch.setenv(KEY_ENV, "sk-resume")
    ref_actions = [t.split("```mswea_bash_command\n")[1].rsplit("\n```", 1)[0] for t in turns(tmp_path)]
    with Endpoint(turns(tmp_path)) as ep:
        spec = spec_dict(row, mirror, tmp_path, ep.server.base_url, "out")
        journal = Path(spec["journal_path"])
        if where == "model_call":
            k = 2  # killed while request k (0-based) is in flight: steps 0..k-1 are journaled
            ep.block_at = k
            child = start_child(tmp_path, spec)
            wait_for(lambda: len(ep.server.chat_requests) == k + 1 and journal_steps(journal) == k, child,
                     what="the parked request")
        else:
            k = 3  # killed while step k's command runs: its response is not journaled yet
            (tmp_path / "gate").touch()
            child = start_child(tmp_path, spec)
            wait_for(lambda: (tmp_path / "started").exists(), child, what="the parked command")
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        (tmp_path / "gate").unlink(missing_ok=True)  # lets the orphaned command loop end
        ep.block_at = None
        ep.release.set()
        first_requests = len(ep.server.chat_requests)
        assert journal_steps(journal) == k and not (tmp_path / "out" / "traj.json").exists()
        header, records = read_journal(journal)
        assert header["journal"] == JOURNAL_FORMAT and header["identity"]["instance_id"] == IID
        killed_usage = [r["step"]["usage"] for r in records]

        traj = run_instance(RunSpec(**spec))
        total_requests = len(ep.server.chat_requests)
        print(f"\nRESUME[{where}] killed during step {k}: first run {first_requests} requests, total {total_requests}, steps 5")

    steps = traj["steps"]
    assert traj["exit_status"] == "submitted"
    assert [s["index"] for s in steps] == list(range(5))
    assert [s["action"] for s in steps] == ref_actions  # every step exactly once, in order
    assert total_requests <= len(steps) + 1, (first_requests, total_requests)
    assert total_requests - first_requests == len(steps) - k  # only the unrecorded steps went live again
    assert traj["provenance"]["resume"]["resumed_steps"] == k
    assert traj["provenance"]["localizer_ranker"].startswith(("learned (weights ", "heuristic"))
    # resumed steps keep the usage billed before the kill (server-reported, not re-estimated)
    assert [s["usage"] for s in steps[:k]] == killed_usage
    assert all(s["usage"]["source"] == "server" for s in steps)
    # the append of step 2 happened once: re-run from the journal (command case) or live (model-call case)
    patch = (tmp_path / "out" / "patch.diff").read_text()
    assert patch == ref_patch and patch.count("RESUMED = True") == 1
    assert not journal.exists()  # discarded on completion
    # the ledger counted each real request once: first run's completed calls + the rerun's
    ledger = json.loads((tmp_path / "ledger.json").read_text())
    # (the request killed in flight never returned; the one whose command was killed did)
    assert ledger["total"]["calls"] == (len(steps) if where == "model_call" else len(steps) + 1)


def test_journal_of_other_settings_is_discarded(instance, tmp_path):
    row, mirror = instance
    spec = RunSpec(**spec_dict(row, mirror, tmp_path, "http://127.0.0.1:9/v1", "out"))
    path = Path(spec.journal_path)
    path.parent.mkdir(parents=True)
    other = dict(journal_identity(spec), condition="r3")
    step = {"index": 0, "phase": "main", "action": "ls", "usage": {}, "observation": {}}
    path.write_text(json.dumps({"journal": JOURNAL_FORMAT, "identity": other}) + "\n"
                    + json.dumps({"step": step, "response": bash_block("ls")}) + "\n")
    j = TrajectoryJournal(path, journal_identity(spec))
    assert not j.resumed and j.discarded_reason == "written for other settings"
    assert len(path.read_text().splitlines()) == 1  # only the new header


def test_half_written_last_line_is_dropped(instance, tmp_path):
    row, mirror = instance
    spec = RunSpec(**spec_dict(row, mirror, tmp_path, "http://127.0.0.1:9/v1", "out"))
    path = Path(spec.journal_path)
    path.parent.mkdir(parents=True)
    step = {"index": 0, "phase": "main", "action": "ls", "usage": {"prompt_tokens": 10, "completion_tokens": 2}}
    path.write_text(json.dumps({"journal": JOURNAL_FORMAT, "identity": journal_identity(spec)}) + "\n"
                    + json.dumps({"step": step, "response": bash_block("ls")}) + "\n" + '{"step": {"index": 1, "pha')
    j = TrajectoryJournal(path, journal_identity(spec))
    assert j.resumed and len(j.records) == 1 and [t.content for t in j.turns()] == [bash_block("ls")]
    assert j.prior_spend({}).calls == 1 and j.prior_spend({}).prompt_tokens == 10
    assert path.read_text().endswith("\n") and len(path.read_text().splitlines()) == 2


def test_a_resumed_run_classes_a_script_run_as_an_uninterrupted_one(tmp_path):
    """The script an already-journaled step wrote still decides the class of a later run of it."""
    write = "cat > fix.py <<'EOF'\np = 'pkg/core.py'\ns = open(p).read()\nopen(p, 'w').write(s.replace('a', 'b'))\nEOF"
    usage = {"prompt_tokens": 1, "completion_tokens": 1}
    fresh = StepRecorder(None)
    first = fresh.add(phase="agent", action=write, tool=None, observation=None, usage=usage)
    resumed = ResumingRecorder(tmp_path / "journal.jsonl", [first])
    resumed.add(phase="agent", action=write, tool=None, observation=None, usage=usage)  # re-run from the journal
    step = resumed.add(phase="agent", action="python fix.py", tool=None, observation=None, usage=usage)
    assert step["action_class"] == fresh.add(phase="agent", action="python fix.py", tool=None, observation=None,
                                             usage=usage)["action_class"] == "edit"
