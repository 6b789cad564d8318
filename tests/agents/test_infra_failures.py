"""Failures of the machinery fail the job; outcomes of the agent finish the trajectory.

A missing API key, an endpoint that is unreachable (a closed port on 127.0.0.1), answers
500/503 past the client's retries, refuses the key (401) or does not know the model (404),
and an agent environment that cannot start, each raise InfrastructureError with one line and
leave no traj.json / patch.diff / preloc.json -- through run_instance, the Snakemake script
adapters, `swevis agent run` and a Snakemake run -- so the next run retries the job. The
journal keeps the finished steps: the retry makes exactly the requests that are missing.
A context window the conversation outgrew stays a finished trajectory (context_length)."""

from __future__ import annotations

import json
import logging
import runpy
import socket
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from helpers import PROJECT_ROOT, money_turns, run_snakemake
from swevis.agents.run.demos import demo_path, load_demo
from swevis.agents.run.runner import RunSpec, run_instance
from swevis.cli import main as swevis_main
from swevis.config import load_config
from swevis.errors import InfrastructureError
from scripted_server import Fail, Raw, Reply, ScriptedServer, assistant_turns, context_length_error, conversation

IID = "swevis-samples__ledgerkit-117"
KEY_ENV = "SWEVIS_INFRA_TEST_KEY"
RETRIES = 2  # the openai client's own retries: a failing call costs RETRIES + 1 requests


TURNS = money_turns("RETRIED = True")


reply = conversation(TURNS)


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound once, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def live_profile(base_url: str, **over) -> dict:
    return {
        "backend": "openai", "base_url": base_url, "model_id": "live-model", "api_key_env": KEY_ENV,
        "tokenizer": "qwen3", "image_family": "qwen3.5", "max_retries": RETRIES, "retry_backoff_s": 0.01,
        "retry_backoff_max_s": 0.02, "request_timeout_s": 5, **over,
    }


def spec(row, mirror, d: Path, profile: dict, **cfg) -> RunSpec:
    return RunSpec(
        "live", profile, "mini", "normal", "text", row, mirror, str(d / "out"),
        agents_cfg={"environment": "local", "allow_live_on_host": True, **cfg}, journal_path=str(d / "journal.jsonl"),
        workspace=str(d / "ws"), ledger_path=str(d / "ledger.json"),
    )


def assert_no_output(out: Path) -> None:
    assert not (out / "traj.json").exists() and not (out / "patch.diff").exists()


# ---------------------------------------------------------------- run_instance

BAD_GATEWAY = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n"
CUDA_OOM = 'Traceback (most recent call last):\n  File "engine.py", line 1, in step\ntorch.OutOfMemoryError: CUDA out of memory\n'
ENDPOINT_FAULTS = {
    # name: (scripted answer, HTTP requests one failing call makes, words the reason names)
    "http_500": (Fail(500, "internal error"), RETRIES + 1, ["HTTP 500", f"after {RETRIES + 1} attempt"]),
    "http_503": (Fail(503, "overloaded"), RETRIES + 1, ["HTTP 503", f"after {RETRIES + 1} attempt"]),
    "http_401": (Fail(401, "invalid api key", code="invalid_api_key"), 1, ["401", "invalid api key"]),
    "unknown_model": (Fail(404, "The model `live-model` does not exist", code="model_not_found"), 1, ["404"]),
    # a proxy in front of the server answers with its HTML error page
    "http_502_html": (Raw(502, BAD_GATEWAY, content_type="text/html"), RETRIES + 1, ["HTTP 502"]),
    # a server that puts its traceback into the error message: the reason stays one line
    "http_500_traceback": (Fail(500, CUDA_OOM), RETRIES + 1, ["HTTP 500", "Traceback (most recent call last): File"]),
}


