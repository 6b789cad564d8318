"""API keys come only from environment variables and never reach a file: live trajectories
against the scripted server on 127.0.0.1 with a sentinel key, then every file written
(results, response cache, journals, ledgers, logs, Snakemake's metadata) is scanned for it.
An endpoint that echoes the request's Authorization header (in a 401, a 500, a context
error or a completion) gets the same scan, of the CLI's and Snakemake's output too."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from helpers import run_snakemake
from swevis.agents.run.runner import RunSpec, run_instance
from swevis.config import schema_defaults
from swevis.errors import InfrastructureError
from swevis.models import ContextLengthExceeded, EndpointFailed, ModelConfigError, make_model
from swevis.redaction import register_credentials
from swevis.tasks.bundled import load_bundled_instances
from swevis.tasks.repos import ensure_mirror
from scripted_server import Fail, Raw, Reply, ScriptedServer, conversation

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


# ------------------------------------------------------------------ an endpoint that echoes the key


def echoed(request) -> str:
    return request.headers["authorization"]


ECHOES = {
    # what servers and proxies do: quote the header in the error message, dump the request's
    # headers as JSON into it, or wrap them in a plain-text page (which this openai client
    # leaves out of its message: the case guards a client that puts it in)
    "401": lambda i, r: Fail(401, f"Incorrect API key. Received header Authorization: {echoed(r)}", code="invalid_api_key"),
    "500": lambda i, r: Fail(500, f"Internal error while handling {{'authorization': '{echoed(r)}'}}"),
    "502-json-headers": lambda i, r: Fail(502, "bad gateway; request headers: " + json.dumps(dict(r.headers))),
    "503-wrapped": lambda i, r: Raw(503, f"upstream said:\n  {echoed(r)[:20]}\n  {echoed(r)[20:]}\n", content_type="text/plain"),
    "400-context": lambda i, r: Fail(400, f"maximum context length is 8 tokens (request by {echoed(r)})",
                                     code="context_length_exceeded"),
}
QUOTED_IN_MESSAGE = {"401", "500", "502-json-headers", "400-context"}


def live_profile(server, **over) -> dict:
    return {"backend": "openai", "base_url": server.base_url, "model_id": "m", "api_key_env": KEY_ENV,
            "tokenizer": "qwen3", "image_family": "qwen3.5", "max_retries": 1, "retry_backoff_s": 0.01} | over


def live_mini_run(tmp_path, row, mirror, turns: list[str], passthrough: list[str]) -> tuple[dict, list[bytes]]:
    """mini on the host (local environment) against a scripted endpoint answering `turns`,
    with `passthrough` given to its commands: (the trajectory, the raw chat requests)."""
    with ScriptedServer(responder=conversation(turns)) as server:
        traj = run_instance(RunSpec(
            "live", live_profile(server, max_retries=0), "mini", "normal", "text", row, mirror, str(tmp_path / "out"),
            agents_cfg={"environment": "local", "allow_live_on_host": True, "env_passthrough": passthrough},
            cache_dir=str(tmp_path / "cache"), journal_path=str(tmp_path / "journal.jsonl"), workspace=str(tmp_path / "ws"),
        ))
        return traj, [r.raw for r in server.chat_requests]


@pytest.mark.parametrize("echo", sorted(ECHOES))
def test_an_echoed_key_reaches_no_error_log_or_file(echo, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    caplog.set_level(logging.DEBUG)  # the openai client's and httpx's debug records too
    with ScriptedServer(responder=ECHOES[echo]) as server:
        model = make_model("live", live_profile(server), cache_dir=tmp_path / "cache")
        with pytest.raises((EndpointFailed, ContextLengthExceeded)) as err:
            model.complete([{"role": "user", "content": "hi"}])
        assert server.chat_requests[0].headers["authorization"] == f"Bearer {SENTINEL}"  # the server did echo it
    assert ("[REDACTED:SWEVIS_SECRET_TEST_KEY]" in str(err.value)) == (echo in QUOTED_IN_MESSAGE)
    for text in (str(err.value), repr(err.value), caplog.text):
        assert SENTINEL not in text and SENTINEL[:20] not in text
    logging.getLogger("swevis.test").error("job failed: %s", err.value)  # as the scripts log it
    assert SENTINEL not in caplog.text


def test_an_echoed_key_in_a_completion_reaches_no_record_or_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    with ScriptedServer(responder=lambda i, r: Reply(f"THOUGHT: your header was {echoed(r)}")) as server:
        response = make_model("live", live_profile(server), cache_dir=tmp_path / "cache").complete(
            [{"role": "user", "content": "hi"}])
        again = make_model("live", live_profile(server), cache_dir=tmp_path / "cache").complete(
            [{"role": "user", "content": "hi"}])
    assert response.content == "THOUGHT: your header was Bearer [REDACTED:SWEVIS_SECRET_TEST_KEY]"
    assert again.cached and again.content == response.content
    assert SENTINEL not in json.dumps(response.raw) and files_containing(tmp_path, SENTINEL) == []


def test_a_credential_a_command_printed_is_not_sent_to_the_endpoint(tmp_path, monkeypatch):
    token = "ghp_passthrough0a1b2c3d4e5f6a7b8c9d"
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    assert register_credentials(["GITHUB_PAT", "LANG"], {"GITHUB_PAT": token, "LANG": "C.UTF-8"}) == ["GITHUB_PAT"]
    observation = f"<output>GITHUB_PAT={token}\nLANG=C.UTF-8</output>"
    with ScriptedServer() as server:
        make_model("live", live_profile(server), cache_dir=tmp_path / "cache").complete(
            [{"role": "user", "content": [{"type": "text", "text": observation}]}])
        sent = server.chat_requests[0].raw
    assert token.encode() not in sent and b"GITHUB_PAT=[REDACTED:GITHUB_PAT]" in sent and b"LANG=C.UTF-8" in sent


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

    traj, requests = live_mini_run(tmp_path, row, mirror, PEEK_TURNS, passthrough=["SWEVIS_PASSED"])
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


# ------------------------------------------------------------------ end to end: the CLI and Snakemake


def live_config(server, *, instances: list[str], passthrough: list[str] = ()) -> str:
    return (
        "tasks: {source: bundled, instance_ids: [" + ", ".join(instances) + "]}\n"
        "models:\n"
        f"  live: {{backend: openai, base_url: '{server.base_url}', model_id: m, api_key_env: {KEY_ENV}, "
        "tokenizer: qwen3, image_family: qwen3.5, max_retries: 0}\n"
        "agents:\n  environment: local\n  allow_live_on_host: true\n"
        f"  env_passthrough: [{', '.join(passthrough)}]\n"
        "  matrix: [{agent: mini, scope: normal, conditions: [text]}]\n"
    )


def no_key_anywhere(root: Path, *outputs: str, key: str = SENTINEL) -> None:
    """No byte of the key -- raw, JSON-escaped or URL-encoded -- in the outputs or any file under root."""
    forms = {key, json.dumps(key)[1:-1], quote(key, safe="")}
    for form in forms:
        assert not any(form in out for out in outputs), form
        assert files_containing(root, form) == [], form


@pytest.mark.slow
@pytest.mark.parametrize("status", ["401", "500"])
def test_cli_agent_run_against_an_echoing_endpoint_writes_no_key(status, tmp_path):
    with ScriptedServer(responder=ECHOES[status]) as server:
        (tmp_path / "config.yaml").write_text(live_config(server, instances=[IID]))
        proc = subprocess.run(
            [str(Path(sys.executable).parent / "swevis"), "agent", "run", "--agent", "mini", "--instance", IID, "-o", "out"],
            cwd=tmp_path, env={**os.environ, KEY_ENV: SENTINEL}, capture_output=True, text=True, timeout=600,
        )
        assert server.chat_requests and server.chat_requests[0].headers["authorization"] == f"Bearer {SENTINEL}"
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert f"Bearer [REDACTED:{KEY_ENV}]" in proc.stderr.splitlines()[-1]  # the one-line error says what happened
    assert (tmp_path / ".swevis-cache").is_dir()  # mirrors, checkouts, index, journal: all scanned
    no_key_anywhere(tmp_path, proc.stdout, proc.stderr)


@pytest.mark.slow
def test_workflow_against_an_echoing_endpoint_writes_no_key(tmp_path):
    """Two trajectory jobs, one answered 401 and one 500 with the header echoed: no key in
    Snakemake's output, the rules' logs, .snakemake/log or anything else under the folder."""
    echo = lambda i, r: ECHOES["401" if i == 0 else "500"](i, r)  # noqa: E731
    others = "swevis-samples__ledgerkit-101"
    with ScriptedServer(responder=echo) as server:
        (tmp_path / "config.yaml").write_text(live_config(server, instances=[IID, others]))
        targets = [f"results/runs/live/mini-normal/text/{iid}/traj.json" for iid in (IID, others)]
        proc = run_snakemake(tmp_path, *targets, "--keep-going", env={KEY_ENV: SENTINEL})
        assert len(server.chat_requests) == 2
    assert proc.returncode != 0
    logs = [p.read_text() for p in (tmp_path / "results" / "logs" / "runs").rglob("*.log")]
    assert sum(f"Bearer [REDACTED:{KEY_ENV}]" in text for text in logs) == 2, logs  # each job's log says why
    assert any("[REDACTED:" in p.read_text() for p in (tmp_path / ".snakemake" / "log").glob("*.log"))  # shown there too
    no_key_anywhere(tmp_path, proc.stdout, proc.stderr)


@pytest.mark.slow
def test_a_credential_passed_to_the_commands_is_redacted_from_everything(tmp_path, monkeypatch, bundled_mirror):
    """agents.env_passthrough: [HF_TOKEN] gives the commands the token; when one prints it,
    the observation, the request, the cache, the journal and traj.json hold the marker."""
    token = "hf_passthrough0a1b2c3d4e5f6a7b8c9d"
    row, mirror = bundled_mirror(IID, tmp_path / "mirrors")
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    monkeypatch.setenv("HF_TOKEN", token)
    turns = ["THOUGHT: token.\n\n```mswea_bash_command\necho \"token=[$HF_TOKEN]\"\n```",
             "THOUGHT: done.\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```"]
    traj, requests = live_mini_run(tmp_path, row, mirror, turns, passthrough=["HF_TOKEN"])
    assert traj["exit_status"] == "submitted", traj["error"]
    written = (tmp_path / "out" / "traj.json").read_text()
    assert "token=[[REDACTED:HF_TOKEN]]" in written  # the command ran, saw the token, and traj.json says so
    assert len(requests) == 2 and not any(token.encode() in raw for raw in requests)
    no_key_anywhere(tmp_path, key=token)
    no_key_anywhere(tmp_path)
