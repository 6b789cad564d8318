"""The tool environment of Prometheus's stages: the LET variants' tools (the index's D_loc and
D_pkg, view_code, the reproduction, verification at submit, the working memory) with the
knowledge-graph tools mixed in (swevis.agents.tools.graph), the context engine's two tools,
and the one-answer tools of the selection stages. Imported when a Prometheus run starts,
never while the workflow's DAG is built (it loads mini-swe-agent).

The context engine (the paper's §2.2): the model states what it needs as a structured
sub-query, and the working memory answers it first;

    subquery <<'Q'                       {"essential_query": ..., "extra_requirements": ...,
    {...}                                 "purpose": ...}: memory first; a hit returns the
    Q                                     context units stored for a similar sub-query (the
                                          weighted three-part match, agents.memory)
    remember <<'S'                       after a miss: the spans (path:start-end, or
    [...]                                 {"path", "start", "end"}) that answer the open
    S                                     sub-query, read from the checkout, deduplicated,
                                          ordered by file and stored with it in one transaction

so a later stage (or a later sub-query) that asks the same thing gets it without walking the
graph again."""

from __future__ import annotations

import json
import re
from typing import Any

from minisweagent.exceptions import Submitted

from swevis.agents.tools.graph import GraphTools
from swevis.agents.mechanisms.memory_store import ContextUnit, SubQuery, record_key
from swevis.agents.observation.observe import number_lines
from swevis.agents.tools.environment import format_error, parse_heredoc
from swevis.agents.builtin.let_variants import VariantToolEnvironment


def _said(text: str) -> dict[str, Any]:
    return {"output": text if text.endswith("\n") else text + "\n", "returncode": 0, "exception_info": ""}


_SPAN = re.compile(r"\s*(\S+?):(\d+)(?:-(\d+))?\s*")


def parse_subquery(body: str) -> SubQuery:
    """A sub-query from its JSON (essential_query required; the other two parts optional)."""
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise format_error(f"subquery: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or not str(data.get("essential_query") or "").strip():
        raise format_error('subquery: a JSON object with "essential_query" (and optionally "extra_requirements", "purpose")')
    unknown = sorted(set(data) - {"essential_query", "extra_requirements", "purpose"})
    if unknown:
        raise format_error(f"subquery: unknown field(s) {', '.join(unknown)}")
    return SubQuery(*(" ".join(str(data.get(k) or "").split()) for k in ("essential_query", "extra_requirements", "purpose")))


def parse_spans(body: str) -> list[tuple[str, int, int]]:
    """(path, start, end) of each span: a JSON list of {path, start, end} or of path:start-end
    strings, or such strings one a line."""
    try:
        items = json.loads(body)
    except json.JSONDecodeError:
        items = [line for line in body.splitlines() if line.strip()]
    if not isinstance(items, list) or not items:
        raise format_error("remember: a list of spans, path:start-end or {\"path\", \"start\", \"end\"}")
    spans = []
    for item in items:
        if isinstance(item, dict) and {"path", "start", "end"} <= set(item):
            path, start, end = str(item["path"]), item["start"], item["end"]
        elif isinstance(item, str) and (m := _SPAN.fullmatch(item)):
            path, start, end = m.group(1), m.group(2), m.group(3) or m.group(2)
        else:
            raise format_error(f"remember: {item!r} is no span (path:start-end)")
        try:
            start, end = int(start), int(end)
        except (TypeError, ValueError):
            raise format_error(f"remember: {item!r}: start and end must be line numbers") from None
        if start < 1 or end < start:
            raise format_error(f"remember: {item!r}: bad line span {start}-{end}")
        spans.append((path, start, end))
    return spans


def dedupe_spans(spans: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """The spans by file and line, without those another span of the same file contains (the
    authors drop contained contexts the same way; overlapping ones are kept)."""
    ordered = sorted(set(spans), key=lambda s: (s[0], s[1], -s[2]))
    kept: list[tuple[str, int, int]] = []
    for path, start, end in ordered:
        if not any(p == path and s <= start and end <= e for p, s, e in kept):
            kept.append((path, start, end))
    return kept


def _answer(text: str) -> Submitted:
    """End a one-answer stage with `text`, the answer its caller parses."""
    return Submitted({"role": "exit", "content": text, "extra": {"exit_status": "Submitted", "submission": text,
                                                                  "answer": text}})


class PrometheusToolEnvironment(GraphTools, VariantToolEnvironment):
    """A stage's tools; `graph_results` caps each graph search, `node_lines` the lines shown
    of each definition (config agents.prometheus)."""

    def __init__(self, base: Any, *, graph_results: int, node_lines: int, regression: bool = True, **kwargs: Any):
        super().__init__(base, **kwargs)
        self.graph_results = graph_results
        self.node_lines = node_lines
        self.regression = regression  # false: the without-regression-tests ablation, on every path
        self.open_query: SubQuery | None = None  # the sub-query `remember` answers

    def regression_selection(self, diff: str) -> dict[str, Any]:
        if not self.regression:
            return {"symbols": [], "tests": [], "files": [], "skipped": "regression tests off"}
        return super().regression_selection(diff)

    # -- the context engine
    def _tool_subquery(self, command: str) -> dict[str, Any]:
        query = parse_subquery(parse_heredoc(command, "subquery"))
        self.open_query = query
        if self.memory is None:
            return _said("[memory: off] traverse the graph, then `remember` the spans that answer the sub-query")
        match = self.memory.store.lookup(query, source="subquery", before_step=len(self.recorder.steps))
        if match is None:
            return _said("[memory: miss] nothing stored answers this sub-query yet: traverse the graph, then "
                         "`remember` the spans that answer it")
        rec = match.record
        head = (f"[memory: hit, similarity {match.similarity:.2f}, stored by stage {rec.stage} at step {rec.step} "
                f"for: {rec.query.essential_query!r}]\n")
        self.open_query = None  # answered: nothing to remember
        return _said(head + "".join(f"== {u.path}:{u.start_line}-{u.end_line}\n{u.content}" for u in rec.units))

    def _tool_remember(self, command: str) -> dict[str, Any]:
        if self.open_query is None:
            raise format_error("remember stores the spans answering the open sub-query: write a `subquery` first")
        spans = dedupe_spans(parse_spans(parse_heredoc(command, "remember")))
        units = []
        for path, start, end in spans:
            text = self.read_file(path)
            if text is None:
                return {"output": f"remember: no file {path!r} in the repository\n", "returncode": 1, "exception_info": ""}
            lines = text.splitlines()[start - 1 : end]
            if not lines:
                return {"output": f"remember: {path} has no lines {start}-{end}\n", "returncode": 1, "exception_info": ""}
            units.append(ContextUnit(content=number_lines(lines, start), kind="code", path=path, start_line=start,
                                     end_line=start + len(lines) - 1))
        query, self.open_query = self.open_query, None
        if self.memory is None:
            return _said(f"[memory: off] {len(units)} span(s) read; nothing is stored")
        step = len(self.recorder.steps)
        self.memory.store.add_record(record_key(self.memory.run, self.context, step, "subquery", *query.texts()),
                                     query, units, stage=self.context, source="subquery", step=step)
        where = ", ".join(f"{u.path}:{u.start_line}-{u.end_line}" for u in units)
        return _said(f"[memory: stored] {len(units)} span(s) for {query.essential_query!r}: {where}")

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