@pytest.mark.parametrize("fault", sorted(ENDPOINT_FAULTS))
def test_endpoint_failure_fails_the_run_and_writes_nothing(instance, tmp_path, monkeypatch, fault):
    row, mirror = instance
    answer, requests, words = ENDPOINT_FAULTS[fault]
    monkeypatch.setenv(KEY_ENV, "sk-infra")
    with ScriptedServer(default=answer) as server:
        with pytest.raises(InfrastructureError) as err:
            run_instance(spec(row, mirror, tmp_path, live_profile(server.base_url)))
        assert len(server.chat_requests) == requests
    reason = str(err.value)
    assert "\n" not in reason and server.base_url in reason and all(w in reason for w in words), reason
    assert_no_output(tmp_path / "out")
    assert (tmp_path / "journal.jsonl").exists()  # kept for the retry


def test_unreachable_endpoint_fails_the_run(instance, tmp_path, monkeypatch):
    row, mirror = instance
    monkeypatch.setenv(KEY_ENV, "sk-infra")
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(InfrastructureError, match=f"connection failed after {RETRIES + 1} attempt") as err:
        run_instance(spec(row, mirror, tmp_path, live_profile(url)))
    assert url in str(err.value) and "\n" not in str(err.value)
    assert_no_output(tmp_path / "out")


def test_missing_api_key_fails_the_run_before_any_request(instance, tmp_path, monkeypatch):
    row, mirror = instance
    monkeypatch.delenv(KEY_ENV, raising=False)
    with ScriptedServer(responder=reply) as server:
        with pytest.raises(InfrastructureError, match=KEY_ENV):
            run_instance(spec(row, mirror, tmp_path, live_profile(server.base_url)))
        assert server.chat_requests == []
    assert_no_output(tmp_path / "out")


@pytest.mark.parametrize("fail_at", [0, 3])
@pytest.mark.slow
def test_retry_after_the_endpoint_returns_makes_exactly_the_missing_requests(instance, tmp_path, monkeypatch, fail_at):
    """Call k fails past the retries (503); the rerun re-executes the k journaled turns and asks
    the server only for calls k..end."""
    row, mirror = instance
    monkeypatch.setenv(KEY_ENV, "sk-infra")
    down = {"now": True}

    def respond(index, request):
        if down["now"] and assistant_turns(request) >= fail_at:
            return Fail(503, "upstream down")
        return reply(index, request)

    with ScriptedServer(responder=respond) as server:
        run = spec(row, mirror, tmp_path, live_profile(server.base_url))
        with pytest.raises(InfrastructureError, match="HTTP 503"):
            run_instance(run)
        first = len(server.chat_requests)
        assert first == fail_at + RETRIES + 1
        assert_no_output(tmp_path / "out")
        journaled = (tmp_path / "journal.jsonl").read_text().splitlines()
        assert len(journaled) == 1 + fail_at  # header + the finished steps
        down["now"] = False
        traj = run_instance(run)
        retried = len(server.chat_requests) - first
    assert retried == len(TURNS) - fail_at
    assert traj["exit_status"] == "submitted", traj["error"]
    assert traj["provenance"]["resume"]["resumed_steps"] == fail_at
    assert [s["action"] for s in traj["steps"]] == [t.split("\n")[3] for t in TURNS]
    assert traj["totals"]["calls"] == len(TURNS)
    assert (tmp_path / "out" / "patch.diff").read_text().count("RETRIED = True") == 1
    assert not (tmp_path / "journal.jsonl").exists()  # the trajectory is complete
    ledger = json.loads((tmp_path / "ledger.json").read_text())  # the condition's spend: each call once
    assert ledger["total"]["calls"] == len(TURNS)
    assert ledger["total"]["prompt_tokens"] == traj["totals"]["prompt_tokens"]
    print(f"\nRETRY: failed at call {fail_at}: {first} requests, then {retried} on the rerun ({len(TURNS)} steps)")


