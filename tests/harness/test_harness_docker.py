"""The Docker harness driven through swebench's real run_evaluation.main, with a fake Docker
client at the boundary (docker.from_env). No engine is contacted; nothing is pulled."""

from __future__ import annotations

import io
import itertools
import json
import tarfile
import time
from pathlib import Path

import docker
import pytest

from swevis.config import validate_config
from swevis.harness.cache import EvalCache, cached_evaluation, evaluation_cache_key
from swevis.harness.docker import DockerHarnessError, evaluate_condition_docker, instance_log_dir
from swevis.harness.records import MissingPatchError
from swevis.paths import ConditionKey, eval_path

F2P = "tests/test_x.py::test_fix"
P2P = "tests/test_x.py::test_keep"


def _patch(marker: str) -> str:
    return (
        "diff --git a/requests/x.py b/requests/x.py\n--- a/requests/x.py\n+++ b/requests/x.py\n"
        f"@@ -1 +1 @@\n-old\n+new  # {marker}\n"
    )


def _row(iid: str) -> dict:
    return {
        "repo": "psf/requests",
        "instance_id": iid,
        "base_commit": "a" * 40,
        "patch": _patch("GOLD"),
        "test_patch": "diff --git a/tests/test_x.py b/tests/test_x.py\n--- a/tests/test_x.py\n+++ b/tests/test_x.py\n@@ -1 +1 @@\n-a\n+b\n",
        "problem_statement": "x is broken",
        "hints_text": "",
        "created_at": "2020-01-01",
        "version": "2.0",
        "FAIL_TO_PASS": json.dumps([F2P]),
        "PASS_TO_PASS": json.dumps([P2P]),
        "environment_setup_commit": "b" * 40,
    }


def _test_log(fix_passes: bool) -> bytes:
    return (
        "+ pytest -rA tests/test_x.py\n"
        ">>>>> Start Test Output\n"
        "============ short test summary info ============\n"
        f"{'PASSED' if fix_passes else 'FAILED'} {F2P}\n"
        f"PASSED {P2P}\n"
        ">>>>> End Test Output\n"
    ).encode()


class _Result:
    def __init__(self, exit_code: int, output: bytes):
        self.exit_code, self.output = exit_code, output


class FakeAPI:
    def __init__(self, client: "FakeClient"):
        self.client = client
        self._ids = itertools.count()
        self.execs: dict[str, "FakeContainer"] = {}

    def exec_create(self, container_id, cmd):
        eid = f"exec-{next(self._ids)}"
        self.execs[eid] = self.client.by_id[container_id]
        self.client.calls.append(("exec_create", container_id, cmd))
        return {"Id": eid}

    def exec_start(self, exec_id, stream=False):
        container = self.execs[exec_id]
        behaviour = self.client.script(container.patch)
        if behaviour == "crash":
            raise docker.errors.APIError("500 Server Error: the container died")
        if behaviour == "hang":
            def slow():
                time.sleep(2.5)
                yield b"too late\n"
            return slow()
        if behaviour == "killed":  # the eval script dies before its test output section (OOM)
            return iter([b"+ git apply -v - <<'EOF'\nKilled\n"])
        return iter([_test_log(behaviour == "pass")])

    def exec_inspect(self, exec_id):
        return {"Pid": 0}

    def inspect_container(self, container_id):
        return {"State": {"Pid": 0}}


class FakeContainer:
    def __init__(self, client: "FakeClient", name: str, image: str):
        self.client, self.name, self.image = client, name, image
        self.id = f"cid-{name}"
        self.patch = ""

    def start(self):
        self.client.calls.append(("start", self.name))

    def put_archive(self, path, data):
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            for member in tar.getmembers():
                content = tar.extractfile(member).read().decode()
                if member.name == "patch.diff":
                    self.patch = content
        self.client.calls.append(("put_archive", self.name, path))
        return True

    def exec_run(self, cmd, workdir=None, user=None, detach=False, **kw):
        self.client.calls.append(("exec_run", self.name, cmd))
        if cmd.startswith(("git apply", "patch --batch")):
            if "BAD" in self.patch:
                return _Result(1, b"error: patch failed: requests/x.py:1\nerror: requests/x.py: patch does not apply\n")
            return _Result(0, b"Checking patch requests/x.py...\nApplied patch requests/x.py cleanly.\n")
        return _Result(0, b"")

    def stop(self, timeout=None):
        self.client.calls.append(("stop", self.name))

    def remove(self, force=False):
        self.client.calls.append(("remove", self.name))


