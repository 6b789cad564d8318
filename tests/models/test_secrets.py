"""API keys come only from environment variables and never reach a file: live trajectories
against the scripted server on 127.0.0.1 with a sentinel key, then every file written
(results, response cache, journals, ledgers, logs, Snakemake's metadata) is scanned for it."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from helpers import run_snakemake
from swevis.agents.runner import RunSpec, run_instance
from swevis.config import schema_defaults
from swevis.errors import InfrastructureError
from swevis.models import ModelConfigError
from swevis.tasks.bundled import load_bundled_instances
from swevis.tasks.repos import ensure_mirror
from scripted_server import ScriptedServer, conversation

# the environment options as the runner passes them (the validated agents settings): the schema's defaults
ENV_OPTIONS = {k: schema_defaults("agents")[k] for k in ("docker_network", "docker_cpus", "docker_memory", "docker_pids", "env_passthrough")}

IID = "swevis-samples__ledgerkit-117"
KEY_ENV = "SWEVIS_SECRET_TEST_KEY"
SENTINEL = "sk-sentinel-6b1f0e2a9c7d4e58-never-write-me"
TURNS = [
    "THOUGHT: look.\n\n```mswea_bash_command\ngrep -n 'def round' ledgerkit/money.py\n```",
    # the agent tries to read its environment: the key must not be there either
    "THOUGHT: env.\n\n```mswea_bash_command\nenv | sort | head -50\n```",
    "THOUGHT: done.\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",
]


def files_containing(root: Path, needle: str) -> list[str]:
    hits, n = [], 0
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            n += 1
            if needle.encode() in path.read_bytes():
                hits.append(str(path.relative_to(root)))
    assert n > 0
    return hits


@pytest.mark.slow
def test_key_from_env_only_and_never_written(tmp_path, monkeypatch, bundled_mirror):
    row, mirror = bundled_mirror(IID, tmp_path / "mirrors")
    monkeypatch.delenv(KEY_ENV, raising=False)
    handler = logging.FileHandler(tmp_path / "debug.log")
    root_logger = logging.getLogger()
    old_level = root_logger.level
    root_logger.addHandler(handler)
    root_logger.setLevel(logging.DEBUG)  # openai/httpx debug logging included
    try:
        with ScriptedServer(responder=conversation(TURNS)) as server:
            profile = {"backend": "openai", "base_url": server.base_url, "model_id": "m", "api_key_env": KEY_ENV,
                       "tokenizer": "qwen3", "image_family": "qwen3.5", "max_retries": 0}

            def spec(name, **cfg):
                d = tmp_path / name
                return RunSpec("live", profile, "mini", "normal", "text", row, mirror, str(d / "out"),
                               agents_cfg={"environment": "local", "allow_live_on_host": True, **cfg}, cache_dir=str(tmp_path / "cache"),
                               journal_path=str(d / "journal.jsonl"), workspace=str(d / "ws"),
                               ledger_path=str(tmp_path / "ledger.json"))

            # no key in the environment: the run fails with an error naming the variable, no request
            with pytest.raises(InfrastructureError, match=KEY_ENV):
                run_instance(spec("nokey"))
            assert server.chat_requests == []
            monkeypatch.setenv(KEY_ENV, SENTINEL)
            done = run_instance(spec("full"))
            capped = run_instance(spec("capped", max_trajectory_calls=1))  # journal kept on disk
            assert done["exit_status"] == "submitted" and capped["exit_status"] == "cost_limit"
            assert (tmp_path / "capped" / "journal.jsonl").exists()
            # the key did go to the server, in the Authorization header only
            assert all(r.headers["authorization"] == f"Bearer {SENTINEL}" for r in server.chat_requests)
            assert not any(SENTINEL.encode() in r.raw for r in server.chat_requests)
    finally:
        root_logger.removeHandler(handler)
        root_logger.setLevel(old_level)
        handler.close()
    assert files_containing(tmp_path, SENTINEL) == []
    # ... and not through the agent's commands' environment either (it ran `env`)
    env_obs = done["messages"][5]["content"] if len(done["messages"]) > 5 else ""
    assert SENTINEL not in str(done["messages"]) and "PATH=" in str(env_obs) + str(done["messages"])


def test_key_is_not_accepted_from_config():
    with pytest.raises(ModelConfigError, match="unknown key"):
        from swevis.models import make_model

        make_model("m", {"backend": "openai", "base_url": "http://127.0.0.1:9/v1", "model_id": "m", "api_key": "sk-x"})


@pytest.mark.slow
def test_workflow_run_writes_no_key(tmp_path, monkeypatch):
    """The same through Snakemake (run_agent rule, its log, benchmark and metadata)."""
    with ScriptedServer(responder=conversation(TURNS)) as server:
        (tmp_path / "config.yaml").write_text(
            "tasks: {source: bundled, instance_ids: [" + IID + "]}\n"
            "models:\n"
            f"  live: {{backend: openai, base_url: '{server.base_url}', model_id: m, api_key_env: {KEY_ENV}, "
            "tokenizer: qwen3, image_family: qwen3.5, max_retries: 0}\n"
            "agents:\n  environment: local\n  allow_live_on_host: true\n  matrix: [{agent: mini, scope: normal, conditions: [text]}]\n"
        )
        target = f"results/runs/live/mini-normal/text/{IID}/traj.json"
        proc = run_snakemake(tmp_path, target, env={KEY_ENV: SENTINEL})
        assert proc.returncode == 0, proc.stderr[-4000:]
        assert len(server.chat_requests) == 3
    assert (tmp_path / target).exists()
    assert SENTINEL not in proc.stdout + proc.stderr
    assert files_containing(tmp_path, SENTINEL) == []


# Credentials under names no pattern would guess: the agent's commands get an allowlist.
HOST_SECRETS = {"XYZZY": "hunter2-xyzzy-9f31", "DATABASE_URL": "postgres://app:pw-5d2c77@db.internal/prod",
                "GITHUB_PAT": "ghp_sentinel0a1b2c3d4e5f6a7b8c9d"}
PEEK_TURNS = [
    "THOUGHT: env.\n\n```mswea_bash_command\nenv | sort\n```",
    "THOUGHT: vars.\n\n```mswea_bash_command\necho \"[$XYZZY][$DATABASE_URL][$GITHUB_PAT][$SWEVIS_PASSED]\"\n```",
    "THOUGHT: python.\n\n```mswea_bash_command\npython -c 'import os; print(dict(os.environ))'\n```",
    "THOUGHT: done.\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",
]


@pytest.mark.slow
def test_host_variables_under_any_name_never_reach_commands_files_or_requests(tmp_path, monkeypatch, bundled_mirror):
    row, mirror = bundled_mirror(IID, tmp_path / "mirrors")
    for name, value in {**HOST_SECRETS, KEY_ENV: SENTINEL, "SWEVIS_PASSED": "passed-through-value"}.items():
        monkeypatch.setenv(name, value)

    with ScriptedServer(responder=conversation(PEEK_TURNS)) as server:
        profile = {"backend": "openai", "base_url": server.base_url, "model_id": "m", "api_key_env": KEY_ENV,
                   "tokenizer": "qwen3", "image_family": "qwen3.5", "max_retries": 0}
        traj = run_instance(RunSpec(
            "live", profile, "mini", "normal", "text", row, mirror, str(tmp_path / "out"),
            agents_cfg={"environment": "local", "allow_live_on_host": True, "env_passthrough": ["SWEVIS_PASSED"]},
            cache_dir=str(tmp_path / "cache"), journal_path=str(tmp_path / "journal.jsonl"), workspace=str(tmp_path / "ws"),
        ))
        requests = [r.raw for r in server.chat_requests]
    assert traj["exit_status"] == "submitted", traj["error"]
    outputs = "\n".join(str(m["content"]) for m in traj["messages"] if m["role"] == "user")
    assert "[][][][passed-through-value]" in outputs and "HOME=" in outputs  # the commands ran and saw the allowlist
    for value in [*HOST_SECRETS.values(), SENTINEL]:
        assert value not in outputs
        assert not any(value.encode() in raw for raw in requests)
        assert files_containing(tmp_path, value) == []  # traj.json, patch.diff, cache, journal


def test_command_environ_is_an_allowlist():
    from swevis.sandbox.environments import command_environ

    host = {"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "dumb",
            "VIRTUAL_ENV": "/opt/venv", "PYTHONPATH": "/elsewhere", "EXTRA": "x", **HOST_SECRETS}
    env = command_environ(["EXTRA", "NOT_SET"], environ=host)
    assert set(env) == {"PATH", "LANG", "LC_ALL", "TERM", "VIRTUAL_ENV", "EXTRA"}  # never the host's HOME
    assert env["PATH"] == f"{Path(sys.executable).parent}:/usr/bin"  # `python` is the harness's interpreter


def test_local_commands_get_an_empty_home_of_their_own_never_the_hosts(tmp_path, monkeypatch):
    """File-based credentials (~/.netrc, ~/.git-credentials) must not reach an observation."""
    from swevis.sandbox.environments import make_environment

    row = next(r for r in load_bundled_instances() if r["instance_id"] == IID)
    mirror = ensure_mirror(row["repo"], tmp_path / "mirrors", commits=[row["base_commit"]])["mirror"]
    host_home = tmp_path / "host-home"
    host_home.mkdir()
    (host_home / ".netrc").write_text(f"machine example.invalid login u password {SENTINEL}\n")
    (host_home / ".git-credentials").write_text(f"https://u:{SENTINEL}@example.invalid\n")
    monkeypatch.setenv("HOME", str(host_home))
    env, repo, ws = make_environment("local", row, mirror=mirror, timeout_s=5, live_model=False, allow_live_on_host=False,
                                     workspace=str(tmp_path / "ws"), **{**ENV_OPTIONS, "env_passthrough": ["HOME"]})
    home = Path(repo).parent / "home"  # next to the checkout, inside the workspace
    try:
        out = env.execute({"command": "echo home=$HOME; ls -A ~; cat ~/.netrc ~/.git-credentials; echo done"})
        assert out["output"].splitlines()[0] == f"home={home}" and out["output"].rstrip().endswith("done")
        assert SENTINEL not in out["output"] and str(host_home) not in out["output"]
    finally:
        ws.close()
    assert not home.exists()


def test_local_template_vars_hold_no_host_variable(tmp_path, monkeypatch, bundled_mirror):
    """mini-swe-agent merges os.environ into the variables its prompt templates see."""
    from swevis.sandbox.environments import make_environment

    row, mirror = bundled_mirror(IID, tmp_path / "mirrors")
    for name, value in HOST_SECRETS.items():
        monkeypatch.setenv(name, value)
    env, repo, ws = make_environment("local", row, mirror=mirror, timeout_s=5, live_model=False, allow_live_on_host=False, **ENV_OPTIONS)
    try:
        template_vars = env.get_template_vars(task="t")
        assert template_vars["cwd"] == repo and template_vars["task"] == "t"
        assert template_vars["HOME"] == ws.home  # what the commands see
        assert not set(HOST_SECRETS) & set(template_vars)
        assert not any(v in str(template_vars) for v in HOST_SECRETS.values())
    finally:
        ws.close()
