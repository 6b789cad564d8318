"""Where the agents' commands run: a throwaway local checkout, or the SWE-bench image in Docker."""

from __future__ import annotations

import fcntl
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

from minisweagent.environments import local as mini_local
from minisweagent.environments.docker import DockerEnvironment

from swevis.config import filled_section
from swevis.errors import InfrastructureError, SwevisError
from swevis.paths import workspace_id
from swevis.redaction import register_credentials
from swevis.sandbox import resolved_environment
from swevis.sandbox.images import instance_image_name
from swevis.tasks.repos import checkout, run_git

log = logging.getLogger(__name__)

COMMAND_ENV = {"PAGER": "cat", "MANPAGER": "cat", "LESS": "-R", "PIP_PROGRESS_BAR": "off", "TQDM_DISABLE": "1"}
# On the host, `python` is swevis's own environment: the task's pytest must not load
# swevis's pytest plugins (hypothesis, anyio, timeout), which also made every run ~5x slower.
HOST_ENV = {"PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


DOCKER_TIMEOUT_GRACE_S = 15
# Agent containers are named with this prefix (and a random tail): `docker ps -a --filter
# name=swevis-agent-` lists what runs, or was left behind by a killed job.
CONTAINER_PREFIX = "swevis-agent-"
DOCKER_WORKSPACE = "/testbed"


def docker_run_args(
    *, network: bool = False, cpus: float | None = None, memory: str | None = None, pids: int | None = None,
) -> list[str]:
    """`docker run` options of an agent container (agents.docker_*).

    Nothing of the host is mounted: the root filesystem is the image's, read-only; the
    repository (/testbed) is an anonymous volume docker fills from the image and removes
    with the container; /tmp is a tmpfs (within the memory limit). No capabilities, no
    setuid gains, no network unless allowed, and CPU, memory (no swap beyond it) and
    process limits when set."""
    args = [
        "--rm", "--read-only", f"--volume={DOCKER_WORKSPACE}", "--tmpfs=/tmp:rw,exec,nosuid,nodev",
        "--cap-drop=ALL", "--security-opt=no-new-privileges",
    ]
    if not network:
        args.append("--network=none")
    if cpus:
        args.append(f"--cpus={cpus}")
    if memory:
        args += [f"--memory={memory}", f"--memory-swap={memory}"]
    if pids:
        args.append(f"--pids-limit={pids}")
    return args


def docker_interpreter(timeout_s: int) -> list[str]:
    """Each command runs under coreutils `timeout` in the container: TERM at the limit, KILL 5 s later."""
    return ["timeout", "--kill-after=5", str(int(timeout_s)), "bash", "-c"]


# The host variables an agent's command sees: the basics of a shell (LC_* too) and the
# markers of the interpreter's virtualenv or conda environment. Everything else stays out,
# whatever its name: credentials live under names no pattern guesses (DATABASE_URL,
# GITHUB_PAT). Config adds names with agents.env_passthrough. HOME is never the host's
# (its ~/.git-credentials, ~/.netrc): a local run gets an empty one (LocalWorkspace.home).
HOST_PASSTHROUGH = frozenset({
    "PATH", "LANG", "TERM", "TMPDIR", "TZ",
    "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_EXE", "CONDA_PYTHON_EXE", "CONDA_SHLVL",
})


class PassthroughRefused(SwevisError):
    """agents.env_passthrough names the model's API key variable."""


def checked_passthrough(passthrough=(), secret_env_names=()) -> tuple[str, ...]:
    """The configured pass-through names; naming the API key variable is a config error."""
    names = tuple(dict.fromkeys(n for n in passthrough if n))
    secret = sorted(set(names) & {n for n in secret_env_names if n})
    if secret:
        raise PassthroughRefused(f"agents.env_passthrough names {secret[0]}, the model's API key variable: remove it")
    return names


def command_environ(passthrough=(), environ=None) -> dict[str, str]:
    """What a local agent command sees of the host environment (an allowlist).

    An agent that runs `env` puts what it sees into its observation: into the next request,
    the response cache, the journal and traj.json. `python` is the interpreter running
    swevis, first on PATH, as the local harness runs the tests (swevis.harness.local)."""
    environ = os.environ if environ is None else environ
    keep = HOST_PASSTHROUGH | set(passthrough)
    env = {k: v for k, v in environ.items() if k in keep or k.startswith("LC_")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), environ.get("PATH", os.defpath)])
    return env


