"""The ablation table from condition summaries: every variant beside its base agent (LET's
variants, Prometheus's ablations), CIs and paired McNemar against the base in the same cell,
model calls and spend with their ratios to the base, memory hit rate and tokens saved from the
runs, and the paper's working-memory figure beside the no-memory ablation."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from types import SimpleNamespace

import polars as pl

from swevis.analysis.ablation import COLUMNS, build_ablation, paper_note
from swevis.analysis.load import SUMMARY_FORMAT

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"

VARIANTS = {"let-mem": {"base": "let", "entry": {"memory": True}}, "let-verify": {"base": "let", "entry": {"verification": True}}}
ABLATION = {"ablation": {"conditions": ["r3", "text"]}}


def _summary(
    tmp: Path, agent: str, condition: str, resolved: list[bool], tokens: int, variant: dict | None, invalid: tuple[int, ...] = (),
    calls: int = 5, cost: float | None = None, traj: dict | None = None,
) -> str:
    rows = []
    for i, ok in enumerate(resolved):
        run = tmp / "runs" / f"{agent}-normal" / condition / f"o__r-{i}"
        run.mkdir(parents=True)
        (run / "traj.json").write_text(json.dumps({"variant": variant, **(traj or {})}))
        rows.append({
            "model": "m", "model_id": "x", "backend": "playback", "agent": agent, "scope": "normal", "condition": condition,
            "instance_id": f"o__r-{i}", "repeat": 0, "exit_status": "submitted", "resolved": ok, "patch_applied": True,
            "infra_failure": False, "harness": "local", "prompt_tokens": tokens + 100 * i, "completion_tokens": 10,
            "calls": calls + i, "cost": cost, "format_errors": 0, "image_pages": 0, "n_steps": 5, "evidence_coverage": None,
            "coverage_bucket": None, "path": str(run), "valid": i not in invalid,
        })
    path = tmp / f"{agent}-{condition}.json"
    path.write_text(json.dumps({"format": SUMMARY_FORMAT, "rows": rows}))
    return str(path)


def test_ablation_table_and_figure(tmp_path):
    mem = {"flags": {"memory": True}, "memory": {"lookups": 4, "hits": 1, "tokens_saved": 300, "resent_lines": 0}}
    ver = {"flags": {"verification": True}, "verification": [{"outcome": "returned_to_editor", "passed": False}, {"outcome": "submitted", "passed": True}]}
    paths = []
    for cond in ("text", "r3"):
        paths.append(_summary(tmp_path, "let", cond, [True, False, False, True], 30000, None))
        paths.append(_summary(tmp_path, "let-mem", cond, [True, False, False, True], 29000, mem))
        paths.append(_summary(tmp_path, "let-verify", cond, [True, True, True, True], 31000, ver))
    out = tmp_path / "table_ablation.csv"
    fig = tmp_path / "figures" / "figure_ablation.png"
    config = {"analysis": {"bootstrap": {"resamples": 200, "level": 0.95, "seed": 1}}, "agents": ABLATION, "models": {"m": {}}}
    table = build_ablation(paths, VARIANTS, config, str(out), str(fig))
    assert out.exists() and fig.stat().st_size > 1000
    df = pl.read_csv(out)
    assert df.columns == COLUMNS and df.height == 6
    assert df["condition"].to_list() == ["text"] * 3 + ["r3"] * 3
    assert set(df["base"].to_list()) == {"let"}
    let_row = df.filter((pl.col("variant") == "let") & (pl.col("condition") == "text")).row(0, named=True)
    assert let_row["accuracy"] == 50.0 and let_row["mcnemar_p"] is None and let_row["entry"] is None
    m = df.filter((pl.col("variant") == "let-mem") & (pl.col("condition") == "r3")).row(0, named=True)
    assert json.loads(m["entry"]) == {"memory": True} and m["memory_hit_rate"] == 0.25 and m["memory_tokens_saved_mean"] == 300
    assert m["delta_prompt_tokens_pct"] < 0 and m["mcnemar_p"] == 1.0 and m["memory_resent_lines"] == 0
    assert m["prompt_tokens_ci_low"] <= m["prompt_tokens_M"] <= m["prompt_tokens_ci_high"]
    v = df.filter((pl.col("variant") == "let-verify") & (pl.col("condition") == "text")).row(0, named=True)
    assert v["accuracy"] == 100.0 and v["delta_accuracy"] == 50.0
    assert (v["mcnemar_variant_only"], v["mcnemar_base_only"]) == (2, 0) and v["mcnemar_p"] == 0.5
    assert v["verification_returns_mean"] == 1.0 and v["verification_passed_rate"] == 1.0
    assert v["memory_hit_rate"] is None
    assert table.height == 6


def test_no_variant_rows_gives_an_empty_table(tmp_path):
    p = _summary(tmp_path, "let", "text", [True], 1000, None)
    out = tmp_path / "t.csv"
    table = build_ablation([p], VARIANTS, {"analysis": {}, "agents": ABLATION, "models": {"m": {}}}, str(out))
    assert table.height == 0 and pl.read_csv(out).columns == COLUMNS


def test_invalid_environments_leave_the_mcnemar_pairs_and_are_counted(tmp_path):
    # instance 0's environment is invalid: its variant-only "win" must not count
    paths = [
        _summary(tmp_path, "let", "text", [False, False, True, True], 30000, None, invalid=(0,)),
        _summary(tmp_path, "let-verify", "text", [True, True, True, True], 31000, {}, invalid=(0,)),
    ]
    config = {"analysis": {"bootstrap": {"resamples": 200, "level": 0.95, "seed": 1}}, "agents": ABLATION, "models": {"m": {}}}
    df = build_ablation(paths, {"let-verify": VARIANTS["let-verify"]}, config, str(tmp_path / "t.csv"))
    v = df.filter(pl.col("variant") == "let-verify").row(0, named=True)
    assert (v["n"], v["n_invalid"]) == (3, 1)
    assert (v["mcnemar_variant_only"], v["mcnemar_base_only"]) == (1, 0) and v["mcnemar_p"] == 1.0
    assert v["accuracy"] == 100.0 and v["base_accuracy"] == round(200 / 3, 1)


def test_the_script_orders_conditions_as_the_config_lists_them(tmp_path):
    # r2 and r10 are no conditions of the schema's default matrix: only the config orders them
    paths = [_summary(tmp_path, agent, c, [True], 1000, {}) for c in ("r10", "r2", "text") for agent in ("let", "let-mem")]
    params = SimpleNamespace(variants={"let-mem": VARIANTS["let-mem"]}, analysis={}, conditions=["r2", "r10", "text"], models=["m"])
    out = SimpleNamespace(table=str(tmp_path / "t.csv"), figure=str(tmp_path / "f.png"))
    fake = SimpleNamespace(input=SimpleNamespace(summaries=paths), params=params, output=out, log=[str(tmp_path / "a.log")])
    runpy.run_path(str(SCRIPTS / "ablation_table.py"), init_globals={"snakemake": fake})
    assert pl.read_csv(out.table)["condition"].to_list() == ["text", "text", "r2", "r2", "r10", "r10"]


PROMETHEUS = {"prometheus-nomem": {"base": "prometheus", "entry": {"memory": False}},
              "prometheus-single": {"base": "prometheus", "entry": {"candidates": 1}}}
# Prometheus keeps its memory in the variant block and its other mechanisms at the top level
VERIFIED = {"reproduction": {"accepted": {"command": "python r.py"}}, "candidates": [],
            "vote": {"method": "verified", "verifications": [{"round": 1, "passed": True}]}}
UNVERIFIED = {"reproduction": {"accepted": None}, "candidates": [{"index": 1}, {"index": 2}, {"index": 3}],
              "vote": {"method": "majority"}}


def test_prometheus_ablations_beside_prometheus_with_calls_spend_ratios_and_the_paper(tmp_path):
    memory = {"settings": {}, "memory": {"lookups": 10, "hits": 4, "tokens_saved": 2000, "hits_exact": 1,
                                         "hits_semantic": 2, "hits_window": 1, "calls_saved": 7}}
    paths = [
        _summary(tmp_path, "let", "text", [True, False], 30000, None),
        _summary(tmp_path, "let-mem", "text", [True, False], 29000, {"memory": {"lookups": 2, "hits": 1}}),
        _summary(tmp_path, "prometheus", "text", [True, True, True, False], 40000, memory, calls=10, cost=0.02, traj=VERIFIED),
        _summary(tmp_path, "prometheus-nomem", "text", [True, True, False, False], 50000, {"settings": {}}, calls=15,
                 cost=0.035, traj=VERIFIED),
        _summary(tmp_path, "prometheus-single", "text", [True, True, True, False], 38000, memory, calls=8, cost=0.016,
                 traj=UNVERIFIED),
    ]
    config = {"analysis": {"bootstrap": {"resamples": 200, "level": 0.95, "seed": 1}}, "agents": ABLATION, "models": {"m": {}}}
    df = build_ablation(paths, {**VARIANTS, **PROMETHEUS}, config, str(tmp_path / "t.csv"), str(tmp_path / "f.png"))
    df = pl.read_csv(tmp_path / "t.csv")
    assert df["variant"].to_list() == ["let", "let-mem", "prometheus", "prometheus-nomem", "prometheus-single"]
    assert df["base"].to_list() == ["let", "let"] + ["prometheus"] * 3
    base = df.filter(pl.col("variant") == "prometheus").row(0, named=True)
    assert (base["calls_total"], base["calls_mean"], base["base_calls_mean"], base["calls_ratio"]) == (46, 11.5, 11.5, 1.0)
    assert (base["spend_cache_aware_total"], base["spend_cache_aware_mean"], base["spend_cache_aware_ratio"]) == (0.08, 0.02, 1.0)
    assert base["reproduced_rate"] == 1.0 and base["verification_passed_rate"] == 1.0 and base["memory_hit_rate"] == 0.4
    assert base["paper_cost_change_pct"] is None  # the paper's figure stands beside the ablation, not the base
    # four runs of ten lookups: hits by kind and the calls the query hits spared, summed
    assert (base["memory_hits_exact"], base["memory_hits_semantic"], base["memory_hits_window"]) == (4, 8, 4)
    assert base["memory_calls_saved"] == 28
    nomem = df.filter(pl.col("variant") == "prometheus-nomem").row(0, named=True)
    assert json.loads(nomem["entry"]) == {"memory": False} and nomem["memory_lookups"] == 0
    assert (nomem["accuracy"], nomem["base_accuracy"], nomem["accuracy_ratio"]) == (50.0, 75.0, 0.6667)
    assert (nomem["calls_total"], nomem["calls_mean"], nomem["calls_ratio"]) == (66, 16.5, 1.435)  # 4 significant digits (swevis.table_csv)
    assert (nomem["spend_cache_aware_mean"], nomem["base_spend_cache_aware_mean"], nomem["spend_cache_aware_ratio"]) == (0.035, 0.02, 1.75)
    assert nomem["prompt_tokens_ratio"] == 1.249  # 0.05015 / 0.04015
    assert (nomem["mcnemar_variant_only"], nomem["mcnemar_base_only"]) == (0, 1)
    # the paper's effect of working memory and swevis's, both Prometheus (with it) against the variant
    assert (nomem["paper_cost_change_pct"], nomem["paper_resolution_change_pct"]) == (-45.4, 25.0)
    assert nomem["measured_resolution_change_pct"] == 50.0
    assert nomem["measured_calls_change_pct"] == round(100 * (11.5 / 16.5 - 1), 1)
    assert nomem["measured_spend_cache_aware_change_pct"] == round(100 * (0.02 / 0.035 - 1), 1)
    assert nomem["measured_prompt_tokens_change_pct"] == round(100 * (0.04015 / 0.05015 - 1), 1)
    single = df.filter(pl.col("variant") == "prometheus-single").row(0, named=True)
    assert single["candidates_mean"] == 3.0 and single["reproduced_rate"] == 0.0 and single["verification_passed_rate"] is None
    assert single["paper_cost_change_pct"] is None and single["measured_calls_change_pct"] is None
    assert single["calls_ratio"] == 0.8261 and single["spend_cache_aware_ratio"] == 0.8
    let_mem = df.filter(pl.col("variant") == "let-mem").row(0, named=True)
    assert let_mem["base_calls_mean"] == 5.5 and let_mem["spend_cache_aware_total"] is None  # LET's profile sets no price
    assert (tmp_path / "f.png").stat().st_size > 1000


def test_spend_is_null_not_zero_without_a_price(tmp_path):
    paths = [_summary(tmp_path, "prometheus", "text", [True, False], 40000, {}, cost=0.0),
             _summary(tmp_path, "prometheus-nomem", "text", [True, False], 41000, {}, cost=None)]
    config = {"analysis": {}, "agents": ABLATION, "models": {"m": {}}}
    build_ablation(paths, PROMETHEUS, config, str(tmp_path / "t.csv"))
    df = pl.read_csv(tmp_path / "t.csv")
    for col in ("spend_cache_aware_total", "spend_cache_aware_mean", "base_spend_cache_aware_mean", "spend_cache_aware_ratio", "measured_spend_cache_aware_change_pct"):
        assert df[col].null_count() == df.height, col
    assert df["calls_ratio"].to_list() == [1.0, 1.0] and df["paper_cost_change_pct"].to_list() == [None, -45.4]


def test_the_paper_note_names_the_backend_of_the_measurement(tmp_path):
    paths = [_summary(tmp_path, "prometheus", "text", [True, True], 40000, {}),
             _summary(tmp_path, "prometheus-nomem", "text", [True, True], 41000, {})]
    config = {"analysis": {}, "agents": ABLATION, "models": {"m": {}}}
    note = paper_note(build_ablation(paths, PROMETHEUS, config, str(tmp_path / "t.csv")))
    assert note.startswith("working memory (prometheus against prometheus-nomem, text): paper -45.4% cost, "
                           "+25.0% resolution (§4.3.1, 50 SWE-bench Verified instances); ")
    assert "swevis (playback backend: demonstrations, not a model) +0.0% calls, -2.4% prompt tokens, n/a spend (cache-aware), +0.0% resolution" in note
