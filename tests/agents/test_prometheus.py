"""The Prometheus agent end to end on playback, on one bundled instance: classification routes
as the authors' code does. A reproduced bug takes the verified path and falls back to the
candidates when verification still fails after its rounds; a feature, a refactoring (and a bug
the reproduction misses) take the unverified path with N candidates, deduplicated before their
regression tests, and a vote; documentation is one edit; a question gets an answer and no
patch. An answer outside the classes is routed as a bug with a warning; N < 1 is refused at the
config check."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from swevis.agents.run.demos import DEMOS_DIR, load_demo
from swevis.agents.builtin.prometheus import CLASSES, route_class
from swevis.agents.registry import variant_config
from swevis.agents.run.runner import RunSpec, run_instance
from swevis.config import validate_config
from swevis.errors import SwevisError
from swevis.tasks.bundled import load_bundled_instances, load_bundled_set

IID = "swevis-samples__ledgerkit-101"
PROFILE = {"backend": "playback", "model_id": "test", "tokenizer": "qwen3", "image_family": "qwen3.5"}
LET_ALL = load_demo(DEMOS_DIR / "let-all" / f"{IID}.yaml")
LET = load_demo(DEMOS_DIR / "let" / f"{IID}.yaml")


def turn(command: str) -> str:
    return f"THOUGHT: next.\n\n```mswea_bash_command\n{command}\n```\n"


@pytest.fixture(scope="module")
def setup(tmp_path_factory, bundled_checkout):
    return bundled_checkout(IID, tmp_path_factory.mktemp("prometheus"), index=True)


def _run(setup, out: Path, turns: dict, condition: str = "text", **prometheus):
    demo = out.parent / f"{out.name}-demo.yaml"
    demo.write_text(yaml.safe_dump({"format": "swevis-demo-1", "turns": turns}))
    cfg = {"memory": {"embedding": "lexical"}, "prometheus": prometheus}
    spec = RunSpec(
        "qwen3.5", PROFILE, "prometheus", "normal", condition, setup["row"], setup["mirror"], str(out),
        index_db=setup["db"], pristine_dir=setup["pristine"], playback_source=str(demo), agents_cfg=cfg,
    )
    return run_instance(spec)


def test_classes_are_the_union_and_anything_else_is_a_bug():
    assert set(CLASSES) == {"bug", "feature", "refactoring", "documentation", "question"}
    assert route_class("Feature ") == ("feature", None)
    routed, warning = route_class("enhancement")
    assert routed == "bug" and "'enhancement' is not one of" in warning


def test_fewer_than_one_candidate_is_refused_at_the_config_check():
    with pytest.raises(SwevisError, match="agents.prometheus.candidates.*at least 1"):
        validate_config({"agents": {"prometheus": {"candidates": 0}}})


@pytest.mark.slow
def test_a_reproduced_bug_takes_the_verified_path(setup, tmp_path):
    turns = {"classify": [turn("classify_issue bug")], **{k: LET_ALL["turns"][k] for k in ("locator", "reproduction", "editor")}}
    traj = _run(setup, tmp_path / "bug", turns, condition="r3")
    assert traj["agent"] == "prometheus" and traj["exit_status"] == "submitted"
    assert traj["classification"]["class"] == "bug" and traj["classification"]["warning"] is None
    assert traj["route"] == "verified" and traj["candidates"] == []
    assert traj["reproduction"]["accepted"]["command"] == "python reproduce_issue.py"
    rounds = traj["vote"]["verifications"]
    assert rounds[-1]["passed"] and rounds[-1]["outcome"] == "submitted"
    # the regression set ran before the fix too (the authors' filter): the tests kept passed there
    before = rounds[-1]["regression"]["before_fix"]
    assert before["ran"] and before["failing"] == [] and rounds[-1]["regression"]["tests"] == before["ran"]
    assert list(traj["phase_exit_status"]) == ["classify", "retrieve", "reproduce", "generate"]
    # every stage is a conversation of its own; the memory is shared by all of them
    assert {s["phase"] for s in traj["steps"]} == {"classify", "retrieve", "reproduce", "generate"}
    assert traj["variant"]["memory"]["lookups"] > 0
    # each stage's calls, prompt tokens and spend are recorded
    assert set(traj["phases"]) == {"classify", "retrieve", "reproduce", "generate"}
    assert all(p["calls"] > 0 and p["prompt_tokens"] > 0 and "cost" in p for p in traj["phases"].values())
    assert traj["evidence"]["committed_snippets"], "the retrieval stage's context is the run's evidence"


@pytest.mark.slow
@pytest.mark.parametrize("issue_class", ["feature", "refactoring"])
def test_a_feature_or_a_refactoring_takes_the_candidates_deduplicated_before_testing(setup, tmp_path, issue_class):
    """Three identical candidates are one patch: its regression tests are selected (a model
    stage, regression_selected=1) and run once, and every candidate carries its patch_sha."""
    editor = LET["turns"]["editor"]
    turns = {"classify": [turn(f"classify_issue {issue_class}")], "locator": LET["turns"]["locator"],
             "editor": editor * 3, "select_tests": [turn("select_tests <<'T'\n1\nT")]}
    traj = _run(setup, tmp_path / issue_class, turns, regression_selected=1)
    assert traj["classification"]["class"] == issue_class and "reproduction" not in traj
    assert traj["route"] == "unverified" and len(traj["candidates"]) == 3 and traj["fallback"] is None
    assert all(c["regression"]["passed"] and c["regression"]["before_fix"]["ran"] for c in traj["candidates"])
    shas = {c["patch_sha"] for c in traj["candidates"]}
    assert len(shas) == 1 and None not in shas
    selections = [m for m in traj["messages"] if m["phase"] == "select_tests" and m["role"] == "system"]
    assert len(selections) == 1, "identical patches pay test selection once"
    vote = traj["vote"]
    assert vote["method"] in ("majority", "model") and vote["winner"] is not None and vote["dropped"] == []
    assert len(vote["candidates"]) == 1 and vote["candidates"][0]["count"] == 3  # three equal patches
    patch = (tmp_path / issue_class / "patch.diff").read_text()
    assert patch.startswith("diff --git") and patch.count("diff --git") == len(set(patch.split("diff --git"))) - 1


@pytest.mark.slow
def test_a_selection_stage_that_never_answers_runs_the_rule_with_a_warning(setup, tmp_path):
    """No select_tests turn: the stage ends without an answer, which is not a choice of no
    tests; the first regression_selected tests of the index run, and the record says why."""
    turns = {"classify": [turn("classify_issue feature")], "locator": LET["turns"]["locator"],
             "editor": LET["turns"]["editor"]}
    traj = _run(setup, tmp_path / "unanswered", turns, candidates=1, regression_selected=1)
    regression = traj["candidates"][0]["regression"]
    assert regression["selection"]["method"] == "rule" and "ended without an answer" in regression["selection"]["warning"]
    assert len(regression["tests"]) == 1 and regression["command"] and regression["passed"]


@pytest.mark.slow
def test_documentation_is_one_edit_without_reproduction_or_candidates(setup, tmp_path):
    turns = {"classify": [turn("classify_issue documentation")], "locator": LET["turns"]["locator"],
             "editor": LET["turns"]["editor"]}
    traj = _run(setup, tmp_path / "docs", turns)
    assert traj["route"] == "single_edit" and traj["exit_status"] == "submitted" and "reproduction" not in traj
    assert traj["candidates"] == [] and traj["vote"] is None
    assert list(traj["phase_exit_status"]) == ["classify", "retrieve", "generate"]
    assert (tmp_path / "docs" / "patch.diff").read_text().startswith("diff --git")


ANSWER = "It is intended: as_of includes the end day.\nSee ledgerkit/ledger.py."


@pytest.mark.slow
def test_a_question_gets_an_answer_and_no_patch(setup, tmp_path):
    turns = {"classify": [turn("classify_issue question")], "locator": LET["turns"]["locator"],
             "answer": [turn("view_code ledgerkit/ledger.py 1 30"), turn(f"answer_question <<'A'\n{ANSWER}\nA")]}
    traj = _run(setup, tmp_path / "question", turns)
    assert traj["route"] == "answer" and traj["exit_status"] == "submitted" and "reproduction" not in traj
    assert traj["answer"] == {"text": ANSWER, "edited": False}
    assert traj["candidates"] == [] and traj["vote"] is None
    assert list(traj["phase_exit_status"]) == ["classify", "retrieve", "answer"]
    assert (tmp_path / "question" / "patch.diff").read_text() == ""


@pytest.mark.slow
def test_a_question_run_that_edits_files_is_flagged_and_its_diff_kept(setup, tmp_path):
    turns = {"classify": [turn("classify_issue question")], "locator": LET["turns"]["locator"],
             "answer": [turn("echo '# noted' >> ledgerkit/__init__.py"), turn(f"answer_question <<'A'\n{ANSWER}\nA")]}
    traj = _run(setup, tmp_path / "edits", turns)
    answer = traj["answer"]
    assert traj["route"] == "answer" and answer["text"] == ANSWER and answer["edited"] is True
    assert "+# noted" in answer["diff"] and "edited files" in answer["warning"]
    assert (tmp_path / "edits" / "patch.diff").read_text() == answer["diff"]


@pytest.mark.slow
def test_an_empty_answer_is_refused_and_the_stage_goes_on(setup, tmp_path):
    turns = {"classify": [turn("classify_issue question")], "locator": LET["turns"]["locator"],
             "answer": [turn("answer_question <<'A'\n\nA"), turn(f"answer_question <<'A'\n{ANSWER}\nA")]}
    traj = _run(setup, tmp_path / "empty", turns)
    assert traj["answer"]["text"] == ANSWER
    said = [m["content"] for m in traj["messages"] if m["phase"] == "answer" and m["role"] == "user"]
    assert any("the answer is empty" in json.dumps(c) for c in said)


@pytest.mark.slow
def test_a_bug_whose_verification_fails_falls_back_to_the_candidates(setup, tmp_path):
    """verify_rounds=0: the first failed verification ends the verified path; the bug then takes
    the candidate path from the unchanged repository, the failed rounds recorded."""
    not_the_fix = [turn("echo '# not the fix' >> ledgerkit/__init__.py"), turn("submit")]
    turns = {"classify": [turn("classify_issue bug")], **{k: LET_ALL["turns"][k] for k in ("locator", "reproduction")},
             "editor": not_the_fix + LET["turns"]["editor"]}
    traj = _run(setup, tmp_path / "fallback", turns, condition="r3", verify_rounds=0, candidates=1)
    assert traj["reproduction"]["accepted"] is not None
    fallback = traj["fallback"]
    assert fallback["from"] == "verified" and len(fallback["verifications"]) == 1
    assert fallback["verifications"][0]["passed"] is False
    assert fallback["verifications"][0]["outcome"] == "submitted_unverified"
    assert traj["route"] == "unverified" and len(traj["candidates"]) == 1 and traj["vote"]["method"] == "single"
    assert list(traj["phase_exit_status"]) == ["classify", "retrieve", "reproduce", "generate", "generate-1"]
    patch = (tmp_path / "fallback" / "patch.diff").read_text()
    assert "not the fix" not in patch and "reproduce_issue" not in patch and patch.startswith("diff --git")


@pytest.mark.slow
def test_a_candidate_whose_patch_does_not_apply_is_counted_and_dropped(setup, tmp_path, monkeypatch):
    """The second candidate's patch is damaged after generation (its context no longer
    matches the file): it is dropped with git's reason, and the first one wins alone."""
    from swevis.agents.builtin import prometheus

    real = prometheus.generate_candidates

    def damaged(*args, **kwargs):
        final, found, env = real(*args, **kwargs)
        found[1]["patch"] = found[1]["patch"].replace("\n ", "\n #damaged ", 1)
        return final, found, env

    monkeypatch.setattr(prometheus, "generate_candidates", damaged)
    other = [turn("echo '# a second opinion' >> ledgerkit/__init__.py"), turn("submit")]
    turns = {"classify": [turn("classify_issue feature")], "locator": LET["turns"]["locator"],
             "editor": LET["turns"]["editor"] + other}
    traj = _run(setup, tmp_path / "dropped", turns, candidates=2, aggregation="majority")
    dropped = traj["vote"]["dropped"]
    assert len(dropped) == 1 and dropped[0]["members"] == [2] and dropped[0]["reason"].startswith("git apply")
    assert dropped[0]["patch_sha"] == traj["candidates"][1]["patch_sha"]
    assert traj["candidates"][1]["regression"] == {"passed": False, "skipped": "dropped"}
    assert traj["vote"]["method"] == "single" and len(traj["vote"]["candidates"]) == 1
    assert "a second opinion" not in (tmp_path / "dropped" / "patch.diff").read_text()


