"""Python: the extractor on tree-sitter-python (definitions, imports, bases, calls,
references) and the conventions of Python code (`PYTHON`, registered in
swevis.index.languages): module names, test files, tracebacks, comments, pytest.

tree-sitter recovers from syntax errors (Python 2 code, half-edited files), so a file with
errors still yields every definition outside the broken region; such files are marked
`partial` and counted by the build.
"""

from __future__ import annotations

import bisect
import builtins
import keyword
import re
from dataclasses import dataclass

import tree_sitter as ts
import tree_sitter_python as tsp

from swevis.index.python_units import Spans, Unit, candidates, find_units
from swevis.index.records import EdgeRec, FileExtract, Language, SymbolRec
from swevis.index.treesitter_util import CallEdges, Enclosing, class_of, compile_grammar, compiled_once, dotted
from swevis.index.treesitter_util import member_receiver, own_texts, parse
from swevis.index.treesitter_util import text as _text

# the patterns of every part of the extraction (_Grammar runs them as one query)
_PARTS = {
    "defs": """
    (class_definition name: (identifier) @name) @def
    (function_definition name: (identifier) @name) @def
    """,
    "imports": """
    (import_statement) @imp
    (import_from_statement) @imp
    """,
    "calls": """
    (call function: (identifier) @callee)
    (call function: (attribute attribute: (identifier) @callee))
    """,
    # what the type-aware call resolution needs: bindings of local names and of self attributes
    "bindings": """
    (assignment left: (identifier) @var) @asg
    (assignment left: (attribute object: (identifier) @obj attribute: (identifier) @attr) @target) @sasg
    (typed_parameter . (identifier) @param type: (type) @ptype)
    (typed_default_parameter name: (identifier) @param type: (type) @ptype)
    (parameters (identifier) @uparam)
    (default_parameter name: (identifier) @uparam)
    (for_statement left: (identifier) @loopvar)
    (for_statement left: (pattern_list (identifier) @loopvar))
    (for_statement left: (tuple_pattern (identifier) @loopvar))
    (as_pattern_target (identifier) @loopvar)
    """,
}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEYWORDS = frozenset(keyword.kwlist) | {"self", "cls", "pytest", "assert_", "None", "True", "False"}


@dataclass(frozen=True)
class _Grammar:
    # what treesitter_util.Compiled holds (every part as one query: one walk of the tree)
    parser: ts.Parser
    query: ts.Query
    part_of: list[str]
    errors: ts.Query
    # the same split in two, for an update that reuses functions (python_units): the file's
    # structure everywhere, function bodies only where not reused (their pattern numbers keep
    # their order, all the order of matches depends on)
    structure: ts.Query
    body: ts.Query
    body_part_of: list[str]


@compiled_once("Python")
def _grammar() -> _Grammar:
    """The parser and queries, compiled when the first file is parsed, not at import: every
    agent job imports the index (for its languages' conventions) and most parse nothing."""
    language = ts.Language(tsp.language())
    whole = compile_grammar(language, _PARTS)
    structure = ts.Query(language, _PARTS["defs"] + _PARTS["imports"])
    return _Grammar(*whole, structure=structure, body=ts.Query(language, _PARTS["calls"] + _PARTS["bindings"]),
                    body_part_of=whole.part_of[structure.pattern_count :])


MAX_SIGNATURE = 300


def _docstring(body: ts.Node | None) -> str:
    if body is None or body.named_child_count == 0:
        return ""
    first = body.named_children[0]
    if first.type == "expression_statement" and first.named_child_count:
        s = first.named_children[0]
        if s.type == "string":
            raw = _text(s)
            raw = raw.lstrip("rRbBuUfF")
            for q in ('"""', "'''", '"', "'"):
                if raw.startswith(q):
                    raw = raw[len(q) :]
                    if raw.endswith(q):
                        raw = raw[: -len(q)]
                    break
            for line in raw.splitlines():
                if line.strip():
                    return line.strip()[:200]
    return ""


