"""Rust: the extractor on tree-sitter-rust (items, `use` and `mod` imports, trait impls, calls,
references) and the conventions of Rust code (`RUST`, registered in swevis.index.languages).

Module names are crate paths, dotted: a crate's root file (lib.rs, main.rs) is the crate, named
as code names it (its Cargo.toml package's name, `-` as `_`: `crates/searcher/src/lib.rs` is
`grep_searcher`; without a Cargo.toml, its folder's name, `crate` at the top), and
`src/a/b.rs` and `src/a/b/mod.rs` are `<crate>.a.b`. `use` paths become dotted names from
there (`crate::`, `self::`, `super::`, a `mod` of the file, another crate by its name), so the
shared resolver reads them as Python's. The names come from the Cargo.toml files
(`module_files`): a renamed package renames its files' modules, which an update re-extracts.

Symbol kinds are the index's three: structs, enums, unions, traits, type aliases, consts,
statics and inline `mod` blocks are `class` (their signature says which); the fns of an `impl`
are methods of the type when the type is defined beside the impl (same file, same module), and
the impl block is then a `class` of the type too, named by its trait (`Point.impl Display`,
`Point.impl`), so a line of the block outside its fns (a where clause, an associated type) has
a symbol; an impl of a type defined elsewhere is itself a `class` named by the type. `impl Trait for Type` is an `inherits` edge from the type
to the trait, so a trait's default methods are in the type's MRO.
"""

from __future__ import annotations

import re
import tomllib

import tree_sitter as ts
import tree_sitter_rust as tsrs

from swevis.index.records import EdgeRec, FileExtract, Language, SymbolRec
from swevis.index.treesitter_util import CallEdges, Compiled, Enclosing, compile_grammar, compiled_once, own_texts
from swevis.index.treesitter_util import matches_by_part, named_definitions, parse, test_references
from swevis.index.treesitter_util import text as _text

__all__ = ["RUST", "extract", "module_names"]

MAX_SIGNATURE = 300

_PARTS = {
    "defs": named_definitions("identifier", "function_item", "function_signature_item")
    + named_definitions("type_identifier", "struct_item", "enum_item", "union_item", "trait_item", "type_item") + """
    (mod_item name: (identifier) @name body: (declaration_list)) @def
    (impl_item type: (_) @name) @def
    (macro_definition name: (identifier) @name) @def
    (const_item name: (identifier) @name) @def
    (static_item name: (identifier) @name) @def
    """,
    "imports": """
    (use_declaration argument: (_) @use) @imp
    (mod_item name: (identifier) @modname !body) @imp
    (extern_crate_declaration name: (identifier) @cratename) @imp
    """,
    "calls": """
    (call_expression function: (identifier) @callee)
    (call_expression function: (scoped_identifier name: (identifier) @callee))
    (call_expression function: (field_expression field: (field_identifier) @callee))
    (call_expression function: (generic_function function: (identifier) @callee))
    (call_expression function: (generic_function function: (scoped_identifier name: (identifier) @callee)))
    (call_expression function: (generic_function function: (field_expression field: (field_identifier) @callee)))
    (token_tree (identifier) @mcallee . (token_tree) @margs)
    """,
    "bindings": """
    (let_declaration pattern: (identifier) @var type: (_) @type)
    (let_declaration pattern: (identifier) @var value: (call_expression function: (scoped_identifier path: (_) @ctor)))
    (let_declaration pattern: (identifier) @var value: (struct_expression name: (_) @type))
    (parameter pattern: (identifier) @var type: (_) @type)
    (field_declaration name: (field_identifier) @field type: (_) @type)
    """,
}


@compiled_once("Rust")
def _grammar() -> Compiled:
    """Compiled when the first Rust file is parsed (treesitter_util.compile_grammar says why)."""
    return compile_grammar(ts.Language(tsrs.language()), _PARTS)


