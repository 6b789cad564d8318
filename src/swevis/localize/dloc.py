"""The Localize operator D_loc (paper §4.2, appendix C.1); D_pkg is in swevis.localize.dpkg.

D_loc(x, q) ranks files, symbols and line spans for an issue text x (and an optional
agent sub-query q). Each candidate carries the evidence that put it there:
  1. traceback frames and file:line hints, resolved to the enclosing symbol;
  2. identifiers from the issue (backticked code, dotted paths, CamelCase, snake_case,
     calls) matched against Σ, weighted down when a name is common;
  3. BM25 over symbols, module text and doc chunks, as a fallback signal;
  4. graph expansion around the strongest seeds: parent, base classes, direct callers and
     callees, import neighbours of the top files.
A hand-weighted heuristic adds these up and ranks files; symbols are re-ranked by a logistic
model fitted on gold patches (swevis.localize.rerank) over the heuristic score and a few
graph and symptom features, and lift their files. Spans are the traceback lines, then the
lines inside each ranked symbol that mention the issue (swevis.localize.spans).
D_loc is a plain function; agents call it as a tool.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from swevis.config import schema_defaults, with_defaults
from swevis.index import languages
from swevis.index.store import RepoIndex, Symbol
from swevis.localize.hints import IssueHints, extract_hints, reading_languages, without_environment
from swevis.localize.history import history_features, repo_history
from swevis.localize.rerank import (
    candidate_files, chain_scores, check_model, default_model, history_depth, probability,
)
from swevis.index.source import SourceLines
from swevis.localize.spans import issue_terms, symbol_span
from swevis.localize.symtext import (
    IssueWords, file_context, found_terms, name_features, quoted_strings, set_features, text_features,
)


@dataclass
class Candidate:
    kind: str  # file | symbol | span
    path: str
    qualified_name: str | None
    start_line: int | None
    end_line: int | None
    score: float
    evidence: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def localize_options(options: dict | None) -> dict:
    """The `localize` options over the schema's defaults (keys of other sections ignored)."""
    defaults = schema_defaults("localize")
    return with_defaults(defaults, {k: v for k, v in (options or {}).items() if k in defaults})


def resolve_path(index: RepoIndex, path: str) -> str | None:
    """A path as written in an issue or traceback -> a repository path, by longest unique suffix."""
    parts = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
    for i in range(len(parts)):
        suffix = "/".join(parts[i:])
        matches = [f.path for f in index.files_by_suffix(suffix)]
        if len(matches) == 1:
            if len(parts) - i >= 2 or not languages.is_common_file_name(parts[-1]):
                return matches[0]
            return None
        if len(matches) > 1:
            exact = [m for m in matches if m == suffix]
            return exact[0] if exact else None
    return None


class _Scores:
    def __init__(self, index: RepoIndex, o: dict, source: SourceLines):
        self.index = index
        self.o = o
        self.source = source  # the candidates' files, read once for features and spans
        self.sym: dict[int, float] = {}
        self.sym_ev: dict[int, list[str]] = {}
        self.syms: dict[int, Symbol] = {}
        self.file: dict[str, float] = {}
        self.file_ev: dict[str, list[str]] = {}
        self.spans: list[Candidate] = []
        self.expanded: set[int] = set()  # candidates only because their file ranks high
        self.in_frame: set[int] = set()  # symbols a traceback frame or file:line hint points into

    def add_sym(self, s: Symbol, w: float, ev: str) -> None:
        self.syms[s.id] = s
        self.sym[s.id] = self.sym.get(s.id, 0.0) + w
        evs = self.sym_ev.setdefault(s.id, [])
        if ev not in evs:
            evs.append(ev)

    def add_file(self, path: str, w: float, ev: str) -> None:
        self.file[path] = self.file.get(path, 0.0) + w
        evs = self.file_ev.setdefault(path, [])
        if ev not in evs:
            evs.append(ev)


def _penalty(index: RepoIndex, path: str, o: dict, cache: dict) -> float:
    if path not in cache:
        f = index.file(path)
        p = 1.0
        if f is not None:
            if f.is_test:
                p *= o["test_penalty"]
            if f.kind == "doc":
                p *= o["doc_penalty"]
        if languages.is_stub(path):
            p *= o["stub_penalty"]
        cache[path] = p
    return cache[path]


_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
# "TypeError: ..." ending a pasted traceback: the type is a hint of its own (IssueHints.errors),
# its message is prose. Elsewhere ("ValueError when ...") the name stays.
_EXCEPTION_TYPE = re.compile(r"^\s*[\w.]*(?:Error|Exception|Warning)\b:?")


def _symptom_text(text: str, o: dict) -> str:
    """The issue's prose: title (repeated) and text outside fenced code/output blocks.

    Code and output blocks mostly repeat the API the reporter called (already used as
    identifiers); the prose is where the symptom is described ("width", "rounding",
    "merging", "inclusive"), which is what the walk's focus should follow.
    """
    kept, in_traceback = [], False
    for ln in _FENCE.sub(" ", text).splitlines():
        if ln.startswith("Traceback"):
            in_traceback = True
        elif ln.startswith(("    ", "\t", "  File ")):
            pass  # frames, code and output
        elif in_traceback and ln.strip():
            kept.append(_EXCEPTION_TYPE.sub("", ln))  # the line ending a traceback: keep its message
            in_traceback = False
        elif not ln.startswith(">>>"):
            kept.append(ln)
    lines = "\n".join(kept).strip().splitlines()
    prose = "\n".join(lines)
    title = lines[0] if lines else ""
    return "\n".join([title] * int(o["title_repeat"]) + [prose])


