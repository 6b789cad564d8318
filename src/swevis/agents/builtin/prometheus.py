"""Prometheus (Pan et al., arXiv 2507.19942, §2.3): classification, context retrieval with a
working memory, reproduction, patch generation, verification and aggregation, each stage a
model conversation of its own over one repository index and one memory.

Routing (config ``agents.prometheus``):
- classify: the issue's class, one of CLASSES. The paper names bug, feature and refactoring;
  the authors' code routes bug, feature, documentation and question: swevis takes the union.
  An answer outside it (or none) is routed as a bug, with a warning in the run record.
- retrieve: LET's locator conversation (D_loc, D_pkg, view_code) with the working memory in
  front of it; its committed plan is the context the later stages start from.
- a bug is reproduced (LET's reproduction stage); a reproduced bug takes the verified path:
  one generation whose `submit` runs the reproduction and the regression tests, back to the
  model until they pass or ``verify_rounds`` are spent; still failing, the bug falls back to
  the candidate path (the authors' code), the verification rounds recorded.
- a feature, a refactoring and a bug not reproduced take the candidate path (route
  ``unverified``): ``candidates`` independent generations from the unchanged repository,
  deduplicated (swevis.agents.mechanisms.candidates), each distinct patch regression-tested
  once, then voted on; the winner is applied and submitted.
- documentation is one edit (route ``single_edit``): one generation, no reproduction, no
  candidates, no vote.
- a question gets an answer and no patch (route ``answer``): one stage that ends with
  `answer_question`; the answer is recorded in traj.json (``answer``), and a run that edits
  files anyway is flagged there (``edited``), its diff kept.

Regression tests, on both paths: the index's tests of the modified code, narrowed by the model
(select_tests) when there are more than ``regression_selected``, then only those that pass
before the fix (the authors' filter).

Each mechanism is a module of swevis.agents.mechanisms that LET's variants compose too (the
memory, the reproduction, the verification, the candidates and their vote, the regression
tests), composed here with Prometheus's switches.
"""

from __future__ import annotations

import functools
import json
import logging
from dataclasses import dataclass
from typing import Any

from swevis.agents.mechanisms import context_engine
from swevis.agents.mechanisms.reproduction import COMMIT_REPRODUCTION
from swevis.agents.registry import AgentKind
from swevis.agents.tool_registry import Tool, names
from swevis.agents.tools import graph
from swevis.agents.tools.finish import ANSWER_QUESTION, CHOOSE_PATCH, CLASSIFY_ISSUE, COMMIT_PLAN, SELECT_TESTS, SUBMIT
from swevis.agents.tools.index import LOCALIZE_ISSUE, PACK_CONTEXT, VIEW_CODE

log = logging.getLogger(__name__)

# the paper's classes and the authors' code's, in one set; the first is the fallback
CLASSES = ("bug", "feature", "refactoring", "documentation", "question")
# the knowledge-graph tools and the context engine (a structured sub-query, memory first,
# the graph on a miss) in every stage
GRAPH_AND_CONTEXT = graph.TOOLS + context_engine.TOOLS
RETRIEVE_TOOLS = (LOCALIZE_ISSUE, PACK_CONTEXT, VIEW_CODE, COMMIT_PLAN) + GRAPH_AND_CONTEXT
CLASSIFY_TOOLS = (LOCALIZE_ISSUE, VIEW_CODE, CLASSIFY_ISSUE) + GRAPH_AND_CONTEXT
REPRODUCE_TOOLS = (VIEW_CODE, COMMIT_REPRODUCTION) + GRAPH_AND_CONTEXT
GENERATE_TOOLS = (LOCALIZE_ISSUE, PACK_CONTEXT, VIEW_CODE, SUBMIT) + GRAPH_AND_CONTEXT
ANSWER_TOOLS = (LOCALIZE_ISSUE, VIEW_CODE, ANSWER_QUESTION) + GRAPH_AND_CONTEXT
RESET_COMMAND = "git checkout -q -- . && git clean -fdq"