# the language's reserved words (the extractor skips them), and what its record lists as no
# identifier: issue hints drop these words for every repository (the noise of all registered
# languages is one set), so words other languages' code names things by (match, where, union,
# struct, Box, Option, String) are left out of the record's lists
KEYWORDS = frozenset(
    "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move "
    "mut pub ref return self Self static struct super trait true type union unsafe use where while".split()
)
RECORD_KEYWORDS = frozenset("crate dyn extern impl mut pub self Self super unsafe".split())
COMMON_NAMES = frozenset(
    "Vec HashMap HashSet BTreeMap BTreeSet VecDeque Rc Arc RefCell println eprintln unwrap".split()
)
_TYPE_DEFS = frozenset({"struct_item", "enum_item", "union_item", "trait_item", "type_item"})
_WRAPPERS = frozenset({"Box", "Rc", "Arc", "Option", "RefCell", "Cell", "Mutex", "RwLock", "Cow"})


# ---------------------------------------------------------------- module names
def _crate_root(parts: list[str], roots: set[str]) -> int:
    """How many leading parts of a path are its crate's root folder (the nearest folder above it
    holding a lib.rs or main.rs), or -1."""
    for i in range(len(parts) - 1, -1, -1):
        if "/".join(parts[:i]) in roots:
            return i
    return -1


def _ident(name: str) -> str:
    return name.replace("-", "_").replace(".", "_")


def _package_name(folder: str, read) -> str | None:
    """The package name of the Cargo.toml in `folder` ("" = the top), as code writes it (`-` as `_`)."""
    text = read(f"{folder}/Cargo.toml" if folder else "Cargo.toml") if read is not None else None
    if not text:
        return None
    try:
        name = tomllib.loads(text).get("package", {}).get("name")
    except (tomllib.TOMLDecodeError, AttributeError):
        return None
    return _ident(name) if isinstance(name, str) and name else None


def _crate_names(roots: set[str], read) -> dict[str, str]:
    """The crate of each root folder (holding a lib.rs or main.rs): the package name of the
    Cargo.toml beside its src/ (or in it); else of the nearest one above, when no other crate
    has that name yet (ripgrep's crates/core/main.rs is the top package's binary); else the
    folder's name (`src/bin/tool` -> tool), `crate` for the top."""
    out: dict[str, str] = {}
    rest = []
    for root in sorted(roots):
        folder = root[:-4] if root.endswith("/src") else "" if root == "src" else root
        name = _package_name(folder, read)
        if name is not None:
            out[root] = name
        else:
            rest.append((root, folder))
    for root, folder in rest:
        name, up = None, folder
        while name is None and up:
            up = up.rsplit("/", 1)[0] if "/" in up else ""
            name = _package_name(up, read)
        if name is None or name in out.values():
            name = _ident(folder.rsplit("/", 1)[-1]) if folder else "crate"
        out[root] = name
    return out


def module_names(paths: list[str], root_name: str = "", read=None) -> dict[str, str]:
    """Crate path per Rust file (see the module's docstring; `read(path)`: a repository file's
    text, for the Cargo.toml files naming the crates); a file outside every crate's folder
    (tests/, examples/, benches/) is named by its path."""
    roots = {p.rsplit("/", 1)[0] if "/" in p else "" for p in paths if p.rsplit("/", 1)[-1] in ("lib.rs", "main.rs")}
    crates = _crate_names(roots, read)
    out: dict[str, str] = {}
    for p in paths:
        parts = p[:-3].split("/") if p.endswith(".rs") else p.split("/")
        i = _crate_root(parts, roots)
        if i < 0:
            out[p] = ".".join(_ident(x) for x in parts)
            continue
        rest = parts[i:]
        if rest in (["lib"], ["main"]):
            rest = []
        elif rest and rest[-1] == "mod":
            rest = rest[:-1]
        out[p] = ".".join([crates["/".join(parts[:i])]] + [_ident(x) for x in rest])
    return out


# ---------------------------------------------------------------- definitions
def _type_leaf(node: ts.Node | None) -> str:
    """The name of the type an impl is for (`Wrapper<T>` -> Wrapper, `fmt::Formatter` -> Formatter)."""
    for _ in range(4):
        if node is None:
            return ""
        if node.type == "type_identifier":
            return _text(node)
        if node.type == "scoped_type_identifier":
            return _text(node.child_by_field_name("name"))
        node = node.child_by_field_name("type")
    return ""


