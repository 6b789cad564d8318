from pathlib import Path

import pytest

from swevis.harness.local import apply_patch, evaluate_patch, resolve_log_parser, resolve_test_cmd
from swevis.paths import eval_path


def test_gold_patch_resolves(tmp_path: Path, toy_task):
    row = toy_task["row"]
    log = tmp_path / "test.log"
    rec = evaluate_patch(row, row["patch"], toy_task["repo_dir"], log_path=log)
    assert rec["patch_applied"] and rec["resolved"], rec
    assert rec["tests"]["FAIL_TO_PASS"]["success"] == ["tests/test_calc.py::test_mean"]
    assert rec["tests"]["PASS_TO_PASS"]["success"] == ["tests/test_calc.py::test_total"]
    assert "PASSED tests/test_calc.py::test_mean" in log.read_text()


def test_empty_patch_is_unresolved(toy_task):
    rec = evaluate_patch(toy_task["row"], "", toy_task["repo_dir"])
    assert rec["resolved"] is False and rec["patch_applied"] is False
    assert rec["patch_apply"] == "empty patch" and not rec["infra_failure"]


def test_patch_that_does_not_apply_is_unresolved_with_reason(toy_task):
    bad = toy_task["row"]["patch"].replace("(len(values) + 1)", "(len(values) + 2)")
    rec = evaluate_patch(toy_task["row"], bad, toy_task["repo_dir"])
    assert rec["resolved"] is False and rec["patch_applied"] is False
    assert rec["patch_apply"].startswith("patch does not apply")
    assert "calc.py" in rec["patch_apply"]


def test_wrong_fix_is_unresolved_with_test_results(toy_task):
    wrong = toy_task["row"]["patch"].replace("+    return sum(values) / len(values)", "+    return sum(values) / 4")
    assert wrong != toy_task["row"]["patch"]
    rec = evaluate_patch(toy_task["row"], wrong, toy_task["repo_dir"])
    assert rec["patch_applied"] and not rec["resolved"] and not rec["infra_failure"]
    assert rec["tests"]["FAIL_TO_PASS"]["failure"] == ["tests/test_calc.py::test_mean"]
    assert rec["tests"]["PASS_TO_PASS"]["success"] == ["tests/test_calc.py::test_total"]


def test_timeout_is_an_infrastructure_failure(toy_task):
    row = {**toy_task["row"], "test_cmd": "sleep 5"}
    rec = evaluate_patch(row, row["patch"], toy_task["repo_dir"], timeout_s=1)
    assert rec["infra_failure"] and "timed out" in rec["error"] and not rec["resolved"]


def test_swebench_specs_supply_cmd_and_parser_for_known_repos():
    row = {
        "instance_id": "psf__requests-2317",
        "repo": "psf/requests",
        "version": "2.4",
        "test_patch": "diff --git a/test_requests.py b/test_requests.py\n",
    }
    assert resolve_test_cmd(row).endswith("test_requests.py")
    assert resolve_test_cmd(row).startswith("pytest")
    from swebench.harness.log_parsers import MAP_REPO_TO_PARSER

    assert resolve_log_parser(row) is MAP_REPO_TO_PARSER["psf/requests"]
    assert resolve_log_parser({"instance_id": "x", "repo": "a/b", "log_parser": "pytest"}).__name__ == "parse_log_pytest"


def test_apply_patch_reports_empty(tmp_path: Path):
    assert apply_patch("  \n", tmp_path) == (False, "empty patch")


def test_a_patch_that_edits_the_test_files_does_not_block_test_patch(toy_task):
    # the candidate also edits the test file test_patch changes; the harness resets it first
    row = toy_task["row"]
    touching = row["patch"] + row["test_patch"].replace("assert mean([2, 4]) == 3", "assert True")
    rec = evaluate_patch(row, touching, toy_task["repo_dir"])
    assert rec["patch_applied"] and not rec["infra_failure"], rec
    assert rec["resolved"], rec


