"""swevis.analysis on a synthetic runs tree with known tokens and outcomes."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import polars as pl
import pytest
from helpers import PROJECT_ROOT

from swevis.config import schema_defaults

from swevis.analysis.build import build_figures, build_tables, default_out_paths
from swevis.analysis.figures import action_bins, coverage_bins
from swevis.analysis.load import AnalysisInputError, condition_summary, load_condition, load_runs, write_condition_summary
from swevis.analysis.stats import bootstrap_ci, mcnemar_exact
from swevis.paths import eval_path

_spec = importlib.util.spec_from_file_location("synthetic", Path(__file__).parents[1] / "fixtures" / "analysis" / "synthetic.py")
syn = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(syn)

# the schema's Table 3 thresholds, as the workflow passes them
COVERAGE = {f"coverage_{k}": v for k, v in schema_defaults("analysis")["coverage"].items()}
CONFIG = {
    "models": {"qwen3.5": {"backend": "playback"}, "kimi-k2.5": {"backend": "playback"}},
    "analysis": {"bootstrap": {"resamples": 500, "seed": 7}, "coverage": {"high": 0.8, "mid": 0.3}},
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = syn.make_runs_tree(tmp_path_factory.mktemp("results"))
    summaries = [write_condition_summary(c, root / "instances.jsonl", **COVERAGE) and c / "summary.json" for c in syn.condition_dirs(root)]
    return root, summaries


@pytest.fixture(scope="module")
def tables(tree):
    root, summaries = tree
    out = default_out_paths(root)
    build_tables(summaries, CONFIG, out)
    return {k: pl.read_csv(v) for k, v in out.items()}


def _row(df, agent, scope):
    rows = df.filter((pl.col("agent") == agent) & (pl.col("scope") == scope)).to_dicts()
    assert len(rows) == 1
    return rows[0]


def test_condition_summary(tree):
    root, _ = tree
    s = condition_summary(root / "runs" / "qwen3.5" / "plb-normal" / "r1", root / "instances.jsonl", **COVERAGE)
    assert s["n"] == 6 and s["resolved"] == 6 and s["accuracy"] == 1.0
    assert s["mean_prompt_tokens"] == pytest.approx(1.6e6)
    assert s["backend"] == ["playback"] and s["model"] == "qwen3.5" and s["agent"] == "plb" and s["condition"] == "r1"
    assert len(s["rows"]) == 6 and s["infra_failures"] == []
    s = condition_summary(root / "runs" / "qwen3.5" / "let-wide" / "r7", root / "instances.jsonl", **COVERAGE)
    assert s["infra_failures"] == ["acme__widgets-6#0"]
    assert json.loads((root / "runs" / "qwen3.5" / "let-wide" / "r7" / "summary.json").read_text())["n"] == 6


def test_load_runs_frame(tree):
    root, _ = tree
    df = load_runs(root, "qwen3.5", root / "instances.jsonl", **COVERAGE)
    assert df.height == 21 * 6
    let = df.filter(pl.col("agent") == "let")
    assert sorted(set(let["evidence_coverage"].to_list())) == [0.0, 0.5, 1.0]
    assert df.filter(pl.col("agent") == "plb")["evidence_coverage"].null_count() == 60
    assert int(df["infra_failure"].sum()) == 1
    assert {"locator_prompt_tokens", "editor_prompt_tokens", "exit_status", "completion_tokens"} <= set(df.columns)


def test_table1_cells(tables):
    t1 = tables["table1"]
    assert t1["backend"].unique().to_list() == ["playback"]
    assert [(r["agent"], r["scope"]) for r in t1.to_dicts()] == [("plb", "normal"), ("plb", "wide"), ("let", "normal"), ("let", "wide")]
    r = _row(t1, "plb", "normal")
    assert [r[f"acc_{c}"] for c in ["mini", "text", "r1", "r3", "r5", "r7"]] == [66.7, 50.0, 100.0, 50.0, 16.7, 0.0]
    assert [r[f"tok_{c}"] for c in ["mini", "text", "r1", "r3", "r5", "r7"]] == [4.0, 2.0, 1.6, 1.0, 1.25, 2.5]
    assert r["reduction_text"] == "2.00x" and r["reduction_visual"] == "1.60-4.00x"
    assert r["n_min"] == r["n_max"] == 6 and r["repeats"] == 1
    assert "acc_text_sd" not in t1.columns  # k = 1: no spread columns
    lw = _row(t1, "let", "wide")
    assert lw["acc_r7"] == 50.0 and lw["infra_failures"] == 1
    assert lw["reduction_visual"] == "2.00-4.00x" and lw["reduction_text"] == "2.00x"
    t2 = tables["table2"]
    r2 = _row(t2, "plb", "normal")
    assert r2["model"] == "kimi-k2.5" and r2["tok_mini"] == 2.0 and r2["reduction_visual"] == "1.60-4.00x"


def test_long_table_has_n_and_ci(tables):
    long = tables["table1_long"]
    assert long.height == 2 * (1 + 4 * 5)
    assert (long["n"] == 6).all() and (long["backend"] == "playback").all()
    assert ((long["ci_low"] <= long["mean"] + 1e-12) & (long["mean"] <= long["ci_high"] + 1e-12)).all()
    tok = long.filter((pl.col("agent") == "plb") & (pl.col("scope") == "normal") & (pl.col("condition") == "r1") & (pl.col("metric") == "prompt_tokens")).to_dicts()[0]
    assert tok["mean"] == pytest.approx(1.6) and tok["ci_low"] < 1.6 < tok["ci_high"]
    assert 1.6 - 0.2 <= tok["ci_low"] and tok["ci_high"] <= 1.6 + 0.2
    acc = long.filter((pl.col("agent") == "plb") & (pl.col("scope") == "normal") & (pl.col("condition") == "r1") & (pl.col("metric") == "accuracy")).to_dicts()[0]
    assert acc["mean"] == acc["ci_low"] == acc["ci_high"] == 100.0  # every instance resolved


def test_bootstrap_is_seeded_and_contains_mean():
    vals = [0, 1, 1, 0, 1, 1, 1, 0]
    a, b = bootstrap_ci(vals, resamples=1000, seed=3), bootstrap_ci(vals, resamples=1000, seed=3)
    assert a == b and a[1] <= a[0] <= a[2] and a[0] == pytest.approx(0.625)
    assert bootstrap_ci([5.0]) == (5.0, 5.0, 5.0) and bootstrap_ci([]) == (None, None, None)


def test_mcnemar_exact_values():
    assert mcnemar_exact(0, 3) == pytest.approx(2 * 1 / 8)
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(2, 0) == pytest.approx(0.5)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(1, 9) == pytest.approx(2 * (1 + 10) / 1024)


def test_mcnemar_table(tables):
    m = tables["stats_mcnemar"]
    plb = {r["condition"]: r for r in m.filter((pl.col("model") == "qwen3.5") & (pl.col("agent") == "plb") & (pl.col("scope") == "normal")).to_dicts()}
    assert plb["r1"]["text_only"] == 0 and plb["r1"]["visual_only"] == 3 and plb["r1"]["p_value"] == pytest.approx(0.25)
    assert plb["r3"]["p_value"] == 1.0 and plb["r3"]["text_only"] == 3 and plb["r3"]["visual_only"] == 3
    assert plb["r5"]["p_value"] == pytest.approx(0.5) and plb["r5"]["diff_pp"] == -33.3  # percentage points to 0.1
    assert plb["r7"]["p_value"] == pytest.approx(0.25) and plb["r7"]["n_pairs"] == 6
    assert m.height == 2 * 4 * 4  # models x (agent, scope) x visual conditions; mini has no visual
    assert (m["backend"] == "playback").all()


def test_table3_shares_and_buckets(tables):
    t3 = tables["table3"].filter(pl.col("model") == "kimi-k2.5")
    phase = {r["group"]: r for r in t3.filter(pl.col("block") == "phase_split").to_dicts()}
    for g in ("all", "resolved", "unresolved"):
        assert phase[g]["locator_share_pct"] + phase[g]["editor_share_pct"] == pytest.approx(100.0)
    assert phase["resolved"]["locator_share_pct"] == pytest.approx(25.0, abs=1e-4)
    assert phase["unresolved"]["locator_share_pct"] == pytest.approx(10.0, abs=1e-4)
    assert phase["all"]["locator_share_pct"] == pytest.approx(17.5, abs=1e-4)
    assert phase["all"]["n"] == 60 and phase["resolved"]["n"] == 30
    buckets = t3.filter(pl.col("block") == "editor_buckets")
    assert buckets["share_pct"].sum() == pytest.approx(100.0, abs=0.05 * buckets.height)  # each rounded to 0.1
    assert buckets["n"].to_list() == [10] * 6
    hr = buckets.filter((pl.col("bucket") == "high") & (pl.col("outcome") == "resolved")).to_dicts()[0]
    # instance 1 (coverage 1.0, resolved in every LET cell): editor = 75% of its prompt tokens
    expected = sum(
        syn.prompt_tokens("kimi-k2.5", "let", s, c, 0) - round(syn.prompt_tokens("kimi-k2.5", "let", s, c, 0) * 0.25)
        for s in ("normal", "wide") for c in syn.CONDITIONS
    ) / 10 / 1e6
    assert hr["editor_tokens_m"] == pytest.approx(expected)


def test_bucket_thresholds_from_config(tree, tmp_path):
    root, summaries = tree
    # coverage 0.5 sits exactly at a high threshold of 0.5 -> "high"
    cfg = {**CONFIG, "analysis": {**CONFIG["analysis"], "coverage": {"high": 0.5, "mid": 0.0}}}
    for c in syn.condition_dirs(root):
        if "let-" in str(c):
            write_condition_summary(c, root / "instances.jsonl", tmp_path / c.relative_to(root) / "summary.json", coverage_high=0.5, coverage_mid=0.0)
    paths = [tmp_path / c.relative_to(root) / "summary.json" for c in syn.condition_dirs(root) if "let-" in str(c)]
    t3 = build_tables(paths, cfg, {})["table3"].filter((pl.col("model") == "qwen3.5") & (pl.col("block") == "editor_buckets"))
    n = {(r["bucket"], r["outcome"]): r["n"] for r in t3.to_dicts()}
    assert n[("high", "resolved")] == 20 and n[("high", "unresolved")] == 20
    assert n[("mid", "resolved")] == 10 and n[("low", "resolved")] == 0


def test_calibration(tables):
    cal = tables["calibration"]
    q = cal.filter(pl.col("model") == "qwen3.5").to_dicts()
    assert len(q) == 1 and q[0]["n_steps"] == 0 and "no server-reported usage" in q[0]["note"] and q[0]["backend"] == "playback"
    k = {r["modality"]: r for r in cal.filter(pl.col("model") == "kimi-k2.5").to_dicts()}
    assert k["text"]["ratio_mean"] == pytest.approx(1.0) and k["visual"]["ratio_mean"] == pytest.approx(1.1)
    assert k["text"]["n_steps"] == 276 and k["visual"]["n_steps"] == 864 and k["all"]["n_steps"] == 1140
    assert k["visual"]["mape_pct"] == pytest.approx(10.0)


def test_repeats_report_spread(tmp_path):
    root = syn.make_runs_tree(tmp_path / "results")
    for k in range(6):  # a second repeat of plb-normal/text where everything resolves
        syn.write_run(root, "qwen3.5", "plb", "normal", "text", k, repeat=1, resolved=True)
    paths = []
    for c in syn.condition_dirs(root):
        if "qwen3.5" in str(c):
            write_condition_summary(c, root / "instances.jsonl", **COVERAGE)
            paths.append(c / "summary.json")
    t = build_tables(paths, {**CONFIG, "models": {"qwen3.5": {}}}, {})
    r = _row(t["table1"], "plb", "normal")
    assert r["acc_text"] == 75.0 and r["repeats"] == 2
    assert r["acc_text_sd"] == pytest.approx(35.36, abs=0.01)
    long = t["table1_long"].filter((pl.col("agent") == "plb") & (pl.col("scope") == "normal") & (pl.col("condition") == "text") & (pl.col("metric") == "accuracy")).to_dicts()[0]
    assert long["min_repeat"] == 50.0 and long["max_repeat"] == 100.0 and long["n"] == 6 and long["n_runs"] == 12


def test_bad_inputs_are_named(tmp_path):
    root = syn.make_runs_tree(tmp_path / "results")
    cdir = root / "runs" / "qwen3.5" / "plb-normal" / "r3"
    (cdir / "acme__widgets-2" / "traj.json").write_text('{"format": "swevis-traj-1", ')
    eval_path(cdir, "acme__widgets-3").unlink()
    import shutil

    shutil.rmtree(cdir / "acme__widgets-4")
    with pytest.raises(AnalysisInputError) as exc:
        load_condition(cdir, root / "instances.jsonl", **COVERAGE)
    msg = str(exc.value)
    assert str(cdir / "acme__widgets-2" / "traj.json") + ": corrupt JSON" in msg
    assert str(eval_path(cdir, "acme__widgets-3")) + ": missing" in msg
    assert str(cdir / "acme__widgets-4" / "traj.json") + ": missing" in msg
    assert len(exc.value.problems) == 3
    eval_path(cdir, "acme__widgets-5").write_text('{"instance_id": "acme__widgets-5"}')
    with pytest.raises(AnalysisInputError, match=r"widgets-5/eval.json: missing key\(s\) resolved"):
        load_runs(root, "qwen3.5", **COVERAGE)
    with pytest.raises(AnalysisInputError, match="summary.json: missing"):
        build_tables([cdir / "summary.json"], CONFIG, {})


def test_action_bins_and_coverage_bins():
    shares, overall, n = action_bins([["read", "read", "edit", "test"], ["search", "test"]], bins=2)
    assert n == 6 and shares.sum(axis=1).tolist() == [1.0, 1.0]
    assert shares[0].tolist() == [2 / 3, 1 / 3, 0, 0, 0] and shares[1].tolist() == [0, 0, 1 / 3, 2 / 3, 0]
    assert overall["test"] == pytest.approx(2 / 6)
    rows = [{"evidence_coverage": 1.0, "resolved": True}, {"evidence_coverage": 0.0, "resolved": False}, {"evidence_coverage": 0.9, "resolved": False}]
    b = coverage_bins(rows)
    assert b[-1]["n"] == 2 and b[-1]["resolve_rate"] == 0.5 and b[0]["n"] == 1 and b[2]["n"] == 0


@pytest.mark.slow
def test_figures_are_pngs(tree, tmp_path):
    root, summaries = tree
    paths = build_figures(summaries, CONFIG, tmp_path / "figures")
    assert [p.name for p in paths] == ["figure2.png", "figure4.png", "figure5.png", "figure6.png"]
    for p in paths:
        data = p.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
        assert (PROJECT_ROOT / "report" / p.name.replace(".png", ".rst")).exists()  # its caption in the report


def test_summarize_condition_uses_config_thresholds(tree, tmp_path):
    from swevis.analysis.summary import summarize_condition

    root, _ = tree
    cdir = root / "runs" / "qwen3.5" / "let-normal" / "text"
    s = summarize_condition(cdir, root / "instances.jsonl", {**CONFIG, "analysis": {**CONFIG["analysis"], "coverage": {"high": 0.5, "mid": 0.1}}}, tmp_path / "summary.json")
    assert [r["coverage_bucket"] for r in sorted(s["rows"], key=lambda r: r["instance_id"])] == ["high", "high", "high", "high", "low", "low"]
    assert "config_hash" in json.loads((tmp_path / "summary.json").read_text())["provenance"]


def _validation(invalid: dict[str, str]) -> dict:
    from swevis.harness.validate import validation_report

    records = [{"instance_id": iid, "valid": iid not in invalid, "reason": invalid.get(iid)} for iid in syn.INSTANCES]
    return validation_report("local", "local:cpython-3.11.9", records)


@pytest.fixture(scope="module")
def invalid_tree(tmp_path_factory):
    """The synthetic tree with acme__widgets-1's environment invalid (its gold patch does
    not resolve there), and prices recorded for qwen3.5's plb-normal/r1 runs."""
    root = syn.make_runs_tree(tmp_path_factory.mktemp("invalid"))
    for traj_path in (root / "runs" / "qwen3.5" / "plb-normal" / "r1").rglob("traj.json"):
        traj = json.loads(traj_path.read_text())
        traj["totals"]["cost"] = round(traj["totals"]["prompt_tokens"] / 1000 * 0.002 + 400 / 1000 * 0.01, 6)
        traj_path.write_text(json.dumps(traj))
    path = root / "validation" / "local.json"
    path.parent.mkdir()
    path.write_text(json.dumps(_validation({"acme__widgets-1": "gold patch not resolved (RESOLVED_NO)"})))
    summaries = [write_condition_summary(c, root / "instances.jsonl", validation=path, **COVERAGE) and c / "summary.json" for c in syn.condition_dirs(root)]
    out = default_out_paths(root)
    build_tables(summaries, CONFIG, out)
    return root, {k: pl.read_csv(v) for k, v in out.items()}