def _type_dotted(node: ts.Node | None) -> str:
    """A type as a dotted name, through references and wrappers (`&mut Box<a::B>` -> a.B), or ""."""
    for _ in range(6):
        if node is None:
            return ""
        if node.type == "type_identifier":
            return "" if _text(node) == "Self" else _text(node)
        if node.type in ("scoped_type_identifier", "scoped_identifier", "identifier"):
            return _text(node).replace("::", ".") if "<" not in _text(node) else ""
        if node.type == "reference_type":
            node = node.child_by_field_name("type")
        elif node.type == "generic_type":
            head = node.child_by_field_name("type")
            if _text(head) not in _WRAPPERS:
                return _type_dotted(head)
            args = node.child_by_field_name("type_arguments")
            node = args.named_children[0] if args is not None and args.named_child_count else None
        else:
            return ""
    return ""


def _lead(node: ts.Node) -> tuple[int, str]:
    """The first line (0-based) of the attributes and doc comments right above an item, and the
    first line of its doc comment (`///`, `/** */`)."""
    first = node.start_point[0]
    docs: list[str] = []
    prev = node.prev_sibling
    while prev is not None and prev.type in ("attribute_item", "line_comment", "block_comment") \
            and prev.end_point[0] >= first - 1:
        if prev.type != "attribute_item":
            doc = next((c for c in prev.named_children if c.type == "doc_comment"), None)
            if doc is None or any(c.type == "inner_doc_comment_marker" for c in prev.named_children):
                break
            docs.append(_text(doc))
        first = prev.start_point[0]
        prev = prev.prev_sibling
    for text in reversed(docs):
        for line in text.splitlines():
            line = line.strip().lstrip("*").strip()
            if line:
                return first, line[:200]
    return first, ""


def _signature(node: ts.Node, data: bytes) -> str:
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None and node.type != "type_item" else node.end_byte
    return " ".join(data[node.start_byte : end].decode("utf-8", "replace").split()).rstrip(" {;")[:MAX_SIGNATURE]


class _Defs(Enclosing):
    """The file's definitions by byte range (fx.symbols' order), and the inline `mod` each one is
    in, dotted ("" for the file's own)."""

    def __init__(self) -> None:
        super().__init__()
        self.mods: list[str] = []


def _containers(defs: list[tuple[ts.Node, ts.Node]]) -> list[int | None]:
    """For each definition (sorted by start), the index of the innermost one holding it."""
    out: list[int | None] = []
    stack: list[int] = []
    for i, (node, _) in enumerate(defs):
        while stack and defs[stack[-1]][0].end_byte <= node.start_byte:
            stack.pop()
        out.append(stack[-1] if stack else None)
        stack.append(i)
    return out


def _impl_targets(defs: list[tuple[ts.Node, ts.Node]], within: list[int | None]) -> dict[int, int]:
    """impl -> the type definition it is for, when that is beside it (same container)."""
    types = {(within[i], _text(name)): i for i, (node, name) in enumerate(defs) if node.type in _TYPE_DEFS
             and node.type != "type_item"}
    out = {}
    for i, (node, name) in enumerate(defs):
        if node.type == "impl_item":
            target = types.get((within[i], _type_leaf(name)))
            if target is not None:
                out[i] = target
    return out