def _signature(node: ts.Node, name: str) -> str:
    if node.type == "class_definition":
        sup = node.child_by_field_name("superclasses")
        sig = f"class {name}{_text(sup)}"
    else:
        params = node.child_by_field_name("parameters")
        ret = node.child_by_field_name("return_type")
        prefix = "async def" if _text(node).startswith("async") else "def"
        sig = f"{prefix} {name}{_text(params)}"
        if ret is not None:
            sig += f" -> {_text(ret)}"
    sig = " ".join(sig.split())
    return sig[:MAX_SIGNATURE]


def _resolve_relative(module: str, level: int, rel: str, is_package: bool) -> str:
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    base = ".".join(parts)
    if rel:
        return f"{base}.{rel}" if base else rel
    return base


def _by_start(nodes: list[ts.Node]) -> list[ts.Node]:
    """Captured nodes in source order.

    tree-sitter returns the captures of a query with several patterns in no fixed order (two
    builds of the same file inserted edges in different orders), and the order reaches the
    index's row ids and everything ranked by them; source order makes a build reproducible.
    """
    return sorted(nodes, key=lambda n: (n.start_byte, n.end_byte))


def _scan(root: ts.Node) -> dict[str, list]:
    """The one query's matches by part (see _order)."""
    parts: dict[str, list] = {part: [] for part in _PARTS}
    grammar = _grammar()
    for match in ts.QueryCursor(grammar.query).matches(root):
        parts[grammar.part_of[match[0]]].append(match)
    return parts


def _bound_name(caps: dict) -> ts.Node:
    """The name a parameter or loop-variable match binds."""
    return (caps.get("param") or caps.get("uparam") or caps["loopvar"])[0]


def _position(part: str, caps: dict) -> int:
    """The byte a calls or bindings match is placed at (as _order and the extractor place it)."""
    if part == "calls":
        return caps["callee"][0].start_byte
    asg = caps.get("asg") or caps.get("sasg")
    return (asg[0] if asg else _bound_name(caps)).start_byte


def _scan_body(root: ts.Node, parts: dict[str, list], lo: int, hi: int) -> None:
    """Add to `parts` the calls and bindings matches placed in bytes lo..hi-1."""
    grammar = _grammar()
    cursor = ts.QueryCursor(grammar.body)
    cursor.set_byte_range(lo, hi)
    for match in cursor.matches(root):
        part = grammar.body_part_of[match[0]]
        if lo <= _position(part, match[1]) < hi:
            parts[part].append(match)


def _scan_structure(root: ts.Node, data: bytes) -> dict[str, list]:
    """Definitions and imports everywhere, calls and bindings outside the candidate units
    (python_units.candidates: the reused ones' are never needed)."""
    parts: dict[str, list] = {part: [] for part in _PARTS}
    grammar = _grammar()
    for match in ts.QueryCursor(grammar.structure).matches(root):
        parts[grammar.part_of[match[0]]].append(match)
    lo = 0
    for f in candidates(parts["defs"]):
        if f.start_byte > lo:
            _scan_body(root, parts, lo, f.start_byte)
        lo = f.end_byte
    _scan_body(root, parts, lo, len(data) + 1)
    return parts


def _order(parts: dict[str, list]) -> dict[str, list]:
    """Matches by part, each in source order: `defs` (pattern, captures; every
    definition starts at its own byte, and _definitions sorts them by it), `params` (by the
    name they bind, then pattern) and `assigns` (by the assignment), and `imports` and `calls`
    as their captured nodes (`imp`, `callee`)."""
    params, assigns = [], []
    for m in parts["bindings"]:
        caps = m[1]
        asg = caps.get("asg") or caps.get("sasg")
        if asg is not None:
            assigns.append((asg[0].start_byte, m))
        else:
            node = _bound_name(caps)
            params.append((node.start_byte, node.end_byte, m[0], m))
    params.sort(key=lambda t: t[:3])
    assigns.sort(key=lambda t: t[0])
    return {
        "defs": parts["defs"],
        "params": [t[3] for t in params],
        "assigns": [t[1] for t in assigns],
        "imports": _by_start([n for _, caps in parts["imports"] for n in caps["imp"]]),
        "calls": _by_start([n for _, caps in parts["calls"] for n in caps["callee"]]),
    }


