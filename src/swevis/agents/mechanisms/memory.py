"""Working memory (after Prometheus, seeds/prometheus-summary.md §2.2.2), for any agent that composes it.

Every result of ``localize_issue``, ``pack_context`` and ``view_code`` (and every code window a
bash command shows) is stored as a *context unit* together with the query that produced it,
in a :class:`~swevis.agents.mechanisms.memory_store.MemoryStore`: the one store of records and units
for any agent (its sub-queries have Prometheus's three parts). It is ``memory.sqlite`` in the run folder (or the
repository's shared store, config ``agents.memory.share_across_instances``; in memory for
the counterfactual replay), so the memory lives for the whole trajectory, across LET's
locator -> reproduction -> editor stages although the locator's transcript does not, and a
resumed run keeps it. What each conversation has been shown (below) is bookkeeping of the
conversation, kept in Python and rebuilt when a resumed run re-runs its journal's steps.

A new request is matched against memory first:

* **query tools** (``localize_issue``, ``pack_context``): the same tool with the same query is
  an *exact* hit; otherwise the request's three parts (essential query, extra requirements,
  purpose) are embedded and compared with every stored record of the same tool by the
  weighted cosine similarity ``sum_i w_i cos(q_i, r_i)``; the best record at or above the
  threshold is a *semantic* hit. LET's tools take one query string, so its extra
  requirements are the tool's and its purpose the phase's (constants below); the store
  matches any three-part sub-query. A hit is answered from memory without running the
  tool. If its answer is already in the current conversation, only a short reference is sent.
* **code windows**: every line the current conversation has been shown (as text or as
  rendered pages) is remembered with its text. A window whose lines were all shown before,
  unchanged, is answered with a short reference (*exact* when it is the same window,
  *overlap* when it lies inside what was shown): a window is never sent twice. A window
  that is partly new sends only its new lines with a reference to the rest (*overlap*),
  unless that costs at least as many tokens as sending it whole: new fragments are pages
  of their own under a visual condition, and a page over 30 lines with 8 of them blanked
  costs what the whole page costs, plus the reference. Then it is sent whole and its
  repeated lines are counted (``resent_lines``). So the memory never makes an observation
  dearer than it would be without it, except by a reference (a few tokens) in place of a
  tiny window seen before. A line edited since it was shown counts as new.

"Conversation" = one phase's transcript (the locator's or the editor's). The editor has not
seen the locator's messages, so a window the locator read is sent to the editor once; a
query the locator ran is answered to the editor from memory, without running the tool.
Within one conversation no window is ever sent twice while it is unchanged.

Each step that asks for code or a query records ``observation.memory = {hit, kind,
tokens_saved, ...}`` (kind: exact | overlap | semantic | miss); ``tokens_saved`` is what the
observation would have cost without the memory minus what it cost.

Weights and threshold: the seed names the three components and a threshold but gives no
values; swevis starts from essential 0.6, extra 0.2, purpose 0.2 and threshold 0.80
(config ``agents.memory``), with all-MiniLM-L6-v2 (see :mod:`swevis.agents.mechanisms.embedding`);
``benchmarks/bench_memory_match.py`` measures them on paraphrased sub-queries about the
bundled sample repositories.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from swevis.agents.observation.actions import detect_code_read
from swevis.agents.mechanisms.memory_store import (ContextUnit, MemoryRecord, MemorySettings, MemoryStore, SubQuery,
                                                   record_key, store_path)
from swevis.agents.observation.observe import ObservationPipeline, Window, format_window_text, resolve_window
from swevis.agents.tool_registry import Tool, tool_of
from swevis.agents.tools.environment import query_of
from swevis.agents.tools.index import LOCALIZE_ISSUE, PACK_CONTEXT, VIEW_CODE
from swevis.paths import run_subdir

log = logging.getLogger(__name__)

PURPOSES = {
    "locator": "locate the files, symbols and code spans that must change to resolve the issue",
    "reproduction": "reproduce the reported failure with an executable script",
    "editor": "edit the code to resolve the issue and test the change",
}
EXTRAS = {
    LOCALIZE_ISSUE.name: "ranked candidate files, symbols and spans",
    PACK_CONTEXT.name: "file summaries, code windows, search hints and test pointers",
}
# the tools whose answers are query records; a code window shown is a record of source "<tool>:window"
QUERY_TOOLS = (LOCALIZE_ISSUE.name, PACK_CONTEXT.name)
WINDOW_SOURCE = "{tool}:window"


@dataclass(frozen=True)
class QueryRecord:
    """A query tool's stored answer, as the tool environment uses it."""

    id: int
    tool: str
    query: str  # the tool's argument, whitespace-normalised ("" = the issue)
    parts: SubQuery
    phase: str
    step: int
    output: dict[str, Any]
    earlier_run: bool  # made by another run (a store shared across instances)

    @classmethod
    def of(cls, record: MemoryRecord, run: str) -> QueryRecord:
        answer = record.answer or {}
        return cls(record.id, record.source, answer.get("query", record.query.essential_query), record.query,
                   record.stage, record.step, answer.get("output") or {}, record.run != run)


