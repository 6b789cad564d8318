from pathlib import Path

import pytest

from swevis.harness import apply_patch, evaluate_patch, resolve_log_parser, resolve_test_cmd


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
    assert not (cdir / row["instance_id"] / "eval.json").exists()
    assert not (cdir / "harness" / "harness_summary.json").exists()