class FakeImage:
    def __init__(self, tag):
        self.tags, self.id = [tag], f"sha256:{tag}"


class FakeImages:
    def __init__(self, client, tags):
        self.client, self.tags = client, set(tags)

    def list(self, all=False, **kw):
        return [FakeImage(t) for t in sorted(self.tags)]

    def get(self, name):
        if name in self.tags:
            return FakeImage(name)
        raise docker.errors.ImageNotFound(name)

    def pull(self, name, *a, **kw):
        self.client.pulls.append(name)
        raise docker.errors.NotFound(f"the fake client never pulls ({name})")

    def remove(self, image_id, force=False):
        self.client.calls.append(("remove_image", image_id))


class FakeContainers:
    def __init__(self, client):
        self.client = client

    def create(self, image, name, **kw):
        c = FakeContainer(self.client, name, image)
        self.client.by_id[c.id] = c
        self.client.created.append(name)
        return c

    def list(self, all=False, **kw):
        return []


class FakeClient:
    """Records every call; `script(patch) -> "pass"|"fail"|"crash"|"hang"` decides the test run."""

    def __init__(self, image_tags, script):
        self.calls, self.pulls, self.created = [], [], []
        self.by_id = {}
        self.script = script
        self.api = FakeAPI(self)
        self.images = FakeImages(self, image_tags)
        self.containers = FakeContainers(self)

    def ping(self):
        return True


def _script(patch: str) -> str:
    for word, behaviour in (("CRASH", "crash"), ("HANG", "hang"), ("WRONG", "fail"), ("KILLED", "killed")):
        if word in patch:
            return behaviour
    return "pass"


CASES = {
    "psf__requests-1001": _patch("GOLD"),
    "psf__requests-1002": "",
    "psf__requests-1003": _patch("BAD"),
    "psf__requests-1004": _patch("WRONG"),
}


def _condition(tmp_path: Path, cases: dict[str, str]) -> Path:
    cdir = tmp_path / "results" / "runs" / "qwen3.5" / "plb-normal" / "r3"
    for iid, patch in cases.items():
        (cdir / iid).mkdir(parents=True)
        (cdir / iid / "patch.diff").write_text(patch)
    return cdir


def _images(ids):
    return [f"swebench/sweb.eval.x86_64.{i.replace('__', '_1776_')}:latest" for i in ids]


@pytest.fixture
def fake(monkeypatch):
    client = FakeClient(_images(list(CASES) + ["psf__requests-1005", "psf__requests-1006"]), _script)
    monkeypatch.setattr(docker, "from_env", lambda *a, **k: client)
    return client


def _settings(tmp_path, **kw):
    """A validated harness section (the schema fills in what the test does not set)."""
    return validate_config({"harness": {"max_workers": 2, "timeout_s": 1, "retries": 1, "cache_dir": str(tmp_path / "evcache"), **kw}})["harness"]


def _eval(cdir, iid):
    return json.loads(eval_path(cdir, iid).read_text())