def test_invalid_environments_leave_accuracy_and_are_named(invalid_tree):
    root, _ = invalid_tree
    s = json.loads((root / "runs" / "qwen3.5" / "plb-normal" / "text" / "summary.json").read_text())
    # plb-normal/text resolves instances 1-3; instance 1 is invalid: 2 of the 5 valid runs
    assert s["n"] == 5 and s["n_runs"] == 6 and s["resolved"] == 2 and s["accuracy"] == pytest.approx(0.4)
    assert s["n_valid"] == 5 and s["n_invalid"] == 1 and s["invalid_instances"] == ["acme__widgets-1"]
    assert s["invalid_reasons"] == {"acme__widgets-1": "gold patch not resolved (RESOLVED_NO)"}
    assert s["validation"] == {"harness": "local", "environment": "local:cpython-3.11.9"}
    assert [r["valid"] for r in s["rows"] if r["instance_id"] == "acme__widgets-1"] == [False]


def test_tables_show_invalid_environments_and_exclude_them(invalid_tree):
    _, t = invalid_tree
    r = _row(t["table1"], "plb", "normal")
    # acc of instances 2-6 only: mini [1,1,1,0,0] text [1,1,0,0,0] r1 all, r3 [0,0,1,1,1], r5 none, r7 none
    assert [r[f"acc_{c}"] for c in ["mini", "text", "r1", "r3", "r5", "r7"]] == [60.0, 40.0, 100.0, 60.0, 0.0, 0.0]
    assert r["n_min"] == r["n_max"] == 5 and r["n_invalid"] == 1
    long = t["table1_long"]
    acc = long.filter(pl.col("metric") == "accuracy")
    assert (acc["n"] == 5).all() and (long["n_invalid"] == 1).all()