@pytest.mark.slow
def test_an_unknown_class_is_routed_as_a_bug_and_a_missed_reproduction_goes_unverified(setup, tmp_path):
    never = turn("commit_reproduction python -c \"print('fine')\"")
    turns = {"classify": [turn("classify_issue enhancement")], "locator": LET["turns"]["locator"],
             "reproduction": [never, never], "editor": LET["turns"]["editor"]}
    traj = _run(setup, tmp_path / "odd", turns, candidates=1, reproduce_step_limit=2)
    c = traj["classification"]
    assert c["answer"] == "enhancement" and c["class"] == "bug" and "not one of" in c["warning"]
    assert traj["reproduction"]["accepted"] is None and len(traj["reproduction"]["attempts"]) == 2
    assert traj["route"] == "unverified" and len(traj["candidates"]) == 1 and traj["vote"]["method"] == "single"
    assert "reproduce_issue" not in (tmp_path / "odd" / "patch.diff").read_text()


@pytest.mark.slow
def test_distinct_candidates_go_to_the_model_stages(setup, tmp_path):
    """Two distinct patches among three candidates: each candidate's regression tests are
    narrowed by the select_tests stage, and the aggregation stage picks among the passing
    patches (choose_patch)."""
    editor = LET["turns"]["editor"]
    other = [turn("echo '# a second opinion' >> ledgerkit/__init__.py"), turn("submit")]
    turns = {"classify": [turn("classify_issue feature")], "locator": LET["turns"]["locator"],
             "editor": editor + other + editor, "select_tests": [turn("select_tests <<'T'\n1\nT")] * 3,
             "aggregate": [turn("choose_patch 1")]}
    traj = _run(setup, tmp_path / "distinct", turns, regression_selected=1)
    found = traj["candidates"]
    assert len(found) == 3 and found[0]["patch_lines"] != found[1]["patch_lines"]
    narrowed = [c["regression"]["selection"] for c in found if "selection" in c["regression"]]
    assert narrowed and all(s["method"] == "model" and len(s["tests"]) == 1 for s in narrowed)
    vote = traj["vote"]
    # asked up to aggregation_votes (10) times; at temperature 0 the first answer stands for the
    # repeats (one model call), and asking stops once the leader cannot be caught
    assert vote["method"] == "model" and vote["answers"] == ["CHOICE: 1"] * 6 and vote["winner"] == 0
    assert vote["model_calls"] == 1 and len(set(c["patch_sha"] for c in found)) == 2
    assert [c["count"] for c in vote["candidates"]] == [2, 1]
    assert "aggregate" in traj["phase_exit_status"] and "select_tests" in traj["phase_exit_status"]
    assert "a second opinion" not in (tmp_path / "distinct" / "patch.diff").read_text()


