"""The agents' sandbox in a real Docker container: the bundled sample's images
(conftest's `sample_images`, the ones the Docker harness grades in) on this machine's engine.

Each check looks from both sides where it can: what a command sees in the container, and
what the host has afterwards (its files, its processes, docker's list of containers)."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

import pytest

from swevis.sandbox import environments
from swevis.sandbox.environments import make_environment
from swevis.agents.run.runner import RunSpec, prelocalize, run_instance
from swevis.config import schema_defaults
from swevis.errors import InfrastructureError
from swevis.models import make_model

pytestmark = [pytest.mark.docker, pytest.mark.slow]

IID = "swevis-samples__ledgerkit-117"
PROFILE = {"backend": "playback", "model_id": "test", "tokenizer": "qwen3", "image_family": "qwen3.5"}
DEMOS = Path(environments.__file__).resolve().parents[1] / "data" / "demos"
# the docker options as the runner passes them: the schema's defaults
OPTIONS = {k: schema_defaults("agents")[k]
           for k in ("docker_network", "docker_cpus", "docker_memory", "docker_pids", "env_passthrough")}


@pytest.fixture
def prefix(monkeypatch):
    """A container name prefix of this test alone, so counting containers is not disturbed by others'."""
    mine = f"swevis-d1test-{uuid.uuid4().hex[:6]}-"
    monkeypatch.setattr(environments, "CONTAINER_PREFIX", mine)
    return mine


@pytest.fixture
def sandbox(sample_images, bundled_mirror, prefix):
    """open(**options) -> a started docker environment of IID; every one is closed after the test."""
    row, mirror = bundled_mirror(IID)
    opened = []

    def open_(**options):
        env, root, ws = make_environment("docker", row, mirror=mirror, timeout_s=30, live_model=True,
                                         allow_live_on_host=False, harness=sample_images["settings"],
                                         **{**OPTIONS, **options})
        assert root == "/testbed" and ws is None
        opened.append(env)
        return env

    yield open_
    for env in opened:
        env.cleanup()


def containers(prefix: str) -> list[str]:
    out = subprocess.run(["docker", "ps", "-a", "-q", "--filter", f"name={prefix}"], capture_output=True, text=True,
                         check=True)
    return out.stdout.split()


def run(env, command: str) -> tuple[int, str]:
    out = env.execute({"command": command})
    return out["returncode"], out["output"]


def test_runs_in_the_image_the_harness_grades_in(sandbox, sample_images):
    env = sandbox()
    # as conftest's sample_images built it and the Docker harness (namespace swevis) looks it up
    assert env.config.image == "swevis/sweb.eval.x86_64.swevis-samples_1776_ledgerkit-117:latest"
    assert run(env, "python -c 'import sys;print(sys.executable)'") == (0, "/opt/miniconda3/envs/testbed/bin/python\n")
    code, out = run(env, "python -c 'import pytest, ledgerkit; print(ledgerkit.__file__)'")
    assert code == 0 and out.startswith("/testbed/"), out
    assert run(env, "pwd") == (0, "/testbed\n")
    # the volume's folder has the base commit's time (as a local checkout), not the container's
    assert run(env, "stat -c %Y .")[1] == run(env, "git show -s --format=%ct HEAD")[1]


def test_a_write_outside_the_workspace_fails_and_never_reaches_the_host(sandbox, tmp_path):
    env = sandbox()
    marker = f"swevis-d1-{uuid.uuid4().hex}"
    code, out = run(env, f"touch /usr/{marker}")
    assert code != 0 and "Read-only file system" in out
    code, out = run(env, f"echo x > /root/{marker}")
    assert code != 0 and "Read-only file system" in out
    # what is writable (/testbed, /tmp) is the container's own: no host path behind it
    assert run(env, f"echo x > /tmp/{marker} && echo x > /testbed/{marker} && echo ok")[0] == 0
    assert not Path("/tmp", marker).exists() and not Path("/testbed", marker).exists()
    assert not list(Path("/").glob(f"*/{marker}"))
    code, mounts = run(env, "cat /proc/mounts")
    binds = [line for line in mounts.splitlines() if line.split()[1] in ("/testbed", "/tmp")]
    assert any(line.startswith("tmpfs /tmp ") for line in binds), mounts
    assert run(env, "cat /proc/mounts | awk '$2==\"/\"{print $4}' | cut -d, -f1") == (0, "ro\n")


def test_no_network(sandbox):
    env = sandbox()
    code, out = run(env, "python -c \"import socket; socket.create_connection(('1.1.1.1', 53), timeout=5)\"")
    assert code != 0 and "Network is unreachable" in out, out
    assert run(env, "ls /sys/class/net") == (0, "lo\n")