def test_cost_and_tokens_in_summary_and_long_tables(invalid_tree):
    root, t = invalid_tree
    s = json.loads((root / "runs" / "qwen3.5" / "plb-normal" / "r1" / "summary.json").read_text())
    # 6 runs of mean 1.6M prompt tokens at 0.002 / 1k, plus 400 completion tokens at 0.01 / 1k
    assert s["spend_cache_aware_total"] == pytest.approx(6 * (1600 * 0.002 + 0.004))
    assert s["spend_cache_aware_mean"] == pytest.approx(1600 * 0.002 + 0.004)
    assert s["prompt_tokens_total"] == 6 * 1_600_000 and s["completion_tokens_total"] == 6 * 400
    assert s["calls_total"] == 60
    assert s["cached_prompt_tokens_total"] == 0 and s["uncached_prompt_tokens_total"] == 6 * 1_600_000  # nothing reported cached
    unpriced = json.loads((root / "runs" / "qwen3.5" / "plb-normal" / "r3" / "summary.json").read_text())
    assert unpriced["spend_cache_aware_total"] is None and unpriced["spend_cache_aware_mean"] is None  # no prices: not "free"
    long = t["table1_long"]
    cell = long.filter((pl.col("agent") == "plb") & (pl.col("scope") == "normal") & (pl.col("condition") == "r1"))
    assert cell["spend_cache_aware_total"].to_list() == pytest.approx([s["spend_cache_aware_total"]] * 2)
    assert cell["spend_cache_aware_mean"].to_list() == pytest.approx([s["spend_cache_aware_mean"]] * 2)
    assert cell["prompt_tokens_total"].to_list() == [6 * 1_600_000] * 2
    assert cell["completion_tokens_total"].to_list() == [2400] * 2
    other = long.filter((pl.col("agent") == "plb") & (pl.col("condition") == "r3"))
    assert other["spend_cache_aware_total"].null_count() == other.height


