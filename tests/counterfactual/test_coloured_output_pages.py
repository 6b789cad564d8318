"""A recorded trajectory whose observations hold coloured pytest output with non-ASCII text
(ANSI colour codes, a progress bar's carriage returns, backspaces, a bell; a fixture of our
own) replays under obs-r3 and hist-r3, and every text either family sends as pages draws."""

from __future__ import annotations

import dataclasses

import polars as pl

from swevis.agents.observation.pages import Shown, observing
from swevis.cli import main
from swevis.config import load_config
from swevis.counterfactual.replay import recorded_costs

from helpers import PROJECT_ROOT

TRAJ = PROJECT_ROOT / "tests" / "fixtures" / "trajectories_coloured" / "mini2__coloured-pytest.traj.json"
CONFIG = str(PROJECT_ROOT / "config.yaml")


def test_the_fixture_holds_what_a_terminal_prints():
    raw = TRAJ.read_text()
    for code in (r"\u001b[31m", r"\u001b[1m", r"\r", r"\b", r"\u0007", r"\u00df", r"\u2033", r"\u6d4b"):
        assert code in raw


def test_coloured_output_replays_under_obs_and_hist(tmp_path):
    out = tmp_path / "out"
    assert main(["replay", str(TRAJ), "--out", str(out), "--conditions", "text,obs-r3,hist-r3", "--config", CONFIG,
                 "--model", "qwen3.5"]) == 0
    steps = pl.read_parquet(out / "per_step.parquet")
    by = {c: steps.filter(pl.col("condition") == c) for c in ("text", "obs-r3", "hist-r3")}
    assert by["obs-r3"]["pages"].sum() > 0
    assert by["hist-r3"]["history_pages"].max() > 0
    assert by["obs-r3"]["prompt_tokens"].sum() < by["text"]["prompt_tokens"].sum()
    assert by["hist-r3"]["prompt_tokens"].sum() < by["text"]["prompt_tokens"].sum()


def test_every_coloured_text_sent_as_pages_draws():
    cfg = load_config(CONFIG)
    sent: list[Shown] = []
    with observing(sent.append):
        for condition in ("obs-r3", "hist-r3"):
            recorded_costs(TRAJ, [condition], model_name="qwen3.5", profile=cfg["models"]["qwen3.5"],
                           agents_cfg=cfg["agents"], render_cfg=cfg["single_read"].get("render", {}),
                           prompt_cache=cfg["counterfactual"]["prompt_cache"])
    coloured = [s for s in sent if "\x1b[" in s.text]
    assert coloured and any("\r" in s.text for s in sent)
    assert any(s.label.startswith("output of step") for s in coloured)  # obs-r3's runs
    assert any(s.label.startswith("history-") for s in coloured)  # hist-r3's blocks
    for s in sent:  # the replay accounts pages without drawing them: draw each as a live run would
        drawn = dataclasses.replace(s.how, draw_pages=True).shown_or_reason(s.text, s.label, "output")
        assert isinstance(drawn, Shown), f"{s.label}: {drawn}"
        assert drawn.pages == s.pages and all(p.width > 0 for p in drawn.result.pages)
