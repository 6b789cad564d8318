"""Sandboxing of the agents' commands.

Docker: a fake `docker` executable first on PATH records every invocation and runs `exec`'d
commands in a local checkout standing in for /testbed, so a whole trajectory goes through
mini-swe-agent's DockerEnvironment for real: the container gets no network unless config
allows it, CPU and memory limits, and every command runs under a timeout inside it.
Local: a throwaway checkout (the mirror and the pristine checkout stay untouched), a
per-command timeout, and a refusal to start a live model without acknowledgement."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest
import yaml

from swevis.sandbox.environments import (
    EnvironmentRefused,
    LocalWorkspace,
    make_environment,
    workspace_path,
)
from swevis.agents.run.runner import RunSpec, run_instance
from swevis.config import schema_defaults
from swevis.errors import InfrastructureError
from scripted_server import ScriptedServer
from swevis.paths import WORKSPACE_ID_DIGITS
from swevis.tasks.repos import checkout

# the environment options as the runner passes them (the validated agents settings): the schema's defaults
ENV_OPTIONS = {k: schema_defaults("agents")[k] for k in ("docker_network", "docker_cpus", "docker_memory", "docker_pids", "env_passthrough")}

IID = "swevis-samples__ledgerkit-117"
PROFILE = {"backend": "playback", "model_id": "test", "tokenizer": "qwen3", "image_family": "qwen3.5"}

FAKE_DOCKER = r'''#!{python}
"""Stands in for the docker CLI: logs argv, `run -d` prints an id, `exec` runs locally."""
import json, os, subprocess, sys
args = sys.argv[1:]
with open(os.environ["FAKE_DOCKER_LOG"], "a") as fh:
    fh.write(json.dumps(args) + "\n")
dead = os.environ.get("FAKE_DOCKER_DEAD", "")
if args[0] == "exec" and dead and os.path.exists(dead):  # the container died mid-run
    sys.stderr.write("Error response from daemon: container fakecontainer0123 is not running\n")
    sys.exit(1)
if args[0] == "run":
    import time
    time.sleep(float(os.environ.get("FAKE_DOCKER_RUN_S", "0")))  # a pull or start that hangs
    print("fakecontainer0123")
elif args[0] == "exec":
    i, cwd, env = 1, "/", dict(os.environ)
    while args[i].startswith("-"):
        if args[i] == "-w":
            cwd = args[i + 1]
        elif args[i] == "-e":
            k, _, v = args[i + 1].partition("=")
            env[k] = v
        i += 2
    assert args[i] == "fakecontainer0123", args[i]
    env.pop("BASH_ENV", None)  # the image's conda activation script does not exist here
    root = os.environ["FAKE_TESTBED"]
    local = cwd.replace("/testbed", root, 1) if cwd.startswith("/testbed") else root
    proc = subprocess.run(args[i + 1:], cwd=local, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(proc.stdout)
    sys.exit(proc.returncode)
'''


@pytest.fixture
def fake_docker(instance, tmp_path, monkeypatch):
    row, mirror = instance
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "docker"
    exe.write_text(FAKE_DOCKER.replace("{python}", sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    testbed = checkout(mirror, row["base_commit"], tmp_path / "testbed")
    log = tmp_path / "docker.log"
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_DOCKER_LOG", str(log))
    monkeypatch.setenv("FAKE_TESTBED", str(testbed))
    monkeypatch.setenv("FAKE_DOCKER_DEAD", str(tmp_path / "container-died"))

    def calls(sub: str | None = None) -> list[list[str]]:
        if not log.exists():
            return []
        rows = [json.loads(line) for line in log.read_text().splitlines()]
        return [r for r in rows if sub is None or r[0] == sub]

    return {"calls": calls, "testbed": Path(testbed), "dead": tmp_path / "container-died"}


def block(cmd: str) -> str:
    return f"THOUGHT: next.\n\n```mswea_bash_command\n{cmd}\n```\n"


def test_docker_trajectory_runs_sandboxed(instance, fake_docker, tmp_path):
    row, mirror = instance
    demo = tmp_path / "demo.yaml"
    demo.write_text(yaml.safe_dump({"format": "swevis-demo-1", "turns": {"agent": [
        block("grep -n 'def round' ledgerkit/money.py"),
        block("echo 'SANDBOXED = 1' >> ledgerkit/money.py"),
        block("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
    ]}}))
    traj = run_instance(RunSpec(
        "qwen3.5", PROFILE, "mini", "normal", "text", row, mirror, str(tmp_path / "out"), playback_source=str(demo),
        agents_cfg={"environment": "docker", "docker_cpus": 2, "docker_memory": "4g", "command_timeout_s": 7},
    ))
    assert traj["exit_status"] == "submitted", traj["error"]
    assert "SANDBOXED = 1" in (tmp_path / "out" / "patch.diff").read_text()
    (run,) = fake_docker["calls"]("run")
    assert run[:2] == ["run", "-d"] and "--rm" in run and "--network=none" in run
    assert "--cpus=2" in run and "--memory=4g" in run and "--memory-swap=4g" in run
    assert "--read-only" in run and "--volume=/testbed" in run and "--cap-drop=ALL" in run  # no host path mounted
    assert "--pids-limit=512" in run  # the schema's default
    # the image the Docker harness grades in (harness.namespace swebench by default)
    assert run[-3:] == ["swebench/sweb.eval.x86_64.swevis-samples_1776_ledgerkit-117:latest", "sleep", "2h"]
    assert fake_docker["calls"]("rm") == [["rm", "-f", "-v", "fakecontainer0123"]]  # removed, not stopped later
    execs = fake_docker["calls"]("exec")
    assert len(execs) >= 3  # every agent command (and the final git diff) went into the container
    for e in execs:
        i = e.index("fakecontainer0123")
        assert e[1:3] == ["-w", "/testbed"]
        assert e[i + 1:i + 6] == ["timeout", "--kill-after=5", "7", "bash", "-c"]


def test_docker_network_only_when_config_allows(instance, fake_docker):
    row, mirror = instance
    unlimited = {"docker_cpus": None, "docker_memory": None, "docker_pids": None}
    env, root, ws = make_environment("docker", row, mirror=mirror, timeout_s=5, live_model=True,
                                     allow_live_on_host=False, **{**ENV_OPTIONS, **unlimited, "docker_network": True})
    assert root == "/testbed" and ws is None  # a live model needs no host acknowledgement in Docker
    (run,) = fake_docker["calls"]("run")
    assert not any(a.startswith("--network") for a in run)
    assert not any(a.startswith(("--cpus", "--memory", "--pids")) for a in run)  # no limits when set to null


def test_docker_command_timeout_kills_the_command(instance, fake_docker):
    row, mirror = instance
    env, _, _ = make_environment("docker", row, mirror=mirror, timeout_s=1, live_model=False, allow_live_on_host=False, **ENV_OPTIONS)
    started = time.monotonic()
    out = env.execute({"command": "sleep 20; echo never"})
    assert time.monotonic() - started < 10
    assert out["returncode"] == 124 and "never" not in out["output"]  # coreutils timeout's status


def test_a_container_that_dies_mid_run_fails_the_run_and_writes_nothing(instance, fake_docker, tmp_path):
    row, mirror = instance
    demo = tmp_path / "demo.yaml"
    demo.write_text(yaml.safe_dump({"format": "swevis-demo-1", "turns": {"agent": [
        block(f"touch {fake_docker['dead']}"),  # from here on docker answers every exec with its own error
        block("grep -n 'def round' ledgerkit/money.py"),
        block("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
    ]}}))
    out = tmp_path / "out"
    with pytest.raises(InfrastructureError, match="container fakecontainer0123 is not running") as err:
        run_instance(RunSpec("qwen3.5", PROFILE, "mini", "normal", "text", row, mirror, str(out),
                             playback_source=str(demo), agents_cfg={"environment": "docker"}))
    assert "\n" not in str(err.value)
    assert not (out / "traj.json").exists() and not (out / "patch.diff").exists()
    # the start's own exec (the workspace's time), the touch, the failed grep: no step after it
    assert len(fake_docker["calls"]("exec")) == 3
    assert fake_docker["calls"]("rm") == [["rm", "-f", "-v", "fakecontainer0123"]]  # closed on the error path too


def test_a_trajectory_ended_by_its_step_limit_still_removes_its_container(instance, fake_docker, tmp_path):
    row, mirror = instance
    demo = tmp_path / "demo.yaml"
    demo.write_text(yaml.safe_dump({"format": "swevis-demo-1", "turns": {"agent": [block("true")] * 5}}))
    traj = run_instance(RunSpec("qwen3.5", PROFILE, "mini", "normal", "text", row, mirror, str(tmp_path / "out"),
                                playback_source=str(demo), agents_cfg={"environment": "docker", "step_limit": 2}))
    assert traj["exit_status"] != "submitted" and len(traj["steps"]) == 2, traj["exit_status"]
    assert fake_docker["calls"]("rm") == [["rm", "-f", "-v", "fakecontainer0123"]]


def test_a_start_that_hangs_fails_in_one_line_and_removes_what_the_engine_made(fake_docker, monkeypatch):
    from swevis.sandbox.environments import CheckedDockerEnvironment

    monkeypatch.setenv("FAKE_DOCKER_RUN_S", "5")
    with pytest.raises(InfrastructureError, match=r"^docker run some/image:latest did not answer in 1 s$"):
        CheckedDockerEnvironment(image="some/image:latest", cwd="/testbed", pull_timeout=1)
    (run,) = fake_docker["calls"]("run")
    name = run[run.index("--name") + 1]
    assert name.startswith("swevis-agent-") and fake_docker["calls"]("rm") == [["rm", "-f", "-v", name]]


def test_a_commands_own_failure_in_docker_stays_an_observation(instance, fake_docker):
    row, mirror = instance
    env, _, _ = make_environment("docker", row, mirror=mirror, timeout_s=5, live_model=False, allow_live_on_host=False, **ENV_OPTIONS)
    out = env.execute({"command": "no_such_program_here"})
    assert out["returncode"] == 127 and "not found" in out["output"]
    out = env.execute({"command": "echo tail of a log:; echo 'Error response from daemon: (quoted)'; exit 125"})
    assert out["returncode"] == 125  # the command's words and status, not docker's own failure


def test_local_runs_in_a_throwaway_copy(instance, tmp_path):
    row, mirror = instance
    pristine = checkout(mirror, row["base_commit"], tmp_path / "pristine")
    demo = tmp_path / "demo.yaml"
    demo.write_text(yaml.safe_dump({"format": "swevis-demo-1", "turns": {"agent": [
        block("echo 'LOCAL = 1' >> ledgerkit/money.py && pwd"),
        block("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
    ]}}))
    ws = tmp_path / "ws"
    traj = run_instance(RunSpec(
        "qwen3.5", PROFILE, "mini", "normal", "text", row, mirror, str(tmp_path / "out"), playback_source=str(demo),
        pristine_dir=str(pristine), workspace=str(ws),
    ))
    assert traj["exit_status"] == "submitted"
    assert "LOCAL = 1" in (tmp_path / "out" / "patch.diff").read_text()
    assert "LOCAL = 1" not in (Path(pristine) / "ledgerkit" / "money.py").read_text()
    assert not ws.exists()  # the throwaway checkout is gone


def test_workspace_path_is_fixed_per_run_and_the_same_length_for_every_run(tmp_path):
    runs = [("qwen3.5", a, s, c, i) for a in ("let", "let-mem", "plb") for s in ("normal", "wide")
            for c in ("text", "r3") for i in (IID, IID + ".repeat-1")]
    paths = [workspace_path(tmp_path, *r) for r in runs]
    assert paths == [workspace_path(tmp_path, *r) for r in runs]  # a rerun gets the same folder
    assert len(set(paths)) == len(runs)
    assert {len(str(p)) for p in paths} == {len(str(tmp_path)) + 1 + WORKSPACE_ID_DIGITS}
    assert all(p.parent == tmp_path and p.name.isdigit() for p in paths)  # no agent or condition name in it


@pytest.mark.slow
def test_a_shared_workspace_folder_is_used_one_run_after_the_other(instance, tmp_path):
    """Two runs whose ids collide: the second waits for the first's checkout instead of deleting it."""
    import threading

    row, mirror = instance
    path = str(tmp_path / "00000001")
    first = LocalWorkspace(mirror, row["base_commit"], path)
    marker = Path(first.repo) / "FIRST_RUN"
    marker.write_text("in use")
    got: list[LocalWorkspace] = []
    second = threading.Thread(target=lambda: got.append(LocalWorkspace(mirror, row["base_commit"], path)))
    second.start()
    second.join(timeout=1.5)
    assert second.is_alive() and marker.exists()  # still waiting; the first checkout is intact
    first.close()
    second.join(timeout=30)
    assert got and Path(got[0].repo, "ledgerkit", "money.py").exists() and not marker.exists()
    got[0].close()
    assert not Path(path).exists()


