"""mini: mini-swe-agent v2 as released (its SWE-bench templates, bash only), the text baseline."""

from __future__ import annotations

from typing import Any

from swevis.agents.registry import AgentKind
from swevis.conditions import FAMILY_NAMES


def run(run: Any) -> tuple[dict[str, Any], None]:
    """One phase with mini-swe-agent's own templates; the repository root replaces /testbed."""
    from swevis.agents.prompts import mini_swebench_config  # a run's import, not the DAG's

    mini = mini_swebench_config()["agent"]
    final = run.phase(
        env=run.env, phase="main", purpose="agent",
        system=mini["system_template"].replace("/testbed", run.repo_root),
        instance=mini["instance_template"].replace("/testbed", run.repo_root),
        step_limit=run.spec.settings.step_limit, visual=True,
        extra_vars={"task": run.spec.row["problem_statement"]}, templates_are_text=False,
    )
    return final, None


AGENT = AgentKind(
    name="mini", title="mini-SWE-agent", run=run, phases=("main",), tools=("bash",),
    page_families=FAMILY_NAMES, action_figure="figure2.png",
)