@pytest.mark.slow
def test_let_retry_after_a_failed_editor_call_re_executes_the_locator_and_pays_only_the_rest(
    instance, tmp_path, monkeypatch, bundled_checkout
):
    """LET's first editor call fails (unreachable past the retries, here 503s): the rerun
    re-executes the locator's journaled turns -- its committed plan included -- and asks the
    server only for the editor's turns."""
    row, mirror = instance
    monkeypatch.setenv(KEY_ENV, "sk-infra")
    demo = load_demo(demo_path("let", IID))["turns"]
    turns = demo["locator"] + demo["editor"]
    fail_at = len(demo["locator"])
    served, down = [0], [True]

    def respond(index, request):  # the demo's turns in order, one per successful reply
        if down[0] and served[0] == fail_at:
            return Fail(503, "upstream down")
        served[0] += 1
        return Reply(turns[served[0] - 1])

    co = bundled_checkout(IID, tmp_path, index=True, index_options={})
    with ScriptedServer(responder=respond) as server:
        run = spec(row, mirror, tmp_path, live_profile(server.base_url))
        run.agent, run.index_db, run.pristine_dir = "let", co["db"], co["pristine"]
        with pytest.raises(InfrastructureError, match="HTTP 503"):
            run_instance(run)
        first = len(server.chat_requests)
        assert_no_output(tmp_path / "out")
        down[0] = False
        traj = run_instance(run)
        retried = len(server.chat_requests) - first
    assert first == fail_at + RETRIES + 1 and retried == len(demo["editor"])
    assert traj["exit_status"] == "submitted", traj["error"]
    assert traj["provenance"]["resume"]["resumed_steps"] == fail_at
    assert traj["phase_exit_status"] == {"locator": "submitted", "editor": "submitted"}
    assert traj["plan"]["target_files"] == ["ledgerkit/money.py"]
    assert [s["phase"] for s in traj["steps"]] == ["locator"] * fail_at + ["editor"] * len(demo["editor"])
    print(f"\nLET RETRY: {first} requests up to the failed editor call, then {retried} ({len(turns)} steps)")


def test_context_window_exceeded_stays_a_finished_trajectory(instance, tmp_path, monkeypatch):
    row, mirror = instance
    monkeypatch.setenv(KEY_ENV, "sk-infra")

    def respond(index, request):
        return context_length_error() if assistant_turns(request) >= 2 else reply(index, request)

    with ScriptedServer(responder=respond) as server:
        traj = run_instance(spec(row, mirror, tmp_path, live_profile(server.base_url)))
        assert len(server.chat_requests) == 3  # a 400 is not retried
    assert traj["exit_status"] == "context_length" and len(traj["steps"]) == 2
    assert (tmp_path / "out" / "traj.json").exists()
    assert not (tmp_path / "journal.jsonl").exists()  # an outcome: nothing to continue


def test_image_cap_under_reject_stays_a_finished_trajectory(instance, tmp_path, monkeypatch):
    """image_policy reject: the conversation outgrew the configured image cap, like a context
    window; an outcome, refused locally before any request."""
    row, mirror = instance
    monkeypatch.setenv(KEY_ENV, "sk-infra")
    with ScriptedServer(responder=reply) as server:
        prof = live_profile(server.base_url, max_images_per_request=0, image_policy="reject")
        run = spec(row, mirror, tmp_path, prof)
        run.condition = "r3"  # the sed window comes back rendered: one image in the next request
        traj = run_instance(run)
        assert len(server.chat_requests) == 2
    assert traj["exit_status"] == "error" and "image_policy: reject" in traj["error"]
    assert traj["steps"][1]["observation"]["pages"] >= 1
    assert (tmp_path / "out" / "traj.json").exists() and not (tmp_path / "journal.jsonl").exists()


NO_ENGINE = "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?"


