"""swevis_dev.page_families (benchmarks/bench_page_families.py): the hist settings it tries and the
obs setting it fixes."""

from argparse import Namespace

import pytest

from swevis_dev import page_families as bench


def test_hist_settings_parse_and_an_empty_list_tries_none():
    assert bench._settings(Namespace(hist="transcript:1:4,outputs:2:8")) == [{"hist_policy": "transcript", "hist_keep": 1, "hist_block": 4},
                                            {"hist_policy": "outputs", "hist_keep": 2, "hist_block": 8}]
    assert bench._settings(Namespace(hist="")) == []


def test_mask_settings_name_their_condition_and_the_pages_they_set():
    assert bench._maskings(Namespace(mask="10,10:8,5:4+hist", ratio="3")) == [
        ("mask-k10", {}, "M=10"), ("maskb-k10", {"mask_block": 8}, "M=10 B=8"),
        ("maskb-k5+hist-r3", {"mask_block": 4, "hist_block": 4}, "M=5 B=4")]
    assert bench._maskings(Namespace(mask="", ratio="3")) == []


def test_obs_run_chars_reaches_the_replay_of_the_base_conditions(monkeypatch, capsys):
    seen = []

    def fake(pool, files, conditions, pages, model, profile, cfg):
        seen.append((tuple(conditions), pages))
        return [{"condition": c, "trajectory": "t"} for c in conditions]

    monkeypatch.setattr(bench, "_all", fake)
    monkeypatch.setattr(bench, "_table", lambda steps: [])
    monkeypatch.setattr(bench, "trajectory_files", lambda folder, _: ["t.traj.json"])
    assert bench.main(["somewhere", "--base", "text,obs-r3", "--hist", "", "--obs-run-chars", "0", "--jobs", "1"]) == 0
    assert seen == [(("text", "obs-r3"), {"obs_run_chars": 0})]
