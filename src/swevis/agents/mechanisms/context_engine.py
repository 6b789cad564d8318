"""The context engine (Prometheus, the paper's §2.2): the model states what it needs as a
structured sub-query, and the working memory answers it first;

    subquery <<'Q'                       {"essential_query": ..., "extra_requirements": ...,
    {...}                                 "purpose": ...}: memory first; a hit returns the
    Q                                     context units stored for a similar sub-query (the
                                          weighted three-part match, agents.memory)
    remember <<'S'                       after a miss: the spans (path:start-end, or
    [...]                                 {"path", "start", "end"}) that answer the open
    S                                     sub-query, read from the checkout, deduplicated,
                                          ordered by file and stored with it in one transaction

so a later stage (or a later sub-query) that asks the same thing gets it without walking the
graph again. The phase's environment holds a `ContextEngine` part (the run's memory, or
None when memory is off, and the open sub-query). Light on purpose, like every module that
declares tools.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from swevis.agents.tool_registry import Tool
from swevis.agents.tools.environment import failed, format_error, ok, parse_heredoc

if TYPE_CHECKING:
    from swevis.agents.mechanisms.memory_store import SubQuery


_SPAN = re.compile(r"\s*(\S+?):(\d+)(?:-(\d+))?\s*")


class EmptyQuery(ValueError):
    """A sub-query whose essential query is empty: a tool error (the model asked for nothing)."""


def parse_subquery(body: str) -> SubQuery:
    """A sub-query from its JSON (essential_query required; the other two parts optional).
    Malformed JSON or a missing essential_query is a format error; an empty one, EmptyQuery."""
    from swevis.agents.mechanisms.memory_store import SubQuery

    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise format_error(f"subquery: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or "essential_query" not in data:
        raise format_error('subquery: a JSON object with "essential_query" (and optionally "extra_requirements", "purpose")')
    if not str(data["essential_query"] or "").strip():
        raise EmptyQuery("subquery: the essential query is empty: say what the stage needs to find (nothing was "
                         "looked up or opened)")
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


class ContextEngine:
    """A phase's part: the run's working memory (None: memory off) and the sub-query
    `remember` answers."""

    def __init__(self, memory: Any):
        self.memory = memory
        self.open_query: SubQuery | None = None


def subquery(env: Any, command: str) -> dict[str, Any]:
    engine: ContextEngine = env.part(ContextEngine)
    try:
        query = parse_subquery(parse_heredoc(command, SUBQUERY.name))
    except EmptyQuery as exc:
        return failed(str(exc))  # the open sub-query, if any, stays open
    engine.open_query = query
    if engine.memory is None:
        return ok("[memory: off] traverse the graph, then `remember` the spans that answer the sub-query")
    step = len(env.recorder.steps)
    match = engine.memory.store.best_match(query, source=SUBQUERY.name, before_step=step)
    similarity = 0.0 if match is None else match.similarity
    if match is None or similarity < engine.memory.threshold:
        engine.memory.set_pending({"memory": {"hit": False, "kind": "miss", "tokens_saved": 0,
                                              "similarity": round(similarity, 3)}})
        return ok("[memory: miss] nothing stored answers this sub-query yet: traverse the graph, then "
                  "`remember` the spans that answer it")
    rec = match.record
    # what finding it cost, when this trajectory found it (a shared store's other runs: not known here)
    calls, tokens = traversal_cost(env.recorder.steps, rec.step) if rec.run == engine.memory.run else (0, 0)
    engine.memory.set_pending({"memory": {"hit": True, "kind": "exact" if match.exact else "semantic",
                                          "similarity": round(similarity, 3), "from_step": rec.step,
                                          "calls_saved": calls, "tokens_saved": tokens}})
    head = (f"[memory: hit, similarity {match.similarity:.2f}, stored by stage {rec.stage} at step {rec.step} "
            f"for: {rec.query.essential_query!r}]\n")
    engine.open_query = None  # answered: nothing to remember
    return ok(head + "".join(f"== {u.path}:{u.start_line}-{u.end_line}\n{u.content}" for u in rec.units))


def traversal_cost(steps: list[dict[str, Any]], stored_at: int) -> tuple[int, int]:
    """(model calls, tokens) the answer stored at step `stored_at` cost when it was found: the
    steps from the `subquery` that missed up to and including its `remember` (the graph
    traversal a hit spares), their prompt and completion tokens. (0, 0) when no such `subquery`
    precedes it in `steps`."""
    end = min(stored_at, len(steps) - 1)
    start = next((i for i in range(end, -1, -1) if steps[i].get("tool") == SUBQUERY.name), None)
    if start is None or end < 0:
        return 0, 0
    span = steps[start + 1 : end + 1]
    tokens = sum(int((s.get("usage") or {}).get("prompt_tokens") or 0) + int((s.get("usage") or {}).get("completion_tokens") or 0)
                 for s in span)
    return len(span), tokens


def remember(env: Any, command: str) -> dict[str, Any]:
    from swevis.agents.mechanisms.memory_store import ContextUnit, record_key
    from swevis.agents.observation.observe import number_lines

    engine: ContextEngine = env.part(ContextEngine)
    if engine.open_query is None:
        raise format_error("remember stores the spans answering the open sub-query: write a `subquery` first")
    spans = dedupe_spans(parse_spans(parse_heredoc(command, REMEMBER.name)))
    units = []
    for path, start, end in spans:
        text = env.read_file(path)
        if text is None:
            return {"output": f"remember: no file {path!r} in the repository\n", "returncode": 1, "exception_info": ""}
        lines = text.splitlines()[start - 1 : end]
        if not lines:
            return {"output": f"remember: {path} has no lines {start}-{end}\n", "returncode": 1, "exception_info": ""}
        units.append(ContextUnit(content=number_lines(lines, start), kind="code", path=path, start_line=start,
                                 end_line=start + len(lines) - 1))
    query, engine.open_query = engine.open_query, None
    if engine.memory is None:
        return ok(f"[memory: off] {len(units)} span(s) read; nothing is stored")
    step = len(env.recorder.steps)
    engine.memory.store.add_record(record_key(engine.memory.run, env.context, step, SUBQUERY.name, *query.texts()),
                                   query, units, stage=env.context, source=SUBQUERY.name, step=step)
    where = ", ".join(f"{u.path}:{u.start_line}-{u.end_line}" for u in units)
    return ok(f"[memory: stored] {len(units)} span(s) for {query.essential_query!r}: {where}")


SUBQUERY = Tool("subquery", "search", "subquery <<'Q' ... Q", subquery)
REMEMBER = Tool("remember", "read", "remember <<'S' ... S", remember)
TOOLS = (SUBQUERY, REMEMBER)