def subquery(essential: str, extra: str = "", purpose: str = "") -> str:
    import json

    body = json.dumps({"essential_query": essential, "extra_requirements": extra, "purpose": purpose})
    return turn(f"subquery <<'Q'\n{body}\nQ")


@pytest.mark.slow
def test_the_context_engine_answers_a_later_stage_from_memory(setup, tmp_path):
    """Retrieval states a sub-query (a miss), walks the graph and remembers the spans; the
    generation stage asks the same thing in other words and gets them from the memory, which
    is one SQLite file in the run folder with the sub-query's three parts as columns. A tool
    naming a file or symbol the index lacks answers with a tool error, and the run goes on."""
    import json
    import sqlite3

    ask = ("where is the reporting period check that decides if an entry's date is included",
           "the whole function", "fix the as_of boundary")
    again = ("the reporting period check deciding if an entry date is included",
             "the whole function", "fix the as_of boundary")
    retrieve = [subquery(*ask), turn("find_nodes 'day >= end' --type function"), turn("callers nope_not_a_symbol"),
                turn("remember <<'S'\nledgerkit/ledger.py:18-24\nnope/missing.py:1-2\nS"),
                turn("remember <<'S'\nledgerkit/ledger.py:18-24\nledgerkit/ledger.py:20-21\nS"),
                LET["turns"]["locator"][-1]]
    editor = [subquery(*again), *LET["turns"]["editor"]]
    turns = {"classify": [turn("classify_issue feature")], "locator": retrieve, "editor": editor}
    traj = _run(setup, tmp_path / "engine", turns, candidates=1, regression=False)
    said = {phase: " ".join(json.dumps(m["content"]) for m in traj["messages"] if m["phase"] == phase and m["role"] == "user")
            for phase in ("retrieve", "generate-1")}
    assert traj["exit_status"] == "submitted" and traj["route"] == "unverified"
    assert "[memory: miss]" in said["retrieve"] and "[memory: stored] 1 span(s)" in said["retrieve"]
    assert "[memory: hit" in said["generate-1"] and "stored by stage retrieve" in said["generate-1"]
    # the hit is semantic (other words), and counts the traversal it spared: the retrieval's four
    # calls after its sub-query (find_nodes, callers, the failed and the good remember), their tokens
    asked = [s["observation"]["memory"] for s in traj["steps"] if s["tool"] == "subquery"]
    assert [(m["hit"], m["kind"]) for m in asked] == [(False, "miss"), (True, "semantic")]
    assert asked[1]["calls_saved"] == 4 and asked[1]["tokens_saved"] > 0
    memory = traj["variant"]["memory"]
    assert (memory["hits_exact"], memory["hits_semantic"], memory["calls_saved"]) == (0, 1, 4)
    # unknown symbol and file: tool errors, and the stage went on
    assert "callers: " in said["retrieve"] and "nope_not_a_symbol" in said["retrieve"]
    assert "remember: no file 'nope/missing.py'" in said["retrieve"]
    assert [s["tool"] for s in traj["steps"] if s["phase"] == "retrieve"][:3] == ["subquery", "find_nodes", "callers"]
    con = sqlite3.connect(tmp_path / "engine" / "memory.sqlite")
    rows = con.execute("SELECT essential_query, extra_requirements, purpose, stage FROM records "
                       "WHERE source = 'subquery'").fetchall()
    units = con.execute("SELECT path, start_line, end_line FROM context_units JOIN records r ON r.id = record_id "
                        "WHERE r.source = 'subquery'").fetchall()
    assert rows == [(*ask, "retrieve")] and units == [("ledgerkit/ledger.py", 18, 24)]  # the contained span dropped
    # a code window shown is stored with what asked for it: the span, the action, the step's THOUGHT
    windows = con.execute("SELECT essential_query, extra_requirements, purpose, created_step FROM records "
                          "WHERE source LIKE '%:window'").fetchall()
    assert windows
    for where, action, purpose, step in windows:
        assert action == " ".join(traj["steps"][step]["action"].split()) and where.split(":")[0] in action
        said = [m["content"] for m in traj["messages"] if m["role"] == "assistant" and
                m["phase"] == traj["steps"][step]["phase"] and traj["steps"][step]["action"] in m["content"]]
        thoughts = [" ".join(c.split("```")[0].split()).removeprefix("THOUGHT:").strip() for c in said]
        assert purpose and purpose in thoughts, (purpose, thoughts)