def test_gold_empty_bad_wrong(tmp_path, fake):
    cdir = _condition(tmp_path, CASES)
    rows = [_row(i) for i in CASES]
    summary = evaluate_condition_docker(cdir, rows, model="qwen3.5", agent="plb", scope="normal", condition="r3", settings=_settings(tmp_path))

    run_id = "swevis-qwen3.5-plb-normal-r3"
    assert ConditionKey("qwen3.5", "plb", "normal", "r3").run_id == run_id
    assert summary["run_id"] == run_id and summary["n"] == 4 and summary["resolved"] == 1

    gold = _eval(cdir, "psf__requests-1001")
    assert gold["harness"] == "docker" and gold["resolved"] and gold["patch_applied"]
    assert gold["resolution"] == "RESOLVED_FULL" and not gold["infra_failure"]
    assert gold["tests"]["FAIL_TO_PASS"]["success"] == [F2P] and gold["tests"]["PASS_TO_PASS"]["success"] == [P2P]
    assert gold["patch_apply"] == "git apply --verbose" and gold["run_id"] == run_id

    empty = _eval(cdir, "psf__requests-1002")
    assert not empty["resolved"] and not empty["patch_applied"] and empty["patch_apply"] == "empty patch"
    assert not empty["infra_failure"]

    bad = _eval(cdir, "psf__requests-1003")
    assert not bad["resolved"] and not bad["patch_applied"] and not bad["infra_failure"]
    assert bad["patch_apply"].startswith("patch does not apply") and bad["patch_apply"].endswith("patch does not apply")

    wrong = _eval(cdir, "psf__requests-1004")
    assert wrong["patch_applied"] and not wrong["resolved"] and not wrong["infra_failure"]
    assert wrong["tests"]["FAIL_TO_PASS"]["failure"] == [F2P]

    assert summary["infra_failures"] == [] and summary["attempts"] == 1

    # reports under the condition's folder, one run_id per condition
    report = instance_log_dir(cdir, run_id, "qwen3.5", "psf__requests-1001") / "report.json"
    assert report.exists() and report.is_relative_to(cdir / "harness")
    assert (cdir / "harness" / f"qwen3.5.{run_id}.json").exists()
    assert (cdir / "harness" / "predictions.jsonl").read_text().count("\n") == 4
    pred = json.loads((cdir / "harness" / "predictions.jsonl").read_text().splitlines()[0])
    assert set(pred) == {"instance_id", "model_name_or_path", "model_patch"}
    # containers named after the run id; no pulls; the empty patch never reached Docker
    assert fake.pulls == []
    assert all(run_id in name for name in fake.created)
    assert not any("1002" in name for name in fake.created)
    assert not (tmp_path / "logs").exists() and not Path("logs/run_evaluation", run_id).exists()


def test_a_crashed_instance_is_retried_then_fails_the_job_keeping_the_verdicts(tmp_path, fake):
    from swevis.errors import InfrastructureError

    cases = {"psf__requests-1001": _patch("GOLD"), "psf__requests-1005": _patch("CRASH")}
    cdir = _condition(tmp_path, cases)
    rows = [_row(i) for i in cases]
    with pytest.raises(InfrastructureError, match="harness failure on psf__requests-1005: evaluation crashed"):
        evaluate_condition_docker(cdir, rows, model="qwen3.5", agent="plb", scope="normal", condition="r3", settings=_settings(tmp_path))
    run_id = "swevis-qwen3.5-plb-normal-r3"
    # retried once (the first attempt's logs kept beside the retry); no eval.json, no summary
    assert instance_log_dir(cdir, run_id, "qwen3.5", "psf__requests-1005.attempt-1").exists()
    assert not eval_path(cdir, "psf__requests-1005").exists() and not eval_path(cdir, "psf__requests-1001").exists()
    assert not (cdir / "harness" / "harness_summary.json").exists()
    # the next run, with the engine healthy again, grades only the failed instance
    (cdir / "psf__requests-1005" / "patch.diff").write_text(_patch("WRONG"))
    again = evaluate_condition_docker(cdir, rows, model="qwen3.5", agent="plb", scope="normal", condition="r3", settings=_settings(tmp_path))
    assert again["cached"] == 1 and again["evaluated"] == 1 and again["resolved"] == 1


def test_a_missing_image_is_an_infrastructure_error(tmp_path, fake):
    from swevis.errors import InfrastructureError

    cdir = _condition(tmp_path, {"psf__requests-1007": _patch("GOLD")})
    with pytest.raises(InfrastructureError, match="harness failure on psf__requests-1007: evaluation crashed: .*ImageNotFound"):
        evaluate_condition_docker(cdir, [_row("psf__requests-1007")], model="m", agent="plb", scope="normal", condition="text",
                           settings=_settings(tmp_path, retries=0))
    assert fake.pulls and not eval_path(cdir, "psf__requests-1007").exists()