@pytest.mark.slow
def test_a_changed_task_row_is_graded_again_by_the_condition_runner(tmp_path: Path, toy_task):
    """The stale-verdict bug: after FAIL_TO_PASS changed, the cached verdict was reused."""
    from swevis.harness.local import evaluate_condition_local

    row, mirrors = toy_task["row"], {"toyorg/toy": str(toy_task["repo_dir"])}
    settings = {"timeout_s": 60, "retries": 0, "cache_dir": str(tmp_path / "cache")}
    cdir = tmp_path / "cond"
    (cdir / row["instance_id"]).mkdir(parents=True)
    (cdir / row["instance_id"] / "patch.diff").write_text(row["patch"])
    first = evaluate_condition_local(cdir, [row], mirrors, settings=settings)
    assert first["resolved"] == 1 and first["cached"] == 0
    assert evaluate_condition_local(cdir, [row], mirrors, settings=settings)["cached"] == 1
    changed = {**row, "FAIL_TO_PASS": [*row["FAIL_TO_PASS"], "tests/test_calc.py::test_median"]}
    again = evaluate_condition_local(cdir, [changed], mirrors, settings=settings)
    assert again["cached"] == 0 and again["resolved"] == 0


@pytest.mark.slow
def test_a_timed_out_condition_run_is_an_infrastructure_error_not_a_verdict(tmp_path: Path, toy_task):
    import pytest

    from swevis.errors import InfrastructureError
    from swevis.harness.local import evaluate_condition_local

    row = {**toy_task["row"], "test_cmd": "sleep 5"}
    cdir = tmp_path / "cond"
    (cdir / row["instance_id"]).mkdir(parents=True)
    (cdir / row["instance_id"] / "patch.diff").write_text(row["patch"])
    settings = {"timeout_s": 1, "retries": 1, "cache_dir": str(tmp_path / "cache")}
    with pytest.raises(InfrastructureError, match="harness failure on toyorg__toy-1: test command timed out"):
        evaluate_condition_local(cdir, [row], {"toyorg/toy": str(toy_task["repo_dir"])}, settings=settings)
    assert not eval_path(cdir, row["instance_id"]).exists()
    assert not (cdir / "harness" / "harness_summary.json").exists()


def test_the_tests_run_without_the_hosts_credentials(tmp_path: Path, toy_task, monkeypatch):
    """The code under test is the model's: whatever it prints lands in test_output.txt."""
    from swevis.harness.local import evaluate_condition_local

    secrets = {"XYZZY": "hunter2", "DATABASE_URL": "postgres://u:pw-db-4711@h/db",
               "GITHUB_PAT": "ghp_pat-0815", "OPENAI_API_KEY": "sk-model-key-2342"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    printenv = "python -c 'import os; print(sorted(os.environ.items()))'"
    row = {**toy_task["row"], "test_cmd": f"{printenv} && {toy_task['row']['test_cmd']}"}
    cdir = tmp_path / "cond"
    (cdir / row["instance_id"]).mkdir(parents=True)
    (cdir / row["instance_id"] / "patch.diff").write_text(row["patch"])
    settings = {"timeout_s": 60, "retries": 0, "cache_dir": str(tmp_path / "cache")}
    summary = evaluate_condition_local(cdir, [row], {"toyorg/toy": str(toy_task["repo_dir"])}, settings=settings)
    assert summary["resolved"] == 1  # the venv's python and pytest still run the tests
    output = eval_path(cdir, row["instance_id"], 0, "test_output.txt").read_text()
    assert "('PATH'," in output  # the environment was printed
    written = "".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file() and "toy" not in p.parts)
    for name, value in secrets.items():
        assert value not in written and f"'{name}'" not in output, name