@pytest.mark.slow
def test_a_span_read_from_the_graph_is_a_code_window_drawn_under_a_visual_condition(setup, tmp_path):
    """read_span shows lines of a file as view_code does: under r3 they are pages, and the
    working memory counts them, so reading the same lines again is a reference, not a resend."""
    retrieve = [turn("read_span ledgerkit/ledger.py 18 24"), turn("view_code ledgerkit/ledger.py 18 24"),
                LET["turns"]["locator"][-1]]
    turns = {"classify": [turn("classify_issue feature")], "locator": retrieve, "editor": LET["turns"]["editor"]}
    traj = _run(setup, tmp_path / "span", turns, condition="r3", candidates=1, regression=False)
    span, again = [s["observation"] for s in traj["steps"] if s["phase"] == "retrieve"][:2]
    assert span["pages"] >= 1 and span["windows"] == [{"path": "ledgerkit/ledger.py", "start": 18, "end": 24}]
    assert again["memory"]["hit"] and again["memory"]["kind"] == "exact" and again["pages"] == 0


def stage_turns(stages: dict[str, list[str]]):
    """A scripted-server responder answering each stage's conversation (told by its system
    prompt) with that stage's turns, turn n of the conversation with turns[n]."""
    from scripted_server import Reply, assistant_turns

    def respond(index, request):
        system = request.body["messages"][0]["content"]
        text = system if isinstance(system, str) else json.dumps(system)
        stage = next(name for name, marker in (("classify", "CLASSIFIER"), ("retrieve", "CONTEXT RETRIEVER"),
                                                ("generate", "EDITOR")) if marker in text)
        said = stages[stage]
        return Reply(said[min(assistant_turns(request), len(said) - 1)])

    return respond