_REL_LABEL = {
    "calls": "calls",
    "called_by": "is called by",
    "child": "contains",
    "parent": "is a member of",
    "base": "inherits from",
    "subclass": "is a base class of",
}


@dataclass
class _WalkResult:
    seeds: list[tuple[int, float]]  # (symbol id, seed score), strongest first
    adj: dict[int, list[tuple[str, int, float]]]  # (relation, neighbour, edge weight) around the seeds
    gained: dict[int, float]  # mass each symbol received through the graph, relative to the most


def _walk(index: RepoIndex, sc: "_Scores", relevance: dict[int, float], o: dict, pen: dict) -> _WalkResult | None:
    """A lexically focused personalized-PageRank walk over calls/contains/inherits edges.

    Seeds are the strongest symbols so far (restart distribution proportional to their
    scores). The walk moves along the graph within `walk_depth` hops of a seed; the
    probability of stepping from u to v is proportional to the edge type's weight times
    (eps + BM25 relevance of v's own text to the issue), so mass flows down call chains
    toward the callees whose body, name or docstring reads like the issue (a symptom seen in
    caller code, fixed in a helper). What a symbol receives through the graph (its walk
    score minus its own restart mass) is added to its score, scaled to the top seed.
    """
    seeds = sorted(sc.sym.items(), key=lambda kv: -kv[1])[: o["walk_seeds"]]
    seeds = [(sid, v) for sid, v in seeds if v > 0]
    if not seeds:
        return None
    total = sum(v for _, v in seeds)
    p0 = {sid: v / total for sid, v in seeds}
    hood = _neighbourhood(index, seeds, p0, o)
    if len(hood.nodes) <= len(p0) and not hood.adj:
        return _WalkResult(seeds, {}, {})
    syms = index.symbols_by_ids(hood.nodes)
    for sid, s in sc.syms.items():
        syms.setdefault(sid, s)
    rel_max = max(relevance.values()) if relevance else 1.0

    def focus(v: int) -> float:
        s = syms.get(v)
        p = _penalty(index, s.path, o, pen) if s is not None else 1.0
        return (o["walk_eps"] + relevance.get(v, 0.0) / rel_max) * p

    gained = _pagerank(hood, p0, focus, o)
    _walk_evidence(index, sc, hood, seeds, p0, syms, gained, relevance, o, pen)
    gmax = max(gained.values(), default=0.0) or 1.0
    return _WalkResult(seeds, hood.adj, {v: max(g, 0.0) / gmax for v, g in gained.items() if v in syms})


@dataclass
class _Neighbourhood:
    nodes: set[int]  # the seeds and every symbol reached within walk_depth hops
    via: dict[int, tuple[int, str]]  # the first path to each node: (previous node, relation)
    adj: dict[int, list[tuple[str, int, float]]]  # (relation, neighbour, edge weight)
    reach: dict[int, float]  # best seed score x decay^hops x edge weights


def _neighbourhood(index: RepoIndex, seeds: list[tuple[int, float]], p0: dict[int, float], o: dict) -> _Neighbourhood:
    """Breadth-first to walk_depth hops from the seeds, with the first path to each node."""
    ew = o["walk_edge_weights"]
    cc = o["call_confidence"]
    hood = _Neighbourhood(nodes=set(p0), via={}, adj={}, reach={sid: v for sid, v in seeds})
    nodes, via, adj, reach = hood.nodes, hood.via, hood.adj, hood.reach
    frontier = list(p0)
    for _depth in range(o["walk_depth"]):
        if not frontier or len(nodes) >= o["walk_max_nodes"]:
            break
        nxt: list[int] = []
        for a, rel, b, how in index.adjacency(frontier, limit=o["walk_fanout"]):
            w_edge = ew.get(rel, 0.0) * (cc.get(how, 1.0) if how else 1.0)
            if w_edge <= 0:
                continue
            adj.setdefault(a, []).append((rel, b, w_edge))
            val = reach.get(a, 0.0) * o["reach_decay"] * min(1.0, w_edge)
            if b not in nodes and len(nodes) < o["walk_max_nodes"]:
                nodes.add(b)
                via[b] = (a, rel)
                nxt.append(b)
                reach[b] = val
            elif b in reach and b not in p0 and val > reach[b] and b in nxt:
                reach[b] = val
                via[b] = (a, rel)
        frontier = nxt
    return hood