def _imports(nodes: list[ts.Node], module: str, is_package: bool, namespace: dict | None = None) -> list[dict]:
    """Import records of the import statements `nodes`; `namespace` (if given) receives local
    name -> dotted target it binds."""
    out: list[dict] = []
    ns = namespace if namespace is not None else {}
    for node in nodes:
        line = node.start_point[0] + 1
        if node.type == "import_statement":
            for child in node.named_children:
                target = child.child_by_field_name("name") if child.type == "aliased_import" else child
                if target is not None and target.type == "dotted_name":
                    mod = _text(target)
                    out.append({"module": mod, "names": [], "line": line})
                    if child.type == "aliased_import":
                        ns.setdefault(_text(child.child_by_field_name("alias")), mod)
                    else:
                        head = mod.split(".")[0]
                        ns.setdefault(head, head)
        else:
            mod_node = node.child_by_field_name("module_name")
            if mod_node is None:
                continue
            if mod_node.type == "relative_import":
                raw = _text(mod_node)
                level = len(raw) - len(raw.lstrip("."))
                mod = _resolve_relative(module, level, raw.lstrip("."), is_package)
            else:
                mod = _text(mod_node)
            names: list[str] = []
            for child in node.children_by_field_name("name"):
                target = child.child_by_field_name("name") if child.type == "aliased_import" else child
                if target is not None:
                    names.append(_text(target))
                    alias = child.child_by_field_name("alias") if child.type == "aliased_import" else None
                    local = _text(alias) if alias is not None else _text(target).split(".")[-1]
                    ns.setdefault(local, f"{mod}.{_text(target)}" if mod else _text(target))
            if any(c.type == "wildcard_import" for c in node.named_children):
                names.append("*")
                ns.setdefault("*", "")
                ns["*"] = (ns["*"] + " " + mod).strip()
            out.append({"module": mod, "names": names, "line": line})
    return out


_TYPE_WRAPPERS = frozenset({"Optional", "Union", "ClassVar", "Final", "Annotated", "Type", "type"})


def _dotted(node: ts.Node | None) -> str | None:
    """`a.b.c` for an identifier/attribute chain, else None."""
    return dotted(node, "attribute", "attribute", ("identifier",))


def _annotation(node: ts.Node | None) -> str:
    """Type expression ("N:dotted") of an annotation: a name, a string, Optional[X], X | None."""
    for _ in range(6):
        if node is None:
            return ""
        if node.type == "type":
            node = node.named_children[0] if node.named_child_count else None
            continue
        if node.type in ("identifier", "attribute"):
            d = _dotted(node)
            return f"N:{d}" if d and d != "None" else ""
        if node.type == "string":
            raw = _text(node).strip("'\"")
            return f"N:{raw}" if raw and all(p.isidentifier() for p in raw.split(".")) else ""
        if node.type == "generic_type":
            head = node.named_children[0] if node.named_child_count else None
            hd = _dotted(head) or ""
            if hd.split(".")[-1] in _TYPE_WRAPPERS:
                params = [c for c in node.named_children[1:] if c.type == "type_parameter"]
                node = params[0].named_children[0] if params and params[0].named_child_count else None
                continue
            return f"N:{hd}" if hd else ""
        if node.type == "subscript":
            hd = _dotted(node.child_by_field_name("value")) or ""
            if hd.split(".")[-1] in _TYPE_WRAPPERS:
                node = node.child_by_field_name("subscript")
                continue
            return f"N:{hd}" if hd else ""
        if node.type == "binary_operator":  # X | None
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            node = right if _text(left) == "None" else left
            continue
        return ""
    return ""


def _value_type(node: ts.Node | None, scope, lookup) -> str:
    """Type expression of an assigned value: a call's result, a typed name, self.attr."""
    if node is None:
        return ""
    if node.type == "call":
        d = _dotted(node.child_by_field_name("function"))
        return f"R:{d}" if d else ""
    if node.type == "identifier":
        return lookup(scope, _text(node)) or ""
    if node.type == "attribute":
        obj = node.child_by_field_name("object")
        if obj is not None and obj.type == "identifier" and _text(obj) == "self":
            return f"A:{_text(node.child_by_field_name('attribute'))}"
    return ""