def _definitions(matches: list[dict], data: bytes, fx: FileExtract) -> _Defs:
    defs = sorted(((caps["def"][0], caps["name"][0]) for caps in matches), key=lambda d: (d[0].start_byte, -d[0].end_byte))
    within = _containers(defs)
    targets = _impl_targets(defs, within)
    out = _Defs()
    for i, (node, name_node) in enumerate(defs):  # one symbol a definition, in this order
        up = within[i]
        parent = targets.get(up, up)
        name = _type_leaf(name_node) if node.type == "impl_item" else _text(name_node)
        if i in targets:  # an impl beside its type: a part of the type, named by its trait
            parent, name = targets[i], _impl_name(node)
        pkind = defs[targets.get(up, up)][0].type if up is not None else None
        if node.type in ("function_item", "function_signature_item"):
            kind = "method" if pkind in ("impl_item", "trait_item", *_TYPE_DEFS) else "function"
        else:
            kind = "function" if node.type == "macro_definition" else "class"
        first, doc = _lead(node)
        fx.symbols.append(SymbolRec(name=name, qualname=name, kind=kind, start_line=first + 1,
                                    end_line=node.end_point[0] + 1, signature=_signature(node, data), doc=doc,
                                    parent=parent))
        outer = out.outer[out.add(node.start_byte, node.end_byte)]  # the symbol whose bytes hold it
        mod = out.mods[outer] if outer is not None else ""
        out.mods.append(f"{mod}.{name}".strip(".") if node.type == "mod_item" else mod)
    for s in fx.symbols:  # parents may come after their methods (an impl above its struct)
        names, p = [s.name], s.parent
        while p is not None:
            names.append(fx.symbols[p].name)
            p = fx.symbols[p].parent
        s.qualname = ".".join(reversed(names))
    for i, (node, name_node) in enumerate(defs):
        _inherits(node, targets.get(i, i), fx)
    return out


def _impl_name(impl: ts.Node) -> str:
    """`impl Display for Point` -> "impl Display"; `impl<T> Point<T>` -> "impl"."""
    trait = impl.child_by_field_name("trait")
    return f"impl {(_type_dotted(trait) or _text(trait)).rsplit('.', 1)[-1]}" if trait is not None else "impl"


def _inherits(node: ts.Node, sym: int, fx: FileExtract) -> None:
    """`impl Trait for Type` and `trait A: B + C`: inherits edges from the type (the trait)."""
    bases: list[ts.Node] = []
    if node.type == "impl_item" and node.child_by_field_name("trait") is not None:
        bases.append(node.child_by_field_name("trait"))
    elif node.type == "trait_item" and node.child_by_field_name("bounds") is not None:
        bases.extend(node.child_by_field_name("bounds").named_children)
    for base in bases:
        name = _type_dotted(base)
        if name:
            fx.edges.append(EdgeRec("inherits", name, sym, base.start_point[0] + 1))


# ---------------------------------------------------------------- imports
def _use_paths(node: ts.Node, prefix: list[str], out: list[tuple[list[str], str, bool]]) -> None:
    """The paths a `use` tree names: (segments, local name or "", glob)."""
    t = node.type
    if t in ("identifier", "crate", "self", "super", "metavariable", "scoped_identifier"):
        segs = prefix + _segments(node)
        if segs and segs[-1] == "self":  # `a::{self}`: the module a
            segs = segs[:-1]
        if segs:
            out.append((segs, segs[-1], False))
    elif t == "use_as_clause":
        segs = prefix + _segments(node.child_by_field_name("path"))
        alias = _text(node.child_by_field_name("alias"))
        if segs and alias != "_":
            out.append((segs[:-1] if segs[-1] == "self" else segs, alias, False))
    elif t == "use_wildcard":
        inner = node.named_children[0] if node.named_child_count else None
        out.append((prefix + (_segments(inner) if inner is not None else []), "", True))
    elif t == "scoped_use_list":
        path = node.child_by_field_name("path")
        inner = prefix + (_segments(path) if path is not None else [])
        _use_paths(node.child_by_field_name("list"), inner, out)
    elif t == "use_list":
        for child in node.named_children:
            _use_paths(child, prefix, out)


def _segments(node: ts.Node | None) -> list[str]:
    """`a::b::c` -> [a, b, c] (generic arguments dropped)."""
    out: list[str] = []
    while node is not None and node.type == "scoped_identifier":
        out.append(_text(node.child_by_field_name("name")))
        node = node.child_by_field_name("path")
    if node is not None:
        if node.type == "generic_type":
            node = node.child_by_field_name("type")
        out.append(_text(node))
    return [s for s in reversed(out) if s]