def _pagerank(hood: _Neighbourhood, p0: dict[int, float], focus, o: dict) -> dict[int, float]:
    """Personalized PageRank over the neighbourhood (steps weighted by edge weight times the
    target's focus): the mass each node receives beyond its own restart mass."""
    trans: dict[int, list[tuple[int, float]]] = {}
    for a, outs in hood.adj.items():
        ws = [(b, w_edge * focus(b)) for rel, b, w_edge in outs if b in hood.nodes]
        z = sum(w for _, w in ws)
        if z > 0:
            trans[a] = [(b, w / z) for b, w in ws]
    alpha = 1.0 - o["walk_restart"]
    r = dict(p0)
    for _ in range(o["walk_iterations"]):
        nr = {sid: (1 - alpha) * v for sid, v in p0.items()}
        for a, mass in r.items():
            for b, w in trans.get(a, ()):
                nr[b] = nr.get(b, 0.0) + alpha * mass * w
        r = nr
    return {v: m - (1 - alpha) * p0.get(v, 0.0) for v, m in r.items()}


def _walk_evidence(
    index: RepoIndex, sc: "_Scores", hood: _Neighbourhood, seeds: list[tuple[int, float]], p0: dict[int, float],
    syms: dict[int, Symbol], gained: dict[int, float], relevance: dict[int, float], o: dict, pen: dict,
) -> None:
    """Add what each node gained through the walk, and how strongly a seed reaches it times
    its relevance, to its score, with the path that reached it as evidence."""
    top = seeds[0][1]
    rel_max = max(relevance.values()) if relevance else 1.0
    gmax = max(gained.values(), default=0.0) or 1.0
    for v in hood.nodes:
        if v not in syms:
            continue
        g = max(gained.get(v, 0.0), 0.0)
        # callee scoring: how strongly v is reached from a seed, times how much it reads like the issue
        hit = 0.0 if v in p0 else hood.reach.get(v, 0.0) * relevance.get(v, 0.0) / rel_max
        hit *= _penalty(index, syms[v].path, o, pen)
        if g <= 1e-9 and hit <= 1e-9:
            continue
        path = []
        cur = v
        while cur in hood.via and len(path) < o["walk_depth"]:
            prev, rel = hood.via[cur]
            path.append(f"{syms[prev].qualname if prev in syms else prev} {_REL_LABEL.get(rel, rel)} "
                        f"{syms[cur].qualname if cur in syms else cur}")
            cur = prev
        ev = "graph walk: " + (" <- ".join(path) if path else "seed") + (
            f" (relevance {relevance.get(v, 0.0) / rel_max:.2f})")
        # what the graph adds is worth less to a symbol the issue already points at directly
        own = sc.sym.get(v, 0.0) / top
        damp = max(0.0, 1.0 - own) * (o["walk_seed_factor"] if v in p0 else 1.0)
        sc.add_sym(syms[v], o["w_walk"] * top * g / gmax * damp + o["w_reach"] * hit, ev)


def is_test_module(path: str) -> bool:
    """Test code by its language's conventions (Python: test_*.py, *_test.py, conftest.py, or a
    file under a tests/ folder): never an edit site.

    Narrower than the index's is_test (which also counts test/ and testing/ folders): those
    hold library code in several SWE-bench repositories (django/test/, sympy/testing/,
    numpy/testing/), which must stay symbol candidates.
    """
    return languages.is_test_module(path)


_FLAG_NAMES = ("is_class", "is_exception", "is_private")


def _symbol_flags(index: RepoIndex, s: Symbol, parents: dict[int, Symbol]) -> dict[str, float]:
    """is_class / is_exception / is_private (by its language's convention); `parents` holds the
    candidates' parents, fetched in one query (a folded-in definition's parent may be missing and is looked up)."""
    parent = (parents.get(s.parent_id) or index.symbol(s.parent_id)) if s.parent_id is not None else None
    names = [s.name] + ([parent.name] if parent is not None else [])
    return {
        "is_class": 1.0 if s.kind == "class" else 0.0,
        "is_exception": 1.0 if any(n.endswith(("Error", "Exception", "Warning")) for n in names) else 0.0,
        "is_private": 1.0 if languages.is_private(s.path, s.name, s.signature) else 0.0,
    }


def _fold_local_functions(index: RepoIndex, sc: "_Scores", feats: dict[int, dict[str, float]], own_features) -> None:
    """A function defined inside a function is not addressable (an agent views, and gold_symbols
    counts, its enclosing definition): its score, features and evidence go to that definition,
    which keeps the larger value of each."""
    while True:
        local = [sid for sid in sc.sym if sc.syms[sid].kind == "function" and sc.syms[sid].parent_id is not None]
        parents = index.symbols_by_ids({sc.syms[sid].parent_id for sid in local})
        local = [sid for sid in local if parents.get(sc.syms[sid].parent_id) is not None
                 and parents[sc.syms[sid].parent_id].kind in ("function", "method")]
        if not local:
            return
        for sid in local:
            parent = parents[sc.syms[sid].parent_id]
            sc.syms.setdefault(parent.id, parent)
            sc.sym[parent.id] = max(sc.sym.get(parent.id, 0.0), sc.sym.pop(sid))
            if parent.id not in feats:
                feats[parent.id] = own_features(parent.id)
            into = feats[parent.id]
            for k, v in feats.pop(sid, {}).items():
                if k not in _FLAG_NAMES:
                    into[k] = max(into.get(k, 0.0), v)
            evs = sc.sym_ev.setdefault(parent.id, [])
            evs.extend(e for e in sc.sym_ev.get(sid, []) if e not in evs)


