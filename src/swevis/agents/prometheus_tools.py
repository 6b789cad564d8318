"""The tool environment of Prometheus's stages: the LET variants' tools (the index's D_loc and
D_pkg, view_code, the reproduction, verification at submit, the working memory) with the
knowledge-graph tools mixed in (swevis.agents.graph_tools). Imported when a Prometheus run
starts, never while the workflow's DAG is built (it loads mini-swe-agent)."""

from __future__ import annotations

from typing import Any

from swevis.agents.graph_tools import GraphTools
from swevis.agents.variants import VariantToolEnvironment


class PrometheusToolEnvironment(GraphTools, VariantToolEnvironment):
    """A stage's tools; `graph_results` caps each graph search, `node_lines` the lines shown
    of each definition (config agents.prometheus)."""

    def __init__(self, base: Any, *, graph_results: int, node_lines: int, **kwargs: Any):
        super().__init__(base, **kwargs)
        self.graph_results = graph_results
        self.node_lines = node_lines
