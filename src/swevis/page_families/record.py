"""A page family as one object (PageFamily): the conditions it names, the config keys it reads,
its two hooks in the observation pipeline and its ceiling in the counterfactual replay.

The hooks render with what the pipeline lends them (`pages`, a TextPages: how a text becomes
pages under the run's ratio and accounting; `settings`, config agents.pages typed as
PageSettings; both in the agents' observation pipeline), so a family imports no renderer and
the grammar of conditions (swevis.conditions) can be built from the registered families.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


class CallTokens(Protocol):
    """A replayed call's tokens, counted when a family's ceiling asks (swevis.counterfactual.ceiling)."""

    code: int  # the text tokens of the code windows of its observation

    def observation(self) -> int | None:
        """The text tokens of its observation (None: it has none)."""

    def turn_and_observation(self) -> int:
        """The prompt tokens of its assistant turn and its observation as messages."""


@dataclass(frozen=True)
class PageFamily:
    """What a visual condition renders. A family is a subclass in a module of its own that
    overrides the hooks it uses (the defaults render nothing beyond the code windows) and one
    instance registered in swevis.page_families.

    `name` is its name in results (Condition.family, the tables' `family` column); its
    conditions are `<prefix>r<N>`; `settings` are the keys of config agents.pages its hooks
    read (the workflow passes a run only these); `code_windows` says whether code windows are
    rendered as they are observed (Condition.code_ratio); `every_agent`, whether every agent
    takes it (else only an agent naming it in AgentKind.page_families)."""

    name: str
    prefix: str
    settings: tuple[str, ...] = ()
    code_windows: bool = True
    every_agent: bool = False

    @property
    def spelling(self) -> str:
        """How its conditions are written in words: `rN`, `obs-rN`."""
        return f"{self.prefix}rN"

    # -- the two hooks of the observation pipeline
    def finish(self, pages: Any, settings: Any, content: Any, record: dict[str, Any], label: str) -> tuple[Any, dict]:
        """An observation as sent (its content and its record); by default as it is."""
        return content, record

    def history(self, pages: Any, settings: Any) -> Any:
        """What rewrites the messages of each request (an object with `request(messages)`),
        made once a pipeline; by default None: a request sends the conversation as it is."""
        return None

    # -- its ceiling: the tokens of a call's prompt the family would render at T/N
    def ceiling_tokens(self, call: CallTokens, settings: Any) -> int:
        """The tokens a call adds to every later prompt that the family's ceiling renders:
        by default its code windows."""
        return call.code

    def eligible(self, calls: list[int], settings: Any) -> int:
        """E_i of the next call, from ceiling_tokens of the calls so far: by default all of them."""
        return sum(calls)