def test_the_local_environment_says_what_it_does_not_isolate(instance, caplog):
    row, mirror = instance
    with caplog.at_level("WARNING", logger="swevis.sandbox.environments"):
        _, _, ws = make_environment("local", row, mirror=mirror, timeout_s=5, live_model=False, allow_live_on_host=False,
                                    **ENV_OPTIONS)
    ws.close()
    (warning,) = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    for says in ("NOT ISOLATED", "as this user", "read this host's files", "write outside the checkout",
                 "reach the network", "leave background processes"):
        assert says in warning, warning


def test_local_command_timeout(instance):
    row, mirror = instance
    env, _, ws = make_environment("local", row, mirror=mirror, timeout_s=1, live_model=False, allow_live_on_host=False, **ENV_OPTIONS)
    try:
        started = time.monotonic()
        out = env.execute({"command": "sleep 20; echo never"})
        assert time.monotonic() - started < 10
        assert out["returncode"] == -1 and "timed out" in out["exception_info"].lower()
    finally:
        ws.close()


def test_live_model_on_host_refused_before_any_request(instance, tmp_path, monkeypatch):
    row, mirror = instance
    monkeypatch.setenv("SWEVIS_SANDBOX_KEY", "sk-x")
    with ScriptedServer() as server:
        live = {"backend": "openai", "base_url": server.base_url, "model_id": "m", "api_key_env": "SWEVIS_SANDBOX_KEY"}
        with pytest.raises(EnvironmentRefused, match="allow_live_on_host"):
            run_instance(RunSpec("live", live, "mini", "normal", "text", row, mirror, str(tmp_path / "out"),
                                 agents_cfg={"environment": "local"}))
        assert server.chat_requests == []
    assert not (tmp_path / "out").exists()