def _receiver(obj: ts.Node | None, scope, lookup) -> str:
    """Receiver descriptor of `obj.method()` (see EdgeRec.recv)."""
    if obj is None:
        return "?"
    if obj.type == "identifier":
        name = _text(obj)
        if name in ("self", "cls"):
            return "self"
        te = lookup(scope, name)
        if te is None:
            return f"N:{name}"
        return te or "?"
    if obj.type == "call":
        fn = obj.child_by_field_name("function")
        if fn is not None and fn.type == "identifier" and _text(fn) == "super":
            return "super"
        d = _dotted(fn)
        if d is None:
            return "?"
        head = d.split(".")[0]
        if head not in ("self", "cls") and "." in d and lookup(scope, head) is not None:
            return "?"
        return f"R:{d}"
    if obj.type == "attribute":
        return member_receiver(_dotted(obj), "self", lookup, scope)
    return "?"


class _Nesting(Enclosing):
    """The file's definitions as a tree by byte range (Enclosing), and the function scope
    (class bodies skipped) a name bound there belongs to."""

    def __init__(self, symbols: list[SymbolRec]):
        super().__init__()
        self.symbols = symbols

    def scope_of(self, byte: int) -> int | None:
        """Innermost function/method around `byte` (None = module level, class bodies skipped)."""
        return self.scope_from(self.at(byte))

    def scope_from(self, i: int | None) -> int | None:
        """Innermost function/method at or around definition `i` (class bodies skipped)."""
        while i is not None and self.symbols[i].kind == "class":
            i = self.symbols[i].parent
        return i


class _Bindings:
    """Type expressions of local names per scope ("" = untyped), flow-insensitive: the first
    typed binding of a name wins; a lookup falls back to the enclosing function scopes."""

    def __init__(self, symbols: list[SymbolRec]):
        self.symbols = symbols
        self.local: dict[tuple[int | None, str], str] = {}
        # every module-level bind: name, type, start byte of the assignment (None: a parameter)
        self.module_events: list[tuple[str, str, int | None]] = []

    def bind(self, scope: int | None, name: str, te: str, at: int | None = None) -> None:
        if scope is None:
            self.module_events.append((name, te, at))
        if not self.local.get((scope, name)):
            self.local[(scope, name)] = te

    def lookup(self, scope: int | None, name: str) -> str | None:
        syms = self.symbols
        while True:
            te = self.local.get((scope, name))
            if te is not None:
                return te
            if scope is None:
                return None
            scope = syms[scope].parent
            while scope is not None and syms[scope].kind == "class":
                scope = syms[scope].parent


def _definitions(matches: list[tuple[int, dict]], fx: FileExtract) -> _Nesting:
    """Classes, functions and methods into fx.symbols, nested by byte position, with the
    `inherits` edges of each class."""
    defs: list[tuple[ts.Node, str]] = []
    for _, caps in matches:
        node = caps["def"][0]
        defs.append((node, _text(caps["name"][0])))
    defs.sort(key=lambda d: (d[0].start_byte, -d[0].end_byte))
    nesting = _Nesting(fx.symbols)
    for node, name in defs:
        outer = node.parent if node.parent is not None and node.parent.type == "decorated_definition" else node
        parent = nesting.outer[nesting.add(node.start_byte, node.end_byte)]
        pkind = fx.symbols[parent].kind if parent is not None else None
        if node.type == "class_definition":
            kind = "class"
        else:
            kind = "method" if pkind == "class" else "function"
        qual = f"{fx.symbols[parent].qualname}.{name}" if parent is not None else name
        fx.symbols.append(
            SymbolRec(
                name=name,
                qualname=qual,
                kind=kind,
                start_line=outer.start_point[0] + 1,
                end_line=node.end_point[0] + 1,
                signature=_signature(node, name),
                doc=_docstring(node.child_by_field_name("body")),
                parent=parent,
            )
        )
        if kind == "class":
            _base_edges(node, fx)
    return nesting


def _base_edges(node: ts.Node, fx: FileExtract) -> None:
    """`inherits` edges of the class just appended to fx.symbols."""
    sup = node.child_by_field_name("superclasses")
    if sup is None:
        return
    for base in sup.named_children:
        if base.type in ("identifier", "attribute"):
            fx.edges.append(EdgeRec("inherits", _text(base), len(fx.symbols) - 1, base.start_point[0] + 1))