@dataclass(frozen=True)
class PrometheusSettings:
    """The stages' budgets and the ablation switches (config ``agents.prometheus``)."""

    classify_step_limit: int
    retrieve_step_limit: int
    reproduce_step_limit: int
    generate_step_limit: int
    candidates: int
    verify_rounds: int
    regression_limit: int
    output_chars: int
    graph_results: int
    node_lines: int
    regression_selected: int
    aggregation: str
    aggregation_votes: int
    choice_step_limit: int
    memory: bool
    reproduction: bool
    regression: bool

    @classmethod
    def from_config(cls, agents_cfg: dict[str, Any] | None) -> PrometheusSettings:
        from swevis.config import typed_section

        return typed_section(cls, "agents", (agents_cfg or {}).get("prometheus"), within=("prometheus",))


def route_class(answer: str | None) -> tuple[str, str | None]:
    """(the class a stage's answer routes as, a warning or None): outside CLASSES is a bug."""
    word = (answer or "").strip().lower()
    if word in CLASSES:
        return word, None
    return CLASSES[0], f"classification {answer!r} is not one of {', '.join(CLASSES)}: routed as a bug"


class PrometheusHooks:
    """What a Prometheus run keeps across its stages: the settings, the working memory (one
    for every stage), and the records traj.json gets (classification, candidates, vote)."""

    def __init__(self, spec: Any, recorder: Any):
        from swevis.agents.mechanisms.memory import make_memory  # a run's imports, not the DAG's

        self.settings = PrometheusSettings.from_config(spec.agents_cfg)
        self.memory = make_memory(self.settings.memory, spec.row["problem_statement"], spec.agents_cfg, spec=spec,
                                  recorder=recorder)
        self.recorder = recorder
        self.before_fix: dict[str, bool] = {}  # each regression target's result before the fix
        self.deterministic = float(spec.profile.get("temperature") or 0) == 0.0
        self.choices: dict[str, str] = {}  # a deterministic model's answer to each choice asked
        self.choice_calls: dict[str, int] = {}  # the choice stages' model calls, by stage

    def pipeline(self, phase: str) -> Any:
        from swevis.agents.mechanisms.memory import memory_pipeline

        return memory_pipeline(self.memory, phase, self.recorder)

    def tool_env(self, run: Any, tools: tuple[Tool, ...], *, allow_bash: bool, context: str,
                 reproduction: dict | None = None, verification: bool = False) -> Any:
        """A stage's tools with the mechanisms composed in: the memory in front of the query
        tools, the graph, the context engine, the reproduction, the regression tests (and
        verification at submit when `verification`)."""
        from swevis.agents.mechanisms.context_engine import ContextEngine
        from swevis.agents.mechanisms.memory import remembering_tools
        from swevis.agents.mechanisms.reproduction import Reproduction
        from swevis.agents.mechanisms.verification import Verification, verifying
        from swevis.agents.tools.environment import ToolEnvironment
        from swevis.agents.tools.graph import GraphView

        spec, s = run.spec, self.settings
        tools = remembering_tools(tools) if self.memory is not None else tuple(tools)
        if verification:
            tools = tuple(verifying(t) if t.name == SUBMIT.name else t for t in tools)
        parts = [
            self.memory, GraphView(graph_results=s.graph_results, node_lines=s.node_lines), ContextEngine(self.memory),
            Reproduction(output_chars=s.output_chars),
            Verification(reproduction=reproduction, task_row=spec.row, verify_rounds=s.verify_rounds,
                         regression_limit=s.regression_limit, output_chars=s.output_chars, regression=s.regression,
                         narrow=functools.partial(narrow_regression, run, self)),
        ]
        return ToolEnvironment(
            run.env, tools=tools, allow_bash=allow_bash, context=context, recorder=self.recorder, parts=parts,
            issue_text=spec.row["problem_statement"], index_db=spec.index_db, pristine_dir=spec.pristine_dir,
            wide=spec.scope == "wide", index_options=spec.localize_cfg, top_k=spec.settings.top_k,
        )

    def record(self, steps: list[dict[str, Any]]) -> dict[str, Any]:
        from swevis.agents.mechanisms.memory import memory_summary

        out: dict[str, Any] = {"settings": self.settings.__dict__}
        if self.memory is not None:
            out["memory"] = {**memory_summary(steps), "units": len(self.memory.units),
                             "query_records": len(self.memory.records)}
        return out