def test_timeout_is_retried_then_an_infrastructure_error(tmp_path, fake):
    from swevis.errors import InfrastructureError

    cases = {"psf__requests-1006": _patch("HANG")}
    cdir = _condition(tmp_path, cases)
    with pytest.raises(InfrastructureError, match="psf__requests-1006: test run timed out after 1 s"):
        evaluate_condition_docker(
            cdir, [_row(i) for i in cases], model="qwen3.5", agent="plb", scope="normal", condition="r3",
            settings=_settings(tmp_path, retries=0),
        )
    assert not eval_path(cdir, "psf__requests-1006").exists()


def test_an_eval_script_that_died_is_retried_then_an_infrastructure_error(tmp_path, fake):
    """Not an unresolved verdict: an OOM-killed eval script says nothing about the patch."""
    from swevis.errors import InfrastructureError

    cases = {"psf__requests-1001": _patch("GOLD"), "psf__requests-1003": _patch("KILLED")}
    cdir = _condition(tmp_path, cases)
    with pytest.raises(InfrastructureError, match="harness failure on psf__requests-1003: .*eval script failed"):
        evaluate_condition_docker(cdir, [_row(i) for i in cases], model="m", agent="plb", scope="normal", condition="text",
                           settings=_settings(tmp_path, retries=1))
    assert instance_log_dir(cdir, "swevis-m-plb-normal-text", "m", "psf__requests-1003.attempt-1").exists()
    assert not eval_path(cdir, "psf__requests-1003").exists()
    assert not (cdir / "harness" / "harness_summary.json").exists()


def test_identical_patches_share_one_evaluation(tmp_path, fake):
    gold = {"psf__requests-1001": _patch("GOLD")}
    c1 = _condition(tmp_path / "a", gold)
    s1 = evaluate_condition_docker(c1, [_row("psf__requests-1001")], model="m", agent="let", scope="wide", condition="r1", settings=_settings(tmp_path))
    n_created = len(fake.created)
    c2 = _condition(tmp_path / "b", {"psf__requests-1001": _patch("GOLD").rstrip("\n") + "\n\n"})
    s2 = evaluate_condition_docker(c2, [_row("psf__requests-1001")], model="m", agent="let", scope="wide", condition="r5", settings=_settings(tmp_path))
    assert s1["evaluated"] == 1 and s2["cached"] == 1 and s2["evaluated"] == 0
    assert len(fake.created) == n_created  # no second container
    rec = _eval(c2, "psf__requests-1001")
    assert rec["resolved"] and rec["cached"] and rec["run_id"] == "swevis-m-let-wide-r5"


def test_crashes_are_not_cached(tmp_path):
    cache = EvalCache(tmp_path / "c")
    calls = []
    row = _row("i")

    def compute():
        calls.append(1)
        return {"instance_id": "i", "resolved": False, "infra_failure": True}

    cached_evaluation(cache, row, "p", "local", "env", compute)
    cached_evaluation(cache, row, "p", "local", "env", compute)
    assert len(calls) == 2
    ok = cached_evaluation(cache, row, "q", "local", "env", lambda: {"instance_id": "i", "resolved": True, "infra_failure": False})
    again = cached_evaluation(cache, row, "q", "local", "env", compute)
    assert not ok["cached"] and again["cached"] and again["resolved"]
    assert evaluation_cache_key(row, "x\r\n", "docker", "env") == evaluation_cache_key(row, "x\n\n", "docker", "env")