def test_an_instance_the_validation_does_not_cover_is_named(tree, tmp_path):
    root, _ = tree
    report = _validation({})
    del report["instances"]["acme__widgets-3"]
    path = tmp_path / "local.json"
    path.write_text(json.dumps(report))
    with pytest.raises(AnalysisInputError, match=r"local.json: instance acme__widgets-3 was not validated"):
        condition_summary(root / "runs" / "qwen3.5" / "plb-normal" / "r1", root / "instances.jsonl", validation=path, **COVERAGE)


def test_a_bad_recorded_cost_is_named(tmp_path):
    root = tmp_path / "r"
    run = syn.write_run(root, "qwen3.5", "mini", "normal", "text", 0)
    traj = json.loads((run / "traj.json").read_text())
    traj["totals"]["cost"] = "cheap"
    (run / "traj.json").write_text(json.dumps(traj))
    with pytest.raises(AnalysisInputError, match="totals.cost"):
        load_condition(run.parent, **COVERAGE)


def test_statistics_pair_and_bucket_only_valid_environments(invalid_tree):
    _, t = invalid_tree
    mc = t["stats_mcnemar"].filter((pl.col("model") == "qwen3.5") & (pl.col("agent") == "plb") & (pl.col("scope") == "normal"))
    assert (mc["n_pairs"] == 5).all()
    r1 = mc.filter(pl.col("condition") == "r1").to_dicts()[0]
    assert (r1["both_resolved"], r1["text_only"], r1["visual_only"]) == (2, 0, 3)
    t3 = t["table3"].filter(pl.col("model") == "qwen3.5")
    phase = {r["group"]: r["n"] for r in t3.filter(pl.col("block") == "phase_split").to_dicts()}
    # 2 scopes x 5 conditions x 5 valid instances, LET resolves instances 3 and 5 of them
    assert phase == {"all": 60, "resolved": 20, "unresolved": 30}
    assert t3.filter(pl.col("block") == "editor_buckets")["n"].sum() == 50


