"""Environment validation: the gold patch must resolve and the empty patch must not, once per
instance x harness x environment, before any condition's accuracy counts the instance."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import docker
import pytest

from swevis.errors import InfrastructureError
from swevis.harness.records import read_validation
from swevis.harness.validate import NOOP_PATCH, validate_docker, validate_local, write_validation
from helpers import git

_spec = importlib.util.spec_from_file_location("harness_docker_tests", Path(__file__).parent / "test_harness_docker.py")
hd = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hd)


def _settings(tmp_path: Path, **kw) -> dict:
    return {"timeout_s": 60, "retries": 0, "cache_dir": str(tmp_path / "evcache"), **kw}


def _py2014_row(toy_task) -> dict:
    """The toy task on a base commit whose package imports `collections.MutableMapping`, as
    2014 code did: under Python >= 3.10 nothing imports, so the gold patch cannot resolve."""
    repo = toy_task["repo_dir"]
    (repo / "toy" / "__init__.py").write_text("from collections import MutableMapping  # noqa: F401\n")
    git(repo, "commit", "-q", "-am", "2014 import")
    return {**toy_task["row"], "instance_id": "toyorg__toy-2", "base_commit": git(repo, "rev-parse", "HEAD")}


def test_a_sound_environment_validates_once_and_is_shared(tmp_path, toy_task, monkeypatch):
    row, mirrors = toy_task["row"], {"toyorg/toy": str(toy_task["repo_dir"])}
    report = validate_local([row], mirrors, _settings(tmp_path), tmp_path / "logs")
    assert report["n_valid"] == 1 and report["n_invalid"] == 0 and report["invalid"] == {}
    rec = report["instances"]["toyorg__toy-1"]
    assert rec["valid"] and rec["gold"]["resolved"] and not rec["empty"]["resolved"] and not rec["cached"]
    assert rec["empty"]["tests"]["FAIL_TO_PASS"]["failure"] == ["tests/test_calc.py::test_mean"]
    assert (tmp_path / "logs" / "toyorg__toy-1.gold.log").exists()

    from swevis.harness import local

    monkeypatch.setattr(local, "evaluate_patch", lambda *a, **k: pytest.fail("a cached validation was graded again"))
    again = validate_local([row], mirrors, _settings(tmp_path), tmp_path / "logs2")
    assert again["instances"]["toyorg__toy-1"]["cached"] and again["n_valid"] == 1


@pytest.mark.slow
def test_a_gold_patch_the_environment_cannot_run_makes_the_instance_invalid(tmp_path, toy_task):
    row = _py2014_row(toy_task)
    report = validate_local([row, toy_task["row"]], {"toyorg/toy": str(toy_task["repo_dir"])}, _settings(tmp_path), tmp_path)
    assert report["n"] == 2 and report["n_valid"] == 1 and report["n_invalid"] == 1
    assert list(report["invalid"]) == ["toyorg__toy-2"]
    # as in the user trial (psf__requests-1921): a plain "not resolved" verdict, no infra failure
    assert report["invalid"]["toyorg__toy-2"].startswith("gold patch not resolved (RESOLVED_NO)")
    assert report["instances"]["toyorg__toy-2"]["gold"]["infra_failure"] is False
    assert "MutableMapping" in (tmp_path / "toyorg__toy-2.gold.log").read_text()
    assert report["instances"]["toyorg__toy-1"]["valid"]


def test_an_empty_patch_that_resolves_makes_the_instance_invalid(tmp_path, toy_task):
    row = {**toy_task["row"], "FAIL_TO_PASS": ["tests/test_calc.py::test_total"], "PASS_TO_PASS": []}
    report = validate_local([row], {"toyorg/toy": str(toy_task["repo_dir"])}, _settings(tmp_path), tmp_path)
    assert report["invalid"] == {"toyorg__toy-1": "the empty patch resolves: FAIL_TO_PASS already passes without a fix"}


@pytest.mark.slow
def test_a_timed_out_harness_is_no_verdict_and_is_not_cached(tmp_path, toy_task):
    slow = {**toy_task["row"], "test_cmd": "sleep 5"}
    mirrors = {"toyorg/toy": str(toy_task["repo_dir"])}
    with pytest.raises(InfrastructureError, match="toyorg__toy-1: validation could not run: test command timed out"):
        validate_local([slow], mirrors, _settings(tmp_path, timeout_s=1), tmp_path)
    # the next run grades it again (and the sound row now validates)
    report = validate_local([toy_task["row"]], mirrors, _settings(tmp_path), tmp_path)
    assert not report["instances"]["toyorg__toy-1"]["cached"]


def test_the_report_round_trips_and_foreign_files_are_named(tmp_path, toy_task):
    report = validate_local([toy_task["row"]], {"toyorg/toy": str(toy_task["repo_dir"])}, _settings(tmp_path), tmp_path)
    path = write_validation(report, tmp_path / "validation" / "local.json")
    assert read_validation(path) == report
    (tmp_path / "other.json").write_text("{}")
    with pytest.raises(Exception, match="other.json: not an environment validation report"):
        read_validation(tmp_path / "other.json")


def _docker_script(noop_passes: bool):
    def script(patch: str) -> str:
        if "environment validation" in patch:
            return "pass" if noop_passes else "fail"
        return hd._script(patch)

    return script


def _fake(monkeypatch, script):
    client = hd.FakeClient(hd._images(["psf__requests-1001", "psf__requests-1004"]), script)
    monkeypatch.setattr(docker, "from_env", lambda *a, **k: client)
    return client


def test_docker_validation_grades_gold_and_noop_patches(tmp_path, monkeypatch):
    client = _fake(monkeypatch, _docker_script(noop_passes=False))
    wrong_gold = {**hd._row("psf__requests-1004"), "patch": hd._patch("WRONG")}
    rows = [hd._row("psf__requests-1001"), wrong_gold]
    report = validate_docker(rows, hd._settings(tmp_path), tmp_path / "validation")
    assert report["harness"] == "docker" and report["environment"].startswith("docker:swebench:")
    assert report["n_valid"] == 1 and list(report["invalid"]) == ["psf__requests-1004"]
    assert "gold patch not resolved" in report["invalid"]["psf__requests-1004"]
    assert report["instances"]["psf__requests-1001"]["empty"]["patch_applied"]
    assert (tmp_path / "validation" / "empty" / "psf__requests-1001" / "patch.diff").read_text() == NOOP_PATCH
    n = len(client.created)
    again = validate_docker(rows, hd._settings(tmp_path), tmp_path / "validation")
    assert len(client.created) == n and all(r["cached"] for r in again["instances"].values())


def test_docker_validation_is_graded_again_for_a_rebuilt_image_under_the_same_tag(tmp_path, monkeypatch):
    client = _fake(monkeypatch, _docker_script(noop_passes=False))
    rows = [hd._row("psf__requests-1001")]
    validate_docker(rows, hd._settings(tmp_path), tmp_path / "validation")
    hd.pretend_rebuilt(client, monkeypatch)
    again = validate_docker(rows, hd._settings(tmp_path), tmp_path / "validation")
    record = again["instances"]["psf__requests-1001"]
    assert not record["cached"] and record["environment"].endswith("@sha256:rebuilt")


def test_docker_validation_flags_an_instance_whose_tests_pass_without_a_fix(tmp_path, monkeypatch):
    _fake(monkeypatch, _docker_script(noop_passes=True))
    report = validate_docker([hd._row("psf__requests-1001")], hd._settings(tmp_path), tmp_path / "v")
    assert report["invalid"] == {"psf__requests-1001": "the empty patch resolves: FAIL_TO_PASS already passes without a fix"}


def test_docker_validation_without_an_engine_or_image_is_an_infrastructure_error(tmp_path, monkeypatch):
    def no_engine(*a, **k):
        raise docker.errors.DockerException("connection refused")

    monkeypatch.setattr(docker, "from_env", no_engine)
    with pytest.raises(InfrastructureError, match="no Docker engine"):
        validate_docker([hd._row("psf__requests-1001")], hd._settings(tmp_path), tmp_path / "v")
    _fake(monkeypatch, _docker_script(noop_passes=False))
    with pytest.raises(InfrastructureError, match="harness failure on psf__requests-1006: evaluation crashed: .*ImageNotFound"):
        validate_docker([hd._row("psf__requests-1006")], hd._settings(tmp_path, retries=0), tmp_path / "w")