@pytest.mark.parametrize(
    "change",
    [
        {"test_patch": "diff --git a/tests/test_x.py b/tests/test_x.py\n@@ -1 +1 @@\n-a\n+c\n"},
        {"FAIL_TO_PASS": json.dumps([F2P, "tests/test_x.py::test_more"])},
        {"PASS_TO_PASS": json.dumps([])},
        {"test_cmd": "pytest -x tests/test_x.py"},
        {"log_parser": "pytest"},
        {"base_commit": "c" * 40},
        {"version": "2.1"},
    ],
    ids=lambda c: next(iter(c)),
)
def test_every_verdict_input_changes_the_cache_key(change):
    row = _row("psf__requests-1001")
    key = evaluation_cache_key(row, _patch("GOLD"), "docker", "docker:swebench:latest")
    assert evaluation_cache_key({**row, **change}, _patch("GOLD"), "docker", "docker:swebench:latest") != key


def test_patch_harness_environment_and_version_change_the_cache_key(monkeypatch):
    from swevis.harness import cache as cache_mod

    row = _row("psf__requests-1001")
    key = evaluation_cache_key(row, _patch("GOLD"), "docker", "docker:a")
    assert evaluation_cache_key(row, _patch("WRONG"), "docker", "docker:a") != key
    assert evaluation_cache_key(row, _patch("GOLD"), "local", "docker:a") != key
    assert evaluation_cache_key(row, _patch("GOLD"), "docker", "docker:b") != key
    monkeypatch.setattr(cache_mod, "swebench_version", "9.9.9")
    assert evaluation_cache_key(row, _patch("GOLD"), "docker", "docker:a") != key
    monkeypatch.undo()
    monkeypatch.setattr(cache_mod, "HARNESS_SCHEMA", "swevis-harness-next")
    assert evaluation_cache_key(row, _patch("GOLD"), "docker", "docker:a") != key


def test_a_changed_task_row_is_graded_again(tmp_path, fake):
    """The stale-verdict bug: a task row whose FAIL_TO_PASS changed reused the old verdict."""
    cdir = _condition(tmp_path / "a", {"psf__requests-1001": _patch("GOLD")})
    first = evaluate_condition_docker(cdir, [_row("psf__requests-1001")], model="m", agent="plb", scope="normal", condition="text", settings=_settings(tmp_path))
    assert first["evaluated"] == 1 and _eval(cdir, "psf__requests-1001")["resolved"]
    changed = {**_row("psf__requests-1001"), "FAIL_TO_PASS": json.dumps([F2P, "tests/test_x.py::test_missing"])}
    cdir2 = _condition(tmp_path / "b", {"psf__requests-1001": _patch("GOLD")})
    second = evaluate_condition_docker(cdir2, [changed], model="m", agent="plb", scope="normal", condition="text", settings=_settings(tmp_path))
    assert second["cached"] == 0 and second["evaluated"] == 1
    assert not _eval(cdir2, "psf__requests-1001")["resolved"]


def test_a_crashed_harness_run_fails_the_job_without_output(tmp_path, fake, monkeypatch):
    from swevis.errors import InfrastructureError
    from swevis.harness import docker as docker_mod

    def crash(*a, **k):
        raise RuntimeError("docker daemon went away")

    monkeypatch.setattr(docker_mod, "_run_swebench", crash)
    cdir = _condition(tmp_path, {"psf__requests-1001": _patch("GOLD")})
    with pytest.raises(InfrastructureError, match="crashed 2 time"):
        evaluate_condition_docker(cdir, [_row("psf__requests-1001")], model="m", agent="plb", scope="normal", condition="text", settings=_settings(tmp_path))
    assert not eval_path(cdir, "psf__requests-1001").exists()
    assert not (cdir / "harness" / "harness_summary.json").exists()


def test_no_engine_is_a_clear_error(tmp_path, monkeypatch):
    def no_engine(*a, **k):
        raise docker.errors.DockerException("Error while fetching server API version: connection refused")

    monkeypatch.setattr(docker, "from_env", no_engine)
    cdir = _condition(tmp_path, {"psf__requests-1001": _patch("GOLD")})
    with pytest.raises(DockerHarnessError, match="no Docker engine"):
        evaluate_condition_docker(cdir, [_row("psf__requests-1001")], model="m", agent="plb", scope="normal", condition="text", settings=_settings(tmp_path))