def localize_issue(
    index: RepoIndex,
    issue_text: str,
    *,
    query: str | None = None,
    top_k: int = 10,
    options: dict | None = None,
    model: dict | None = None,
    repo_dir: str | Path | None = None,
) -> list[Candidate]:
    """D_loc: ranked candidates (up to top_k files, top_k symbols, top_k spans), best first.

    Symbols are ranked by the re-ranker's probability (swevis.localize.rerank; `model`
    overrides the shipped weights), or by the heuristic score when options say `ranker:
    heuristic`. Files by the heuristic score, under the re-ranker plus `w_file_symbol` times
    their best symbol's probability. Spans: traceback and file:line
    spans first, then one span inside each ranked symbol (swevis.localize.spans), read from
    `repo_dir` (default: the folder the index was built from).
    """
    o = localize_options(options)
    if o["ranker"] not in ("heuristic", "learned"):
        raise ValueError(f"unknown ranker {o['ranker']!r}: expected 'heuristic' or 'learned'")
    learned = model is not None or o["ranker"] == "learned"
    if model is not None:
        check_model(model)
    m = (model or default_model()) if learned else None
    sc, feats = issue_evidence(index, issue_text, query=query, options=options, repo_dir=repo_dir,
                               candidate_files=candidate_files(m) if learned else 0,
                               history_depth=history_depth(m) if learned else 0)
    file_scores = sc.file  # it already holds its best symbol's heuristic score (_lift_files)
    if learned:
        sym = {sid: probability(f, m) for sid, f in feats.items()}
        file_scores = _file_scores(sc, sym, o)
    else:
        sym = dict(sc.sym)
    files = sorted(file_scores.items(), key=lambda kv: (-kv[1], kv[0]))[:top_k]
    syms = sorted(sym.items(), key=lambda kv: (-kv[1], sc.syms[kv[0]].path, sc.syms[kv[0]].start_line))[:top_k]
    ranked = [(sc.syms[sid], v) for sid, v in syms]
    spans = _ranked_spans(sc.spans, ranked, _issue_text(issue_text, query, o), top_k, sc.source, o,
                          reading_languages(index.languages()))
    out = [Candidate("file", p, None, None, None, round(v, 4), sc.file_ev.get(p, [])[:6]) for p, v in files]
    for sid, v in syms:
        s = sc.syms[sid]
        out.append(Candidate("symbol", s.path, s.qualname, s.start_line, s.end_line, round(v, 4), sc.sym_ev[sid][:6]))
    out.extend(spans)
    return interleaved(out)


def _file_scores(sc: "_Scores", sym: dict[int, float], o: dict) -> dict[str, float]:
    """Files by heuristic score, plus `w_file_symbol` times the re-ranker's probability of their
    best symbol candidate (both relative to the best), so the learned ranking steers the files."""
    w = o["w_file_symbol"]
    if w <= 0 or not sc.file:
        return dict(sc.file)
    fmax = max(sc.file.values()) or 1.0
    smax = max(sym.values(), default=0.0) or 1.0
    best: dict[str, float] = {}
    for sid, v in sym.items():
        p = sc.syms[sid].path
        best[p] = max(best.get(p, 0.0), v / smax)
    return {p: v / fmax + w * best.get(p, 0.0) for p, v in sc.file.items()}


def _ranked_spans(trace_spans: list[Candidate], ranked: list[tuple[Symbol, float]], text: str, top_k: int,
                  source: SourceLines, o: dict, reading: tuple) -> list[Candidate]:
    """Traceback/file-line spans (by heuristic score), then a span inside each ranked symbol
    that overlaps none before it, in the symbols' order; up to top_k. `reading`: the languages
    the issue is read with (swevis.localize.hints.reading_languages).

    A symbol's span scores below every traceback span (scaled into (0, lowest of them)),
    so one list sorted by score keeps that order.
    """
    spans = sorted(trace_spans, key=lambda c: -c.score)[:top_k]
    floor = min((c.score for c in spans), default=1.0)
    words, quoted = issue_terms(text or "", extract_hints(text or "", reading), reading)
    n = len(ranked)
    for i, (s, _v) in enumerate(ranked):
        if len(spans) >= top_k:
            break
        start, end, why = symbol_span(source(s.path), s.start_line, s.end_line, s.name, words, quoted,
                                      o["span_context"], languages.language_for(s.path))
        # a class's span is often its member's, a frame's span covers its symbol's best line
        if any(c.path == s.path and c.start_line <= end and start <= (c.end_line or c.start_line) for c in spans):
            continue
        score = floor * 0.99 * (n - i) / n
        spans.append(Candidate("span", s.path, s.qualname, start, end, round(score, 6), [f"{why} in {s.qualname}"]))
    return spans


_KIND_ORDER = {"symbol": 0, "span": 1, "file": 2}


def interleaved(candidates: list[Candidate]) -> list[Candidate]:
    """Candidates of all kinds in one order: by rank within their kind, then symbol, span, file.

    Scores are comparable only within a kind (a symbol's is the re-ranker's probability, a
    span's and a file's are heuristic sums), so the best symbol, the best span and the best
    file come first, then the second of each, and so on.
    """
    rank: dict[int, int] = {}
    for kind in _KIND_ORDER:
        for i, c in enumerate(by_kind(candidates, kind)):
            rank[id(c)] = i
    return sorted(candidates, key=lambda c: (rank.get(id(c), 0), _KIND_ORDER.get(c.kind, 3)))