def _import_edges(fx: FileExtract) -> None:
    """One `imports` edge per imported name (`from m import a` -> m.a), else per module."""
    for imp in fx.imports:
        if imp["names"] and imp["names"] != ["*"]:
            for n in imp["names"]:
                if n != "*":
                    fx.edges.append(EdgeRec("imports", f"{imp['module']}.{n}", None, imp["line"]))
        else:
            fx.edges.append(EdgeRec("imports", imp["module"], None, imp["line"]))


def _bindings(params: list[tuple[int, dict]], assigns: list[tuple[int, dict]], fx: FileExtract,
              nesting: _Nesting, reused: list | None = None) -> tuple[_Bindings, list[int]]:
    """Typed parameters, local assignments and self attributes (flow-insensitive); class and
    self attributes with a type go to fx.attrs. `reused` = (start byte, attrs) of each reused
    unit (whose matches are not searched), its attrs put in at its place. Returns the
    bindings and the start byte of the assignment behind each of fx.attrs."""
    syms = fx.symbols
    bindings = _Bindings(syms)
    for _, caps in params:
        node = _bound_name(caps)
        te = _annotation(caps["ptype"][0]) if "param" in caps else ""
        bindings.bind(nesting.scope_of(node.start_byte), _text(node), te)
    pending = list(reused or [])
    at: list[int] = []

    def put(upto: int) -> None:
        while pending and pending[0][0] <= upto:
            start, attrs = pending.pop(0)
            fx.attrs.extend(attrs)
            at.extend([start] * len(attrs))

    for _, caps in assigns:
        asg = (caps.get("asg") or caps["sasg"])[0]
        put(asg.start_byte)
        scope = nesting.scope_of(asg.start_byte)
        ann = asg.child_by_field_name("type")
        te = _annotation(ann) if ann is not None else ""
        if not te:
            te = _value_type(asg.child_by_field_name("right"), scope, bindings.lookup)
        if "asg" in caps:
            name = _text(caps["var"][0])
            owner = nesting.at(asg.start_byte)
            if owner is not None and syms[owner].kind == "class":  # class body: a class attribute
                if te:
                    fx.attrs.append((owner, name, te))
                    at.append(asg.start_byte)
            else:
                bindings.bind(scope, name, te, asg.start_byte)
        elif _text(caps["obj"][0]) == "self" and te:
            cls = class_of(fx.symbols, scope)
            if cls is not None:
                fx.attrs.append((cls, _text(caps["attr"][0]), te))
                at.append(asg.start_byte)
    put(1 << 62)  # the reused units after the last assignment
    return bindings, at


def _call_edges(callees: list[ts.Node], fx: FileExtract, nesting: _Nesting, bindings: _Bindings,
                reused: list | None = None) -> None:
    """`calls` edges with their receivers, deduplicated per caller. `reused` = (start byte,
    edges) of each reused unit (whose callees are not searched), its edges put in at its
    place (a unit's callers are its own: no duplicate across it)."""
    edges = CallEdges(fx)
    pending = list(reused or [])
    for node in callees:
        byte = node.start_byte
        while pending and pending[0][0] <= byte:
            fx.edges.extend(pending.pop(0)[1])
        name = _text(node)
        src = nesting.at(byte)
        recv = ""
        fn = node.parent
        if fn is not None and fn.type == "attribute":
            recv = _receiver(fn.child_by_field_name("object"), nesting.scope_from(src), bindings.lookup)
        edges.add(name, src, node, recv)
    for _, edges in pending:
        fx.edges.extend(edges)


def _test_references(data: bytes, fx: FileExtract) -> None:
    """`references` edges from a test file to every word it uses (for test pointers)."""
    names = set(_WORD.findall(data.decode("utf-8", "replace")))
    for imp in fx.imports:
        names.update(n for n in imp["names"] if n != "*")
    for n in sorted(names):
        if len(n) > 2 and not n.startswith("test") and n not in _KEYWORDS:
            fx.edges.append(EdgeRec("references", n, None, 0))