def test_another_set_of_installed_distributions_changes_the_cache_key(monkeypatch, toy_task):
    """The venv's pytest and packages run the tests: another pytest, another key."""
    from importlib import metadata

    from swevis.harness.cache import evaluation_cache_key
    from swevis.harness.local import local_environment_id

    class Dist:  # what installed_distributions reads of one: its metadata's Name and Version
        def __init__(self, name, version):
            self.metadata = {"Name": name, "Version": version}

    row = toy_task["row"]
    listing = [Dist("pytest", "8.3.0"), Dist("attrs", "24.2.0")]
    monkeypatch.setattr(metadata, "distributions", lambda: iter(listing))
    before = evaluation_cache_key(row, row["patch"], "local", local_environment_id())
    assert evaluation_cache_key(row, row["patch"], "local", local_environment_id()) == before
    listing[0] = Dist("pytest", "7.4.4")
    assert evaluation_cache_key(row, row["patch"], "local", local_environment_id()) != before


def _condition_with(tmp_path: Path, row: dict, patch: str) -> Path:
    cdir = tmp_path / "cond"
    (cdir / row["instance_id"]).mkdir(parents=True)
    (cdir / row["instance_id"] / "patch.diff").write_text(patch)
    return cdir


def test_a_test_patch_that_does_not_apply_fails_the_condition_after_its_retries(tmp_path: Path, toy_task):
    import pytest

    from swevis.errors import InfrastructureError
    from swevis.harness.local import evaluate_condition_local

    row = toy_task["row"]
    row = {**row, "test_patch": row["test_patch"].replace("-from toy.calc import total", "-from toy.calc import other")}
    cdir = _condition_with(tmp_path, row, row["patch"])
    settings = {"timeout_s": 60, "retries": 1, "cache_dir": str(tmp_path / "cache")}
    with pytest.raises(InfrastructureError, match="harness failure on toyorg__toy-1: test_patch does not apply"):
        evaluate_condition_local(cdir, [row], {"toyorg/toy": str(toy_task["repo_dir"])}, settings=settings)
    assert not eval_path(cdir, row["instance_id"]).exists()


# the patch's conftest ends pytest before it reports anything: no test results
BREAKS_COLLECTION = (
    "diff --git a/tests/conftest.py b/tests/conftest.py\nnew file mode 100644\n--- /dev/null\n"
    "+++ b/tests/conftest.py\n@@ -0,0 +1,2 @@\n+import os\n+os._exit(3)\n"
)


def test_no_test_results_after_a_patch_the_gold_patch_survives_is_unresolved(tmp_path: Path, toy_task):
    import json

    from swevis.harness.local import evaluate_condition_local

    row = toy_task["row"]
    cdir = _condition_with(tmp_path, row, row["patch"] + BREAKS_COLLECTION)
    settings = {"timeout_s": 60, "retries": 0, "cache_dir": str(tmp_path / "cache")}
    summary = evaluate_condition_local(cdir, [row], {"toyorg/toy": str(toy_task["repo_dir"])}, settings=settings)
    record = json.loads(eval_path(cdir, row["instance_id"]).read_text())
    assert summary["infra_failures"] == [] and summary["resolved"] == 0
    assert record["patch_applied"] and not record["infra_failure"] and not record["resolved"]
    assert record["reason"] == "no test results (collection failed)" and record["error"] is None


def test_no_test_results_even_for_the_gold_patch_stays_an_infrastructure_failure(tmp_path: Path, toy_task):
    import json

    from swevis.harness.local import evaluate_condition_local

    row = {**toy_task["row"], "test_cmd": "echo no tests here"}
    cdir = _condition_with(tmp_path, row, row["patch"] + BREAKS_COLLECTION)
    settings = {"timeout_s": 60, "retries": 0, "cache_dir": str(tmp_path / "cache")}
    summary = evaluate_condition_local(cdir, [row], {"toyorg/toy": str(toy_task["repo_dir"])}, settings=settings)
    record = json.loads(eval_path(cdir, row["instance_id"]).read_text())
    assert summary["infra_failures"] == [row["instance_id"]]
    assert record["infra_failure"] and record["reason"] is None and "no test results" in record["error"]