def test_a_validation_of_another_harness_is_refused(tree, tmp_path):
    root, _ = tree
    report = {**_validation({}), "harness": "docker"}
    path = tmp_path / "docker.json"
    path.write_text(json.dumps(report))
    with pytest.raises(AnalysisInputError, match="validates harness docker, but runs were graded by local"):
        condition_summary(root / "runs" / "qwen3.5" / "plb-normal" / "r1", root / "instances.jsonl", validation=path, **COVERAGE)


def test_figure6_resolve_rates_count_valid_environments_only(monkeypatch, tmp_path):
    from swevis.analysis import figures

    drawn = {}
    monkeypatch.setattr(figures, "save_figure", lambda fig, out, dpi: drawn.setdefault("fig", fig))
    rows = [
        {"model": "m", "agent": "let", "evidence_coverage": 0.9, "resolved": True, "valid": True},
        {"model": "m", "agent": "let", "evidence_coverage": 0.9, "resolved": False, "valid": True},
        {"model": "m", "agent": "let", "evidence_coverage": 0.9, "resolved": True, "valid": False},
    ]
    figures.coverage_figure(rows, ["m"], tmp_path / "figure6.png", agent="let")
    ax = drawn["fig"].axes[0]
    assert ax.get_title() == "LET on m (2 runs)"
    assert list(ax.lines[0].get_ydata()) == [0.5]


