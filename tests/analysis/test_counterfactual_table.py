"""The counterfactual study's table and gap decomposition (swevis.analysis.counterfactual),
on the bundled trajectory set replayed in recorded-observation mode."""

import polars as pl
import pytest

from swevis.analysis.counterfactual import (
    TERMS,
    _observation_terms,
    bootstrap,
    decomposition_table,
    reduction_table,
    replay_set,
    trajectory_costs,
)
from swevis.counterfactual.ceiling import CODE_TERMS
from swevis.counterfactual.replay import ReplayCondition
from swevis.config import load_config
from swevis.errors import SwevisError
from swevis.workflow import backbone_profiles, set_folders
from helpers import PROJECT_ROOT

BACKBONE = {"q": {"tokenizer": "qwen3", "image_family": "qwen3.5"}}
CONDITIONS = ["text", "r3", "r7", "mem", "mem+r3"]


@pytest.fixture(scope="module")
def steps():
    cfg = load_config(str(PROJECT_ROOT / "config.yaml"))
    return replay_set(set_folders(cfg)["samples"], CONDITIONS, BACKBONE, agents_cfg={}, render_cfg={})


@pytest.fixture(scope="module")
def costs(steps):
    return trajectory_costs(steps)


@pytest.mark.slow
def test_the_bundled_set_is_replayed_per_call_condition_and_backbone(steps):
    assert steps["format"].n_unique() == 4  # mini 1.x and 2.x, OpenHands, SWE-agent
    assert steps["instance_id"].n_unique() == 3  # one instance of each bundled repository
    per = steps.group_by("trajectory", "condition").len()
    assert per.group_by("trajectory").agg(pl.col("len").n_unique())["len"].to_list() == [1] * 6  # same calls each
    assert set(steps["condition"]) == set(CONDITIONS)
    assert steps.filter(pl.col("condition") == "r3")["pages"].sum() > 0


def test_the_terms_add_up_to_the_gap(costs):
    visual = costs.filter(pl.col("condition") != "text")
    total = sum(visual[t] for t in TERMS)
    assert (total - visual["gap_tokens"]).abs().max() < 1e-6
    assert (visual["prompt_tokens"] - visual["ceiling_prompt_tokens"] - visual["gap_tokens"]).abs().max() < 1e-6
    table = decomposition_table(costs)
    assert (sum(table[t] for t in TERMS) - table["gap_tokens"]).abs().max() < 1e-6
    assert (sum(table[f"{t}_share"] for t in TERMS) - 1).abs().max() < 1e-9
    r7 = table.filter(pl.col("condition") == "r7").row(0, named=True)
    assert r7["guard_bound"] > 0 and r7["page_overhead"] > 0 and r7["not_code_window"] > 0 and r7["kept_as_text"] > 0
    memory = {r["condition"]: r["memory"] for r in table.iter_rows(named=True)}
    assert memory["r3"] == memory["r7"] == 0 and memory["mem+r3"] <= 0
    # the code-window ceiling's gap adds up too (swevis.counterfactual.ceiling)
    assert (sum(visual[f"code_gap_{t}"] for t in CODE_TERMS) - visual["code_gap_tokens"]).abs().max() < 1e-6
    assert (visual["prompt_tokens"] - visual["code_ceiling_prompt_tokens"] - visual["code_gap_tokens"]).abs().max() < 1e-6
    assert (sum(table[f"code_gap_{t}_share"] for t in CODE_TERMS) - 1).abs().max() < 1e-9
    assert memory["mem"] < 0  # the SWE-agent trajectory reads lines it was shown before


def test_the_memory_makes_no_trajectory_dearer(costs):
    prompt = {(r["trajectory"], r["condition"]): r["prompt_tokens"] for r in costs.iter_rows(named=True)}
    for traj in costs["trajectory"].unique():
        assert prompt[traj, "mem"] <= prompt[traj, "text"] and prompt[traj, "mem+r3"] <= prompt[traj, "r3"]
    assert sum(prompt[t, "mem"] < prompt[t, "text"] for t in costs["trajectory"].unique()) >= 1


