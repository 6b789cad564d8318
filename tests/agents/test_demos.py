"""Every bundled instance has a demonstration for every agent, and each reads like a competent
engineer's work: it searches and reads code before it edits, runs tests before it submits,
and does not just apply the gold patch."""

import json
import re

import pytest

from swevis.agents.observation.actions import classify_action, detect_code_read
from swevis.agents.run.demos import DEMOS_DIR, demo_commands, load_demo
from swevis.agents.tools.environment import parse_heredoc
from swevis.agents.tools.finish import validate_plan
from swevis.tasks.bundled import load_bundled_instances, load_bundled_set

ROWS = load_bundled_instances(verify_commits=False)
AGENTS = ("mini", "plb", "let")
# the polyglot set (Java, JavaScript): examples/polyglot.yaml runs mini and LET on it
POLYGLOT = load_bundled_set("polyglot", verify_commits=False)
CASES = [(agent, row) for agent in AGENTS for row in ROWS] + [(agent, row) for agent in ("mini", "let") for row in POLYGLOT]
MINI_SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


def _is_code_read(cmd: str) -> bool:
    return detect_code_read(cmd) is not None


@pytest.mark.parametrize("agent,row", CASES, ids=[f"{a}-{r['instance_id']}" for a, r in CASES])
def test_demonstration_is_competent(agent, row):
    path = DEMOS_DIR / agent / f"{row['instance_id']}.yaml"
    assert path.exists(), f"missing demonstration {path}"
    demo = load_demo(path)
    purposes = {"mini": ["agent"], "plb": ["agent"], "let": ["locator", "editor"]}[agent]
    commands = []
    for purpose in purposes:
        cmds = demo_commands(demo, purpose)
        assert all(cmds), f"{path}: every {purpose} turn must hold exactly one command block"
        commands += [(purpose, c) for c in cmds]
    classes = [classify_action(c) for _, c in commands]
    edits = [i for i, cls in enumerate(classes) if cls == "edit"]
    assert edits, f"{path}: the demonstration never edits"
    first_edit = edits[0]
    before = [c for _, c in commands[:first_edit]]
    assert any(classify_action(c) == "search" for c in before), f"{path}: no search before the first edit"
    assert any(_is_code_read(c) for c in before), f"{path}: no code window (cat/sed/view_code) read before editing"
    tests_after_edit = [i for i, cls in enumerate(classes) if cls == "test" and i > edits[-1]]
    assert tests_after_edit, f"{path}: no test run after the last edit"
    last = commands[-1][1]
    if agent == "mini":
        assert last.startswith(MINI_SUBMIT), f"{path}: mini must end with its submit command"
    else:
        assert last.strip() == "submit", f"{path}: must end with submit"
    text = path.read_text()  # the raw turns: quotes and backslashes as written
    assert "diff --git" not in text and "git apply" not in text, f"{path}: applies a prepared patch"
    # none of the gold patch's added lines may be pasted verbatim as a whole hunk
    added = [l[1:].strip() for l in row["patch"].splitlines() if l.startswith("+") and not l.startswith("+++")]
    long_added = [l for l in added if len(l) > 30]
    assert not long_added or sum(l in text for l in long_added) < len(long_added) or len(long_added) < 2, (
        f"{path}: reproduces every added line of the gold patch verbatim"
    )
    if agent == "plb":
        assert demo["turns"].get("preloc"), f"{path}: PLB needs its pre-localization reply"
    if agent == "let":
        loc = demo_commands(demo, "locator")
        assert loc[-1].startswith("commit_plan"), f"{path}: the locator must end with commit_plan"
        validate_plan(json.loads(parse_heredoc(loc[-1], "commit_plan")))
        assert any(c.startswith(("localize_issue", "pack_context")) for c in loc), f"{path}: locator never localizes"
        assert all(re.match(r"(localize_issue|pack_context|view_code|commit_plan)\b", c) for c in loc), (
            f"{path}: the locator may only use its tools"
        )


def test_demo_files_follow_based_on_and_name_a_broken_chain(tmp_path):
    from swevis.agents.run.demos import demo_files
    from swevis.errors import SwevisError

    assert [p.parent.name for p in demo_files("let-all", "swevis-samples__tabulon-305")] == ["let-all", "let-repro", "let"]
    for agent in ("a", "b", "c"):
        (tmp_path / agent).mkdir()
    (tmp_path / "a" / "i.yaml").write_text("based_on: ../b/i.yaml\n")
    (tmp_path / "b" / "i.yaml").write_text("based_on: ../a/i.yaml\n")
    with pytest.raises(SwevisError, match="loops"):
        demo_files("a", "i", tmp_path)
    (tmp_path / "c" / "i.yaml").write_text("based_on: ../nowhere/i.yaml\n")
    with pytest.raises(SwevisError, match="does not exist"):
        demo_files("c", "i", tmp_path)