def live_spec(setup, tmp: Path, base_url: str, out: str) -> dict:
    return {
        "model_name": "live", "agent": "prometheus", "scope": "normal", "condition": "text",
        "profile": {"backend": "openai", "base_url": base_url, "model_id": "live-model", "api_key_env": "SWEVIS_PROM_KEY",
                    "tokenizer": "qwen3", "image_family": "qwen3.5", "max_retries": 0, "request_timeout_s": 60},
        "row": setup["row"], "mirror": setup["mirror"], "out_dir": str(tmp / out), "index_db": setup["db"],
        "pristine_dir": setup["pristine"], "workspace": str(tmp / "ws"), "ledger_path": str(tmp / "ledger.json"),
        "journal_path": str(tmp / "journal.jsonl"),
        "agents_cfg": {"environment": "local", "allow_live_on_host": True, "memory": {"embedding": "lexical"},
                       "prometheus": {"candidates": 1, "regression": False}},
    }


def memory_tables(path: Path) -> dict[str, list]:
    import sqlite3

    con = sqlite3.connect(path)
    try:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in ("records", "context_units")}
    finally:
        con.close()


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_same_memory(setup, tmp_path, monkeypatch):
    """A live Prometheus run (scripted server) is SIGKILLed while its generation stage runs a
    command, after the retrieval stage stored its sub-query in the memory; the rerun resumes
    from the journal to the same steps, patch and memory tables as a run never killed."""
    import os
    import signal
    import subprocess
    import sys

    from scripted_server import ScriptedServer
    from test_resume import CHILD, wait_for

    monkeypatch.setenv("SWEVIS_PROM_KEY", "sk-prom")
    gate, started = tmp_path / "gate", tmp_path / "started"
    stages = {
        "classify": [turn("classify_issue feature")],
        "retrieve": [subquery("the reporting period check", "", "fix the as_of boundary"),
                     turn("remember <<'S'\nledgerkit/ledger.py:18-24\nS"),
                     turn("commit_plan <<'PLAN'\n{\"target_files\": [\"ledgerkit/ledger.py\"]}\nPLAN")],
        "generate": [subquery("the reporting period check", "", "fix the as_of boundary"),
                     turn("sed -i 's/day >= end/day > end/' ledgerkit/ledger.py"),
                     turn(f"touch {started}; while test -f {gate}; do sleep 0.05; done; git diff --stat"),
                     turn("submit")],
    }
    server = ScriptedServer(responder=stage_turns(stages))
    server.start()
    try:
        reference = run_instance(RunSpec(**live_spec(setup, tmp_path / "ref", server.base_url, "out")))
        spec = live_spec(setup, tmp_path, server.base_url, "out")
        started.unlink()  # the reference run passed the parking command too
        gate.touch()
        (tmp_path / "spec.json").write_text(json.dumps(spec))
        (tmp_path / "child.py").write_text(CHILD)
        child = subprocess.Popen([sys.executable, str(tmp_path / "child.py"), str(tmp_path / "spec.json")],
                                 stdout=open(tmp_path / "child.out", "w"), stderr=subprocess.STDOUT, env=dict(os.environ))
        wait_for(lambda: started.exists(), child, what="the parked command")
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        gate.unlink()
        assert not (tmp_path / "out" / "traj.json").exists() and (tmp_path / "out" / "memory.sqlite").exists()
        traj = run_instance(RunSpec(**spec))
    finally:
        server.stop()
    assert traj["exit_status"] == reference["exit_status"] == "submitted"
    assert traj["provenance"]["resume"]["resumed_steps"] > 0
    assert [s["action"] for s in traj["steps"]] == [s["action"] for s in reference["steps"]]
    assert (tmp_path / "out" / "patch.diff").read_text() == (tmp_path / "ref" / "out" / "patch.diff").read_text()
    mine, theirs = memory_tables(tmp_path / "out" / "memory.sqlite"), memory_tables(tmp_path / "ref" / "out" / "memory.sqlite")
    strip = lambda rows: [r[2:] for r in rows]  # noqa: E731 (ids and keys name the run)
    assert len(mine["records"]) == len(theirs["records"]) > 0
    assert [r[4:7] for r in mine["records"]] == [r[4:7] for r in theirs["records"]]
    assert strip(mine["context_units"]) == strip(theirs["context_units"])