def _units(data: bytes, funcs: list[ts.Node], fx: FileExtract, nesting: _Nesting, events: list) -> list[Unit]:
    """The file's reusable units (python_units) of functions `funcs`, with the span of their
    definitions in fx.symbols; `events`: the module-level bindings (_Bindings.module_events)."""
    index = {start: i for i, start in enumerate(nesting.starts)}
    first = [index[f.start_byte] for f in funcs]
    parents = [fx.symbols[i].parent for i in first]
    units = find_units(data, funcs, ["" if p is None else fx.symbols[p].qualname for p in parents], events)
    for u, i in zip(units, first):
        n = i
        while n < len(nesting.starts) and nesting.starts[n] < u.node.end_byte:
            n += 1
        u.sym_lo, u.n_sym = i, n - i
    return units


def _reuse(units: list[Unit], fx: FileExtract, reuse) -> tuple[list[Unit], list, list]:
    """The units an earlier index has (`reuse.get(key)`: a python_units.Piece): their
    definitions' BM25 term counts set; the units not reused, and (start byte, attrs) and
    (start byte, calls edges) of each reused one, shifted to here, for _bindings and
    _call_edges to put in."""
    missed, attrs, calls = [], [], []
    for u in units:
        piece = reuse.get(u.key)
        if piece is None or piece.n_sym != u.n_sym:
            missed.append(u)
            continue
        parent = fx.symbols[u.sym_lo].parent
        for k, terms in enumerate(piece.docs):
            fx.symbols[u.sym_lo + k].terms = terms
        start = u.node.start_byte
        attrs.append((start, [(parent if c < 0 else u.sym_lo + c, name, te) for c, name, te in piece.attrs]))
        calls.append((start, [EdgeRec("calls", name, u.sym_lo + src, u.first_line + line, recv)
                              for name, src, line, recv in piece.calls]))
    return missed, attrs, calls


def _place_units(units: list[Unit], fx: FileExtract, attr_at: list[int]) -> None:
    """Where each unit's attrs and calls edges are in fx's lists (for a later update to reuse)."""
    owner = {}
    for i, u in enumerate(units):
        owner.update((k, i) for k in range(u.sym_lo, u.sym_lo + u.n_sym))
    spans = Spans([(u.node.start_byte, u.node.end_byte) for u in units])
    for j, byte in enumerate(attr_at):
        if byte in spans:
            u = units[bisect.bisect_right(spans.starts, byte) - 1]
            u.attr_lo, u.n_attr = (j, 1) if not u.n_attr else (u.attr_lo, u.n_attr + 1)
    for j, e in enumerate(fx.edges):
        if e.kind == "calls" and e.src_symbol in owner:
            u = units[owner[e.src_symbol]]
            u.call_lo, u.n_call = (j, 1) if not u.n_call else (u.call_lo, u.n_call + 1)


def _reusing(root: ts.Node, data: bytes, found: dict, parts: dict, fx: FileExtract, nesting: _Nesting, reuse,
             funcs: list[ts.Node]) -> tuple[list[Unit], dict, list, list]:
    """Units keyed from the module's bindings (`found` has no matches inside `funcs` yet;
    `parts`: them in order), those `reuse` has taken from it, and the others' bodies searched:
    (units, the matches in order, reused attrs, reused calls) for _bindings and _call_edges."""
    pre = FileExtract(language="python", symbols=fx.symbols)  # a throwaway: only the module's binds
    bindings, _ = _bindings(parts["params"], parts["assigns"], pre, nesting)
    units = _units(data, funcs, fx, nesting, bindings.module_events)
    missed, attrs, calls = _reuse(units, fx, reuse)
    for u in missed:
        _scan_body(root, found, u.node.start_byte, u.node.end_byte)
    return units, _order(found), attrs, calls