@dataclass
class _Seen:
    text: str
    step: int
    modality: str  # text | rendered pages
    window: tuple[int, int]


class WorkingMemory:
    """One trajectory's working memory: records and context units in a MemoryStore (a file in
    the run folder, a shared one, or in memory when no path is given: the counterfactual
    replay); what each conversation has been shown, in Python (a resumed run rebuilds it
    from its journal)."""

    def __init__(self, config: dict[str, Any] | None = None, issue_text: str = "", *,
                 store_path: str | Path | None = None, run: str = "run", resume_from_step: int = 0):
        settings = MemorySettings.from_config(config)
        self.weights = dict(settings.weights)
        self.threshold = settings.threshold
        self.semantic = settings.semantic
        self.issue_text = issue_text
        self.run = run
        self.store = MemoryStore(store_path if store_path is not None else ":memory:", settings, run=run)
        # a resumed run keeps its records from the steps its journal holds, a fresh one none
        forgotten = self.store.forget_from_step(resume_from_step)
        if forgotten:
            log.info("working memory %s: %d record(s) of steps not journaled forgotten", self.store.path, forgotten)
        self.seen: dict[str, dict[str, dict[int, _Seen]]] = {}  # context -> path -> line -> _Seen
        self.windows_sent: dict[str, list[tuple[str, int, int, int]]] = {}  # context -> (path, s, e, step)
        self.shown: dict[int, dict[str, int]] = {}  # query record id -> context -> step where it was sent
        self.answer_tokens: dict[int, int] = {}  # query record id -> what its observation cost
        self._pending: dict[str, Any] | None = None
        self.resent_lines = 0  # unchanged lines sent again inside a partly new window sent whole (cheaper)

    @property
    def embedder_name(self) -> str | None:
        return self.store.embedder_name

    @property
    def records(self) -> list[QueryRecord]:
        """This run's query records, in the order they were stored."""
        return [QueryRecord.of(r, self.run) for r in self.store.records(QUERY_TOOLS, run=self.run)]

    @property
    def units(self) -> list[ContextUnit]:
        """This run's context units: query answers and their windows, every code window shown."""
        return [u for r in self.store.records(run=self.run) for u in r.units]

    def _parts(self, tool: str, query: str, phase: str) -> SubQuery:
        # LET's tools take one query string: the extra requirements and purpose are the tool's
        # and the phase's (a sub-query with all three parts of its own is the store's to match)
        essential = query.strip() or self.issue_text.strip()[:2000]
        return SubQuery(essential, f"{tool}: {EXTRAS.get(tool, tool)}", PURPOSES.get(phase, phase))

    # ------------------------------------------------------------ query memory
    def lookup_query(self, tool: str, query: str, phase: str, step: int | None = None) -> tuple[str, QueryRecord | None, float]:
        """("exact" | "semantic" | "miss", record, similarity): the same tool with the same
        query is exact, whatever the phase; else the store's weighted three-part match. `step`:
        the step asking (a step re-run from the journal sees only what was stored before it)."""
        norm = " ".join(query.split())
        parts = self._parts(tool, norm, phase)
        rec = self.store.first_with_query(parts.essential_query, source=tool, before_step=step)
        if rec is not None:
            return "exact", QueryRecord.of(rec, self.run), 1.0
        match = self.store.best_match(parts, source=tool, before_step=step) if self.semantic else None
        if match is None:
            return "miss", None, 0.0
        if match.similarity >= self.threshold:
            return "semantic", QueryRecord.of(match.record, self.run), match.similarity
        return "miss", None, match.similarity

    def store_query(self, tool: str, query: str, phase: str, step: int, output: dict[str, Any]) -> QueryRecord:
        """Store a query tool's answer: its text and each of its code windows are context units."""
        norm = " ".join(query.split())
        units = [ContextUnit(content=output.get("output", ""), kind="answer")]
        units += [
            ContextUnit(content=w["text"], kind="window", path=w["path"], start_line=w["start"], end_line=w["end"])
            for w in (output.get("extra") or {}).get("windows") or []
        ]
        rec = self.store.add_record(
            record_key(self.run, phase, step, tool, norm), self._parts(tool, norm, phase), units,
            stage=phase, source=tool, step=step, answer={"query": norm, "output": output},
        )
        return QueryRecord.of(rec, self.run)

    def shown_at(self, record: QueryRecord, context: str) -> int | None:
        """The step at which `context`'s conversation was sent this record's answer, or None."""
        return self.shown.get(record.id, {}).get(context)

    def mark_shown(self, record: QueryRecord, context: str, step: int) -> None:
        self.shown.setdefault(record.id, {})[context] = step

    def note_answer_tokens(self, info: dict[str, Any] | None, observation: dict[str, Any]) -> None:
        """Remember what a query's observation cost: the saving of a later short reference to it."""
        if info and info.get("record") is not None:
            self.answer_tokens[info["record"].id] = int(observation.get("tokens") or 0)

    # the tool environment tells the observation pipeline what the memory did for a query
    def set_pending(self, info: dict[str, Any] | None) -> None:
        self._pending = info

    def take_pending(self) -> dict[str, Any] | None:
        info, self._pending = self._pending, None
        return info

    # ------------------------------------------------------------ window memory
    def split(self, context: str, path: str, start: int, lines: list[str]) -> list[tuple[int, int, _Seen | None]]:
        """The window's lines grouped into runs: (s, e, seen-record or None for new lines)."""
        seen = self.seen.get(context, {}).get(path, {})
        runs: list[tuple[int, int, _Seen | None]] = []
        for i, line in enumerate(lines):
            n = start + i
            s = seen.get(n)
            rec = s if s is not None and s.text == line else None
            if runs and (runs[-1][2] is None) == (rec is None) and (rec is None or runs[-1][2].step == rec.step):
                runs[-1] = (runs[-1][0], n, runs[-1][2])
            else:
                runs.append((n, n, rec))
        return runs

    def mark_seen(self, context: str, path: str, start: int, lines: list[str], step: int, modality: str) -> None:
        if not lines:
            return
        by_path = self.seen.setdefault(context, {}).setdefault(path, {})
        end = start + len(lines) - 1
        for i, line in enumerate(lines):
            before = by_path.get(start + i)
            if before is not None and before.text == line and before.step != step:
                self.resent_lines += 1
            by_path[start + i] = _Seen(line, step, modality, (start, end))
        self.windows_sent.setdefault(context, []).append((path, start, end, step))

    def sent_before(self, context: str, path: str, start: int, end: int) -> bool:
        return any(p == path and s == start and e == end for p, s, e, _ in self.windows_sent.get(context, []))

    def add_window_unit(self, tool: str, phase: str, step: int, window: Window, asked_by: str = "",
                        reason: str = "") -> None:
        """A code window shown is a record of its own (source "<tool>:window", matched only by
        its exact text, never by a query tool) with the window as its one context unit. Its
        sub-query is what asked for it: the span (essential query), the action that showed it
        (extra requirements) and the reason the model gave for that step (purpose)."""
        where = f"{window.path}:{window.start}-{window.end}"
        source = WINDOW_SOURCE.format(tool=tool)
        digest = record_key(window.text)
        unit = ContextUnit(content=window.text, kind="window", path=window.path, start_line=window.start, end_line=window.end)
        asked = SubQuery(where, " ".join(asked_by.split())[:REASON_CHARS], reason)
        self.store.add_record(record_key(self.run, phase, step, source, where, digest), asked, [unit],
                              stage=phase, source=source, step=step, embed=False)