def conversation(run: Any, hooks: PrometheusHooks, phase: str, *, purpose: str, tools: tuple[Tool, ...],
                 allow_bash: bool, limit: int, system: str, instance: str, system_vars: dict[str, Any],
                 instance_vars: dict[str, Any], addendum: str = "", **env_options: Any) -> tuple[dict, Any]:
    """One stage's model conversation over its tools, its prompts rendered from templates
    (`instance` gets the issue and the step limit too): (its exit extra, its tool environment)."""
    from swevis.agents.prompts import render_prompt

    env = hooks.tool_env(run, tools, allow_bash=allow_bash, context=phase, **env_options)
    result = run.phase(
        env=env, phase=phase, purpose=purpose, system=render_prompt(system, **system_vars),
        instance=render_prompt(instance, issue=run.spec.row["problem_statement"], step_limit=limit,
                               **instance_vars) + addendum,
        step_limit=limit, visual=True,
    )
    return result, env


def classify(run: Any, hooks: PrometheusHooks, values: dict[str, Any]) -> dict[str, Any]:
    """The classification stage: its answer, the class it routes as, and a warning if any."""
    result, _env = conversation(
        run, hooks, "classify", purpose="classify", tools=CLASSIFY_TOOLS, allow_bash=False,
        limit=hooks.settings.classify_step_limit, system="prometheus_classify_system",
        instance="prometheus_classify_instance", system_vars=values, instance_vars=values,
    )
    answer = result.get("issue_class")
    routed, warning = route_class(answer)
    if warning:
        log.warning(warning)
    return {"answer": answer, "class": routed, "warning": warning, "classes": list(CLASSES)}


def retrieve(run: Any, hooks: PrometheusHooks, values: dict[str, Any]) -> dict[str, Any] | None:
    """The context retrieval stage: LET's locator conversation with the memory; its plan."""
    result, _env = conversation(
        run, hooks, "retrieve", purpose="locator", tools=RETRIEVE_TOOLS, allow_bash=False,
        limit=hooks.settings.retrieve_step_limit, system="prometheus_retrieve_system",
        instance="let_locator_instance", system_vars=values, instance_vars=values,
    )
    return result.get("plan")


def reproduce(run: Any, hooks: PrometheusHooks, values: dict[str, Any], plan_text: str) -> dict[str, Any]:
    """The reproduction stage (LET's): the accepted reproduction or None, and the attempts."""
    from swevis.agents.mechanisms.regression import reproduction_runner
    from swevis.agents.mechanisms.reproduction import Reproduction

    result, env = conversation(
        run, hooks, "reproduce", purpose="reproduction", tools=REPRODUCE_TOOLS, allow_bash=True,
        limit=hooks.settings.reproduce_step_limit, system="let_repro_system", instance="let_repro_instance",
        system_vars={"test_runner": reproduction_runner(run.spec.row), **values},
        instance_vars={"plan": plan_text, **values},
    )
    return {"accepted": result.get("reproduction"), "attempts": env.part(Reproduction).attempts}


def generate(run: Any, hooks: PrometheusHooks, values: dict[str, Any], *, issue_class: str, plan_text: str,
             phase: str, candidate: int = 0, reproduction: dict | None = None, verification: bool = False) -> tuple[dict, Any]:
    """One generation conversation: (its exit extra, its tool environment)."""
    from swevis.agents.prompts import render_prompt

    return conversation(
        run, hooks, phase, purpose="editor", tools=GENERATE_TOOLS, allow_bash=True,
        limit=hooks.settings.generate_step_limit, system="let_editor_system", instance="prometheus_generate_instance",
        system_vars=values, instance_vars={"issue_class": issue_class, "plan": plan_text, "candidate": candidate,
                                           "candidates": hooks.settings.candidates, **values},
        addendum=render_prompt("let_verify_note", reproduction=reproduction) if verification else "",
        reproduction=reproduction, verification=verification,
    )