EMBEDDED = validate_config(yaml.safe_load((Path(__file__).resolve().parents[2] / "config.yaml").read_text()))["agents"]


def test_every_embedded_ablation_has_a_demonstration_for_every_instance_prometheus_has():
    """Of the study's sample: the ablations run no probe set (they are no matrix entry)."""
    ablations = EMBEDDED["prometheus"]["ablations"]
    assert set(ablations) == {"prometheus-nomem", "prometheus-norepro", "prometheus-noreg", "prometheus-single"}
    study = {f"{r['instance_id']}.yaml" for r in load_bundled_instances(verify_commits=False)}
    instances = sorted(p.name for p in (DEMOS_DIR / "prometheus").glob("*.yaml") if p.name in study)
    assert len(instances) == len(study)
    for name in ablations:
        assert sorted(p.name for p in (DEMOS_DIR / name).glob("*.yaml")) == instances, name
        for file in instances:
            demo = load_demo(DEMOS_DIR / name / file)
            assert demo["agent"] == name and {"classify", "locator", "editor"} <= set(demo["turns"]), (name, file)


@pytest.mark.slow
def test_an_ablation_runs_as_prometheus_with_its_overrides_on_its_own_demonstration(setup, tmp_path):
    """prometheus-norepro on a bug: no reproduction stage, so the unverified path with three
    candidates from its bundled demonstration, two distinct patches the model's aggregation
    chooses between."""
    agents = {**EMBEDDED, "memory": {"embedding": "lexical"}}
    cfg = {**agents, **variant_config(agents, "prometheus-norepro")}
    spec = RunSpec(
        "qwen3.5", PROFILE, "prometheus-norepro", "normal", "text", setup["row"], setup["mirror"], str(tmp_path / "run"),
        index_db=setup["db"], pristine_dir=setup["pristine"], playback_source=str(DEMOS_DIR / "prometheus-norepro" / f"{IID}.yaml"),
        agents_cfg=cfg,
    )
    traj = run_instance(spec)
    assert traj["agent"] == "prometheus-norepro" and traj["exit_status"] == "submitted"
    assert traj["variant"]["settings"]["reproduction"] is False and traj["variant"]["settings"]["memory"] is True
    assert traj["classification"]["class"] == "bug" and "reproduction" not in traj
    assert traj["route"] == "unverified" and len(traj["candidates"]) == 3
    assert list(traj["phase_exit_status"]) == ["classify", "retrieve", "generate-1", "generate-2", "generate-3",
                                               "aggregate"]
    assert len({c["patch_sha"] for c in traj["candidates"]}) == 2 and traj["vote"]["method"] == "model"
    assert (tmp_path / "run" / "patch.diff").read_text().startswith("diff --git")


@pytest.mark.slow
def test_without_regression_tests_the_verified_path_runs_the_reproduction_alone(setup, tmp_path):
    turns = {"classify": [turn("classify_issue bug")], **{k: LET_ALL["turns"][k] for k in ("locator", "reproduction", "editor")}}
    traj = _run(setup, tmp_path / "noreg", turns, regression=False)
    rounds = traj["vote"]["verifications"]
    assert traj["route"] == "verified" and rounds
    assert all(r["regression"]["command"] is None and r["regression"]["skipped"] == "regression tests off" for r in rounds)
    assert all("reproduction" in r for r in rounds)