def test_the_ceiling_is_every_observation_at_its_budget(steps, costs):
    """Computed from the text condition alone: P* = P_text - sum_j w_j T_j (1 - 1/N), so
    the replay's own prompt tokens and the weights of the observations agree."""
    for row in costs.filter(pl.col("condition") != "text").iter_rows(named=True):
        n = ReplayCondition.parse(row["condition"]).observation.ratio or 1.0  # mem: text, N = 1
        text = steps.filter((pl.col("trajectory") == row["trajectory"]) & (pl.col("condition") == "text")).sort("step")
        saved = sum((text.height - 1 - i) * r["observation_tokens"] * (1 - 1 / n)
                    for i, r in enumerate(text.iter_rows(named=True)) if r["observation_kind"] != "none")
        assert row["ceiling_prompt_tokens"] == pytest.approx(row["text_prompt_tokens"] - saved)
        assert row["ceiling_reduction"] >= row["reduction"] or row["gap_tokens"] < 0


def test_each_window_lands_in_its_term():
    windows = [
        {"text_tokens": 300, "tokens": 300, "kind": "text", "text_reason": "cheaper_as_text", "image_tokens": 0,
         "guard_bound": False, "floor_bound": False},
        {"text_tokens": 900, "tokens": 900, "kind": "text", "text_reason": "over_max_window_chars", "image_tokens": 0,
         "guard_bound": False, "floor_bound": False},
        {"text_tokens": 600, "tokens": 260, "kind": "image", "text_reason": None, "image_tokens": 250,
         "guard_bound": True, "floor_bound": False},
        {"text_tokens": 90, "tokens": 74, "kind": "image", "text_reason": None, "image_tokens": 64,
         "guard_bound": False, "floor_bound": True},
        {"text_tokens": 30, "tokens": 30, "kind": "text", "text_reason": "render_failed", "image_tokens": 0,
         "guard_bound": False, "floor_bound": False},
    ]
    C, T, m = 1800, 2100, 6
    terms = _observation_terms(C, T, m, windows, 3.0)
    assert sum(terms.values()) == pytest.approx(C - T / 3)
    assert terms["kept_as_text"] == pytest.approx(200)
    assert terms["over_size_limit"] == pytest.approx(600)
    assert terms["render_failed"] == pytest.approx(20)
    assert terms["guard_bound"] == pytest.approx(50)
    assert terms["page_overhead"] == pytest.approx(10 + 10 + 34)
    assert terms["message_overhead"] == pytest.approx(4)
    assert terms["layout_tolerance"] == 0


def test_the_memory_term_is_what_its_notes_saved():
    """Under mem+rN each window's other terms are those of rN alone (full_tokens); the memory
    term is what the memory showed instead; a window the pipeline did not read stays output."""
    windows = [
        {"text_tokens": 600, "tokens": 30, "full_tokens": 260, "kind": "image", "text_reason": None, "image_tokens": 250,
         "guard_bound": False, "floor_bound": False, "memory": "exact"},
        {"text_tokens": 300, "tokens": 120, "full_tokens": 300, "kind": "text", "text_reason": "cheaper_as_text",
         "image_tokens": 0, "guard_bound": False, "floor_bound": False, "memory": "overlap"},
        {"text_tokens": 90, "tokens": 90, "full_tokens": 90, "kind": "text", "text_reason": None, "image_tokens": 0,
         "guard_bound": False, "floor_bound": False, "memory": None},
    ]
    C, T, m = 500, 1400, 6
    terms = _observation_terms(C, T, m, windows, 3.0)
    assert sum(terms.values()) == pytest.approx(C - T / 3)
    assert terms["memory"] == pytest.approx((30 - 260) + (120 - 300))
    assert terms["layout_tolerance"] == pytest.approx(50) and terms["page_overhead"] == pytest.approx(10)
    assert terms["kept_as_text"] == pytest.approx(200)
    assert terms["not_code_window"] == pytest.approx((C - m - 150) - (T - m - 900) / 3)