def test_the_hosts_shadow_file_is_not_what_the_container_reads(sandbox, sample_images):
    env = sandbox()
    code, seen = run(env, "cat /etc/shadow")
    image = subprocess.run(["docker", "run", "--rm", "--network=none", env.config.image, "cat", "/etc/shadow"],
                           capture_output=True, text=True, check=True).stdout
    assert code == 0 and seen == image  # the image's own file
    try:
        host = Path("/etc/shadow").read_text()
    except PermissionError:  # not root here: the host's file is not even readable to this user
        return
    assert seen != host


def test_limits_are_set_on_the_container(sandbox):
    env = sandbox()
    assert run(env, "cat /sys/fs/cgroup/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids/pids.max") == (
        0, f"{OPTIONS['docker_pids']}\n")
    (container,) = json.loads(subprocess.run(["docker", "inspect", env.container_id], capture_output=True, text=True,
                                             check=True).stdout)
    host = container["HostConfig"]
    memory = 4 * 1024**3  # the schema's 4g, swap included
    assert (host["NanoCpus"], host["Memory"], host["MemorySwap"], host["PidsLimit"]) == (
        int(OPTIONS["docker_cpus"] * 1e9), memory, memory, OPTIONS["docker_pids"])
    assert host["ReadonlyRootfs"] and host["NetworkMode"] == "none" and host["CapDrop"] == ["ALL"]
    assert not host["Binds"]  # no host path: /testbed is an anonymous volume, /tmp a tmpfs
    assert [(m["Type"], m["Destination"]) for m in container["Mounts"]] == [("volume", "/testbed")]
    assert host["Tmpfs"] == {"/tmp": "rw,exec,nosuid,nodev"}


def test_close_removes_the_container_and_its_background_processes(sandbox, prefix):
    assert containers(prefix) == []
    env = sandbox()
    tag = str(31000 + uuid.uuid4().int % 999)
    assert run(env, f"nohup sleep {tag}7 >/dev/null 2>&1 & echo started")[0] == 0
    assert len(containers(prefix)) == 1
    listing = "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done"
    assert f"sleep {tag}7" in run(env, listing)[1]  # it outlived its command
    # the engine runs on this host: the container's processes are this kernel's too
    assert f"sleep {tag}7" in host_processes()
    env.cleanup()  # synchronous: nothing is left when it returns
    assert containers(prefix) == []
    assert f"sleep {tag}7" not in host_processes()
    env.cleanup()  # a second close is a no-op


def host_processes() -> str:
    return subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout


def test_a_missing_image_fails_with_dockers_message_in_one_line(sample_images, bundled_mirror, prefix):
    row, mirror = bundled_mirror(IID)
    row["image_name"] = f"swevis-d1-no-such-image-{uuid.uuid4().hex[:6]}:latest"  # a setup naming its own image
    with pytest.raises(InfrastructureError) as err:
        make_environment("docker", row, mirror=mirror, timeout_s=30, live_model=True, allow_live_on_host=False,
                         harness=sample_images["settings"], **OPTIONS)
    message = str(err.value)
    assert message.startswith(f"agent environment docker for {IID} did not start: docker run {row['image_name']} failed")
    assert "\n" not in message
    assert "exit status 125" in message and "Error response from daemon" in message, message
    assert containers(prefix) == []  # nothing created is left behind


# ---------------------------------------------------------------- end to end through the runner


@pytest.fixture(scope="module")
def task(tmp_path_factory, bundled_checkout):
    task = bundled_checkout(IID, tmp_path_factory.mktemp("docker-e2e"), index=True)
    chat = make_model("qwen3.5", PROFILE, playback_source=str(DEMOS / "plb" / f"{IID}.yaml"))
    preloc = prelocalize(task["row"], chat, index_db=task["db"], pristine_dir=task["pristine"], localize_cfg={})
    return {**task, "preloc": preloc}


@pytest.mark.parametrize("agent", ["mini", "plb", "let"])
def test_a_bundled_demo_plays_back_in_docker_to_the_same_patch_as_local(task, sample_images, prefix, tmp_path, agent):
    def play_back(environment: str):
        out = tmp_path / environment
        traj = run_instance(RunSpec(
            "qwen3.5", PROFILE, agent, "normal", "text", task["row"], task["mirror"], str(out),
            index_db=task["db"], pristine_dir=task["pristine"], preloc=task["preloc"] if agent == "plb" else None,
            playback_source=str(DEMOS / agent / f"{IID}.yaml"), agents_cfg={"environment": environment},
            workspace=str(tmp_path / "ws") if environment == "local" else None,
            harness_cfg=sample_images["settings"],
        ))
        return traj, (out / "patch.diff").read_text()

    local, local_patch = play_back("local")
    docker, docker_patch = play_back("docker")
    assert docker["provenance"]["environment"] == "docker" and local["provenance"]["environment"] == "local"
    assert docker["exit_status"] == local["exit_status"] == "submitted", docker["error"]
    assert docker_patch == local_patch and docker_patch.strip()
    assert containers(prefix) == []  # the runner closed its container