# The bundled demonstrations whose candidates have more regression tests than Prometheus runs
# (agents.prometheus.regression_selected): their select_tests stage is a model call, which the
# demonstration must answer. Unanswered, the stage ended by PlaybackExhausted, selected no test
# and the candidate "passed" regression without a test run.
SELECTING = [
    ("prometheus", "swevis-samples__tabulon-311"),
    ("prometheus-norepro", "swevis-samples__ledgerkit-117"),
    ("prometheus-norepro", "swevis-samples__stratconf-203"),
    ("prometheus-norepro", "swevis-samples__stratconf-218"),
    ("prometheus-norepro", "swevis-samples__tabulon-305"),
]


# Candidates of the bundled demonstrations that fail their regression tests on purpose:
# norepro's stratconf-218 candidate 2 stops FileSource.load interpolating, which a test of
# within-file references catches.
FAILING_REGRESSION = {("prometheus-norepro", "swevis-samples__stratconf-218"): [2]}


def _run_bundled(agent: str, iid: str, out: Path, bundled_checkout) -> dict:
    """The agent's bundled demonstration of `iid`, played back on a fresh indexed checkout."""
    checkout = bundled_checkout(iid, out, index=True)
    agents = {**EMBEDDED, "memory": {"embedding": "lexical"}}
    cfg = {**agents, **variant_config(agents, agent)} if agent != "prometheus" else agents
    spec = RunSpec(
        "qwen3.5", PROFILE, agent, "normal", "text", checkout["row"], checkout["mirror"], str(out / "run"),
        index_db=checkout["db"], pristine_dir=checkout["pristine"],
        playback_source=str(DEMOS_DIR / agent / f"{iid}.yaml"), agents_cfg=cfg,
    )
    return run_instance(spec)


@pytest.fixture(scope="module")
def bundled_run(tmp_path_factory, bundled_checkout):
    """bundled_run(agent, iid) -> the trajectory of `_run_bundled`, played once a module: the
    tests below only read it, and four norepro runs are in both of theirs (a run is seconds of
    its demonstration's own test commands)."""
    runs: dict[tuple[str, str], dict] = {}

    def get(agent: str, iid: str) -> dict:
        if (agent, iid) not in runs:
            runs[agent, iid] = _run_bundled(agent, iid, tmp_path_factory.mktemp(agent), bundled_checkout)
        return copy.deepcopy(runs[agent, iid])

    return get


# one worker plays the shared runs for both tests under `make test` (pytest-xdist's loadgroup)
SHARED_RUNS = pytest.mark.xdist_group("prometheus_bundled_runs")


@pytest.mark.slow
@SHARED_RUNS
@pytest.mark.parametrize("agent,iid", SELECTING)
def test_a_bundled_demonstration_answers_every_selection_stage_its_candidates_reach(agent, iid, bundled_run):
    traj = bundled_run(agent, iid)
    assert traj["route"] == "unverified" and traj["phase_exit_status"]["select_tests"] == "submitted"
    assert any("selection" in c["regression"] for c in traj["candidates"])
    for candidate in traj["candidates"]:
        regression = candidate["regression"]
        assert regression["command"], candidate["index"]
        if "selection" in regression:
            assert regression["selection"]["method"] == "model" and len(regression["tests"]) == 5, candidate["index"]
        else:  # the index gives no more tests than Prometheus runs: there is no stage to answer
            assert 0 < len(regression["tests"]) <= 5, candidate["index"]
    failing = [c["index"] for c in traj["candidates"] if not c["regression"]["passed"]]
    assert failing == FAILING_REGRESSION.get((agent, iid), [])
    if agent == "prometheus":
        # its candidates are two distinct patches (2 pads only, 1 and 3 also measure widths),
        # both pass, and the model's aggregation picks the complete one
        vote = traj["vote"]
        assert [c["patch_lines"] for c in traj["candidates"]] == [46, 23, 46]
        assert [(g["count"], g["members"]) for g in vote["candidates"]] == [(2, [0, 2]), (1, [1])]
        assert vote["method"] == "model" and vote["winner"] == 0


# The bundled bugs whose verified patch has more regression tests than regression_selected: the
# verified path asks the model to select them too, and the demonstration answers, so no run
# falls back to the fixed rule (which it would record as a selection warning).
VERIFIED_SELECTING = ["swevis-samples__ledgerkit-117", "swevis-samples__stratconf-203",
                      "swevis-samples__stratconf-218", "swevis-samples__tabulon-305"]


