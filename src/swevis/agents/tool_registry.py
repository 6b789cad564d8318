"""The tool registry: a tool is one record (its name, action class, usage line and handler),
declared beside its handler in the module of its concern, and a phase's tool set is a tuple
of records (swevis.agents.tools.environment.ToolEnvironment runs them).

Nothing else writes a tool's name: the action classes (swevis.agents.observation.actions),
the model adapter's `tool` of a step and the "not available here" error ask this registry,
which imports the modules that declare tools by name on first use, as the agent registry
imports the agents. Light on purpose, like the tool modules themselves: an agent's module
names its phases' records at import, while the Snakefile's DAG is built.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import Any, Callable

# the modules whose TOOLS tuple declares tools
TOOL_MODULES = (
    "swevis.agents.tools.index",
    "swevis.agents.tools.finish",
    "swevis.agents.tools.graph",
    "swevis.agents.mechanisms.reproduction",
    "swevis.agents.mechanisms.context_engine",
)


@dataclass(frozen=True)
class Tool:
    """One tool: the command's first word, its action class (the paper's Appendix A classes,
    swevis.agents.observation.actions), the usage line its format errors show, and
    handler(env, command) -> the observation (env: the phase's ToolEnvironment)."""

    name: str
    action_class: str
    usage: str
    handler: Callable[[Any, str], dict[str, Any]]


@cache
def all_tools() -> dict[str, Tool]:
    """Every declared tool by name; a name declared twice is an error."""
    found: dict[str, Tool] = {}
    for module in TOOL_MODULES:
        for tool in importlib.import_module(module).TOOLS:
            if tool.name in found:
                raise ValueError(f"tool {tool.name!r} is declared twice")
            found[tool.name] = tool
    return found


def tool_class(name: str) -> str | None:
    """The action class of a tool call's first word, or None when it names no tool."""
    tool = all_tools().get(name)
    return tool.action_class if tool else None


def tool_of(command: str | None) -> str:
    """The tool a command calls, or "bash"."""
    name = command.strip().split(None, 1)[0] if command and command.strip() else ""
    return name if name in all_tools() else "bash"


def names(tools: tuple[Tool, ...] | list[Tool] | set[Tool]) -> tuple[str, ...]:
    """The names of a set of records, sorted (an AgentKind's `tools`)."""
    return tuple(sorted({t.name for t in tools}))