def _issue_text(issue_text: str | None, query: str | None, o: dict) -> str:
    """The text D_loc reads: the sub-query first, the issue without its template's headings
    and environment sections when `drop_environment` says so."""
    text = issue_text or ""
    if o["drop_environment"]:
        text = without_environment(text)
    return f"{query}\n{text}" if query else text


def issue_evidence(
    index: RepoIndex, issue_text: str, *, query: str | None = None, options: dict | None = None,
    repo_dir: str | Path | None = None, candidate_files: int = 0, history_depth: int = 0,
) -> tuple["_Scores", dict[int, dict[str, float]]]:
    """The heuristic scores of files, symbols and spans, and the re-ranker's features of every
    symbol candidate (test code excluded, local functions folded into their definition); a
    symbol's own lines are read from `repo_dir` (default: the folder the index was built from).
    `candidate_files`: every definition of that many best files is a candidate too (a setting
    of the re-ranker's model, which was fitted with them: swevis.localize.rerank).
    `history_depth`: count the changes of each candidate's file and definition in that many
    past commits of the checkout's git history (swevis.localize.history; 0: not read)."""
    o = localize_options(options)
    text = _issue_text(issue_text, query, o)
    hints = extract_hints(text, reading_languages(index.languages()))
    checkout = repo_dir if repo_dir is not None else index.meta.get("repo_dir")
    sc = _Scores(index, o, SourceLines(checkout))
    _frame_evidence(index, sc, hints, o)
    _mention_evidence(index, sc, hints, o)
    _identifier_evidence(index, sc, hints, o)
    _bm25_evidence(index, sc, text, o)
    pen = _apply_penalties(index, sc, o)

    # 5. graph expansion around the strongest seeds: a focused walk down call chains ...
    relevance = index.symbol_relevance(_symptom_text(text, o))
    rel_max = max(relevance.values(), default=0.0) or 1.0
    relevance = {v: r / rel_max for v, r in relevance.items()}
    walked = _walk(index, sc, relevance, o, pen) if o["walk"] else None
    # ... and the direct neighbours of the top seeds
    _neighbour_evidence(index, sc, o, pen)
    _lift_files(sc)
    _top_file_symbols(index, sc, candidate_files)

    # the edit site is an innermost definition: a class ranks as a symbol candidate below its
    # members (it has already seeded the walk and lifted its file)
    for sid in sc.sym:
        if sc.syms[sid].kind == "class":
            sc.sym[sid] *= o["final_class_factor"]
    feats = _symbol_features(index, sc, relevance, walked, o)
    _own_text_features(sc, feats, text, hints, sc.source)
    if history_depth > 0:
        history = repo_history(checkout, history_depth)
        for sid, f in feats.items():
            f.update(history_features(history, history_depth, sc.syms[sid].path, sc.syms[sid].qualname))
    return sc, feats


def _frame_evidence(index: RepoIndex, sc: "_Scores", hints: IssueHints, o: dict) -> None:
    """1. Traceback frames and file:line hints -> their files, enclosing symbols and spans."""
    n_frames = max(1, len(hints.frames))
    for f in hints.frames:
        path = resolve_path(index, f.path)
        if path is None:
            continue
        recency = 1.0 + 0.5 * (f.order + 1) / n_frames
        w = (o["w_traceback"] if f.func else o["w_file_line"]) * recency
        where = f"{path}:{f.line}" + (f" in {f.func}" if f.func else "")
        sym = index.enclosing_symbol(path, f.line)
        if f.func and (sym is None or sym.name != f.func.split(".")[-1]):
            named = [s for s in index.symbols_in_file(path) if s.name == f.func.split(".")[-1]]
            if named:
                sym = named[0]
        if sym is not None:
            sc.add_sym(sym, w, f"traceback/file-line hint {where} is inside {sym.qualname}")
            sc.in_frame.add(sym.id)
            if f.func and o["w_frame_callee"] > 0:
                _frame_callee_evidence(index, sc, sym, w * o["w_frame_callee"], where)
        sc.add_file(path, w, f"traceback/file-line hint {where}")
        c = o["span_context"]
        sc.spans.append(
            Candidate("span", path, sym.qualname if sym else None, max(1, f.line - c), f.line + c, w,
                      [f"traceback/file-line hint {where}"])
        )


def _frame_callee_evidence(index: RepoIndex, sc: "_Scores", frame_sym: Symbol, w: float, where: str) -> None:
    """1b. The crash site is not always the fix site: the callees of a traceback frame's
    symbol (the producers of the value it fails on) share `w`, the frame's weight times
    `w_frame_callee`, divided by the square root of their number."""
    callees = [nb for _rel, nb in index.neighbours(frame_sym.id, ("calls",), limit=20) if nb.id != frame_sym.id]
    for nb in callees:
        sc.add_sym(nb, w / math.sqrt(len(callees)), f"called by traceback frame {where} ({frame_sym.qualname})")