def test_the_table_has_cis_around_its_estimates_and_is_seeded(costs):
    a = reduction_table(costs, resamples=300, seed=5)
    assert a.equals(reduction_table(costs, resamples=300, seed=5))
    assert not a.equals(reduction_table(costs, resamples=300, seed=6))
    for r in a.iter_rows(named=True):
        assert r["trajectories"] == 6
        assert r["aggregate_ci_low"] <= r["aggregate_reduction"] <= r["aggregate_ci_high"]
        assert r["median_ci_low"] <= r["median_reduction"] <= r["median_ci_high"]
        assert r["aggregate_reduction"] == pytest.approx(r["text_prompt_tokens"] / r["prompt_tokens"])
    r3 = a.filter(pl.col("condition") == "r3").row(0, named=True)
    assert r3["aggregate_reduction"] > 1 and r3["aggregate_ci_high"] > r3["aggregate_ci_low"]
    assert 0 < r3["code_share"] < 1 and r3["code_ceiling_reduction"] > 1 and r3["realized_share"] > 0.5
    assert a.filter(pl.col("condition") == "text")["realized_share"].null_count() == 1


def test_bootstrap_of_a_single_item_is_a_point():
    assert bootstrap([2.0], lambda xs: sum(xs) / len(xs), resamples=100, seed=0) == (2.0, 2.0, 2.0)


def test_config_errors_name_the_key():
    cfg = load_config(str(PROJECT_ROOT / "config.yaml"))
    cfg["counterfactual"]["backbones"] = ["nope"]
    with pytest.raises(SwevisError, match="counterfactual.backbones"):
        backbone_profiles(cfg)
    with pytest.raises(SwevisError, match="counterfactual.conditions"):
        replay_set(set_folders(cfg)["samples"], ["r3"], BACKBONE, agents_cfg={}, render_cfg={})


def test_the_table_reports_each_family_ceiling_in_prompt_tokens_and_on_the_bill():
    cfg = load_config(str(PROJECT_ROOT / "config.yaml"))
    priced = {"q": {**BACKBONE["q"], "prompt_cache": "qwen", "cost_per_1k_prompt": 1.0, "cost_per_1k_cached_prompt": 0.2}}
    steps = replay_set(set_folders(cfg)["samples"], ["text", "r3", "obs-r3", "hist-r3"], priced, agents_cfg={}, render_cfg={})
    rows = {r["condition"]: r for r in reduction_table(trajectory_costs(steps), resamples=50, seed=0).iter_rows(named=True)}
    assert {c: rows[c]["family"] for c in rows} == {"text": "text", "r3": "code", "obs-r3": "obs", "hist-r3": "hist"}
    for c in ("r3", "obs-r3", "hist-r3"):
        r = rows[c]
        assert r["family_ceiling_reduction"] > 1 and r["family_ceiling_bill_reduction"] > 1
        assert r["bill_reduction"] is not None and r["family_bill_realized_share"] is not None
        assert r["family_realized_share"] > 0
    # on these short trajectories a frozen history block breaks the cache for little saving
    assert rows["obs-r3"]["bill_reduction"] > 1 and rows["r3"]["bill_reduction"] > 1
    assert rows["r3"]["family_ceiling_reduction"] == pytest.approx(rows["r3"]["code_ceiling_reduction"])
    assert rows["text"]["family_realized_share"] is None and rows["text"]["bill_reduction"] is None
    # the code windows' share is the trajectories', whichever family renders them
    assert rows["hist-r3"]["code_share"] == pytest.approx(rows["r3"]["code_share"]) and rows["r3"]["code_share"] > 0
    assert {r["truncated"] for r in rows.values()} == {0}  # the bundled set's runs all ended