def test_missing_patch_is_named(tmp_path, fake):
    cdir = _condition(tmp_path, {})
    with pytest.raises(MissingPatchError, match="psf__requests-1001/patch.diff"):
        evaluate_condition_docker(cdir, [_row("psf__requests-1001")], model="m", agent="plb", scope="normal", condition="text", settings=_settings(tmp_path))


def test_repeats_are_separate_harness_runs(tmp_path, fake):
    cases = {"psf__requests-1001": _patch("GOLD"), "psf__requests-1004": _patch("WRONG")}
    cdir = _condition(tmp_path, cases)
    # repeat 1 of each instance: the gold instance's second run went wrong this time
    for iid, patch in {"psf__requests-1001": _patch("WRONG"), "psf__requests-1004": _patch("GOLD")}.items():
        (cdir / iid / "repeat-1").mkdir()
        (cdir / iid / "repeat-1" / "patch.diff").write_text(patch)
    rows = [_row(i) for i in cases]
    summary = evaluate_condition_docker(
        cdir, rows, model="qwen3.5", agent="plb", scope="normal", condition="r3", settings=_settings(tmp_path), repeats=2
    )
    assert summary["n"] == 4 and summary["resolved"] == 2
    assert summary["run_id"] == ["swevis-qwen3.5-plb-normal-r3", "swevis-qwen3.5-plb-normal-r3-repeat-1"]
    assert _eval(cdir, "psf__requests-1001")["resolved"] and not _eval(cdir, "psf__requests-1001/repeat-1")["resolved"]
    assert not _eval(cdir, "psf__requests-1004")["resolved"] and _eval(cdir, "psf__requests-1004/repeat-1")["resolved"]
    assert _eval(cdir, "psf__requests-1004/repeat-1")["run_id"].endswith("-repeat-1")
    assert (cdir / "harness" / "repeat-1" / "predictions.jsonl").exists()
    assert json.loads((cdir / "harness" / "harness_summary.json").read_text())["n"] == 4


def test_the_validated_harness_section_reaches_swebench(tmp_path, fake, monkeypatch):
    """Every option swebench's main takes comes from the harness section as the schema
    validated it (no second set of defaults in the harness)."""
    from swebench.harness import run_evaluation

    seen = {}

    def record(**kwargs):
        seen.update(kwargs)
        raise RuntimeError("stop after recording the arguments")

    monkeypatch.setattr(run_evaluation, "main", record)
    settings = _settings(tmp_path, retries=0, namespace="myorg", instance_image_tag="v2", open_file_limit=4096)
    cdir = _condition(tmp_path, {"psf__requests-1001": _patch("GOLD")})
    with pytest.raises(DockerHarnessError, match="crashed 1 time"):
        evaluate_condition_docker(cdir, [_row("psf__requests-1001")], model="m", agent="plb", scope="normal", condition="text", settings=settings)
    schema_defaults = validate_config({})["harness"]
    assert seen["namespace"] == "myorg" and seen["instance_image_tag"] == "v2" and seen["open_file_limit"] == 4096
    assert seen["timeout"] == 1 and seen["max_workers"] == 2
    for key in ("cache_level", "clean", "force_rebuild", "env_image_tag"):
        assert seen[key] == schema_defaults[key], key


def pretend_rebuilt(client, monkeypatch) -> None:
    """From now on every image the fake engine inspects has another id (rebuilt, same tag)."""
    inspect = client.images.get

    def rebuilt(name):
        found = inspect(name)
        found.id = "sha256:rebuilt"
        return found

    monkeypatch.setattr(client.images, "get", rebuilt)


