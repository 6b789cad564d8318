"""The LET-variant ablation table (working memory, reproduction, verification) from condition
summaries: CIs and paired McNemar against plain LET in the same cell, memory hit rate and tokens saved from the runs."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from types import SimpleNamespace

import polars as pl

from swevis.analysis.ablation import COLUMNS, build_ablation
from swevis.analysis.load import SUMMARY_FORMAT

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"

VARIANTS = {"let-mem": {"memory": True}, "let-verify": {"verification": True}}
ABLATION = {"ablation": {"conditions": ["r3", "text"]}}


def _summary(
    tmp: Path, agent: str, condition: str, resolved: list[bool], tokens: int, variant: dict | None, invalid: tuple[int, ...] = ()
) -> str:
    rows = []
    for i, ok in enumerate(resolved):
        run = tmp / "runs" / f"{agent}-normal" / condition / f"o__r-{i}"
        run.mkdir(parents=True)
        (run / "traj.json").write_text(json.dumps({"variant": variant}))
        rows.append({
            "model": "m", "model_id": "x", "backend": "playback", "agent": agent, "scope": "normal", "condition": condition,
            "instance_id": f"o__r-{i}", "repeat": 0, "exit_status": "submitted", "resolved": ok, "patch_applied": True,
            "infra_failure": False, "harness": "local", "prompt_tokens": tokens + 100 * i, "completion_tokens": 10,
            "calls": 5, "format_errors": 0, "image_pages": 0, "n_steps": 5, "evidence_coverage": None,
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
    let_row = df.filter((pl.col("variant") == "let") & (pl.col("condition") == "text")).row(0, named=True)
    assert let_row["accuracy"] == 50.0 and let_row["mcnemar_p"] is None
    m = df.filter((pl.col("variant") == "let-mem") & (pl.col("condition") == "r3")).row(0, named=True)
    assert m["memory"] and m["memory_hit_rate"] == 0.25 and m["memory_tokens_saved_mean"] == 300
    assert m["delta_prompt_tokens_pct"] < 0 and m["mcnemar_p"] == 1.0 and m["memory_resent_lines"] == 0
    assert m["prompt_tokens_ci_low"] <= m["prompt_tokens_M"] <= m["prompt_tokens_ci_high"]
    v = df.filter((pl.col("variant") == "let-verify") & (pl.col("condition") == "text")).row(0, named=True)
    assert v["accuracy"] == 100.0 and v["delta_accuracy"] == 50.0
    assert (v["mcnemar_variant_only"], v["mcnemar_let_only"]) == (2, 0) and v["mcnemar_p"] == 0.5
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
    df = build_ablation(paths, {"let-verify": {"verification": True}}, config, str(tmp_path / "t.csv"))
    v = df.filter(pl.col("variant") == "let-verify").row(0, named=True)
    assert (v["n"], v["n_invalid"]) == (3, 1)
    assert (v["mcnemar_variant_only"], v["mcnemar_let_only"]) == (1, 0) and v["mcnemar_p"] == 1.0
    assert v["accuracy"] == 100.0 and v["let_accuracy"] == round(200 / 3, 1)


def test_the_script_orders_conditions_as_the_config_lists_them(tmp_path):
    # r2 and r10 are no conditions of the schema's default matrix: only the config orders them
    paths = [_summary(tmp_path, agent, c, [True], 1000, {}) for c in ("r10", "r2", "text") for agent in ("let", "let-mem")]
    params = SimpleNamespace(variants={"let-mem": {"memory": True}}, analysis={}, conditions=["r2", "r10", "text"], models=["m"])
    out = SimpleNamespace(table=str(tmp_path / "t.csv"), figure=str(tmp_path / "f.png"))
    fake = SimpleNamespace(input=SimpleNamespace(summaries=paths), params=params, output=out, log=[str(tmp_path / "a.log")])
    runpy.run_path(str(SCRIPTS / "ablation_table.py"), init_globals={"snakemake": fake})
    assert pl.read_csv(out.table)["condition"].to_list() == ["text", "text", "r2", "r2", "r10", "r10"]