class _Paths:
    """Rust paths of one file as dotted module names (see the module's docstring)."""

    def __init__(self, module: str):
        self.module = module
        self.root = module.split(".")[0] if module else "crate"
        self.mods: set[str] = set()  # the modules this file declares (`mod a;`, `mod a {}`), dotted from it

    def absolute(self, segs: list[str], scope: str) -> list[str]:
        """The segments from the crate's root (`scope`: the inline mod the path is in)."""
        here = self.module.split(".") + (scope.split(".") if scope else [])
        if segs[0] == "crate" or segs[0] == "$crate":
            return [self.root] + segs[1:]
        if segs[0] == "self":
            return here + segs[1:]
        if segs[0] == "super":
            n = 0
            while n < len(segs) and segs[n] == "super":
                n += 1
            return here[: max(1, len(here) - n)] + segs[n:]
        if f"{scope}.{segs[0]}".strip(".") in self.mods:
            return here + segs
        return segs


def _imports(matches: list[dict], fx: FileExtract, paths: _Paths, defs: _Defs) -> None:
    """`mod a;` and `use` declarations: import records, import edges and the file's namespace."""
    for caps in matches:  # every module this file declares first: a `use` may name one above it
        if "modname" in caps:
            paths.mods.add(_scope(caps["imp"][0], defs) + "." + _text(caps["modname"][0]))
    paths.mods = {m.strip(".") for m in paths.mods} | {defs.mods[i] for i in range(len(defs.mods)) if defs.mods[i]}
    for caps in matches:
        node = caps["imp"][0]
        line = node.start_point[0] + 1
        scope = _scope(node, defs)
        if "modname" in caps or "cratename" in caps:  # `mod a;`, `extern crate a as b;`
            name = _text(caps["modname"][0]) if "modname" in caps else _text(caps["cratename"][0])
            target = ".".join(paths.absolute(["self", name] if "modname" in caps else [name], scope))
            local = _text(node.child_by_field_name("alias")) if node.child_by_field_name("alias") else name
            fx.names.setdefault(local, target)
            fx.imports.append({"module": target, "names": [], "line": line})
            continue
        found: list[tuple[list[str], str, bool]] = []
        _use_paths(caps["use"][0], [], found)
        for segs, local, glob in found:
            full = paths.absolute(segs, scope) if segs else []
            if not full:
                continue
            dotted = ".".join(full)
            if glob:
                fx.names["*"] = (fx.names.get("*", "") + " " + dotted).strip()
                fx.imports.append({"module": dotted, "names": ["*"], "line": line})
            else:
                fx.names.setdefault(local, dotted)
                mod, _, leaf = dotted.rpartition(".")
                fx.imports.append({"module": mod, "names": [leaf], "line": line} if mod else
                                  {"module": dotted, "names": [], "line": line})
    for imp in fx.imports:
        names = [n for n in imp["names"] if n != "*"]
        for dst in [f"{imp['module']}.{n}" for n in names] or [imp["module"]]:
            fx.edges.append(EdgeRec("imports", dst, None, imp["line"]))


def _scope(node: ts.Node, defs: _Defs) -> str:
    i = defs.at(node.start_byte)
    return defs.mods[i] if i is not None else ""


# ---------------------------------------------------------------- calls
class _Bindings:
    """Type expressions of local names per scope (a definition's index), from annotations,
    `T::new(..)`-like constructors and struct literals; a lookup climbs the enclosing spans."""

    def __init__(self, defs: _Defs):
        self.defs = defs
        self.local: dict[tuple[int | None, str], str] = {}

    def lookup(self, scope: int | None, name: str) -> str | None:
        while True:
            te = self.local.get((scope, name))
            if te is not None or scope is None:
                return te
            scope = self.defs.outer[scope]