def test_auto_puts_a_live_model_in_docker_and_playback_on_the_host(instance, fake_docker):
    row, mirror = instance
    env, root, ws = make_environment("auto", row, mirror=mirror, timeout_s=5, live_model=True,
                                     allow_live_on_host=True, **ENV_OPTIONS)  # acknowledged, still not the host
    assert root == "/testbed" and ws is None and len(fake_docker["calls"]("run")) == 1
    env.cleanup()
    env, root, ws = make_environment("auto", row, mirror=mirror, timeout_s=5, live_model=False,
                                     allow_live_on_host=False, **ENV_OPTIONS)
    try:
        assert ws is not None and root == ws.repo and len(fake_docker["calls"]("run")) == 1  # no container
    finally:
        ws.close()


def test_auto_is_resolved_once_in_the_run_spec(instance, tmp_path):
    """What the runner, the journal's identity and traj.json's provenance see: docker or local, never auto."""
    row, mirror = instance
    assert schema_defaults("agents")["environment"] == "auto"
    live = {"backend": "openai", "model_id": "m", "base_url": "http://127.0.0.1:9/v1"}
    assert RunSpec("live", live, "mini", "normal", "text", row, mirror, str(tmp_path)).settings.environment == "docker"
    assert RunSpec("q", PROFILE, "mini", "normal", "text", row, mirror, str(tmp_path)).settings.environment == "local"
    pinned = RunSpec("live", live, "mini", "normal", "text", row, mirror, str(tmp_path), agents_cfg={"environment": "local"})
    assert pinned.settings.environment == "local"