def _mention_evidence(index: RepoIndex, sc: "_Scores", hints: IssueHints, o: dict) -> None:
    """2. File paths, modules and dotted names mentioned in the issue."""
    for p in hints.paths:
        path = resolve_path(index, p)
        if path is not None:
            sc.add_file(path, o["w_path"], f"path {p} mentioned in the issue")
    for d in hints.dotted:
        for f in index.files_by_module(d):
            sc.add_file(f.path, o["w_path"], f"module {d} mentioned in the issue")
        matches = index.symbols_by_dotted(d) if "." in d else []
        if 0 < len(matches) <= 5:
            for s in matches:
                sc.add_sym(s, o["w_dotted"] / len(matches), f"dotted name `{d}` matches {s.full_name}")
    if o["w_module_twin"] > 0:
        for d in hints.dotted:
            _module_twin_evidence(index, sc, d, o)


def _module_twin_evidence(index: RepoIndex, sc: "_Scores", dotted: str, o: dict) -> None:
    """2b. A dotted name's module prefix -> the project's module of that (last) name.

    `unittest.TestCase` names the standard library, but the issue is about the project's own
    `_pytest/unittest.py`; `fields.String` is `src/marshmallow/fields.py` imported by its last
    name. The module files (not packages: an __init__.py is a name, not a location) ending the
    longest proper prefix of `dotted`, if at most 3, and their top-level symbols whose name
    contains the next component (`UnitTestCase` for `TestCase`) share `w_module_twin`. A file
    without such a symbol gets nothing: `table.extend` is a method called on a variable.
    """
    parts = dotted.split(".")
    if len(parts) < 2 or index.files_by_module(dotted):
        return
    for n in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:n])
        stem = prefix.replace(".", "/")
        files = [f for ext in languages.extensions("code", stubs=False) for f in index.files_by_suffix(stem + ext)
                 if f.kind == "code"]
        if files and len(files) <= 3:
            break
    else:
        return
    w = o["w_module_twin"] / len(files)
    rest = parts[n].lower()
    for f in files:
        named = [s for s in index.symbols_in_file(f.path)
                 if s.parent_id is None and not s.name.startswith("__") and rest in s.name.lower()]
        if not 0 < len(named) <= 5:
            continue
        sc.add_file(f.path, w, f"`{dotted}` names module {prefix}, the project's {f.path}")
        for s in named:
            sc.add_sym(s, w / len(named), f"`{dotted}` names module {prefix} and {parts[n]}: {s.qualname} in {f.path}")


def _identifier_evidence(index: RepoIndex, sc: "_Scores", hints: IssueHints, o: dict) -> None:
    """3. Identifiers matched against Σ by name (rarer names weigh more), and their private twins."""
    for name, strength in hints.identifiers.items():
        matches = index.symbols_by_name(name, limit=o["max_name_matches"] + 1)
        if not matches or len(matches) > o["max_name_matches"]:
            continue
        w = o["w_identifier"] * strength / math.sqrt(len(matches))
        for s in matches:
            # a class named in an issue is usually context, the edit site is one of its members
            wk = w * (o["class_factor"] if s.kind == "class" else 1.0)
            sc.add_sym(s, wk, f"identifier `{name}` matches {s.kind} {s.qualname}" + (f" (1 of {len(matches)})" if len(matches) > 1 else ""))

    if o["w_class_member"] > 0:
        _class_member_evidence(index, sc, hints, o)

    # 3b. private twins: `net_income` named in the issue -> the helper `_net_income` doing the work
    if o["w_private_twin"] > 0:
        for name, strength in hints.identifiers.items():
            if name.startswith("_") or not name[:1].islower():
                continue
            twins = index.symbols_by_name("_" + name, limit=o["max_name_matches"] + 1)
            if not twins or len(twins) > o["max_name_matches"]:
                continue
            w = o["w_identifier"] * o["w_private_twin"] * strength / math.sqrt(len(twins))
            for s in twins:
                sc.add_sym(s, w, f"identifier `{name}` has a private twin {s.kind} {s.qualname}")


def _class_family(index: RepoIndex, cls: Symbol, depth: int = 3) -> list[tuple[Symbol, str]]:
    """A class, its base classes up to `depth` levels and its direct subclasses, with how each
    relates to it ("", "a base class of", "a subclass of")."""
    family, seen, frontier = [(cls, "")], {cls.id}, [cls]
    for _ in range(depth):
        nxt = []
        for c in frontier:
            for _rel, b in index.neighbours(c.id, ("base",), limit=10):
                if b.id not in seen and b.kind == "class":
                    seen.add(b.id)
                    family.append((b, "a base class of"))
                    nxt.append(b)
        frontier = nxt
    for _rel, sub in index.neighbours(cls.id, ("subclass",), limit=20):
        if sub.id not in seen and sub.kind == "class":
            seen.add(sub.id)
            family.append((sub, "a subclass of"))
    return family