def test_the_cache_key_holds_the_inspected_image_id_not_only_its_tag(tmp_path, fake, monkeypatch):
    """A re-pushed `latest` is another image: its verdicts are graded again."""
    iid, image = "psf__requests-1001", "swebench/sweb.eval.x86_64.psf_1776_requests-1001:latest"
    run = dict(model="m", agent="plb", scope="normal", condition="text", settings=_settings(tmp_path))
    first = evaluate_condition_docker(_condition(tmp_path / "a", {iid: _patch("GOLD")}), [_row(iid)], **run)
    assert first["evaluated"] == 1
    assert evaluate_condition_docker(_condition(tmp_path / "b", {iid: _patch("GOLD")}), [_row(iid)], **run)["cached"] == 1
    pretend_rebuilt(fake, monkeypatch)
    third = evaluate_condition_docker(_condition(tmp_path / "c", {iid: _patch("GOLD")}), [_row(iid)], **run)
    assert third["cached"] == 0 and third["evaluated"] == 1
    assert first["images"] == {iid: f"docker:{image}@sha256:{image}"}
    assert third["images"] == {iid: f"docker:{image}@sha256:rebuilt"}
    from swevis.harness.docker import instance_environment_ids

    # an image not pulled yet is keyed by its tag, and the id says so
    missing = instance_environment_ids([_row("psf__requests-1007")], _settings(tmp_path))
    assert missing == {"psf__requests-1007": "docker:swebench/sweb.eval.x86_64.psf_1776_requests-1007:latest@tag-only"}


def test_a_row_swebench_has_no_image_for_is_one_clear_error(tmp_path):
    from swevis.errors import SwevisError
    from swevis.harness.docker import instance_environment_ids

    row = {**_row("psf__requests-1001"), "repo": "acme/unknown"}
    with pytest.raises(SwevisError, match="psf__requests-1001: swebench has no image spec for acme/unknown version 2.0"):
        instance_environment_ids([row], _settings(tmp_path), lambda: FakeClient([], _script))


def test_records_name_their_reports_relative_to_the_workflow_directory(tmp_path, fake, monkeypatch):
    # a results folder moves between machines: no record or summary names this host's folder
    monkeypatch.chdir(tmp_path)
    cdir = _condition(tmp_path, {"psf__requests-1001": CASES["psf__requests-1001"]})
    evaluate_condition_docker(cdir, [_row("psf__requests-1001")], model="qwen3.5", agent="plb", scope="normal",
                       condition="r3", settings=_settings(tmp_path))
    gold = _eval(cdir, "psf__requests-1001")
    hdir = "results/runs/qwen3.5/plb-normal/r3/harness"
    assert gold["log_dir"] == f"{hdir}/logs/run_evaluation/swevis-qwen3.5-plb-normal-r3/qwen3.5/psf__requests-1001"
    assert gold["report_path"] == gold["log_dir"] + "/report.json" and (tmp_path / gold["report_path"]).exists()
    written = [p for p in tmp_path.rglob("*.json") if "logs" not in p.parts]
    assert written and not [p for p in written if str(tmp_path) in p.read_text()]


def test_the_one_entry_point_grades_with_the_backend_the_settings_name(tmp_path, fake, monkeypatch):
    """harness.evaluate.evaluate_condition: kind docker runs the official harness (the fake
    engine is asked), kind local the local runner (the engine is not asked)."""
    from swevis.harness import evaluate as evaluate_mod

    key = ConditionKey("qwen3.5", "plb", "normal", "r3")
    cdir = _condition(tmp_path, {"psf__requests-1001": CASES["psf__requests-1001"]})
    rows = [_row("psf__requests-1001")]
    summary = evaluate_mod.evaluate_condition(cdir, rows, key, settings=_settings(tmp_path, kind="docker"), mirrors={})
    assert summary["run_id"] == key.run_id and summary["resolved"] == 1 and fake.created
    asked = []
    monkeypatch.setattr(evaluate_mod, "evaluate_condition_local",
                        lambda *a, **k: asked.append((a, k)) or {"harness": "local"})
    created = list(fake.created)
    local = validate_config({"harness": {"kind": "local", "cache_dir": str(tmp_path / "c2")}})["harness"]
    assert evaluate_mod.evaluate_condition(cdir, rows, key, settings=local, mirrors={"psf/requests": "m"}) == {"harness": "local"}
    assert asked and asked[0][0][:3] == (cdir, rows, {"psf/requests": "m"}) and fake.created == created