def test_auto_with_a_live_model_and_no_engine_fails_with_dockers_words_not_on_the_host(instance, tmp_path, monkeypatch):
    row, mirror = instance
    (tmp_path / "bin").mkdir()
    fake = tmp_path / "bin" / "docker"
    fake.write_text("#!/bin/sh\necho 'docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
                    "Is the docker daemon running?' >&2\necho \"See 'docker run --help'.\" >&2\nexit 125\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(InfrastructureError) as err:
        make_environment("auto", row, mirror=mirror, timeout_s=5, live_model=True, allow_live_on_host=True,
                         workspace=str(tmp_path / "ws"), **ENV_OPTIONS)
    assert str(err.value).endswith("failed (exit status 125): Cannot connect to the Docker daemon at "
                                   "unix:///var/run/docker.sock. Is the docker daemon running?")
    assert not (tmp_path / "ws").exists()  # no checkout on the host was made


def test_docker_patch_is_taken_against_base_commit(instance, fake_docker):
    """A change the agent commits inside the container still is the patch."""
    from swevis.agents.tools.environment import working_tree_diff

    row, mirror = instance
    env, _, _ = make_environment("docker", row, mirror=mirror, timeout_s=30, live_model=False, allow_live_on_host=False, **ENV_OPTIONS)
    assert env.base_commit == row["base_commit"]
    out = env.execute({"command": "echo 'IN_CONTAINER = 1' >> ledgerkit/money.py && echo new > NOTES.txt && "
                                  "git add -A && git -c user.name=a -c user.email=a@example.invalid commit -qm fix"})
    assert out["returncode"] == 0, out["output"]
    patch = working_tree_diff(env)
    assert "+IN_CONTAINER = 1" in patch and "b/NOTES.txt" in patch


def test_docker_commands_get_only_the_image_environment_and_passthrough(instance, fake_docker, monkeypatch):
    row, mirror = instance
    monkeypatch.setenv("XYZZY", "hunter2")
    monkeypatch.setenv("SWEVIS_PASSED", "visible-value")
    env, _, _ = make_environment("docker", row, mirror=mirror, timeout_s=30, live_model=False, allow_live_on_host=False, **{**ENV_OPTIONS, "env_passthrough": ["SWEVIS_PASSED"]})
    env.execute({"command": "true"})
    exec_args = fake_docker["calls"]("exec")[-1]
    forwarded = [exec_args[i + 1] for i, a in enumerate(exec_args) if a == "-e"]
    assert "SWEVIS_PASSED=visible-value" in forwarded
    assert not any("hunter2" in a for a in exec_args)
    assert {f.split("=", 1)[0] for f in forwarded} == {"PAGER", "MANPAGER", "LESS", "PIP_PROGRESS_BAR", "TQDM_DISABLE",
                                                       "BASH_ENV", "SWEVIS_PASSED"}


def test_passthrough_may_not_name_the_api_key(instance):
    from swevis.sandbox.environments import PassthroughRefused

    row, mirror = instance
    with pytest.raises(PassthroughRefused, match="agents.env_passthrough names MY_KEY"):
        make_environment("local", row, mirror=mirror, timeout_s=5, live_model=False, allow_live_on_host=False,
                         secret_env_names=["MY_KEY"], **{**ENV_OPTIONS, "env_passthrough": ["LANG", "MY_KEY"]})


@pytest.mark.parametrize("key,value", [("docker_memory", "4 gigs"), ("docker_cpus", 0), ("docker_pids", 1),
                                       ("environment", "host")])
def test_a_docker_option_docker_would_refuse_is_a_config_error_naming_the_key(key, value):
    from swevis.config import ConfigError, filled_section

    with pytest.raises(ConfigError, match=f"config key 'agents/{key}'"):
        filled_section("agents", {key: value})