def _class_member_evidence(index: RepoIndex, sc: "_Scores", hints: IssueHints, o: dict) -> None:
    """3a. A method the issue names, of a class the issue names: defined on that class, on one
    of its bases (the method is inherited) or on a direct subclass (it is overridden). Each
    such method gets `w_class_member` times the method name's hint strength."""
    for cname in [n for n in hints.identifiers if n[:1].isupper()]:
        classes = [c for c in index.symbols_by_name(cname, limit=6) if c.kind == "class"]
        if not 0 < len(classes) <= 5:
            continue
        for cls in classes:
            for owner, how in _class_family(index, cls):
                for m in index.children(owner.id):
                    strength = hints.identifiers.get(m.name, 0.0)
                    if m.kind in ("function", "method") and m.name != cname and strength > 0:
                        via = f" ({owner.qualname} is {how} {cls.qualname})" if how else ""
                        sc.add_sym(m, o["w_class_member"] * strength,
                                   f"method `{m.name}` of class `{cname}` named in the issue: {m.qualname}{via}")


def _bm25_evidence(index: RepoIndex, sc: "_Scores", text: str, o: dict) -> None:
    """4. BM25 as a fallback signal (also breaks ties among name matches)."""
    hits = index.bm25_search(text, k=o["bm25_depth"])
    if not hits:
        return
    top = hits[0].score or 1.0
    seen_files: set[str] = set()
    for rank, h in enumerate(hits, start=1):
        rel = h.score / top
        if h.symbol_id is not None:
            s = sc.syms.get(h.symbol_id) or index.symbol(h.symbol_id)
            if s is not None:
                sc.add_sym(s, o["w_bm25"] * rel, f"bm25 rank {rank} (score {h.score:.2f})")
        if h.path not in seen_files:
            seen_files.add(h.path)
            sc.add_file(h.path, o["w_bm25"] * rel, f"bm25 rank {rank} (score {h.score:.2f})")


def _apply_penalties(index: RepoIndex, sc: "_Scores", o: dict) -> dict[str, float]:
    """Test, doc and stub penalties before expansion, so they do not seed it; the per-path cache."""
    pen: dict[str, float] = {}
    for sid, s in sc.syms.items():
        sc.sym[sid] *= _penalty(index, s.path, o, pen)
    for p in list(sc.file):
        sc.file[p] *= _penalty(index, p, o, pen)
    return pen


def _neighbour_evidence(index: RepoIndex, sc: "_Scores", o: dict, pen: dict) -> None:
    """The direct graph neighbours of the top symbol seeds, and the imports of the top files."""
    seeds = sorted(sc.sym.items(), key=lambda kv: -kv[1])[: o["expand_seeds"]]
    for sid, score in seeds:
        seed = sc.syms[sid]
        for rel, nb in index.neighbours(sid, ("parent", "calls", "called_by", "base"), limit=20):
            factor = {"parent": o["w_parent"], "calls": o["w_callee"]}.get(rel, o["w_neighbour"])
            w = score * factor * _penalty(index, nb.path, o, pen)
            label = {"parent": "contains", "calls": "is called by", "called_by": "calls", "base": "is a base class of"}[rel]
            sc.add_sym(nb, w, f"graph: {nb.qualname} {label} {seed.qualname}")
    file_seeds = sorted(sc.file.items(), key=lambda kv: -kv[1])[: o["expand_seeds"]]
    for path, score in file_seeds:
        f = index.file(path)
        if f is None or f.kind != "code":
            continue
        for other in index.imports_of(f.id)[:20]:
            sc.add_file(other, score * o["w_import"] * _penalty(index, other, o, pen), f"graph: imported by {path}")


def _top_file_symbols(index: RepoIndex, sc: "_Scores", n_files: int) -> None:
    """Every definition of the `n_files` best files becomes a symbol candidate (score 0, no
    evidence of its own), so the re-ranker can pick the edited one by its own text and its
    file's score: an issue that finds the file often names nothing inside it."""
    for path, _v in sorted(sc.file.items(), key=lambda kv: (-kv[1], kv[0]))[:n_files]:
        if is_test_module(path):
            continue
        for s in index.symbols_in_file(path):
            if s.id not in sc.sym and s.kind in ("function", "method", "class"):
                sc.syms[s.id] = s
                sc.sym[s.id] = 0.0
                sc.sym_ev[s.id] = [f"a definition in {path}, a top-{n_files} file"]
                sc.expanded.add(s.id)


def _lift_files(sc: "_Scores") -> None:
    """Symbols lift their files by the best symbol score in each."""
    best_in_file: dict[str, float] = {}
    for sid, v in sc.sym.items():
        p = sc.syms[sid].path
        best_in_file[p] = max(best_in_file.get(p, 0.0), v)
    for p, v in best_in_file.items():
        sc.file[p] = sc.file.get(p, 0.0) + v
        sc.file_ev.setdefault(p, []).append(f"contains candidate symbols (best {v:.2f})")