@pytest.mark.slow
@pytest.mark.parametrize("iid", VERIFIED_SELECTING)
def test_the_verified_path_of_a_bundled_demonstration_selects_its_regression_tests_by_model(iid, tmp_path,
                                                                                            bundled_checkout):
    checkout = bundled_checkout(iid, tmp_path, index=True)
    spec = RunSpec(
        "qwen3.5", PROFILE, "prometheus", "normal", "text", checkout["row"], checkout["mirror"], str(tmp_path / "run"),
        index_db=checkout["db"], pristine_dir=checkout["pristine"],
        playback_source=str(DEMOS_DIR / "prometheus" / f"{iid}.yaml"),
        agents_cfg={**EMBEDDED, "memory": {"embedding": "lexical"}},
    )
    traj = run_instance(spec)
    assert traj["route"] == "verified" and traj["phase_exit_status"]["select_tests"] == "submitted"
    rounds = traj["vote"]["verifications"]
    selection = rounds[-1]["regression"]["selection"]
    assert len(selection["candidates"]) > 5 and selection["method"] == "model", selection.get("warning")
    assert selection.get("warning") is None and len(rounds[-1]["regression"]["tests"]) == 5
    assert set(rounds[-1]["regression"]["tests"]) <= set(selection["candidates"])
    assert rounds[-1]["regression"]["passed"] and traj["exit_status"] == "submitted"


def _turns_played(traj: dict, purpose: str) -> int:
    phases = {"editor": ("generate-1", "generate-2", "generate-3"), "select_tests": ("select_tests",),
              "aggregate": ("aggregate",)}[purpose]
    return sum(traj["phases"].get(phase, {}).get("calls", 0) for phase in phases)


@pytest.mark.slow
@SHARED_RUNS
def test_most_norepro_demonstrations_sample_distinct_candidates_and_a_model_picks_among_passing_ones(bundled_run):
    """Without reproduction every bug takes the unverified path, whose three candidates stand
    for a model sampled three times: on most instances they are at least two distinct patches,
    the model's aggregation picks whenever more than one passes, and every turn of their own is played."""
    distinct = {}
    for path in sorted((DEMOS_DIR / "prometheus-norepro").glob("*.yaml")):
        traj = bundled_run("prometheus-norepro", path.stem)
        assert traj["route"] == "unverified" and len(traj["candidates"]) == 3, path.stem
        distinct[path.stem] = len({c["patch_sha"] for c in traj["candidates"]})
        vote = traj["vote"]
        passing = [g for g in vote["candidates"] if g["passed"]]
        assert "warning" not in vote and vote["method"] == ("model" if len(passing) > 1 else "majority"), path.stem
        own = yaml.safe_load(path.read_text()).get("turns") or {}  # tabulon-311, a feature, plays Prometheus's
        for purpose in set(own) & {"editor", "select_tests", "aggregate"}:
            assert _turns_played(traj, purpose) == len(own[purpose]), (path.stem, purpose)
    assert len(distinct) == 9 and sum(n >= 2 for n in distinct.values()) >= 6, distinct


# The probe set `classes` (agents.matrix probe_sets): one issue of each class the study's bugs
# leave out. Prometheus's bundled demonstration of each must classify it as what it is and take
# its class's workflow: the refactoring the candidates and a vote, the documentation one edit,
# the question an answer and no patch.
PROBES = load_bundled_set("classes", verify_commits=False)


@pytest.mark.slow
@pytest.mark.parametrize("row", PROBES, ids=[r["instance_id"] for r in PROBES])
def test_each_probe_is_classified_as_its_class_and_takes_its_workflow(row, tmp_path, bundled_checkout):
    iid = row["instance_id"]
    checkout = bundled_checkout(iid, tmp_path, index=True)
    agents = {**EMBEDDED, "memory": {"embedding": "lexical"}}
    spec = RunSpec(
        "qwen3.5", PROFILE, "prometheus", "normal", "text", checkout["row"], checkout["mirror"], str(tmp_path / "run"),
        index_db=checkout["db"], pristine_dir=checkout["pristine"],
        playback_source=str(DEMOS_DIR / "prometheus" / f"{iid}.yaml"), agents_cfg=agents,
    )
    traj = run_instance(spec)
    assert traj["exit_status"] == "submitted", traj.get("error")
    assert traj["classification"]["class"] == traj["classification"]["answer"] == row["issue_class"]
    assert traj["classification"]["warning"] is None and "reproduction" not in traj
    patch = (tmp_path / "run" / "patch.diff").read_text()
    if row["issue_class"] == "question":
        assert traj["route"] == "answer" and traj["answer"]["text"] and traj["answer"]["edited"] is False
        assert patch == "" and traj["candidates"] == []
        return
    assert patch.startswith("diff --git")
    if row["issue_class"] == "documentation":
        assert traj["route"] == "single_edit" and traj["candidates"] == [] and traj["vote"] is None
        return
    assert traj["route"] == "unverified"
    assert len(traj["candidates"]) >= EMBEDDED["prometheus"]["candidates"] == 3
    assert all(c["exit_status"] == "Submitted" and c["regression"]["passed"] for c in traj["candidates"])
    vote = traj["vote"]
    assert {"method", "candidates", "winner", "reason"} <= set(vote) and vote["method"] in ("majority", "model")
    assert sum(group["count"] for group in vote["candidates"]) == len(traj["candidates"])