def _scrubbed_local_environment(*, passthrough, **kwargs):
    class ScrubbedLocalEnvironment(mini_local.LocalEnvironment):
        """mini-swe-agent's LocalEnvironment, with commands started in ``command_environ``."""

        def execute(self, action: dict, cwd: str = "", *, timeout: int | None = None) -> dict[str, Any]:
            command = action.get("command", "")
            cwd = cwd or self.config.cwd or os.getcwd()
            try:
                result = mini_local._run(
                    command, cwd, command_environ(passthrough) | self.config.env, timeout or self.config.timeout
                )
                output = {"output": result.stdout, "returncode": result.returncode, "exception_info": ""}
            except Exception as e:  # as mini-swe-agent reports a failed or timed-out command
                raw = getattr(e, "output", None)
                raw = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else (raw or "")
                output = {
                    "output": raw,
                    "returncode": -1,
                    "exception_info": f"An error occurred while executing the command: {e}",
                    "extra": {"exception_type": type(e).__name__, "exception": str(e)},
                }
            self._check_finished(output)
            return output

        def get_template_vars(self, **kwargs) -> dict[str, Any]:
            vars_ = super().get_template_vars(**kwargs)  # mini merges os.environ in: only what commands see
            seen = command_environ(passthrough) | self.config.env
            return {
                k: v if k in kwargs or k not in seen else seen[k]
                for k, v in vars_.items() if k in kwargs or k not in os.environ or k in seen
            }

    return ScrubbedLocalEnvironment(**kwargs)


# What docker itself prints when an exec cannot run at all (the container died or is gone,
# the engine stopped, the runtime refused): its own failure, not the command's exit status.
DOCKER_OWN_ERROR = re.compile(
    r"^(Error response from daemon: |Error: No such container|OCI runtime exec failed|Cannot connect to the Docker daemon)"
)


