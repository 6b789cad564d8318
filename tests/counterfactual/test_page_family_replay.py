"""`swevis replay --conditions obs-r3,hist-r3,both-r3` over the fixture trajectories, and the family
ceiling (swevis.counterfactual.ceiling.family_ceiling) in prompt tokens and on the bill."""

from __future__ import annotations

import shutil
from types import SimpleNamespace

import polars as pl
import pytest

from swevis.cli import main
from swevis.conditions import Condition
from swevis.counterfactual.ceiling import FamilyCeiling, family_ceiling
from swevis.tokens import text_tokens

from helpers import PROJECT_ROOT

FIXTURES = PROJECT_ROOT / "tests" / "fixtures" / "trajectories"
CONFIG = str(PROJECT_ROOT / "config.yaml")


def test_replay_takes_the_families_and_reports_each_ceiling(tmp_path, capsys):
    trajs = tmp_path / "trajs"
    shutil.copytree(FIXTURES, trajs)
    out = tmp_path / "out"
    code = main(["replay", str(trajs), "--out", str(out), "--conditions", "text,r3,obs-r3,hist-r3,both-r3", "--config", CONFIG,
                 "--model", "qwen3.5"])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    summary = pl.read_csv(out / "summary.csv")
    assert set(summary["condition"]) == {"text", "r3", "obs-r3", "hist-r3", "both-r3"} and summary.height == 5 * 6
    totals = summary.group_by("condition").agg(pl.col("prompt_tokens").sum(), pl.col("cached_prompt_tokens").sum())
    by = {r["condition"]: r for r in totals.iter_rows(named=True)}
    assert by["obs-r3"]["prompt_tokens"] <= by["r3"]["prompt_tokens"] < by["text"]["prompt_tokens"]
    assert by["hist-r3"]["prompt_tokens"] < by["text"]["prompt_tokens"]
    assert all(by[c]["cached_prompt_tokens"] > 0 for c in by)  # the pages stay in the cached prefix
    steps = pl.read_parquet(out / "per_step.parquet")
    assert set(steps.filter(pl.col("condition") == "hist-r3")["family"]) == {"hist"}
    hist = steps.filter(pl.col("condition") == "hist-r3")
    assert hist["history_pages"].max() > 0 and hist["pages"].sum() == 0  # the old calls' pages, in the request
    ceiling = {r["condition"]: r for r in pl.read_csv(out / "ceiling.csv").iter_rows(named=True)}
    assert {ceiling[c]["family"] for c in ceiling} == {"code", "obs", "hist", "both"}
    for c in ("r3", "obs-r3", "hist-r3", "both-r3"):
        assert ceiling[c]["family_ceiling_reduction"] > 1 and ceiling[c]["family_realized_share"] > 0.3
    # obs renders what rN renders and more; the code family's ceiling is the code-window ceiling
    assert ceiling["obs-r3"]["family_ceiling_reduction"] >= ceiling["r3"]["family_ceiling_reduction"]
    assert ceiling["r3"]["family_ceiling_reduction"] == pytest.approx(ceiling["r3"]["code_ceiling_reduction"])
    assert ceiling["hist-r3"]["code_gap_page_overhead"] is None or pl.read_csv(out / "ceiling.csv").filter(
        pl.col("condition") == "hist-r3")["code_gap_page_overhead"].null_count() == 1
    assert "per page family" in stdout and "hist-r3" in stdout.split("per page family")[1]
    # both renders what obs renders and what hist renders: its ceiling is above either's, and it sends both kinds of page
    both = steps.filter(pl.col("condition") == "both-r3")
    assert both["pages"].sum() > 0 and both["history_pages"].max() > 0 and by["both-r3"]["prompt_tokens"] < by["text"]["prompt_tokens"]
    assert ceiling["both-r3"]["family_ceiling_reduction"] >= max(ceiling["obs-r3"]["family_ceiling_reduction"],
                                                                 ceiling["hist-r3"]["family_ceiling_reduction"])


def test_replay_takes_the_families_alone():
    assert main(["replay", str(FIXTURES / "mini2__swevis-samples__ledgerkit-117.traj.json"), "--conditions", "obs-r3,hist-r3",
                 "--config", CONFIG]) == 0


def test_a_family_ceiling_renders_what_its_family_renders():
    turn = {"role": "assistant", "content": "run the tests"}
    long, short = "FAILED test_x - AssertionError\n" * 40, "ok\n"
    window = [{"text_tokens": 50}]
    settings = SimpleNamespace(hist_keep=2, obs_min_tokens=100)  # config agents.pages, as the families read it
    obs = FamilyCeiling(Condition.parse("obs-r3"), settings, "qwen3", "qwen3.5")
    code = FamilyCeiling(Condition.parse("r3"), settings, "qwen3", "qwen3.5")
    hist_settings = SimpleNamespace(hist_keep=1, obs_min_tokens=100)
    hist = FamilyCeiling(Condition.parse("hist-r3"), hist_settings, "qwen3", "qwen3.5")
    text = FamilyCeiling(Condition.parse("text"), settings, "qwen3", "qwen3.5")
    for c in (obs, code, hist, text):
        c.add_call(turn, long, [])
        c.add_call(turn, short, window)
    assert text.eligible() == 0  # nothing rendered
    assert code.eligible() == 50  # the code windows only
    assert obs.eligible() == text_tokens(long, "qwen3") + 50  # the long output whole, the short one's window
    assert hist.eligible() == hist.calls[0] and hist.calls[0] > obs.calls[0]  # all but the last call, turn and output


def test_the_family_ceiling_keeps_the_text_bill_mix_per_call():
    text = [{"prompt_tokens": 1000, "prompt_spend_cache_aware": 0.6}, {"prompt_tokens": 2000, "prompt_spend_cache_aware": 0.8}]
    cond = [{"prompt_tokens": 1000, "prompt_spend_cache_aware": 0.6, "ceiling_eligible_tokens": 0},
            {"prompt_tokens": 1400, "prompt_spend_cache_aware": 0.7, "ceiling_eligible_tokens": 900}]
    one = family_ceiling(cond, text, 3.0)
    assert one["family_ceiling_prompt_tokens"] == pytest.approx(3000 - 600)
    assert one["family_ceiling_prompt_bill"] == pytest.approx(0.6 + 0.8 * 1400 / 2000)
    assert (one["text_prompt_bill"], one["prompt_bill"]) == (pytest.approx(1.4), pytest.approx(1.3))
    unpriced = family_ceiling([{**r, "prompt_spend_cache_aware": None} for r in cond], text, 3.0)
    assert unpriced["family_ceiling_prompt_bill"] is None and unpriced["family_ceiling_prompt_tokens"] == pytest.approx(2400)
