"""Python extractor on tree-sitter-python: definitions, imports, bases, calls, references.

tree-sitter recovers from syntax errors (Python 2 code, half-edited files), so a file with
errors still yields every definition outside the broken region; such files are marked
`partial` and counted by the build.
"""

from __future__ import annotations

import bisect
import keyword
import re

import tree_sitter as ts
import tree_sitter_python as tsp

from swevis.index.languages import EdgeRec, FileExtract, SymbolRec

LANGUAGE = ts.Language(tsp.language())

_DEFS = ts.Query(
    LANGUAGE,
    """
    (class_definition name: (identifier) @name) @def
    (function_definition name: (identifier) @name) @def
    """,
)
_IMPORTS = ts.Query(
    LANGUAGE,
    """
    (import_statement) @imp
    (import_from_statement) @imp
    """,
)
_CALLS = ts.Query(
    LANGUAGE,
    """
    (call function: (identifier) @callee)
    (call function: (attribute attribute: (identifier) @callee))
    """,
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEYWORDS = frozenset(keyword.kwlist) | {"self", "cls", "pytest", "assert_", "None", "True", "False"}
_ERRORS = ts.Query(LANGUAGE, "(ERROR) @err")

_PARSER = ts.Parser(LANGUAGE)
MAX_SIGNATURE = 300


def _text(node: ts.Node | None) -> str:
    if node is None:
        return ""
    return node.text.decode("utf-8", "replace") if node.text is not None else ""


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


def _imports(root: ts.Node, module: str, is_package: bool) -> list[dict]:
    out: list[dict] = []
    for node in ts.QueryCursor(_IMPORTS).captures(root).get("imp", []):
        line = node.start_point[0] + 1
        if node.type == "import_statement":
            for child in node.named_children:
                target = child.child_by_field_name("name") if child.type == "aliased_import" else child
                if target is not None and target.type == "dotted_name":
                    out.append({"module": _text(target), "names": [], "line": line})
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
            if any(c.type == "wildcard_import" for c in node.named_children):
                names.append("*")
            out.append({"module": mod, "names": names, "line": line})
    return out


def extract(path: str, data: bytes, module: str, options: dict | None = None) -> FileExtract:
    options = options or {}
    tree = _PARSER.parse(data)
    root = tree.root_node
    fx = FileExtract(language="python")
    if root.has_error:
        fx.status = "partial"
        fx.n_errors = len(ts.QueryCursor(_ERRORS).captures(root).get("err", [])) or 1

    is_package = path.endswith("__init__.py") or path.endswith("__init__.pyi")
    is_test = bool(options.get("is_test"))

    # ---- definitions, nested by byte position
    defs: list[tuple[ts.Node, str]] = []
    for _, caps in ts.QueryCursor(_DEFS).matches(root):
        node = caps["def"][0]
        defs.append((node, _text(caps["name"][0])))
    defs.sort(key=lambda d: (d[0].start_byte, -d[0].end_byte))
    stack: list[int] = []  # indexes into fx.symbols of open definitions
    ends: list[int] = []
    starts_b: list[int] = []
    for node, name in defs:
        outer = node.parent if node.parent is not None and node.parent.type == "decorated_definition" else node
        while stack and ends[stack[-1]] <= node.start_byte:
            stack.pop()
        parent = stack[-1] if stack else None
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
        ends.append(node.end_byte)
        starts_b.append(node.start_byte)
        stack.append(len(fx.symbols) - 1)
        if kind == "class":
            sup = node.child_by_field_name("superclasses")
            if sup is not None:
                for base in sup.named_children:
                    if base.type in ("identifier", "attribute"):
                        fx.edges.append(
                            EdgeRec("inherits", _text(base), len(fx.symbols) - 1, base.start_point[0] + 1)
                        )

    def enclosing(byte: int) -> int | None:
        i = bisect.bisect_right(starts_b, byte) - 1
        while i >= 0:
            if ends[i] > byte:
                return i
            i = fx.symbols[i].parent if fx.symbols[i].parent is not None else -1
        return None

    # ---- imports
    fx.imports = _imports(root, module, is_package)
    for imp in fx.imports:
        if imp["names"] and imp["names"] != ["*"]:
            for n in imp["names"]:
                if n != "*":
                    fx.edges.append(EdgeRec("imports", f"{imp['module']}.{n}", None, imp["line"]))
        else:
            fx.edges.append(EdgeRec("imports", imp["module"], None, imp["line"]))

    # ---- calls (deduplicated per caller)
    seen: set[tuple[int | None, str]] = set()
    for node in ts.QueryCursor(_CALLS).captures(root).get("callee", []):
        name = _text(node)
        src = enclosing(node.start_byte)
        if (src, name) in seen:
            continue
        seen.add((src, name))
        fx.edges.append(EdgeRec("calls", name, src, node.start_point[0] + 1))

    # ---- references from test files (for test pointers)
    if is_test:
        names = set(_WORD.findall(data.decode("utf-8", "replace")))
        for imp in fx.imports:
            names.update(n for n in imp["names"] if n != "*")
        for n in sorted(names):
            if len(n) > 2 and not n.startswith("test") and n not in _KEYWORDS:
                fx.edges.append(EdgeRec("references", n, None, 0))

    # ---- own text per definition and module text (each line in exactly one BM25 doc)
    lines = data.split(b"\n")
    owner = [-1] * (len(lines) + 2)
    for i, s in enumerate(fx.symbols):
        owner[s.start_line : s.end_line + 1] = [i] * (s.end_line - s.start_line + 1)
    buckets: list[list[bytes]] = [[] for _ in fx.symbols]
    mod_lines: list[bytes] = []
    for ln, raw in enumerate(lines, start=1):
        o = owner[ln]
        (mod_lines if o < 0 else buckets[o]).append(raw)
    for s, b in zip(fx.symbols, buckets):
        s.own_text = b"\n".join(b).decode("utf-8", "replace")
    fx.module_text = b"\n".join(mod_lines).decode("utf-8", "replace")
    fx.module_doc = _docstring(root)
    return fx