class CheckedDockerEnvironment(DockerEnvironment):
    """mini-swe-agent's DockerEnvironment, with docker's own failures raised as one-line
    InfrastructureErrors (a container that will not start, an exec docker could not run: as
    an observation the agent would keep going against a dead container) and a close that
    removes the container before it returns (mini stops it in the background, so a command's
    background processes outlived the run)."""

    def _start_container(self) -> None:
        name = f"{CONTAINER_PREFIX}{uuid.uuid4().hex[:12]}"
        cfg = self.config
        cmd = [cfg.executable, "run", "-d", "--name", name, "-w", cfg.cwd, *cfg.run_args, cfg.image,
               "sleep", cfg.container_timeout]
        try:  # no docker executable: OSError, worded by the runner
            result = subprocess.run(cmd, capture_output=True, text=True, timeout=cfg.pull_timeout)
        except subprocess.TimeoutExpired:
            self._remove(name)  # the engine may still create it after the client gave up
            raise InfrastructureError(f"docker run {cfg.image} did not answer in {cfg.pull_timeout} s") from None
        if result.returncode != 0:
            self._remove(name)  # one created but not started
            raise InfrastructureError(
                f"docker run {cfg.image} failed (exit status {result.returncode}): {docker_said(result.stderr)}"
            )
        self.container_id = result.stdout.strip()
        log.info("agent container %s (%s) started from %s", name, self.container_id[:12], cfg.image)

    def execute(self, action: dict, cwd: str = "", *, timeout: int | None = None) -> dict[str, Any]:
        output = super().execute(action, cwd, timeout=timeout)  # a submission raises before any check
        docker_failure(output, self.container_id)
        return output

    def cleanup(self) -> None:
        """Remove the container (`docker rm -f -v`: its processes and its /testbed volume) now."""
        container, self.container_id = getattr(self, "container_id", None), None
        if container is not None:
            self._remove(container)

    def _remove(self, container: str) -> None:
        try:
            result = subprocess.run([self.config.executable, "rm", "-f", "-v", container],
                                    capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as exc:
            log.warning("agent container %s not removed: %s", container[:12], exc)
            return
        if result.returncode != 0 and "No such container" not in result.stderr:
            log.warning("agent container %s not removed: %s", container[:12], docker_said(result.stderr))


# docker's lines that are no reason: the notice before a pull, the usage hint after an error
DOCKER_NOISE = ("Unable to find image", "See '")


def docker_said(stderr: str) -> str:
    """docker's first meaningful line of `stderr` (its error, not the notices around it)."""
    lines = [line.strip() for line in (stderr or "").splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith(DOCKER_NOISE)] or ["(docker printed nothing)"]
    said = next((line for line in lines if "rror" in line), lines[0])
    return said.removeprefix("docker: ")[:300]


def docker_failure(output: dict[str, Any], container: str | None) -> None:
    """Raise InfrastructureError (one line, docker's own words) for an exec docker could not run."""
    if output.get("returncode") == 0:
        return
    # docker's own error is all an exec that never ran prints: its first line (a command's
    # output is the command's, whatever it contains further down)
    first = (output.get("output") or "").strip().partition("\n")[0].strip()
    said = first if DOCKER_OWN_ERROR.match(first) else None
    if said is None and output.get("extra", {}).get("exception_type") in ("FileNotFoundError", "PermissionError"):
        said = output["extra"]["exception"]  # the docker executable itself is gone
    if said is not None:
        raise InfrastructureError(f"docker exec in container {container} failed: {said[:300]}")


class EnvironmentRefused(SwevisError):
    """A run that must not start (e.g. a live model on the host without acknowledgement)."""


def agent_image(row: dict[str, Any], harness: dict[str, Any] | None, mirror: str) -> str:
    """The image an agent's commands run in: the row's image_name where a setup names one,
    else the instance image the Docker harness grades in (harness namespace and tags; the
    schema's where not given), so the agent sees the interpreter its patch is judged by."""
    if row.get("image_name"):
        return row["image_name"]
    settings = filled_section("harness", {k: v for k, v in (harness or {}).items()
                                          if k in ("namespace", "instance_image_tag", "env_image_tag")})
    return instance_image_name(row, settings, {row["repo"]: mirror})


def workspace_path(root: str | Path, *run_key: object) -> Path:
    """The fixed checkout folder of one run: ``root/<8 digits>`` (see swevis.paths.workspace_id)."""
    return Path(root) / workspace_id(*run_key)


def pin_mtimes(repo: str | Path, base_commit: str) -> None:
    """Set the checkout's file and folder times to the base commit's committer time.

    A fresh checkout's files carry the time it was made, so `ls -la` (mini's usual first
    command) differed between runs and a rerun paid again for every call after it. The
    index is refreshed against the new times (git would otherwise re-read every file), and
    then the `.git` folder's own entry, the checkout and the workspace folder are pinned."""
    repo = Path(repo)
    when = int(run_git(["show", "-s", "--format=%ct", base_commit], cwd=repo))
    for folder, dirs, files in os.walk(repo):  # a child's new time leaves its folder's as it is
        if folder == str(repo) and ".git" in dirs:
            dirs.remove(".git")  # git's own files keep their times (the index's stat cache)
        for name in [*files, *dirs]:
            os.utime(Path(folder) / name, (when, when), follow_symlinks=False)
    run_git(["update-index", "-q", "--refresh"], cwd=repo)
    for path in (repo / ".git", repo, repo.parent):
        os.utime(path, (when, when))


class LocalWorkspace:
    """A throwaway checkout of the instance at base_commit, removed on close, and next to it
    the empty folder the agent's commands get as HOME (`home`): the host's holds credentials.

    `path` fixes where it lives (see `workspace_path`); without it a fresh temporary folder
    is used. A fixed folder is locked (``<path>.lock``) while the run uses it: a second run
    with the same folder waits for the first to close instead of deleting its checkout. The
    lock dies with the process, so a killed run does not leave the folder locked.
    """

    def __init__(self, mirror: str, base_commit: str, path: str | None = None):
        self._lock = None
        if path:
            self.tmp = str(Path(path).resolve())
            Path(self.tmp).parent.mkdir(parents=True, exist_ok=True)
            self._lock = open(self.tmp + ".lock", "w")  # noqa: SIM115 (held until close)
            try:
                fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                log.warning("workspace %s is in use by another run; waiting for it", self.tmp)
                fcntl.flock(self._lock, fcntl.LOCK_EX)
            shutil.rmtree(self.tmp, ignore_errors=True)
            Path(self.tmp).mkdir(parents=True)
        else:
            self.tmp = tempfile.mkdtemp(prefix="swevis-run-")
        try:
            self.home = str(Path(self.tmp) / "home")
            Path(self.home).mkdir()
            self.repo = str(checkout(mirror, base_commit, Path(self.tmp) / "repo"))
            pin_mtimes(self.repo, base_commit)  # also the workspace folder (`ls -la`'s `..`)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self._lock is not None:
            self._lock.close()  # releases the flock; the empty .lock file stays (removing it would race)
            self._lock = None


def make_environment(
    kind: str,
    row: dict[str, Any],
    *,
    mirror: str,
    timeout_s: int,
    live_model: bool,
    allow_live_on_host: bool,
    docker_network: bool,
    docker_cpus: float | None,
    docker_memory: str | None,
    docker_pids: int | None,
    env_passthrough: tuple[str, ...] | list[str],
    workspace: str | None = None,
    secret_env_names: tuple[str, ...] | list[str] = (),
    harness: dict[str, Any] | None = None,
) -> tuple[Any, str, LocalWorkspace | None]:
    """(mini-swe-agent environment, repository root inside it, workspace to close).

    `kind` is agents.environment (auto: see resolved_environment). The agent's commands see
    only an allowlist of the host's variables (``command_environ``; a container: its
    image's environment) plus the names of ``env_passthrough`` (agents.env_passthrough),
    which must not include ``secret_env_names`` (the model profile's api_key_env). A docker
    run's image is ``agent_image`` (`harness`: the config's harness section). The
    environment's ``base_commit`` is what the patch is taken against
    (tools.working_tree_diff), whatever the agent commits. A docker environment is closed
    by its ``cleanup`` (the runner calls it on every path). The values of pass-through
    variables named like credentials (GITHUB_PAT, HF_TOKEN) are redacted from every output:
    a command that prints one puts it into the observation (swevis.redaction)."""
    passthrough = checked_passthrough(env_passthrough, secret_env_names)
    register_credentials(passthrough)
    kind = resolved_environment(kind, live_model)
    if kind == "local":
        return _local_environment(row, mirror=mirror, timeout_s=timeout_s, live_model=live_model,
                                  allow_live_on_host=allow_live_on_host, passthrough=passthrough, workspace=workspace)
    if kind == "docker":
        return _docker_environment(row, harness=harness, mirror=mirror, timeout_s=timeout_s, passthrough=passthrough,
                                   network=docker_network, cpus=docker_cpus, memory=docker_memory, pids=docker_pids)
    raise SwevisError(f"unknown agents.environment {kind!r} (auto, local or docker)")


def _docker_environment(row, *, harness, mirror, timeout_s, passthrough, network, cpus, memory, pids):
    """The instance's container, started, its workspace's time pinned; closed again if that fails."""
    image = agent_image(row, harness, mirror)
    try:
        env = CheckedDockerEnvironment(
            image=image, cwd=DOCKER_WORKSPACE,
            # the host-side limit is a backstop: `timeout` inside the container kills the command
            # itself (killing only the `docker exec` client would leave it running in there)
            timeout=timeout_s + DOCKER_TIMEOUT_GRACE_S,
            env={**COMMAND_ENV, "BASH_ENV": "/root/.bashrc"},  # the image activates its conda env there
            forward_env=list(passthrough),
            run_args=docker_run_args(network=network, cpus=cpus, memory=memory, pids=pids),
            interpreter=docker_interpreter(timeout_s),
        )
    except InfrastructureError as exc:  # docker's own words, named as the runner names a start that failed
        raise InfrastructureError(f"agent environment docker for {row['instance_id']} did not start: {exc}") from None
    env.base_commit = row["base_commit"]
    try:
        pin_container_workspace_time(env)
    except BaseException:
        env.cleanup()
        raise
    return env, DOCKER_WORKSPACE, None


def pin_container_workspace_time(env: CheckedDockerEnvironment) -> None:
    """Give /testbed the base commit's time, as pin_mtimes does locally: the volume's folder
    carries the time the container was made, so `ls -la` differed between runs (and a rerun
    paid again for every model call after it); the files keep the image's times."""
    out = env.execute({"command": f"touch -d @$(git show -s --format=%ct {env.base_commit}) ."})  # cwd: /testbed
    if out["returncode"] != 0:
        said = (out["output"] or "").strip().partition("\n")[0]
        raise InfrastructureError(f"container {env.container_id[:12]} of {env.config.image}: /testbed is no checkout "
                                  f"of {env.base_commit[:12]}: {said[:300]}")


def _local_environment(row, *, mirror, timeout_s, live_model, allow_live_on_host, passthrough, workspace):
    """The throwaway checkout on this host, refused for a live model without acknowledgement."""
    if live_model and not allow_live_on_host:
        raise EnvironmentRefused(
            "refusing to run a live model's commands on this host: set agents.allow_live_on_host: true "
            "to acknowledge, or use agents.environment: docker"
        )
    log.warning(
        "LOCAL ENVIRONMENT, NOT ISOLATED: the agent's commands run on this host as this user, in a throwaway "
        "checkout with the host's Python and a %d s timeout per command; they can read this host's files, "
        "write outside the checkout, reach the network and leave background processes running "
        "(agents.environment: docker isolates them)", timeout_s
    )
    ws = LocalWorkspace(mirror, row["base_commit"], workspace)
    try:
        env = _scrubbed_local_environment(
            cwd=ws.repo, timeout=timeout_s, env={**COMMAND_ENV, **HOST_ENV, "HOME": ws.home}, passthrough=passthrough,
        )
    except BaseException:
        ws.close()  # the checkout and its lock, not left to the garbage collector
        raise
    env.base_commit = row["base_commit"]
    return env, ws.repo, ws
