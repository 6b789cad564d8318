"""The agents end to end on a bundled instance, on playback: token accounting by condition,
faithful patches, format errors, model failures and the LET tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from swevis.sandbox.environments import EnvironmentRefused, make_environment
from swevis.agents.run.runner import RunSpec, prelocalize, run_instance
from swevis.agents.tools.finish import PlanError, validate_plan
from swevis.config import schema_defaults
from swevis.harness.local import evaluate_patch
from swevis.models import make_model

# the environment options as the runner passes them (the validated agents settings): the schema's defaults
ENV_OPTIONS = {k: schema_defaults("agents")[k] for k in ("docker_network", "docker_cpus", "docker_memory", "docker_pids", "env_passthrough")}

IID = "swevis-samples__ledgerkit-117"
PROFILE = {"backend": "playback", "model_id": "test", "tokenizer": "qwen3", "image_family": "qwen3.5"}
DEMO = Path(__file__).resolve().parents[2] / "src" / "swevis" / "data" / "demos" / "plb" / f"{IID}.yaml"


@pytest.fixture(scope="module")
def setup(tmp_path_factory, bundled_checkout):
    task = bundled_checkout(IID, tmp_path_factory.mktemp("agents"), index=True)
    chat = make_model("qwen3.5", PROFILE, playback_source=str(DEMO))
    preloc = prelocalize(task["row"], chat, index_db=task["db"], pristine_dir=task["pristine"], localize_cfg={})
    return {**task, "preloc": preloc}


def _spec(setup, out, *, agent="plb", condition="text", scope="normal", demo=DEMO, **kw) -> RunSpec:
    return RunSpec(
        "qwen3.5", PROFILE, agent, scope, condition, setup["row"], setup["mirror"], str(out),
        index_db=setup["db"], pristine_dir=setup["pristine"], preloc=setup["preloc"] if agent == "plb" else None,
        playback_source=str(demo), **kw,
    )


def _write_demo(path: Path, turns: dict) -> Path:
    path.write_text(yaml.safe_dump({"format": "swevis-demo-1", "turns": turns}))
    return path


def _block(cmd: str) -> str:
    return f"THOUGHT: next.\n\n```mswea_bash_command\n{cmd}\n```\n"


def test_preloc_package_is_recorded(setup):
    pre = setup["preloc"]
    assert pre["package"].startswith("Likely root cause")
    assert pre["usage"]["usage"]["source"] == "estimate" and pre["usage"]["usage"]["prompt_tokens"] > 500
    assert pre["candidates"] and pre["windows"]
    assert pre["localizer_ranker"].startswith("learned (weights ")  # which D_loc weights made it


@pytest.mark.slow
def test_plb_text_and_visual_same_patch_fewer_tokens(setup, tmp_path):
    text = run_instance(_spec(setup, tmp_path / "text"))
    r3 = run_instance(_spec(setup, tmp_path / "r3", condition="r3"))
    assert text["exit_status"] == r3["exit_status"] == "submitted"
    assert (tmp_path / "text" / "patch.diff").read_text() == (tmp_path / "r3" / "patch.diff").read_text()
    assert r3["totals"]["prompt_tokens"] < text["totals"]["prompt_tokens"]
    assert r3["totals"]["image_pages"] > 0 and text["totals"]["image_pages"] == 0
    kinds = {s["observation"]["kind"] for s in r3["steps"] if s["action_class"] == "read"}
    assert kinds == {"image"}
    # the read windows are real line spans of money.py, the same under both conditions
    windows = [s["observation"]["window"] for s in text["steps"] if s["observation"]["window"]]
    assert {"path": "ledgerkit/money.py", "start": 1, "end": 40} in windows
    assert windows == [s["observation"]["window"] for s in r3["steps"] if s["observation"]["window"]]
    # accounting adds up, phases included
    assert text["totals"]["prompt_tokens"] == sum(p["prompt_tokens"] for p in text["phases"].values())
    assert [s["action_class"] for s in text["steps"]][:2] == ["search", "read"]
    on_disk = json.loads((tmp_path / "text" / "traj.json").read_text())
    assert on_disk["format"] == "swevis-traj-1" and on_disk["backend"] == "playback"
    # images never go into traj.json, only their labels
    assert "base64" not in (tmp_path / "r3" / "traj.json").read_text()
    # the patch is real and resolves the instance
    rec = evaluate_patch(setup["row"], (tmp_path / "text" / "patch.diff").read_text(), setup["mirror"])
    assert rec["resolved"], rec


@pytest.mark.slow
def test_wide_scope_widens_windows(setup, tmp_path):
    normal = run_instance(_spec(setup, tmp_path / "n"))
    wide = run_instance(_spec(setup, tmp_path / "w", scope="wide", agents_cfg={"wide_margin": 15}))
    n = [s["observation"]["window"] for s in normal["steps"] if s["observation"]["window"]]
    w = [s["observation"]["window"] for s in wide["steps"] if s["observation"]["window"]]
    assert n[0] == {"path": "ledgerkit/money.py", "start": 1, "end": 40}
    assert w[0] == {"path": "ledgerkit/money.py", "start": 1, "end": 55}
    assert wide["totals"]["prompt_tokens"] > normal["totals"]["prompt_tokens"]


@pytest.mark.slow
@pytest.mark.parametrize("agent,condition", [("mini", "mask-k1"), ("plb", "maskb-k1"), ("plb", "maskb-k1+hist-r3")])
def test_mini_and_plb_take_masking_same_patch_fewer_tokens(setup, tmp_path, agent, condition):
    pages = {"mask_block": 1, "hist_keep": 1, "hist_block": 1}
    demo = DEMO.parents[1] / agent / DEMO.name
    text = run_instance(_spec(setup, tmp_path / "text", agent=agent, demo=demo, agents_cfg={"pages": pages}))
    masked = run_instance(_spec(setup, tmp_path / "masked", agent=agent, condition=condition, demo=demo,
                                agents_cfg={"pages": pages}))
    assert text["exit_status"] == masked["exit_status"] == "submitted"
    assert (tmp_path / "text" / "patch.diff").read_text() == (tmp_path / "masked" / "patch.diff").read_text()
    assert masked["totals"]["prompt_tokens"] < text["totals"]["prompt_tokens"]
    assert masked["condition"] == condition


def test_format_errors_are_returned_and_counted(setup, tmp_path):
    demo = _write_demo(tmp_path / "d.yaml", {"agent": ["no command here", _block("ls") + _block("pwd"), "still nothing"]})
    traj = run_instance(_spec(setup, tmp_path / "out", agent="mini", demo=demo, agents_cfg={"max_format_errors": 3}))
    assert traj["exit_status"] == "format_errors"
    assert traj["totals"]["format_errors"] == 3
    errors = [m for m in traj["messages"] if m["role"] == "user" and "Format error" in str(m["content"])]
    assert len(errors) == 3  # each went back to the model


def test_exhausted_playback_ends_with_error_and_keeps_trajectory(setup, tmp_path):
    demo = _write_demo(tmp_path / "d.yaml", {"agent": [_block("ls")]})
    traj = run_instance(_spec(setup, tmp_path / "out", agent="mini", demo=demo))
    assert traj["exit_status"] == "error" and "PlaybackExhausted" in traj["error"]
    assert len(traj["steps"]) == 1 and (tmp_path / "out" / "traj.json").exists()


def test_context_length_ends_with_its_status(setup, tmp_path, monkeypatch):
    from swevis.models import ContextLengthExceeded
    from swevis.models.playback import PlaybackModel

    def boom(self, *a, **k):
        raise ContextLengthExceeded("prompt of 300000 tokens exceeds the context")

    monkeypatch.setattr(PlaybackModel, "_complete", boom)
    traj = run_instance(_spec(setup, tmp_path / "out", agent="mini"))
    assert traj["exit_status"] == "context_length"


def test_let_tools_and_plan(setup, tmp_path):
    plan = {
        "target_files": ["ledgerkit/money.py"], "target_symbols": ["Money.round"],
        "reproduction_command": "python -m pytest -q tests/test_money.py",
        "relevant_snippets": [{"path": "ledgerkit/money.py", "start": 112, "end": 120}],
        "propagation_targets": [], "notes": "quantize to the currency", "evidence_refs": ["view_code"],
    }
    locator = [
        _block("localize_issue"),
        _block("view_code ledgerkit/money.py ten 20"),  # bad arguments: a format error
        _block("ls"),  # bash is not a locator tool: a format error
        _block("pack_context rounding"),
        _block("view_code ledgerkit/money.py 110 125"),
        _block("commit_plan <<'PLAN'\n{not json\nPLAN"),
        _block("commit_plan <<'PLAN'\n" + json.dumps(plan) + "\nPLAN"),
    ]
    editor = [_block("view_code ledgerkit/money.py 112 120"), _block("python -m pytest -q tests/test_money.py"), _block("submit")]
    demo = _write_demo(tmp_path / "d.yaml", {"locator": locator, "editor": editor})
    traj = run_instance(_spec(setup, tmp_path / "out", agent="let", condition="r3", demo=demo))
    assert traj["exit_status"] == "submitted"
    assert traj["phase_exit_status"] == {"locator": "submitted", "editor": "submitted"}
    assert traj["plan"]["relevant_snippets"] == [{"path": "ledgerkit/money.py", "start": 112, "end": 120}]
    loc = [s for s in traj["steps"] if s["phase"] == "locator"]
    assert [s["format_error"] for s in loc] == [False, True, True, False, False, True, False]
    # the locator's code is rendered under r3, the editor's stays text (paper's boundary)
    assert any(s["observation"]["kind"] == "image" for s in loc if s["tool"] in ("view_code", "pack_context"))
    ed = [s for s in traj["steps"] if s["phase"] == "editor"]
    assert all(s["observation"]["kind"] in ("text", "none") for s in ed)
    assert set(traj["phases"]) == {"locator", "editor"}
    assert ["ledgerkit/money.py", 112, 120] in traj["evidence"]["committed_snippets"]
    assert ["ledgerkit/money.py", 110, 125] in traj["evidence"]["viewed_windows"]
    # the editor never saw the locator's transcript
    editor_msgs = [m for m in traj["messages"] if m["phase"] == "editor"]
    assert not any("localize_issue" in str(m["content"]) and m["role"] == "assistant" for m in editor_msgs)


def test_plan_validation():
    ok = validate_plan({"target_files": ["a.py"], "relevant_snippets": ["a.py:3-9"]})
    assert ok["relevant_snippets"] == [{"path": "a.py", "start": 3, "end": 9}] and ok["notes"] == ""
    for bad, words in [
        ({}, "target_files"),
        ({"target_files": ["a.py"], "relevant_snippets": [{"path": "a.py", "start": 9, "end": 3}]}, "bad line span"),
        ({"target_files": ["a.py"], "plan": 1}, "unknown plan field"),
        ({"target_files": "a.py"}, "must be a list"),
    ]:
        with pytest.raises(PlanError, match=words):
            validate_plan(bad)


def test_local_environment_refuses_live_model_without_acknowledgement(setup):
    with pytest.raises(EnvironmentRefused, match="allow_live_on_host"):
        make_environment("local", setup["row"], mirror=setup["mirror"], timeout_s=5, live_model=True, allow_live_on_host=False, **ENV_OPTIONS)


@pytest.mark.slow
@pytest.mark.parametrize("condition", ["obs-r3", "hist-r3"])
def test_plb_takes_the_page_families_same_patch_fewer_tokens(setup, tmp_path, condition):
    pages = {"obs_min_tokens": 50, "hist_keep": 1, "hist_block": 1}
    text = run_instance(_spec(setup, tmp_path / "text", agents_cfg={"pages": pages}))
    paged = run_instance(_spec(setup, tmp_path / condition, condition=condition, agents_cfg={"pages": pages}))
    assert text["exit_status"] == paged["exit_status"] == "submitted"
    assert (tmp_path / "text" / "patch.diff").read_text() == (tmp_path / condition / "patch.diff").read_text()
    assert paged["totals"]["prompt_tokens"] < text["totals"]["prompt_tokens"]
    if condition == "obs-r3":  # long outputs are pages, recorded with their observation
        assert any(s["observation"].get("output_pages") for s in paged["steps"] if s["observation"])