@pytest.mark.parametrize("docker", ["no executable", "no engine"])
def test_docker_unavailable_for_the_sandbox_fails_the_run(instance, tmp_path, monkeypatch, docker):
    row, mirror = instance
    monkeypatch.setenv(KEY_ENV, "sk-infra")
    (tmp_path / "bin").mkdir()
    if docker == "no engine":  # the client is installed, its daemon is not running
        fake = tmp_path / "bin" / "docker"
        fake.write_text(f"#!/bin/sh\necho '{NO_ENGINE}' >&2\nexit 1\n")
        fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    with ScriptedServer(responder=reply) as server:
        with pytest.raises(InfrastructureError, match="agent environment docker .*did not start") as err:
            run_instance(spec(row, mirror, tmp_path, live_profile(server.base_url), environment="docker"))
        assert server.chat_requests == []
    reason = str(err.value)
    assert "\n" not in reason and ("No such file or directory: 'docker'" in reason or NO_ENGINE in reason), reason
    assert_no_output(tmp_path / "out")


def test_local_environment_that_cannot_check_out_fails_the_run(instance, tmp_path, monkeypatch):
    row, _ = instance
    monkeypatch.setenv(KEY_ENV, "sk-infra")
    (tmp_path / "empty-mirror").mkdir()
    with ScriptedServer(responder=reply) as server:
        with pytest.raises(InfrastructureError, match="agent environment local .*did not start"):
            run_instance(spec(row, str(tmp_path / "empty-mirror"), tmp_path, live_profile(server.base_url)))
        assert server.chat_requests == []
    assert_no_output(tmp_path / "out")


# ---------------------------------------------------------------- the Snakemake script adapters


def tiny_config(path: Path, base_url: str) -> Path:
    path.write_text(
        "tasks: {source: bundled, instance_ids: [" + IID + "]}\n"
        f"models:\n  live: {{backend: openai, base_url: '{base_url}', model_id: live-model, api_key_env: {KEY_ENV}, "
        f"tokenizer: qwen3, image_family: qwen3.5, max_retries: {RETRIES}, retry_backoff_s: 0.01, retry_backoff_max_s: 0.02}}\n"
        "agents:\n  environment: local\n  allow_live_on_host: true\n  matrix: [{agent: mini, scope: normal, conditions: [text]}]\n"
    )
    return path


@pytest.fixture
def script_inputs(instance, tmp_path, monkeypatch, bundled_checkout):
    """What the workflow hands run_agent.py / prelocalize.py, built in tmp_path (the cwd)."""
    row, _ = instance
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(KEY_ENV, "sk-infra")
    url = f"http://127.0.0.1:{closed_port()}/v1"
    cfg = load_config(tiny_config(tmp_path / "config.yaml", url))
    (tmp_path / "instances.jsonl").write_text(json.dumps(row) + "\n")
    co = bundled_checkout(IID, tmp_path, index=True, index_options=cfg["index"])
    (tmp_path / "checkout.json").write_text(json.dumps(co["manifest"]))  # names the mirror too
    agents = {k: v for k, v in cfg["agents"].items() if k not in ("matrix", "variants", "memory", "ablation")}
    yield SimpleNamespace(
        url=url,
        input=SimpleNamespace(instances="instances.jsonl", checkout="checkout.json", index="index.sqlite", preloc=[]),
        params=SimpleNamespace(profile=cfg["models"]["live"], agents=agents, localize=cfg["localize"],
                               render=cfg["single_read"].get("render", {}), harness={}),  # a local run's
        wildcards=SimpleNamespace(model="live", agent="mini", scope="normal", condition="text", instance=IID),
    )
    logging.basicConfig(force=True, handlers=[logging.NullHandler()])  # close the scripts' log file


def run_script(name: str, inputs: SimpleNamespace, output: SimpleNamespace) -> tuple[int, list[str]]:
    """(exit code, log lines) of one Snakemake script adapter run in-process."""
    log = Path("logs") / f"{name}.log"
    fake = SimpleNamespace(input=inputs.input, params=inputs.params, wildcards=inputs.wildcards, output=output, log=[str(log)])
    with pytest.raises(SystemExit) as exit_:
        runpy.run_path(str(PROJECT_ROOT / "scripts" / f"{name}.py"), init_globals={"snakemake": fake})
    return exit_.value.code, log.read_text().splitlines()