def _symbol_features(
    index: RepoIndex, sc: "_Scores", relevance: dict[int, float], walked: "_WalkResult | None", o: dict
) -> dict[int, dict[str, float]]:
    """The re-ranker's features (swevis.localize.rerank) of every symbol candidate; local
    functions are folded into their definition and test code is dropped from `sc` here."""
    chain = {}
    if walked is not None:
        chain = chain_scores(walked.seeds, walked.adj, relevance, depth=o["walk_depth"], decay=o["reach_decay"],
                             eps=o["walk_eps"])

    parents = index.symbols_by_ids({s.parent_id for sid, s in sc.syms.items() if sid in sc.sym and s.parent_id})

    def own_features(sid: int) -> dict[str, float]:
        return {
            "symptom": relevance.get(sid, 0.0),
            "walk": walked.gained.get(sid, 0.0) if walked else 0.0,
            "chain": chain.get(sid, 0.0),
            "in_frame": 1.0 if sid in sc.in_frame else 0.0,
            **_symbol_flags(index, sc.syms[sid], parents),
        }

    feats = {sid: own_features(sid) for sid in sc.sym}
    _fold_local_functions(index, sc, feats, own_features)
    # a fix lands in the code under test: test code seeds the graph but is no symbol candidate
    for sid in [sid for sid in sc.sym if is_test_module(sc.syms[sid].path)]:
        del sc.sym[sid], feats[sid]
    top = max(sc.sym.values(), default=0.0) or 1.0
    ranked = sorted(sc.sym.items(), key=lambda kv: (-kv[1], sc.syms[kv[0]].path, sc.syms[kv[0]].start_line))
    for rank, (sid, v) in enumerate(ranked, start=1):
        feats[sid].update(heuristic=v / top, heuristic_rank=1.0 / rank)
    return feats


def _own_text_features(sc: "_Scores", feats: dict[int, dict[str, float]], text: str, hints: IssueHints,
                       source: SourceLines) -> None:
    """The features that tell a symbol from its neighbours (swevis.localize.symtext): the issue's
    identifiers, quoted strings and rarer words in its own lines, what its name, its class's
    and its file's share with the issue's words, and its file beside the others (score, rank,
    best symbol, candidates, its own rank in it): files and symbols ranked together. Over the
    final candidates (after local functions are folded in), as the development set
    (swevis.localize.devset.features) computes them from a clone."""
    quoted = quoted_strings(text)
    words = IssueWords(text)
    top_file = max(sc.file.values(), default=0.0) or 1.0
    sids = sorted(feats)
    syms = [sc.syms[sid] for sid in sids]
    paths = [s.path for s in syms]
    heuristic = [feats[sid]["heuristic"] for sid in sids]
    file_score = [sc.file.get(p, 0.0) / top_file for p in paths]
    bodies = ["\n".join((source(s.path) or [])[s.start_line - 1:s.end_line]) for s in syms]
    in_file = file_context(paths, heuristic)
    joint = set_features(paths, heuristic, file_score, [found_terms(words, b) for b in bodies])
    for i, (sid, s) in enumerate(zip(sids, syms)):
        feats[sid].update(text_features(hints, quoted, s.qualname, s.kind, bodies[i]),
                          **name_features(words, s.path, s.qualname, s.kind),
                          **{name: values[i] for name, values in joint.items()},
                          file_score=file_score[i], in_file_rank=in_file[i])


def is_edit_site(index: RepoIndex, path: str) -> bool:
    """A code file outside test code: where a fix lands, so the only file the BM25 baseline
    ranks (D_loc keeps documents and tests as evidence, penalized, and never proposes a test
    module's symbol)."""
    f = index.file(path)
    return f is not None and f.kind == "code" and not is_test_module(path)


def bm25_baseline(index: RepoIndex, issue_text: str, top_k: int = 10, repo_dir: str | Path | None = None,
                  options: dict | None = None) -> list[Candidate]:
    """BM25 alone over the same lexical index: code files outside tests (is_edit_site) by their
    best document, their symbols, and a span inside each symbol chosen as D_loc chooses it (so
    span hit compares the rankings). Ranked over every file, BM25 puts READMEs, changelogs,
    issue templates and tests above the code an issue is about."""
    hits = index.bm25_search(issue_text or "", k=max(200, top_k * 10))
    edit_site: dict[str, bool] = {}
    files: dict[str, Candidate] = {}
    syms: list[Candidate] = []
    ranked: list[tuple[Symbol, float]] = []
    for rank, h in enumerate(hits, start=1):
        if h.path not in edit_site:
            edit_site[h.path] = is_edit_site(index, h.path)
        if not edit_site[h.path]:
            continue
        ev = [f"bm25 rank {rank} (score {h.score:.2f})"]
        if h.path not in files:
            files[h.path] = Candidate("file", h.path, None, None, None, round(h.score, 4), ev)
        if h.symbol_id is not None and len(syms) < top_k:
            s = index.symbol(h.symbol_id)
            if s is not None:
                syms.append(Candidate("symbol", s.path, s.qualname, s.start_line, s.end_line, round(h.score, 4), ev))
                ranked.append((s, h.score))
    source = SourceLines(repo_dir if repo_dir is not None else index.meta.get("repo_dir"))
    spans = _ranked_spans([], ranked, issue_text or "", top_k, source, localize_options(options),
                          reading_languages(index.languages()))
    out = list(files.values())[:top_k] + syms + spans
    out.sort(key=lambda c: -c.score)
    return out


def by_kind(candidates: list[Candidate], kind: str) -> list[Candidate]:
    return sorted((c for c in candidates if c.kind == kind), key=lambda c: -c.score)


# ---------------------------------------------------------------- D_pkg