def model_choice(run: Any, hooks: PrometheusHooks, *, phase: str, tool: Tool) -> Any:
    """A model stage that answers a question with one tool call (choose_patch, select_tests):
    a callable taking the question's messages and returning the answer as text, for
    swevis.agents.mechanisms.candidates.aggregate and swevis.agents.mechanisms.regression.select_tests.

    A deterministic model (temperature 0) asked the same question again answers as it did,
    as the response cache would: the earlier answer, with no model call (so the authors' 10
    aggregation votes cost one call at temperature 0, and a playback demo answers once)."""
    from swevis.agents.prompts import render_prompt

    def choose(messages: list[dict[str, str]]) -> str:
        key = json.dumps([phase, messages], sort_keys=True)
        if hooks.deterministic and key in hooks.choices:
            return hooks.choices[key]
        hooks.choice_calls[phase] = hooks.choice_calls.get(phase, 0) + 1
        env = hooks.tool_env(run, (tool,), allow_bash=False, context=phase)
        result = run.phase(
            env=env, phase=phase, purpose=phase,
            system=messages[0]["content"] + "\n\n" + render_prompt("prometheus_choice_tools", tool=tool.name,
                                                                    repo_root=run.repo_root),
            instance=messages[1]["content"], step_limit=hooks.settings.choice_step_limit, visual=False,
        )
        hooks.choices[key] = result.get("answer") or ""
        return hooks.choices[key]

    return choose


def narrow_regression(run: Any, hooks: PrometheusHooks, env: Any, diff: str, selection: dict[str, Any]) -> dict[str, Any]:
    """A patch's regression set as the authors' code narrows it, on both paths: the model's
    subset (select_tests stage) when the index gives more than ``regression_selected`` tests,
    then only the tests that pass before the fix (a test that already fails fails no patch)."""
    from swevis.agents.mechanisms.regression import select_tests
    from swevis.agents.mechanisms.verification import Verification, passing_before_fix

    if len(selection["tests"]) > hooks.settings.regression_selected:
        choose = model_choice(run, hooks, phase=SELECT_TESTS.name, tool=SELECT_TESTS)
        chosen = select_tests(selection["tests"], choose, max_selected=hooks.settings.regression_selected,
                              issue=run.spec.row["problem_statement"], diff=diff)
        status = run.phase_exit.get(SELECT_TESTS.name)
        if status != "submitted":  # no answer at all (a cap, playback run out): not "select none"
            warning = (f"the select_tests stage ended without an answer ({status}): the first "
                       f"{hooks.settings.regression_selected} of the index's tests run")
            log.warning(warning)
            chosen = {**chosen, "method": "rule", "tests": selection["tests"][:hooks.settings.regression_selected],
                      "warning": warning}
        selection = {**selection, "tests": chosen["tests"], "selection": chosen}
    field = "tests" if selection["tests"] else "files"
    targets = list(selection[field])
    if not targets:
        return selection
    kept = passing_before_fix(env, env.part(Verification), targets, hooks.before_fix)
    return {**selection, field: kept, "before_fix": {"ran": targets, "failing": [t for t in targets if t not in kept]}}


def regression_check(run: Any, env: Any, hooks: PrometheusHooks, diff: str) -> dict[str, Any]:
    """The regression tests of the patch in the working tree (narrow_regression), run."""
    from swevis.agents.mechanisms.verification import Verification

    if not hooks.settings.regression:
        return {"passed": True, "skipped": "regression tests off"}
    check = env.part(Verification)
    selection = narrow_regression(run, hooks, env, diff, check.regression_selection(env, diff))
    res = check.run_regression(env, selection)
    keys = ("command", "returncode", "passed", "not_run", "tests", "symbols", "selection", "before_fix")
    return {k: res.get(k) for k in keys if k in res}


def generate_candidates(run: Any, hooks: PrometheusHooks, values: dict[str, Any], issue_class: str,
                        plan_text: str) -> tuple[dict[str, Any], list[dict[str, Any]], Any]:
    """``candidates`` generations, each from the unchanged repository: (the last exit extra,
    each candidate's index, exit status and patch, the last stage's environment)."""
    from swevis.agents.tools.environment import working_tree_diff

    found: list[dict[str, Any]] = []
    final: dict[str, Any] = {}
    env = None
    _run(run.env, RESET_COMMAND)  # a failed reproduction's script (or a failed verified patch) is no candidate's
    for i in range(1, hooks.settings.candidates + 1):
        final, env = generate(run, hooks, values, issue_class=issue_class, plan_text=plan_text,
                              phase=f"generate-{i}", candidate=i)
        found.append({"index": i, "exit_status": final.get("exit_status"), "patch": working_tree_diff(run.env)})
        _run(run.env, RESET_COMMAND)
        if final.get("error"):
            break  # a trajectory outcome (a cap, a context limit): no further candidate is paid for
    return final, found, env


