"""LET variants (working memory, reproduction, verification): demonstrations for every bundled instance, the variant flags, and
end to end on playback: the reproduction stage and the verification that catches a patch
breaking a PASS_TO_PASS test (the let-verify demonstration of ledgerkit-101 does so on
purpose) and sends the editor back to fix it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from swevis.agents.observation.actions import classify_action
from swevis.agents.run.demos import DEMOS_DIR, demo_commands, load_demo
from swevis.agents.mechanisms.memory_store import MemorySettings, MemoryStore
from swevis.agents.run.runner import RunSpec, run_instance
from swevis.agents.builtin.let_variants import DEFAULT_VARIANTS, variant_flags
from swevis.agents.mechanisms.reproduction import broken_reproduction
from swevis.tasks.bundled import load_bundled_instances

ROWS = load_bundled_instances(verify_commits=False)
CASES = [(v, row) for v in DEFAULT_VARIANTS for row in ROWS]
BROKEN_ON_PURPOSE = "swevis-samples__ledgerkit-101"


@pytest.mark.parametrize("variant,row", CASES, ids=[f"{v}-{r['instance_id']}" for v, r in CASES])
def test_variant_demo_is_lets_plus_stage_turns(variant, row):
    path = DEMOS_DIR / variant / f"{row['instance_id']}.yaml"
    assert path.exists(), f"missing demonstration {path}"
    raw = yaml.safe_load(path.read_text())  # what the file itself says
    demo = load_demo(path)  # what the playback backend plays (based_on resolved)
    let = load_demo(DEMOS_DIR / "let" / f"{row['instance_id']}.yaml")
    flags = DEFAULT_VARIANTS[variant]
    # a variant writes down only the stages it changes; the rest are its base's turns
    base = "let-repro" if variant == "let-all" else "let"
    assert raw["agent"] == variant and raw["based_on"] == f"../{base}/{row['instance_id']}.yaml"
    own = set(raw.get("turns") or {})
    assert own <= {"reproduction", "editor"} and ("editor" in own) == (
        bool(flags.get("verification")) and row["instance_id"] == BROKEN_ON_PURPOSE)
    assert ("reproduction" in own) == (variant == "let-repro")
    # the locator is LET's, turn for turn: the variants differ only in their mechanisms
    assert demo["turns"]["locator"] == let["turns"]["locator"]
    if flags.get("reproduction"):
        cmds = demo_commands(demo, "reproduction")
        assert all(cmds) and cmds[-1].startswith("commit_reproduction ")
        assert cmds[0].startswith("cat > reproduce_issue.py") and classify_action(cmds[-1]) != "edit"
        assert "assert" in cmds[0], "a reproduction asserts the behaviour the issue expects"
    else:
        assert "reproduction" not in demo["turns"]
    if flags.get("verification") and row["instance_id"] == BROKEN_ON_PURPOSE:
        ed = demo_commands(demo, "editor")
        assert ed.count("submit") == 2, "submits, is sent back by verification, fixes, submits again"
    else:
        assert demo["turns"]["editor"] == let["turns"]["editor"]
    assert demo_commands(demo, "editor")[-1] == "submit"


def test_variant_flags():
    assert variant_flags("let", {}) ["memory"] is False
    assert variant_flags("let-mem", {"variants": DEFAULT_VARIANTS})["memory"] is True
    assert variant_flags("let-x", {"variant": {"verification": True}})["verification"] is True
    with pytest.raises(ValueError, match="not a configured LET variant"):
        variant_flags("let-nope", {"variants": DEFAULT_VARIANTS})
    with pytest.raises(ValueError, match="unknown key"):
        variant_flags("let-bad", {"variants": {"let-bad": {"memroy": True}}})


def test_broken_reproduction_is_told_apart():
    assert not broken_reproduction("Traceback (most recent call last):\n  ...\nAssertionError: not as expected\n")
    assert broken_reproduction('  File "reproduce_issue.py", line 3\n    x = (\nSyntaxError: unexpected EOF\n')
    assert broken_reproduction("python: can't open file '/repo/reproduce_issue.py': [Errno 2]")
    assert broken_reproduction("Traceback ...\nModuleNotFoundError: No module named 'ledgerkt'\n")


PROFILE = {"backend": "playback", "model_id": "test", "tokenizer": "qwen3", "image_family": "qwen3.5"}


@pytest.fixture(scope="module")
def setup(tmp_path_factory, bundled_checkout):
    return bundled_checkout(BROKEN_ON_PURPOSE, tmp_path_factory.mktemp("variants"), index=True)


def _run(setup, out, agent, demo, condition="text", cfg=None):
    spec = RunSpec(
        "qwen3.5", PROFILE, agent, "normal", condition, setup["row"], setup["mirror"], str(out),
        index_db=setup["db"], pristine_dir=setup["pristine"], playback_source=str(demo),
        agents_cfg=cfg or {"variants": DEFAULT_VARIANTS, "memory": {"embedding": "lexical"}},
    )
    return run_instance(spec)


@pytest.mark.slow
def test_verification_catches_a_patch_that_breaks_pass_to_pass(setup, tmp_path):
    traj = _run(setup, tmp_path / "v", "let-verify", DEMOS_DIR / "let-verify" / f"{BROKEN_ON_PURPOSE}.yaml")
    assert traj["exit_status"] == "submitted" and traj["agent"] == "let-verify"
    rounds = traj["variant"]["verification"]
    assert [r["outcome"] for r in rounds] == ["returned_to_editor", "submitted"]
    first, last = rounds
    assert not first["passed"] and last["passed"]
    failing = "tests/test_reports.py::test_balance_sheet_mid_period"
    assert failing in setup["row"]["PASS_TO_PASS"]
    assert failing in first["regression"]["tests"] and "test_balance_sheet_mid_period" in first["regression"]["output"]
    assert set(first["regression"]["symbols"]) == {"BalanceSheet._net_income", "_in_period"}
    # the report went back to the editor as the observation of its first submit
    submit_steps = [s for s in traj["steps"] if s["tool"] == "submit"]
    assert len(submit_steps) == 2 and submit_steps[0]["observation"]["kind"] == "text"
    patch = (tmp_path / "v" / "patch.diff").read_text()
    assert "end=self.as_of" in patch
    from swevis.harness.local import evaluate_patch

    assert evaluate_patch(setup["row"], patch, mirror=setup["mirror"])["resolved"]


@pytest.mark.slow
def test_reproduction_stage_and_memory_all_three(setup, tmp_path):
    traj = _run(setup, tmp_path / "a", "let-all", DEMOS_DIR / "let-all" / f"{BROKEN_ON_PURPOSE}.yaml", condition="r3")
    v = traj["variant"]
    assert v["flags"] == {"memory": True, "reproduction": True, "verification": True}
    rep = v["reproduction"]
    assert rep["reproduced"] and rep["accepted"]["command"] == "python reproduce_issue.py"
    assert rep["accepted"]["returncode"] != 0 and "AssertionError" in rep["accepted"]["output"]
    assert "reproduce_issue.py" in rep["accepted"]["files"]
    assert traj["phase_exit_status"]["reproduction"] == "submitted"
    assert {s["phase"] for s in traj["steps"]} == {"locator", "reproduction", "editor"}
    # the broken patch fails the reproduction too; the fixed one passes it
    first, last = v["verification"]
    assert first["reproduction"]["passed"] is False and last["reproduction"]["passed"] is True
    # the editor got the reproduction as its objective
    editor_task = next(m for m in traj["messages"] if m["phase"] == "editor" and m["role"] == "user")
    assert "<repair_objective>" in json.dumps(editor_task["content"])
    # re-reads are answered from memory; a partly new window may go out whole where that is
    # cheaper than its new fragments (never dearer), its repeated lines counted in resent_lines
    assert v["memory"]["lookups"] > 0 and v["memory"]["hits"] > 0
    # the memory is the run folder's store, shared by the stages (this reproduction reads no code)
    with MemoryStore(tmp_path / "a" / "memory.sqlite", MemorySettings.from_config({"embedding": "lexical"})) as store:
        stored = store.records()
    assert {r.stage for r in stored} == {"locator", "editor"}
    assert sum(len(r.units) for r in stored) == v["memory"]["units"] > 0
    assert sum(r.source in ("localize_issue", "pack_context") for r in stored) == v["memory"]["query_records"]
    # the patch is everything the agent changed, its new files included (the reproduction too)
    assert "diff --git a/reproduce_issue.py b/reproduce_issue.py\nnew file" in (tmp_path / "a" / "patch.diff").read_text()


@pytest.mark.slow
def test_not_reproduced_within_budget_editor_proceeds(setup, tmp_path):
    let = load_demo(DEMOS_DIR / "let" / f"{BROKEN_ON_PURPOSE}.yaml")
    never = "THOUGHT: try.\n\n```mswea_bash_command\ncommit_reproduction python -c \"print('fine')\"\n```\n"
    demo = tmp_path / "demo.yaml"
    demo.write_text(yaml.safe_dump({"format": "swevis-demo-1", "turns": {
        "locator": let["turns"]["locator"], "reproduction": [never, never], "editor": let["turns"]["editor"]}}))
    cfg = {"variants": {"let-repro": {"reproduction": True, "reproduction_step_limit": 2}}}
    traj = _run(setup, tmp_path / "n", "let-repro", demo, cfg=cfg)
    rep = traj["variant"]["reproduction"]
    assert rep["reproduced"] is False and [a["verdict"] for a in rep["attempts"]] == ["passes", "passes"]
    assert traj["phase_exit_status"]["reproduction"] == "step_limit"
    assert traj["exit_status"] == "submitted" and Path(tmp_path / "n" / "patch.diff").read_text()


@pytest.mark.slow
def test_memory_sends_fewer_prompt_tokens_than_let_under_every_condition(setup, tmp_path):
    """The working memory's target, fewer prompt tokens, on one bundled instance (the workflow's
    ablation measures all nine): the same demonstration played back by LET and by LET with memory;
    the memory variant costs less under every condition, no observation costs more, and no
    window is sent twice."""
    demo = DEMOS_DIR / "let-mem" / f"{BROKEN_ON_PURPOSE}.yaml"
    for condition in ("text", "r1", "r3", "r5", "r7"):
        let = _run(setup, tmp_path / f"let-{condition}", "let", DEMOS_DIR / "let" / f"{BROKEN_ON_PURPOSE}.yaml", condition)
        mem = _run(setup, tmp_path / f"mem-{condition}", "let-mem", demo, condition)
        assert let["exit_status"] == mem["exit_status"] == "submitted"
        assert [s["action"] for s in mem["steps"]] == [s["action"] for s in let["steps"]]  # paired
        assert mem["totals"]["prompt_tokens"] < let["totals"]["prompt_tokens"], condition
        first_cost: dict[tuple, int] = {}
        repeats = 0
        for a, b in zip(let["steps"], mem["steps"]):
            assert b["observation"]["tokens"] <= a["observation"]["tokens"], (condition, b["action"])
            w = b["observation"].get("window")
            if w is None:
                continue
            key = (b["phase"], w["path"], w["start"], w["end"])
            if key in first_cost:  # the same window again in one conversation: never sent in full
                repeats += 1
                assert b["observation"]["memory"]["hit"] and b["observation"]["tokens"] < first_cost[key], (condition, key)
            first_cost.setdefault(key, b["observation"]["tokens"])
        assert repeats >= 1  # the editor re-reads the window it edited
        assert mem["variant"]["memory"]["hits"] > 0