def test_run_agent_script_exits_1_with_the_reason_as_its_last_log_line(script_inputs):
    out = Path("runs") / IID
    code, lines = run_script("run_agent", script_inputs, SimpleNamespace(traj=str(out / "traj.json")))
    assert code == 1
    assert "infrastructure failure" in lines[-1] and script_inputs.url in lines[-1] and "Traceback" not in "\n".join(lines)
    assert_no_output(out)


def test_run_condition_script_exits_1_with_the_reason_and_writes_no_runs_list(script_inputs):
    out = Path("runs") / IID
    files = {"checkout": "checkout.json", "index": "index.sqlite", "preloc": None, "demos": []}
    params = SimpleNamespace(**vars(script_inputs.params),
                             runs=[{"instance": IID, "repeat": 0, "out_dir": str(out), "digest": "d", "files": files}])
    inputs = SimpleNamespace(input=script_inputs.input, params=params, wildcards=script_inputs.wildcards)
    code, lines = run_script("run_condition", inputs, SimpleNamespace(runs="runs.json"))
    assert code == 1
    assert "infrastructure failure" in lines[-1] and "1 of 1 runs failed" in lines[-1] and script_inputs.url in lines[-1]
    assert_no_output(out)
    assert not Path("runs.json").exists()


@pytest.mark.slow
def test_prelocalize_script_exits_1_and_writes_no_preloc(script_inputs):
    preloc = Path("preloc") / f"{IID}.json"
    code, lines = run_script("prelocalize", script_inputs, SimpleNamespace(preloc=str(preloc)))
    assert code == 1
    assert "infrastructure failure" in lines[-1] and script_inputs.url in lines[-1]
    assert not preloc.exists()


# ---------------------------------------------------------------- `swevis agent run`


@pytest.mark.parametrize("agent", ["mini", "plb"])
@pytest.mark.slow
def test_agent_cli_exits_1_with_one_line(tmp_path, monkeypatch, capsys, agent):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(KEY_ENV, "sk-infra")
    url = f"http://127.0.0.1:{closed_port()}/v1"
    config = tiny_config(tmp_path / "config.yaml", url)
    (tmp_path / "out").mkdir()
    for stale in ("traj.json", "patch.diff"):  # an earlier run's: never taken for this run's
        (tmp_path / "out" / stale).write_text("{}")
    code = swevis_main(["agent", "run", "--agent", agent, "--instance", IID, "--model", "live",
                        "--config", str(config), "--cache", "hand", "-o", "out"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.strip().splitlines()[-1].startswith("swevis: infrastructure failure: model 'live'")
    assert url in err and "Traceback" not in err
    assert_no_output(tmp_path / "out")


# ---------------------------------------------------------------- through Snakemake


@pytest.mark.slow
def test_snakemake_job_fails_then_the_same_target_succeeds_once_the_server_is_up(tmp_path):
    port = closed_port()
    tiny_config(tmp_path / "config.yaml", f"http://127.0.0.1:{port}/v1")
    target = f"results/runs/live/mini-normal/text/{IID}/traj.json"
    log = tmp_path / "results" / "logs" / "runs" / "live" / "mini-normal" / "text" / f"{IID}.log"

    def snakemake() -> subprocess.CompletedProcess:
        return run_snakemake(tmp_path, target, cores=1, env={KEY_ENV: "sk-infra"})

    down = snakemake()
    assert down.returncode != 0
    assert not (tmp_path / target).exists() and not (tmp_path / target).with_name("patch.diff").exists()
    last = log.read_text().splitlines()[-1]
    assert "infrastructure failure" in last and f"127.0.0.1:{port}" in last, last
    with ScriptedServer(responder=reply, port=port) as server:
        up = snakemake()
        assert up.returncode == 0, up.stderr[-4000:]
        assert len(server.chat_requests) == len(TURNS)
    assert json.loads((tmp_path / target).read_text())["exit_status"] == "submitted"