def candidates_path(run: Any, hooks: PrometheusHooks, values: dict[str, Any], issue_class: str,
                    plan_text: str) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """The unverified path: N candidates, deduplicated, each distinct patch applied and
    regression-tested once (a patch that does not apply is dropped with its reason), then
    aggregated; the winner is left in the working tree. (final exit extra, candidates, vote)"""
    from swevis.agents.mechanisms.candidates import aggregate, dedupe

    final, found, env = generate_candidates(run, hooks, values, issue_class, plan_text)
    groups, passed, dropped = [], [], []
    for group in dedupe([c["patch"] for c in found]):
        for i in group["members"]:
            found[i]["patch_sha"] = group["hash"]
        applied = _try_apply(run.env, group["patch"])
        if applied is not None:
            dropped.append({"patch_sha": group["hash"], "members": [found[i]["index"] for i in group["members"]],
                            "reason": applied})
            log.warning("candidate patch %s does not apply: dropped (%s)", group["hash"], applied)
            continue
        check = regression_check(run, env, hooks, group["patch"])
        _run(run.env, RESET_COMMAND)
        for i in group["members"]:
            found[i]["regression"] = check
        groups.append(group)
        passed.append(check["passed"] is not False)  # tests that could not run fail no candidate (verify() too)
    choose = model_choice(run, hooks, phase="aggregate", tool=CHOOSE_PATCH) if hooks.settings.aggregation == "model" else None
    vote = aggregate(groups, passed, choose, issue=run.spec.row["problem_statement"], votes=hooks.settings.aggregation_votes)
    vote.update(dropped=dropped, model_calls=hooks.choice_calls.get("aggregate", 0))
    winner = vote.get("patch") or ""
    if winner.strip():
        _apply(run.env, winner)
    for c in found:
        c.setdefault("patch_sha", None)
        c.setdefault("regression", {"passed": False, "skipped": "empty patch" if c["patch_sha"] is None else "dropped"})
    return final, found, vote


def single_edit(run: Any, hooks: PrometheusHooks, values: dict[str, Any], plan_text: str) -> dict[str, Any]:
    """Documentation: one generation from the unchanged repository, submitted as it is."""
    _run(run.env, RESET_COMMAND)
    final, _env = generate(run, hooks, values, issue_class="documentation", plan_text=plan_text, phase="generate")
    return final


def answer(run: Any, hooks: PrometheusHooks, values: dict[str, Any], plan_text: str) -> tuple[dict[str, Any], dict]:
    """A question: one stage that ends with the answer, no patch. (exit extra, the answer's
    record: its text, and whether the stage edited files anyway, with the diff it left)."""
    from swevis.agents.tools.environment import working_tree_diff

    result, _env = conversation(
        run, hooks, "answer", purpose="answer", tools=ANSWER_TOOLS, allow_bash=True,
        limit=hooks.settings.generate_step_limit, system="prometheus_answer_system",
        instance="prometheus_answer_instance", system_vars=values, instance_vars={"plan": plan_text, **values},
    )
    diff = working_tree_diff(run.env)
    record: dict[str, Any] = {"text": result.get("answer"), "edited": bool(diff.strip())}
    if record["edited"]:  # the diff stays in the tree, so patch.diff keeps it too
        record.update(diff=diff, warning="the question's answer stage edited files: its diff is kept as the patch")
        log.warning(record["warning"])
    return result, record


def _run(env: Any, command: str) -> dict[str, Any]:
    out = env.execute({"command": command})
    if out.get("returncode") != 0:
        raise RuntimeError(f"`{command}` failed: {(out.get('output') or '').strip()[:300]}")
    return out


