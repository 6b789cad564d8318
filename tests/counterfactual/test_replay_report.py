"""What `swevis replay` reports is right whatever the order of --conditions: the code-window
share, each row's pages (hist-rN's history pages too) and trajectories cut short (`truncated`
in the row, in summary.csv and in the pooled figures)."""

import json
import re
from pathlib import Path

import polars as pl

from swevis.cli import main
from swevis.config import load_config
from swevis.counterfactual.formats import read_trajectory
from swevis.counterfactual.replay import recorded_costs

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
MINI1 = FIXTURES / "trajectories" / "mini1__swevis-samples__ledgerkit-117.traj.json"
# MINI1 without its last call, the submission: the file still says "Submitted"
MINI1_CUT = FIXTURES / "trajectories_cut" / "mini1-cut__swevis-samples__ledgerkit-117.traj.json"
COLOURED = FIXTURES / "trajectories_coloured" / "mini2__coloured-pytest.traj.json"
CONFIG = str(ROOT / "config.yaml")


def replay(capsys, traj: Path, conditions: str, out: Path) -> tuple[str, str]:
    code = main(["replay", str(traj), "--conditions", conditions, "--config", CONFIG, "--out", str(out)])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    return stdout, err


def printed_share(stdout: str) -> str:
    return re.search(r"code windows are ([\d.]+%) of the cumulative prompt", stdout).group(1)


def test_the_code_share_does_not_depend_on_the_order_of_the_conditions(tmp_path, capsys):
    hist_first, _ = replay(capsys, MINI1, "text,hist-r3", tmp_path / "a")
    r3_first, _ = replay(capsys, MINI1, "text,r3,hist-r3", tmp_path / "b")
    assert printed_share(hist_first) == printed_share(r3_first) == "49.2%"
    a, b = (pl.read_csv(tmp_path / d / "ceiling.csv").filter(pl.col("condition") == "hist-r3") for d in "ab")
    assert a["code_share"].to_list() == b["code_share"].to_list() == [0.492]


def test_hist_and_obs_rows_count_the_pages_they_send(tmp_path, capsys):
    stdout, _ = replay(capsys, COLOURED, "text,obs-r3,hist-r3", tmp_path)
    summary = {r["condition"]: r for r in pl.read_csv(tmp_path / "summary.csv").iter_rows(named=True)}
    steps = pl.read_parquet(tmp_path / "per_step.parquet")
    for condition in ("obs-r3", "hist-r3"):
        calls = steps.filter(pl.col("condition") == condition).sort("step")
        # a frozen history block stays in every later request: the last one holds them all
        sent = int(calls["pages"].sum()) + int(calls["history_pages"][-1])
        assert summary[condition]["image_pages"] == sent > 0, condition
        assert re.search(rf" {condition} .* {sent}  submitted\n", stdout), stdout
    assert summary["text"]["image_pages"] == 0


def test_a_mini_trajectory_whose_last_call_did_not_submit_is_truncated(tmp_path, capsys):
    cut = read_trajectory(MINI1_CUT)
    assert cut.exit_status == "Submitted" and cut.truncated and not read_trajectory(MINI1).truncated
    folder = tmp_path / "trajs"
    folder.mkdir()
    for f in (MINI1, MINI1_CUT):
        (folder / f.name).write_bytes(f.read_bytes())
    stdout, err = replay(capsys, folder, "text,r3", tmp_path / "out")
    assert "truncated: its last recorded call did not submit (recorded exit Submitted)" in err
    assert "2 trajectories, 1 truncated" in stdout and "ceiling over 2 trajectories, 1 truncated" in stdout
    assert stdout.count("submitted, truncated") == 2  # the cut file's two rows
    summary = pl.read_csv(tmp_path / "out" / "summary.csv")
    assert {(Path(t).name, c, x) for t, c, x in summary.select("trajectory", "condition", "truncated").iter_rows()} == {
        (MINI1.name, "text", False), (MINI1.name, "r3", False), (MINI1_CUT.name, "text", True), (MINI1_CUT.name, "r3", True)}
    assert pl.read_csv(tmp_path / "out" / "ceiling.csv")["truncated"].to_list() == [1]


def test_a_run_that_hit_a_limit_is_not_truncated(tmp_path):
    data = json.loads(MINI1_CUT.read_text())
    data["info"]["exit_status"] = "LimitsExceeded"
    path = tmp_path / "limit.traj.json"
    path.write_text(json.dumps(data))
    cfg = load_config(CONFIG)
    rows, _, _ = recorded_costs(path, ["text"], model_name="qwen3.5", profile=cfg["models"]["qwen3.5"])
    assert rows[0]["exit_status"] == "step_limit" and rows[0]["truncated"] is False


def test_outside_a_project_the_replay_bills_with_the_profiles_cache_and_prices(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no config.yaml here: the schema's default profile
    assert main(["replay", str(MINI1), "--conditions", "text"]) == 0
    stdout = capsys.readouterr().out
    assert "prefix cache: qwen " in stdout  # config.yaml's qwen3.5 family, not openai's 1024/128
    row = next(line for line in stdout.splitlines() if line.startswith(MINI1.name))
    assert re.search(r" 11,659 +9,467 +0\.0034 ", row), row  # cached tokens under qwen's rule, spend at its list prices
