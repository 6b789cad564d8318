"""`swevis replay --conditions mask-kM,maskb-kM` over the fixture trajectories: prompt tokens,
the cache-aware bill and the masking ceiling (swevis.counterfactual.ceiling), with the naive
masking's broken prefix on the bill."""

from __future__ import annotations

import math
import shutil
from types import SimpleNamespace

import polars as pl
import pytest
import yaml

from swevis.cli import main
from swevis.conditions import Condition
from swevis.counterfactual.ceiling import FamilyCeiling, ceiling_ratio
from swevis.tokens import count_message_tokens

from helpers import PROJECT_ROOT

FIXTURES = PROJECT_ROOT / "tests" / "fixtures" / "trajectories"
CONFIG = str(PROJECT_ROOT / "config.yaml")


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mask")
    trajs = tmp / "trajs"
    shutil.copytree(FIXTURES, trajs)
    config = yaml.safe_load(open(CONFIG))
    config["agents"].setdefault("pages", {}).update(mask_block=2, hist_block=2)  # blocks short trajectories fill
    (tmp / "config.yaml").write_text(yaml.safe_dump(config))
    code = main(["replay", str(trajs), "--out", str(tmp / "out"), "--conditions", "text,mask-k2,maskb-k2,maskb-k2+hist-r3",
                 "--config", str(tmp / "config.yaml"), "--model", "qwen3.5"])
    assert code == 0
    return tmp / "out"


def test_replay_reports_masking_on_prompt_tokens_and_on_the_bill(replayed):
    summary = pl.read_csv(replayed / "summary.csv")
    totals = summary.group_by("condition").agg(pl.col("prompt_tokens").sum(), pl.col("cached_prompt_tokens").sum(),
                                               pl.col("spend_cache_aware").sum())
    by = {r["condition"]: r for r in totals.iter_rows(named=True)}
    assert by["mask-k2"]["prompt_tokens"] < by["maskb-k2"]["prompt_tokens"] < by["text"]["prompt_tokens"]
    # the naive masking changes an old message every call: the cache serves a smaller share of its prompt
    cached = {c: by[c]["cached_prompt_tokens"] / by[c]["prompt_tokens"] for c in by}
    assert cached["mask-k2"] < cached["maskb-k2"] and cached["mask-k2"] < cached["text"]
    steps = pl.read_parquet(replayed / "per_step.parquet")
    families = dict(steps.select("condition", "family").unique().iter_rows())
    assert families == {"text": "text", "mask-k2": "mask", "maskb-k2": "maskb", "maskb-k2+hist-r3": "maskb+hist"}
    assert steps.filter(pl.col("condition") == "maskb-k2+hist-r3")["history_pages"].max() > 0


def test_naive_masking_realizes_its_whole_prompt_ceiling_and_the_bill_shows_the_broken_prefix(replayed):
    """The masking ceiling masks every observation older than M the moment it is old: what
    mask-kM does, so its prompt realizes it whole; on the bill the ceiling keeps text's cache."""
    ceiling = {r["condition"]: r for r in pl.read_csv(replayed / "ceiling.csv").iter_rows(named=True)}
    naive, blocked, combined = ceiling["mask-k2"], ceiling["maskb-k2"], ceiling["maskb-k2+hist-r3"]
    assert naive["family_realized_share"] == pytest.approx(1.0)
    assert naive["family_ceiling_reduction"] == pytest.approx(blocked["family_ceiling_reduction"])
    assert naive["family_ceiling_reduction"] > 1
    assert blocked["family_realized_share"] < 1
    assert naive["family_bill_realized_share"] < blocked["family_bill_realized_share"] < 1
    assert naive["bill_reduction"] < naive["reduction"]  # the prefix it breaks costs it on the bill
    # masking renders no code window: no code-window ceiling; the combination has no family ceiling
    assert naive["code_ceiling_reduction"] is None and naive["realized_share"] is None
    assert combined["family_ceiling_reduction"] is None and combined["bill_reduction"] is not None


def test_the_masking_ceiling_saves_each_old_observation_less_its_placeholder():
    turn = {"role": "assistant", "content": "```bash\npytest\n```"}
    long, short = "FAILED test_x - AssertionError\n" * 40, "ok\n"
    mask = FamilyCeiling(Condition.parse("mask-k1"), SimpleNamespace(), "qwen3", "qwen3.5")
    for observation in (long, short, long):
        mask.add_call(turn, observation, [])
    whole = count_message_tokens([{"role": "user", "content": long}], "qwen3", "qwen3.5")
    assert 0 < mask.calls[0] < whole and mask.calls[1] == 0  # a short output is not masked: nothing saved
    assert mask.eligible() == mask.calls[0]  # all but the last call's
    assert ceiling_ratio(Condition.parse("mask-k1")) == math.inf and ceiling_ratio(Condition.parse("maskb-k1+hist-r3")) == 3
    combined = FamilyCeiling(Condition.parse("maskb-k1+hist-r3"), SimpleNamespace(hist_keep=1), "qwen3", "qwen3.5")
    combined.add_call(turn, long, [])
    assert combined.eligible() is None


def test_replay_refuses_a_bad_masking_name_in_one_line(capsys):
    assert main(["replay", str(FIXTURES), "--conditions", "text,mask-k05", "--config", CONFIG]) == 2
    err = capsys.readouterr().err
    assert "'mask-k05'" in err and "write mask-k5" in err and "mem+r<N>" in err and len(err.strip().splitlines()) == 1


def test_the_workflow_table_reports_masking_beside_the_families():
    """counterfactual.conditions may name masking: the workflow's table.csv rows (swevis.analysis.counterfactual)."""
    import polars as pl

    from swevis.analysis.counterfactual import decomposition_table, reduction_table, replay_set, trajectory_costs

    priced = {"q": {"tokenizer": "qwen3", "image_family": "qwen3.5", "prompt_cache": "qwen", "cost_per_1k_prompt": 1.0,
                    "cost_per_1k_cached_prompt": 0.2}}
    steps = replay_set(FIXTURES, ["text", "mask-k2", "maskb-k2"], priced, agents_cfg={"pages": {"mask_block": 2}},
                       render_cfg={})
    rows = {r["condition"]: r for r in reduction_table(trajectory_costs(steps), resamples=20, seed=0).iter_rows(named=True)}
    assert {c: rows[c]["family"] for c in rows} == {"text": "text", "mask-k2": "mask", "maskb-k2": "maskb"}
    for c in ("mask-k2", "maskb-k2"):
        assert rows[c]["family_ceiling_reduction"] > 1 and rows[c]["bill_reduction"] is not None
        # masking compresses nothing, so the every-observation-compressed ceiling is not its
        assert rows[c]["ceiling_reduction"] is None
    assert rows["text"]["ceiling_reduction"] == pytest.approx(1.0)
    decomposed = decomposition_table(trajectory_costs(steps))
    assert decomposed.filter(pl.col("condition").str.starts_with("mask")).is_empty()
    assert rows["mask-k2"]["family_realized_share"] == pytest.approx(1.0)
    assert rows["mask-k2"]["family_bill_realized_share"] < rows["maskb-k2"]["family_bill_realized_share"]