def extract(path: str, data: bytes, module: str, options: dict | None = None) -> FileExtract:
    """Definitions, imports, bases, typed bindings, calls and (in tests) references of one file.

    `options["reuse"]`, when given, has the units of this file's previous version (see
    python_units): their calls, attribute types and term counts are taken from it, and their
    bodies are not searched."""
    options = options or {}
    root, fx = parse(_grammar(), data, "python")
    is_package = path.endswith("__init__.py") or path.endswith("__init__.pyi")
    reuse = None if root.has_error else options.get("reuse")
    found = _scan(root) if reuse is None else _scan_structure(root, data)
    parts = _order(found)
    nesting = _definitions(parts["defs"], fx)
    fx.imports = _imports(parts["imports"], module, is_package, fx.names)
    _import_edges(fx)
    funcs = [] if root.has_error else candidates(parts["defs"])
    attrs, calls = [], []
    if reuse is not None:
        units, parts, attrs, calls = _reusing(root, data, found, parts, fx, nesting, reuse, funcs)
    bindings, attr_at = _bindings(parts["params"], parts["assigns"], fx, nesting, attrs)
    _call_edges(parts["calls"], fx, nesting, bindings, calls)
    if reuse is None:
        units = _units(data, funcs, fx, nesting, bindings.module_events)
    _place_units(units, fx, attr_at)
    fx.units = [u.record() for u in units]
    fx.n_reused = len(attrs)
    if options.get("is_test"):
        _test_references(data, fx)
    own_texts(data, fx)
    fx.module_doc = _docstring(root)
    return fx


def module_names(paths: list[str], root_name: str = "") -> dict[str, str]:
    """Dotted module name per Python file: climb while the folder is a package (__init__.py).

    When the indexed folder is itself a package (an installed package's source, say), its
    name (`root_name`) prefixes every module, so modules read as they are imported.
    """
    pkg_dirs = {p.rsplit("/", 1)[0] for p in paths if p.endswith("/__init__.py")}
    root_pkg = root_name if root_name and "__init__.py" in paths else ""
    out: dict[str, str] = {}
    for p in paths:
        if not p.endswith((".py", ".pyi")):  # x.PY: indexed, but no module Python imports
            out[p] = ""
            continue
        parts = p.split("/")
        stem = parts[-1].rsplit(".", 1)[0]
        mod = [] if stem == "__init__" else [stem]
        i = len(parts) - 1
        while i > 0 and "/".join(parts[:i]) in pkg_dirs:
            mod.insert(0, parts[i - 1])
            i -= 1
        if i == 0 and root_pkg:
            mod.insert(0, root_pkg)
        out[p] = ".".join(mod)
    return out


# a traceback's frame: File "a/b.py", line 3, in f
_TRACEBACK_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>[\w<>.]+))?')
# pytest's frame: a/b.py:3: in f (or a/b.py:3: ValueError)
_PYTEST_FRAME = re.compile(r"^(?P<path>[\w./\\-]+\.py):(?P<line>\d+)(?::\s*in\s+(?P<func>[\w<>.]+)|:\s*\w+)?", re.M)

def is_private(name: str, _signature: str) -> bool:
    """`_helper`, not a dunder (`__init__` is public protocol)."""
    return name.startswith("_") and not name.startswith("__")


PYTHON = Language(
    name="python",
    private=is_private,
    extensions=(".py", ".pyi"),
    lexer="python",
    extract=extract,
    module_names=module_names,
    stub_extensions=(".pyi",),
    # test/ and testing/ also hold library code (django/test/, numpy/testing/): only tests/
    # is test code only
    test_dirs=("tests", "test", "testing"),
    test_only_dirs=("tests",),
    test_files=("test_*", "*_test.py", "conftest.py"),
    trace_frames=(_TRACEBACK_FRAME, _PYTEST_FRAME),
    frame_placeholders=frozenset({"<module>", "<lambda>"}),
    definition=r"(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)",
    git_diff_driver="python",
    line_comments=("#",),
    block_comments=((r'[rbuRBU]?"""', '"""'), (r"[rbuRBU]?'''", "'''")),  # docstrings
    keywords=frozenset(keyword.kwlist) | {"self", "cls"},
    common_names=frozenset(b for b in dir(builtins) if not b.endswith(("Error", "Warning"))),
    package_files=("__init__.py", "__init__.pyi"),
    common_file_names=("__init__.py", "conftest.py", "setup.py"),
    test_runner=("python", "-m", "pytest", "-q", "-p", "no:cacheprovider"),
    test_ok_returncodes=(0, 5),  # 5: no test collected
)