def _apply_command(patch: str, check: bool = False) -> str:
    flag = " --check" if check else ""
    return f"git apply{flag} --whitespace=nowarn - <<'SWEVIS_PATCH'\n{patch}\nSWEVIS_PATCH"


def _apply(env: Any, patch: str) -> None:
    """Apply a candidate to the unchanged working tree (git apply, through the environment)."""
    _run(env, _apply_command(patch))


def _try_apply(env: Any, patch: str) -> str | None:
    """Apply a candidate to the unchanged working tree; None, or why it does not apply."""
    out = env.execute({"command": _apply_command(patch)})
    if out.get("returncode") == 0:
        return None
    _run(env, RESET_COMMAND)
    return "git apply: " + ((out.get("output") or "").strip().splitlines() or ["failed"])[0][:300]


def _candidates_record(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """traj.json's candidates: each one's record without its patch text, with its size."""
    return [{k: v for k, v in c.items() if k != "patch"} | {"patch_lines": len(c["patch"].splitlines())} for c in found]


def run(run: Any) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """classify -> retrieve -> the class's workflow (module docstring)."""
    from swevis.agents.mechanisms.verification import Verification

    hooks: PrometheusHooks = run.variant
    values = {"repo_root": run.repo_root, "scope": run.spec.scope}
    classification = classify(run, hooks, values)
    run.record["classification"] = classification
    issue_class = classification["class"]
    plan = retrieve(run, hooks, values)
    plan_text = json.dumps(plan, indent=2) if plan else "(the retrieval stage committed no context)"
    if issue_class == "question":
        final, record = answer(run, hooks, values, plan_text)
        run.record.update(route="answer", answer=record, candidates=[], vote=None)
        return final, plan
    if issue_class == "documentation":
        final = single_edit(run, hooks, values, plan_text)
        run.record.update(route="single_edit", candidates=[], vote=None)
        return final, plan
    reproduction = None
    if issue_class == "bug" and hooks.settings.reproduction:
        repro = reproduce(run, hooks, values, plan_text)
        run.record["reproduction"] = repro
        reproduction = repro["accepted"]
    fallback = None
    if reproduction is not None:
        final, env = generate(run, hooks, values, issue_class="bug", plan_text=plan_text, phase="generate",
                              reproduction=reproduction, verification=True)
        verifications = env.part(Verification).verifications
        if verifications and verifications[-1]["passed"]:
            run.record.update(route="verified", candidates=[], vote={"method": "verified", "verifications": verifications})
            return final, plan
        # unverified after its rounds (or no submit at all): the authors fall back to the candidates
        fallback = {"from": "verified", "verifications": verifications, "exit_status": final.get("exit_status")}
        if final.get("error"):
            run.record.update(route="verified", candidates=[], vote={"method": "verified", "verifications": verifications})
            return final, plan  # a trajectory outcome ends the run; no candidate is paid for
    final, found, vote = candidates_path(run, hooks, values, issue_class, plan_text)
    run.record.update(route="unverified", candidates=_candidates_record(found), vote=vote, fallback=fallback)
    return final, plan


AGENT = AgentKind(
    name="prometheus", title="Prometheus", run=run,
    phases=("classify", "retrieve", "reproduce", "generate", "answer", SELECT_TESTS.name, "aggregate"),
    prompts=("prometheus_classify_system", "prometheus_classify_instance", "prometheus_retrieve_system",
             "let_locator_instance", "let_repro_system", "let_repro_instance", "let_editor_system",
             "prometheus_generate_instance", "let_verify_note", "prometheus_regression_system",
             "prometheus_regression_instance", "prometheus_aggregate_system", "prometheus_aggregate_instance",
             "prometheus_choice_tools", "prometheus_answer_system", "prometheus_answer_instance"),
    tools=tuple(sorted({"bash", *names(RETRIEVE_TOOLS + CLASSIFY_TOOLS + REPRODUCE_TOOLS + GENERATE_TOOLS
                                       + ANSWER_TOOLS + (SELECT_TESTS, CHOOSE_PATCH))})),
    needs_index=True, evidence_phases=("retrieve",), commits_plan=True, make_hooks=PrometheusHooks,
    config_keys=("prometheus", "memory"), takes_variants=True, variants_at="prometheus.ablations",
)