def _bindings(matches: list[dict], fx: FileExtract, defs: _Defs) -> _Bindings:
    bindings = _Bindings(defs)
    for caps in matches:
        if "ctor" in caps:
            segs = _segments(caps["ctor"][0])
            name = ".".join(segs) if segs and segs[-1][:1].isupper() and segs[-1] != "Self" else ""
        else:
            name = _type_dotted(caps["type"][0])
        if not name:
            continue
        if "field" in caps:
            owner = defs.at(caps["field"][0].start_byte)
            if owner is not None and fx.symbols[owner].kind == "class":
                fx.attrs.append((owner, _text(caps["field"][0]), f"N:{name}"))
        else:
            var = caps["var"][0]
            bindings.local.setdefault((defs.at(var.start_byte), _text(var)), f"N:{name}")
    return bindings


def _path_receiver(path: ts.Node, scope: str, paths: _Paths, fx: FileExtract) -> str:
    """The receiver of `path::f()`: the enclosing impl's type (Self), or a dotted name."""
    segs = _segments(path)
    if not segs or path.type in ("bracketed_type", "generic_type") and not segs:
        return "?"
    if segs == ["Self"]:
        return "self"
    if segs[0] in ("crate", "self", "super", "$crate"):
        segs = paths.absolute(segs, scope)
        fx.names.setdefault(segs[0], segs[0])  # the crate's root, as the resolver looks a name up
    elif f"{scope}.{segs[0]}".strip(".") in paths.mods and scope:
        segs = paths.absolute(segs, scope)
        fx.names.setdefault(segs[0], segs[0])
    return "N:" + ".".join(segs) if all(s.isidentifier() for s in segs) else "?"


def _value_receiver(value: ts.Node | None, src: int | None, bindings: _Bindings) -> str:
    """The receiver of `value.f()`."""
    if value is None:
        return "?"
    if value.type == "self":
        return "self"
    if value.type == "identifier":
        return bindings.lookup(src, _text(value)) or "?"
    if value.type == "field_expression":
        inner = value.child_by_field_name("value")
        if inner is not None and inner.type == "self":
            return f"A:{_text(value.child_by_field_name('field'))}"
    return "?"


def _macro_receiver(node: ts.Node, src: int | None, bindings: _Bindings) -> str:
    """A call in a macro's tokens (`assert!(x.f(1))`): `f(` is a plain call, `self.f(` a self
    call, `x.f(` on a typed local, `T::f(` on a name; else an unknown receiver."""
    prev = node.prev_sibling
    if prev is None or prev.type not in (".", "::"):
        return ""
    before = prev.prev_sibling
    if before is None:
        return "?"
    if prev.type == ".":
        if before.type == "self":
            return "self"
        return (bindings.lookup(src, _text(before)) or "?") if before.type == "identifier" else "?"
    if before.type == "identifier" and (before.prev_sibling is None or before.prev_sibling.type != "::"):
        return "self" if _text(before) == "Self" else f"N:{_text(before)}"
    return "?"


def _call_edges(matches: list[dict], fx: FileExtract, defs: _Defs, bindings: _Bindings, paths: _Paths) -> None:
    edges = CallEdges(fx)
    found = []
    for caps in matches:
        if "mcallee" in caps:
            if _text(caps["margs"][0])[:1] == "(" and _text(caps["mcallee"][0]) not in KEYWORDS:
                found.append((caps["mcallee"][0], True))
        else:
            found.append((caps["callee"][0], False))
    for node, in_macro in sorted(found, key=lambda f: f[0].start_byte):
        src = defs.at(node.start_byte)
        parent = node.parent
        if in_macro:
            recv = _macro_receiver(node, src, bindings)
        elif parent.type == "scoped_identifier":
            path = parent.child_by_field_name("path")
            recv = _path_receiver(path, defs.mods[src] if src is not None else "", paths, fx) if path else ""
        elif parent.type == "field_expression":
            recv = _value_receiver(parent.child_by_field_name("value"), src, bindings)
        else:
            recv = ""
        edges.add(_text(node), src, node, recv)


# ---------------------------------------------------------------- texts
def _module_doc(root: ts.Node) -> str:
    """The first line of the file's inner doc comment (`//!`)."""
    for child in root.children[:3]:
        if child.type in ("line_comment", "block_comment") and any(
                c.type == "inner_doc_comment_marker" for c in child.named_children):
            doc = next((c for c in child.named_children if c.type == "doc_comment"), None)
            line = _text(doc).strip()
            if line:
                return line.splitlines()[0].strip()[:200]
    return ""


