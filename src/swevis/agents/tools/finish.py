"""The tools that end a phase with its result: LET's plan, Prometheus's issue class and its
one-answer stages, and the patch.

    commit_plan <<'PLAN' ... PLAN   end the phase with the plan Π(x) as JSON (LET's locator)
    classify_issue CLASS            end the phase with the issue's class (Prometheus's classifier)
    choose_patch N                  the aggregation stage's pick among the candidates
    select_tests <<'T' ... T        the regression selection stage's test ids, one a line
    answer_question <<'A' ... A     end a question's stage with the answer (no patch)
    submit                          end the task; the patch is everything changed since base_commit
"""

from __future__ import annotations

import json
import re
from typing import Any

from swevis.agents.tool_registry import Tool
from swevis.agents.tools.environment import format_error, parse_heredoc, submitted, working_tree_diff

PLAN_LIST_FIELDS = ("target_files", "target_symbols", "relevant_snippets", "propagation_targets", "evidence_refs")
PLAN_TEXT_FIELDS = ("reproduction_command", "notes")
PLAN_FIELDS = PLAN_LIST_FIELDS[:2] + ("reproduction_command",) + PLAN_LIST_FIELDS[2:4] + ("notes", "evidence_refs")


class PlanError(ValueError):
    """A committed plan that does not have the shape of Π(x)."""


def _snippet(item: Any, i: int) -> dict[str, Any]:
    if isinstance(item, str):
        m = re.fullmatch(r"\s*(\S+?):(\d+)(?:-(\d+))?\s*", item)
        if not m:
            raise PlanError(f"relevant_snippets[{i}]: expected 'path:start-end', got {item!r}")
        start = int(m.group(2))
        return {"path": m.group(1), "start": start, "end": int(m.group(3) or start)}
    if isinstance(item, dict) and {"path", "start", "end"} <= set(item):
        try:
            start, end = int(item["start"]), int(item["end"])
        except (TypeError, ValueError):
            raise PlanError(f"relevant_snippets[{i}]: start and end must be line numbers") from None
        if start < 1 or end < start:
            raise PlanError(f"relevant_snippets[{i}]: bad line span {start}-{end}")
        return {"path": str(item["path"]), "start": start, "end": end, **({"why": str(item["why"])} if "why" in item else {})}
    raise PlanError(f"relevant_snippets[{i}]: expected {{path, start, end}} or 'path:start-end'")


def validate_plan(data: Any) -> dict[str, Any]:
    """Check and normalize Π(x) = (target_files, target_symbols, reproduction_command,
    relevant_snippets, propagation_targets, notes, evidence_refs)."""
    if not isinstance(data, dict):
        raise PlanError("the plan must be a JSON object")
    unknown = sorted(set(data) - set(PLAN_FIELDS))
    if unknown:
        raise PlanError(f"unknown plan field(s): {', '.join(unknown)}; the fields are {', '.join(PLAN_FIELDS)}")
    plan: dict[str, Any] = {}
    for key in PLAN_LIST_FIELDS:
        value = data.get(key, [])
        if not isinstance(value, list):
            raise PlanError(f"{key} must be a list")
        plan[key] = value
    for key in PLAN_TEXT_FIELDS:
        value = data.get(key, "")
        if not isinstance(value, str):
            raise PlanError(f"{key} must be a string")
        plan[key] = value
    if not plan["target_files"] or not all(isinstance(f, str) and f for f in plan["target_files"]):
        raise PlanError("target_files must list at least one file path")
    plan["target_symbols"] = [str(s) for s in plan["target_symbols"]]
    plan["relevant_snippets"] = [_snippet(s, i) for i, s in enumerate(plan["relevant_snippets"])]
    return plan


def commit_plan(env: Any, command: str) -> dict[str, Any]:
    body = parse_heredoc(command, COMMIT_PLAN.name)
    try:
        plan = validate_plan(json.loads(body))
    except json.JSONDecodeError as exc:
        raise format_error(f"commit_plan: the plan is not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except PlanError as exc:
        raise format_error(f"commit_plan: {exc}") from None
    text = json.dumps(plan, indent=2)
    raise submitted(text, plan=plan)


def classify_issue(env: Any, command: str) -> dict[str, Any]:
    """End the classification stage with the class named (the agent routes what it does
    not know: an answer is never refused here, so a model's own word is recorded)."""
    answer = command.strip()[len(CLASSIFY_ISSUE.name):].strip().strip("'\"`").strip()
    if not answer:
        raise format_error(f"usage: {CLASSIFY_ISSUE.usage}")
    raise submitted(answer, issue_class=answer)


def choose_patch(env: Any, command: str) -> dict[str, Any]:
    """The aggregation stage's answer: the number of the candidate it picks."""
    word = command.strip()[len(CHOOSE_PATCH.name):].strip()
    if not word.isdigit():
        raise format_error(f"usage: {CHOOSE_PATCH.usage}")
    text = f"CHOICE: {word}"
    raise submitted(text, answer=text)


def select_tests(env: Any, command: str) -> dict[str, Any]:
    """The regression selection stage's answer: test ids, one a line (the first line may
    say why none is chosen)."""
    body = parse_heredoc(command, SELECT_TESTS.name)
    ids = [line.strip() for line in body.splitlines() if line.strip()]
    text = "<selected>\n" + "\n".join(ids) + "\n</selected>\n"
    raise submitted(text, answer=text)


def answer_question(env: Any, command: str) -> dict[str, Any]:
    """A question's answer (Prometheus's answer stage): the text, no patch; an empty answer
    is refused so that the stage ends with something to record."""
    body = parse_heredoc(command, ANSWER_QUESTION.name).strip()
    if not body:
        raise format_error(f"answer_question: the answer is empty; usage: {ANSWER_QUESTION.usage}")
    raise submitted(body, answer=body)


def submit(env: Any, command: str) -> dict[str, Any]:
    patch = working_tree_diff(env.base)
    raise submitted(patch)


COMMIT_PLAN = Tool("commit_plan", "other", "commit_plan <<'PLAN' ... PLAN", commit_plan)
CLASSIFY_ISSUE = Tool("classify_issue", "other",
                      "classify_issue CLASS (bug, feature, refactoring, documentation or question)", classify_issue)
CHOOSE_PATCH = Tool("choose_patch", "other", "choose_patch N (the number of a candidate)", choose_patch)
SELECT_TESTS = Tool("select_tests", "other", "select_tests <<'T' ... T", select_tests)
ANSWER_QUESTION = Tool("answer_question", "other", "answer_question <<'ANSWER' ... ANSWER", answer_question)
SUBMIT = Tool("submit", "other", "submit", submit)
TOOLS = (COMMIT_PLAN, CLASSIFY_ISSUE, CHOOSE_PATCH, SELECT_TESTS, ANSWER_QUESTION, SUBMIT)
