"""LET: a locator that commits a plan (its transcript is discarded at the handoff) and an
editor that starts from the plan. Its variants (config agents.variants: working memory,
reproduction, verification; swevis.agents.builtin.let_variants) add their hooks to both phases."""

from __future__ import annotations

import json
from typing import Any

from swevis.agents.registry import AgentKind, is_variant
from swevis.agents.tool_registry import names
from swevis.agents.tools.finish import COMMIT_PLAN, SUBMIT
from swevis.agents.tools.index import LOCALIZE_ISSUE, PACK_CONTEXT, VIEW_CODE

LOCATOR_TOOLS = (LOCALIZE_ISSUE, PACK_CONTEXT, VIEW_CODE, COMMIT_PLAN)
EDITOR_TOOLS = (LOCALIZE_ISSUE, PACK_CONTEXT, VIEW_CODE, SUBMIT)


def run(run: Any) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Locator then editor; a variant (run.variant) adds its memory and its stages. Returns
    (the final phase's exit extra, the plan)."""
    from swevis.agents.prompts import render_prompt  # a run's imports, not the DAG's
    from swevis.agents.tools.environment import ToolEnvironment

    spec, settings = run.spec, run.spec.settings
    issue = spec.row["problem_statement"]
    values = {"repo_root": run.repo_root, "scope": spec.scope}
    tool_kwargs = dict(
        issue_text=issue, index_db=spec.index_db, pristine_dir=spec.pristine_dir, wide=spec.scope == "wide",
        index_options=spec.localize_cfg, top_k=settings.top_k,
    )

    def tool_env(tools: tuple, allow_bash: bool, context: str) -> Any:
        if run.variant is None:
            return ToolEnvironment(run.env, tools=tools, allow_bash=allow_bash, **tool_kwargs)
        return run.variant.tool_env(run.env, tools=tools, allow_bash=allow_bash, context=context, **tool_kwargs)

    limit = settings.locator_step_limit
    located = run.phase(
        env=tool_env(LOCATOR_TOOLS, False, "locator"), phase="locator", purpose="locator",
        system=render_prompt("let_locator_system", **values),
        instance=render_prompt("let_locator_instance", issue=issue, step_limit=limit, **values),
        step_limit=limit, visual=True,
    )
    plan = located.get("plan")
    if located.get("error"):
        return located, plan
    plan_text = json.dumps(plan, indent=2) if plan else "(the locator committed no plan)"
    addendum = ""
    if run.variant is not None:  # optional first editor stage (reproduction), verification note
        addendum = run.variant.editor_addendum(
            run.phase, run.env, issue=issue, plan_text=plan_text, values=values,
            visual=settings.let_editor_visual, tool_kwargs=tool_kwargs,
        )
    limit = settings.editor_step_limit
    edited = run.phase(
        env=tool_env(EDITOR_TOOLS, True, "editor"), phase="editor", purpose="editor",
        system=render_prompt("let_editor_system", **values),
        instance=render_prompt("let_editor_instance", issue=issue, plan=plan_text, step_limit=limit, **values) + addendum,
        step_limit=limit, visual=settings.let_editor_visual,
    )
    return edited, plan


def make_hooks(spec: Any, recorder: Any) -> Any:
    """A variant's hooks (memory, reproduction, verification), or None for LET itself."""
    if not is_variant(spec.agent):
        return None
    # ablation code, imported only when a variant runs: LET itself never loads it (nor the
    # working memory's embedder)
    from swevis.agents.builtin.let_variants import LetVariant

    return LetVariant(spec.agent, spec.agents_cfg, spec.row["problem_statement"], recorder, spec)


AGENT = AgentKind(
    name="let", title="LET", run=run, phases=("locator", "editor"),
    prompts=("let_locator_system", "let_locator_instance", "let_editor_system", "let_editor_instance"),
    tools=tuple(sorted({"bash", *names(LOCATOR_TOOLS + EDITOR_TOOLS)})), needs_index=True,
    evidence_phases=("locator",), commits_plan=True, action_figure="figure5.png",
    make_hooks=make_hooks, takes_variants=True,
)
