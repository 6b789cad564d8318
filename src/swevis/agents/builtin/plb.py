"""PLB: bash plus submit, starting from the offline pre-localization package (D_loc + D_pkg
and one model call, `swevis.agents.run.runner.prelocalize`)."""

from __future__ import annotations

from typing import Any

from swevis.agents.registry import AgentKind
from swevis.agents.tool_registry import names
from swevis.agents.tools.finish import SUBMIT
from swevis.conditions import FAMILY_NAMES


def run(run: Any) -> tuple[dict[str, Any], None]:
    """One phase whose instance prompt carries the pre-localization package."""
    from swevis.agents.prompts import render_prompt  # a run's imports, not the DAG's
    from swevis.agents.tools.environment import ToolEnvironment

    spec = run.spec
    if spec.preloc is None:
        raise ValueError("PLB needs its pre-localization package")
    values = {"repo_root": run.repo_root, "scope": spec.scope}
    final = run.phase(
        env=ToolEnvironment(run.env, tools=(SUBMIT,), allow_bash=True), phase="main", purpose="agent",
        system=render_prompt("plb_system", **values),
        instance=render_prompt("plb_instance", issue=spec.row["problem_statement"], package=spec.preloc["package"], **values),
        step_limit=spec.settings.step_limit, visual=True,
    )
    return final, None


AGENT = AgentKind(
    name="plb", title="PLB", run=run, phases=("preloc", "main"),
    prompts=("preloc_system", "preloc_instance", "plb_system", "plb_instance"), tools=("bash", *names((SUBMIT,))),
    needs_index=True, needs_preloc=True, page_families=FAMILY_NAMES, action_figure="figure4.png",
)