REASON_CHARS = 300
_FENCE = re.compile(r"^```", re.M)


def stated_reason(response: str | None) -> str:
    """What a response says before its action (its THOUGHT), whitespace normalised and at most
    REASON_CHARS long: why the model asked for what the action shows."""
    prose = _FENCE.split(response or "", maxsplit=1)[0]
    return " ".join(prose.split()).removeprefix("THOUGHT:").strip()[:REASON_CHARS]


def _ref_note(path: str, runs: list[tuple[int, int, _Seen]]) -> str:
    spans = ", ".join(f"{s}-{e}" if e > s else f"{s}" for s, e, _ in runs)
    steps = ", ".join(str(x) for x in sorted({seen.step for _, _, seen in runs}))
    how = "/".join(sorted({seen.modality for _, _, seen in runs}))
    return f"[memory: {path} lines {spans} shown at step {steps} ({how}), unchanged; not resent]"


class MemoryObservationPipeline(ObservationPipeline):
    """The observation pipeline with the working memory in front of it (see module doc)."""

    def __init__(self, *args: Any, memory: WorkingMemory, context: str, recorder: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.memory = memory
        self.context = context
        self.recorder = recorder
        self.action = ""  # the action being observed, and the model's stated reason for it
        self.reason = ""

    def begin_action(self, command: str, response: str | None) -> None:
        self.action, self.reason = command, stated_reason(response)

    def _step(self) -> int:
        return len(self.recorder.steps)

    def _modality(self) -> str:
        return "text" if self.config.ratio is None else "rendered pages"

    def _deliver(self, path: str, start: int, lines: list[str]) -> tuple[list[dict], int, int]:
        """One new sub-window as content parts: (parts, tokens, pages)."""
        window = Window(path, start, start + len(lines) - 1, "".join(lines), True)
        body = f"[window {path}:{window.start}-{window.end}]\n{format_window_text(window)}"
        as_text = [{"type": "text", "text": body}], self._text_tokens(body), 0
        if self.config.ratio is not None:
            rendered = self._render_parts(window)
            if not isinstance(rendered, str):  # a str says why it cannot be rendered
                parts, info = rendered
                caption = f"[window {path}:{window.start}-{window.end}, {info['pages']} image(s)]"
                as_pages = [{"type": "text", "text": caption}, *parts], self._text_tokens(caption) + info["image_tokens"], info["pages"]
                # a remainder of a few lines costs less as text than as a page of its own
                return as_pages if as_pages[1] <= as_text[1] else as_text
        return as_text

    def _remember_windows(self, windows: list[Window], step: int, modality: str) -> None:
        for w in windows:
            self.memory.mark_seen(self.context, w.path, w.start, w.text.splitlines(keepends=True), step, modality)

    @staticmethod
    def _join(parts: list[dict]) -> str | list[dict]:
        if all(p.get("type") == "text" for p in parts):
            return "\n".join(p["text"] for p in parts)
        return parts

    def _query_short(self, info: dict[str, Any], output: dict[str, Any], template_vars: dict | None):
        text = self._text(output, template_vars)
        record = {"kind": "text", "pages": 0, "tokens": self._text_tokens(text), "window": None}
        saved = max(0, int(info.get("full_tokens") or 0) - record["tokens"])
        record["memory"] = {**info["memory"], "tokens_saved": saved}
        return text, record

    def _deliver_new(self, window: Window, lines: list[str], runs: list) -> tuple[list[dict], int, int, list[Window]]:
        """The lines of a partly seen window that are new: (parts, tokens, pages, the sub-windows sent)."""
        parts: list[dict] = []
        tokens = pages = 0
        delivered: list[Window] = []
        for s, e, seen in runs:
            if seen is None:
                sub = lines[s - window.start : e - window.start + 1]
                p, t, g = self._deliver(window.path, s, sub)
                parts += p
                tokens += t
                pages += g
                delivered.append(Window(window.path, s, e, "".join(sub), True))
        new_runs = [(s, e) for s, e, seen in runs if seen is None]
        if self.config.ratio is not None and len(new_runs) > 1:
            # Several new fragments cost a page each; one page over the span of the new lines,
            # with the lines already shown blanked (a marker on the first), is often cheaper.
            lo, hi = new_runs[0][0], new_runs[-1][1]
            merged = []
            for s, e, seen in runs:
                if e < lo or s > hi:
                    continue
                chunk = lines[max(s, lo) - window.start : min(e, hi) - window.start + 1]
                if seen is None:
                    merged += chunk
                else:
                    merged += [f"# [memory] lines {max(s, lo)}-{min(e, hi)}: shown at step {seen.step}\n"]
                    merged += ["\n"] * (len(chunk) - 1)
            p, t, g = self._deliver(window.path, lo, merged)
            if t < tokens:
                parts, tokens, pages = p, t, g
        return parts, tokens, pages, delivered

    # -- plain commands (view_code, cat, sed, localize_issue, bash)
    def observe(self, command, output, template_vars=None):
        info = self.memory.take_pending()
        if info and info.get("short"):
            return self._query_short(info, output, template_vars)
        full_content, full_record = super().observe(command, output, template_vars)
        step = self._step()
        read = detect_code_read(command) if output.get("returncode") == 0 else None
        window = None
        if read is not None:
            margin = self.config.wide_margin if self.config.scope == "wide" else 0
            window = resolve_window(read, self.read_file, margin)
        if window is None or len(window.text) > self.config.max_window_chars:
            if info:
                full_record["memory"] = info["memory"]
                self.memory.note_answer_tokens(info, full_record)
            return full_content, full_record
        tool = VIEW_CODE.name if (command or "").strip().startswith(VIEW_CODE.name) else "read"
        self.memory.add_window_unit(tool, self.context, step, window, command or "", self.reason)
        lines = window.text.splitlines(keepends=True)
        runs = self.memory.split(self.context, window.path, window.start, lines)
        if all(r[2] is None for r in runs):
            self._remember_windows([window], step, self._modality() if full_record["kind"] == "image" else "text")
            full_record["memory"] = {"hit": False, "kind": "miss", "tokens_saved": 0}
            return full_content, full_record
        exact = self.memory.sent_before(self.context, window.path, window.start, window.end)
        seen_runs = [r for r in runs if r[2] is not None]
        note = _ref_note(window.path, seen_runs)  # type: ignore[arg-type]
        parts, tokens, pages, delivered = self._deliver_new(window, lines, runs)
        header = self._text({**output, "output": note + "\n"}, template_vars)
        tokens += self._text_tokens(header)
        if delivered and tokens >= full_record["tokens"]:
            # a partly new window whose new lines plus the reference cost no less than the
            # whole window: send it whole (a fully seen window is always a reference)
            self._remember_windows([window], step, self._modality() if full_record["kind"] == "image" else "text")
            full_record["memory"] = {
                "hit": True, "kind": "overlap", "tokens_saved": 0, "sent_whole": True,
                "sent_lines": [[window.start, window.end]],
                "from_steps": sorted({r[2].step for r in seen_runs}),  # type: ignore[union-attr]
            }
            return full_content, full_record
        content = self._join([{"type": "text", "text": header}, *parts])
        self._remember_windows(delivered, step, self._modality() if pages else "text")
        record = {
            "kind": "image" if pages else "text",
            "pages": pages,
            "tokens": tokens,
            "window": window.ref(),
            "memory": {
                "hit": True,
                "kind": "exact" if exact and not delivered else "overlap",
                "tokens_saved": full_record["tokens"] - tokens,
                "sent_lines": [[w.start, w.end] for w in delivered],
                "from_steps": sorted({r[2].step for r in seen_runs}),  # type: ignore[union-attr]
            },
        }
        return content, record

    # -- pack_context (text plus code windows)
    def observe_windows(self, text, windows):
        info = self.memory.take_pending()
        if info and info.get("short"):
            record = {"kind": "text", "pages": 0, "tokens": self._text_tokens(text), "window": None, "windows": []}
            record["memory"] = {**info["memory"], "tokens_saved": max(0, int(info.get("full_tokens") or 0) - record["tokens"])}
            return text, record
        full_content, full_record = super().observe_windows(text, windows)
        step = self._step()
        tool = tool_of(self.action) if self.action else PACK_CONTEXT.name  # pack_context or read_span
        new_lines: list[dict] = []  # option 1: only the new lines of every window
        partly_whole: list[dict] = []  # option 2: a partly new window whole (a fully seen one never)
        notes_new: list[str] = []
        notes_whole: list[str] = []
        any_seen = partly = False
        for w in windows:
            lines = (w["text"] + "\n").splitlines(keepends=True)
            self.memory.add_window_unit(tool, self.context, step, Window(w["path"], w["start"], w["end"], w["text"], True),
                                        self.action, self.reason)
            runs = self.memory.split(self.context, w["path"], w["start"], lines)
            seen_runs = [r for r in runs if r[2] is not None]
            new_runs = [r for r in runs if r[2] is None]
            if seen_runs:
                any_seen = True
                notes_new.append(_ref_note(w["path"], seen_runs))  # type: ignore[arg-type]
                if not new_runs:
                    notes_whole.append(notes_new[-1])
            if new_runs:
                partly = partly or bool(seen_runs)
                partly_whole.append(w)
            for s, e, _ in new_runs:
                sub = lines[s - w["start"] : e - w["start"] + 1]  # each line ends in "\n"
                new_lines.append({**w, "start": s, "end": e, "text": "".join(sub)[:-1]})
        new_windows = new_lines
        if not any_seen:
            content, record = full_content, full_record
            hit = {"hit": False, "kind": "miss", "tokens_saved": 0}
        else:
            def answer(notes, ws):
                return super(MemoryObservationPipeline, self).observe_windows(text + ("\n" + "\n".join(notes) if notes else ""), ws)

            content, record = answer(notes_new, new_lines)
            hit = {"hit": True, "kind": "overlap", "tokens_saved": full_record["tokens"] - record["tokens"]}
            if partly:  # as in observe(): a partly new window may cost less whole than in fragments
                content2, record2 = answer(notes_whole, partly_whole)
                if record2["tokens"] < record["tokens"]:
                    content, record, new_windows = content2, record2, partly_whole
                    hit = {"hit": True, "kind": "overlap", "tokens_saved": full_record["tokens"] - record["tokens"],
                           "sent_whole": True}
            record["windows"] = full_record["windows"]
        modality = self._modality() if record.get("pages") else "text"
        self._remember_windows(
            [Window(w["path"], w["start"], w["end"], w["text"] + "\n", True) for w in new_windows], step, modality
        )
        if info:  # answered from memory (exact or semantic) in a conversation that had not seen it
            hit = {**info["memory"], "tokens_saved": hit["tokens_saved"]}
        record["memory"] = hit
        self.memory.note_answer_tokens(info, record)
        return content, record


def remembering(tool: Tool) -> Tool:
    """A query tool (localize_issue, pack_context) that consults the phase's working memory
    (its WorkingMemory part) first; the tool itself without one."""
    return replace(tool, handler=functools.partial(_remembered, tool))


def remembering_tools(tools: Iterable[Tool]) -> tuple[Tool, ...]:
    """A phase's tools, its query tools consulting the working memory first."""
    return tuple(remembering(t) if t.name in QUERY_TOOLS else t for t in tools)


def _remembered(tool: Tool, env: Any, command: str) -> dict[str, Any]:
    memory: WorkingMemory | None = env.part(WorkingMemory)
    if memory is None:
        return tool.handler(env, command)
    name = tool.name
    query = query_of(command, name)
    step = len(env.recorder.steps)
    kind, rec, sim = memory.lookup_query(name, query, env.context, step)
    if rec is None:
        out = tool.handler(env, command)
        new = memory.store_query(name, query, env.context, step, out)
        memory.mark_shown(new, env.context, step)
        memory.set_pending(
            {"record": new, "memory": {"hit": False, "kind": "miss", "tokens_saved": 0, "similarity": round(sim, 3)}}
        )
        return out
    memo = {"hit": True, "kind": kind, "similarity": round(sim, 3), "from_step": rec.step, "query": rec.query}
    what = f"{name} {rec.query!r}" if rec.query else name
    step_then = memory.shown_at(rec, env.context)
    if step_then is not None:
        why = "this request" if kind == "exact" else f"a similar request (similarity {sim:.2f})"
        text = f"[memory: {why} was answered at step {step_then} above ({what}); the result is unchanged and not resent]\n"
        full = memory.answer_tokens.get(rec.id, 0)
        memory.set_pending({"short": True, "memory": memo, "full_tokens": full})
        return {"output": text, "returncode": 0, "exception_info": ""}
    memory.mark_shown(rec, env.context, step)
    when = f"step {rec.step} of an earlier run on this repository" if rec.earlier_run else f"step {rec.step}"
    header = (
        f"[memory: answered from working memory ({kind} match of {what}, {when}"
        + (f", similarity {sim:.2f}" if kind == "semantic" else "") + "); the tool was not run again]\n"
    )
    memory.set_pending({"record": rec, "memory": memo})
    return {**rec.output, "output": header + rec.output.get("output", "")}


def memory_pipeline(memory: WorkingMemory | None, phase: str, recorder: Any) -> Callable[..., ObservationPipeline]:
    """The observation pipeline of a phase: the memory in front of it when memory is on (the
    LET variants' and Prometheus's stages)."""
    if memory is None:
        return ObservationPipeline
    return functools.partial(MemoryObservationPipeline, memory=memory, context=phase, recorder=recorder)


def make_memory(enabled: bool, issue_text: str, agents_cfg: dict[str, Any], *, options: dict[str, Any] | None = None,
                spec: Any = None, recorder: Any = None) -> WorkingMemory | None:
    """The trajectory's working memory when `enabled` (None otherwise): agents.memory, the
    agent's own `options` over it. With the run's spec, its store is a file (the run
    folder's, or the repository's shared one) and a resumed run (its recorder re-runs the
    journal's steps) keeps its records of the journaled steps; without, it is in memory."""
    if not enabled:
        return None
    options = {**(agents_cfg.get("memory") or {}), **(options or {})}
    if spec is None:
        return WorkingMemory(options, issue_text=issue_text)
    settings = MemorySettings.from_config(options)
    path = store_path(spec.out_dir, settings, repo=spec.row["repo"], commit=spec.row["base_commit"])
    run = "/".join([spec.model_name, f"{spec.agent}-{spec.scope}", spec.condition, run_subdir(spec.row["instance_id"], spec.repeat)])
    return WorkingMemory(options, issue_text=issue_text, store_path=path, run=run, resume_from_step=recorder.resumed_steps)


def memory_summary(steps: list[dict[str, Any]]) -> dict[str, Any]:
    """Hits, misses and tokens saved over a trajectory's steps (trajectory-level record)."""
    mem = [s["observation"].get("memory") for s in steps if (s.get("observation") or {}).get("memory")]
    kinds: dict[str, int] = {}
    for m in mem:
        kinds[m["kind"]] = kinds.get(m["kind"], 0) + 1
    hits = sum(1 for m in mem if m["hit"])
    hit_kinds = {k: sum(1 for m in mem if m["hit"] and lookup_kind(m) == k) for k in ("exact", "semantic", "window")}
    return {
        "lookups": len(mem),
        "hits": hits,
        "misses": len(mem) - hits,
        "hit_rate": round(hits / len(mem), 4) if mem else None,
        "by_kind": kinds,
        "hits_exact": hit_kinds["exact"],
        "hits_semantic": hit_kinds["semantic"],
        "hits_window": hit_kinds["window"],
        # a query hit is a tool call not made, a sub-query hit the graph traversal it spared
        "calls_saved": sum(int(m.get("calls_saved", 1)) for m in mem if m["hit"] and lookup_kind(m) != "window"),
        "tokens_saved": sum(int(m.get("tokens_saved") or 0) for m in mem),
    }


def lookup_kind(memo: dict[str, Any]) -> str:
    """exact | semantic (a query or sub-query answered from memory: those carry the match's
    similarity) | window (code already shown in this conversation, sent as a reference)."""
    if "similarity" not in memo:
        return "window"
    return "exact" if memo["kind"] == "exact" else "semantic"