def test_table_rows_follow_the_matrix_order():
    from swevis.analysis.tables import frame, main_table, settings_from_config

    matrix = [
        {"agent": "mini", "scope": "normal", "conditions": ["text"]},
        {"agent": "let", "scope": "normal", "conditions": ["text"]},
        {"agent": "plb", "scope": "wide", "conditions": ["text"]},
        {"agent": "let", "scope": "wide", "conditions": ["text"]},
    ]
    settings = settings_from_config({"agents": {"matrix": matrix}, "models": {"m": {}}})
    rows = [
        {"model": "m", "agent": c["agent"], "scope": c["scope"], "condition": "text", "instance_id": "o__r-1", "repeat": 0,
         "resolved": True, "infra_failure": False, "prompt_tokens": 1000, "completion_tokens": 10}
        for c in matrix
    ]
    wide, _ = main_table(frame(rows), "m", settings)
    assert list(zip(wide["agent"], wide["scope"])) == [("let", "normal"), ("plb", "wide"), ("let", "wide")]


def test_the_wide_table_shows_cached_tokens_and_spend_beside_the_tokens():
    from swevis.analysis.tables import frame, main_table, settings_from_config

    matrix = [{"agent": "mini", "scope": "normal", "conditions": ["text"]}, {"agent": "plb", "scope": "normal", "conditions": ["text", "r3"]}]
    settings = settings_from_config({"agents": {"matrix": matrix}, "models": {"m": {}}})
    run = {"model": "m", "instance_id": "o__r-1", "resolved": True, "infra_failure": False, "completion_tokens": 10}
    rows = [{**run, "agent": "mini", "scope": "normal", "condition": "text", "repeat": 0, "prompt_tokens": 4_000_000,
             "cached_prompt_tokens": 3_000_000, "cost": 0.9},
            {**run, "agent": "plb", "scope": "normal", "condition": "text", "repeat": 0, "prompt_tokens": 2_000_000,
             "cached_prompt_tokens": 1_000_000, "cost": 0.5},
            {**run, "agent": "plb", "scope": "normal", "condition": "text", "repeat": 1, "prompt_tokens": 2_000_000,
             "cached_prompt_tokens": 2_000_000, "cost": 0.3},
            {**run, "agent": "plb", "scope": "normal", "condition": "r3", "repeat": 0, "prompt_tokens": 1_000_000,
             "cached_prompt_tokens": 0, "cost": 0.0}]  # a run without prices records cost 0
    (row,) = main_table(frame(rows), "m", settings)[0].to_dicts()
    assert (row["cached_mini"], row["cached_text"], row["cached_r3"]) == (3.0, 1.5, 0.0)  # per run, in millions
    assert (row["spend_mini"], row["spend_text"], row["spend_r3"]) == (0.9, 0.4, None)  # unpriced is not free


def test_spend_stats_split_prompt_tokens_into_cached_and_uncached():
    from swevis.analysis.load import spend_stats

    rows = [{"cost": 0.5, "prompt_tokens": 1000, "cached_prompt_tokens": 768, "completion_tokens": 10, "calls": 2},
            {"cost": 0.25, "prompt_tokens": 500, "completion_tokens": 5, "calls": 1}]  # a run from before: none cached
    s = spend_stats(rows)
    assert (s["prompt_tokens_total"], s["cached_prompt_tokens_total"], s["uncached_prompt_tokens_total"]) == (1500, 768, 732)
    assert (s["spend_cache_aware_total"], s["spend_cache_aware_mean"]) == (0.75, 0.375)
