"""Prompt templates: Jinja files in swevis/prompts, one system and one instance template per agent
role, with the scope (normal, wide) as a template variable."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import minisweagent
import yaml

PROMPT_DIR = Path(__file__).resolve().parents[1] / "prompts"

# A one-shot model stage as the agent-independent mechanisms see it (patch aggregation,
# regression selection): it takes the rendered chat messages and returns the answer's text.
Choose = Callable[[list[dict[str, str]]], str]


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(PROMPT_DIR)), undefined=jinja2.StrictUndefined, keep_trailing_newline=True
    )


def render_prompt(name: str, **values: Any) -> str:
    """Render swevis/prompts/<name>.jinja."""
    return _env().get_template(f"{name}.jinja").render(**values)


@lru_cache(maxsize=1)
def mini_swebench_config() -> dict[str, Any]:
    """mini-swe-agent's own SWE-bench config in its text (backticks) action format: the
    templates, step limit and observation/format-error templates of the mini baseline."""
    path = Path(minisweagent.__file__).parent / "config" / "benchmarks" / "swebench_backticks.yaml"
    return yaml.safe_load(path.read_text())