def extract(path: str, data: bytes, module: str, options: dict | None = None) -> FileExtract:
    """Items, `mod` and `use` imports, trait impls, typed bindings, calls and (in tests) references."""
    options = options or {}
    grammar = _grammar()
    root, fx = parse(grammar, data, "rust")
    parts = matches_by_part(grammar, root)
    defs = _definitions(parts["defs"], data, fx)
    paths = _Paths(module)
    _imports(sorted(parts["imports"], key=lambda c: c["imp"][0].start_byte), fx, paths, defs)
    bindings = _bindings(parts["bindings"], fx, defs)
    _call_edges(parts["calls"], fx, defs, bindings, paths)
    if options.get("is_test"):
        test_references(data, fx, KEYWORDS)
    own_texts(data, fx)
    fx.module_doc = _module_doc(root)
    return fx


def _test_arguments(files: list[str]) -> list[str]:
    """`cargo test` narrowed to the files: an integration test (tests/x.rs) by `--test x`, any
    other file by its module path as a test-name filter (its `#[cfg(test)] mod tests`)."""
    args: list[str] = []
    filters: list[str] = []
    names = module_names(files)
    for f in files:
        parts = f.split("/")
        if len(parts) >= 2 and parts[-2] == "tests" and f.endswith(".rs"):
            args += ["--test", parts[-1][:-3]]
        else:
            inner = names[f].split(".")[1:]
            if inner and "::".join(inner) not in filters:
                filters.append("::".join(inner))
    return args + (["--", *filters] if filters else [])


def is_private(_name: str, signature: str) -> bool:
    """Declared without `pub` (`pub(crate)` is visible beyond its module)."""
    return re.match(r"\s*pub\b", signature) is None


RUST = Language(
    name="rust",
    private=is_private,
    extensions=(".rs",),
    lexer="rust",
    extract=extract,
    module_names=module_names,
    # tests/ holds a crate's integration tests; unit tests live in the source files themselves,
    # in `#[cfg(test)] mod tests` (or a tests.rs module file beside them)
    test_dirs=("tests", "benches"),
    test_only_dirs=("tests",),
    test_files=("tests.rs", "*_test.rs", "*_tests.rs"),
    test_function=re.compile(r"#\[(?:\w+::)*test\b"),  # #[test], #[tokio::test]
    trace_frames=(
        # a panic: `thread 'main' panicked at src/a.rs:3:5:` (before Rust 1.73: `panicked at 'msg', src/a.rs:3:5`)
        re.compile(r"panicked at (?:'(?:[^'\\\n]|\\.)*', )?(?P<path>[\w./\\-]+\.rs):(?P<line>\d+)(?::\d+)?"),
        # a backtrace frame: `  3: grep::search::run` then `        at ./src/search.rs:10:5`
        re.compile(r"^\s*\d+: (?:[\w<>]+::)*(?P<func>\w+)(?:::h[0-9a-f]{16})?\s*\n\s+at (?P<path>[^\s:]+\.rs):"
                   r"(?P<line>\d+)(?::\d+)?", re.M),
    ),
    trace_innermost_first=True,  # a backtrace numbers frames from the panic outwards
    definition=(r"(?:pub(?:\([\w:\s]+\))?\s+)?(?:(?:async|const|unsafe|default)\s+)*(?:extern\s+\"\w+\"\s+)?"
                r"(?:fn|struct|enum|union|trait|mod|type|macro_rules!)\s+([A-Za-z_]\w*)"),
    git_diff_driver="rust",
    line_comments=("//",),
    block_comments=((r"/\*", "*/"),),
    keywords=RECORD_KEYWORDS,
    common_names=COMMON_NAMES,
    package_files=("mod.rs",),
    common_file_names=("mod.rs", "lib.rs", "main.rs", "build.rs", "tests.rs"),
    test_runner=("cargo", "test"),
    test_arguments=_test_arguments,
    module_files=("Cargo.toml",),
    scope_separator="::",
)
