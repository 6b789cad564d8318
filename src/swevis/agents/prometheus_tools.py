"""The tool environment of Prometheus's stages: the LET variants' tools (the index's D_loc and
D_pkg, view_code, the reproduction, verification at submit, the working memory) with the
knowledge-graph tools mixed in (swevis.agents.graph_tools). Imported when a Prometheus run
starts, never while the workflow's DAG is built (it loads mini-swe-agent)."""

from __future__ import annotations

from typing import Any

from minisweagent.exceptions import Submitted

from swevis.agents.graph_tools import GraphTools
from swevis.agents.tools import format_error, parse_heredoc
from swevis.agents.variants import VariantToolEnvironment


def _answer(text: str) -> Submitted:
    """End a one-answer stage with `text`, the answer its caller parses."""
    return Submitted({"role": "exit", "content": text, "extra": {"exit_status": "Submitted", "submission": text,
                                                                  "answer": text}})


class PrometheusToolEnvironment(GraphTools, VariantToolEnvironment):
    """A stage's tools; `graph_results` caps each graph search, `node_lines` the lines shown
    of each definition (config agents.prometheus)."""

    def __init__(self, base: Any, *, graph_results: int, node_lines: int, **kwargs: Any):
        super().__init__(base, **kwargs)
        self.graph_results = graph_results
        self.node_lines = node_lines

    def _tool_choose_patch(self, command: str) -> dict[str, Any]:
        """The aggregation stage's answer: the number of the candidate it picks."""
        word = command.strip()[len("choose_patch"):].strip()
        if not word.isdigit():
            raise format_error("usage: choose_patch N (the number of a candidate)")
        raise _answer(f"CHOICE: {word}")

    def _tool_select_tests(self, command: str) -> dict[str, Any]:
        """The regression selection stage's answer: test ids, one a line (the first line may
        say why none is chosen)."""
        body = parse_heredoc(command, "select_tests")
        ids = [line.strip() for line in body.splitlines() if line.strip()]
        raise _answer("<selected>\n" + "\n".join(ids) + "\n</selected>\n")
