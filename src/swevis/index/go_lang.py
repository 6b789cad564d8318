"""Go: the extractor on tree-sitter-go (functions, methods, struct and interface types; the
package's imports; embedding; calls) and the conventions of Go code (`GO`, registered in
swevis.index.languages).

A Go package is a folder: every file of it has the package's import path as its module, the
module path of the nearest go.mod (its `module` line) and the folder below it
(`github.com/x/app/internal/util`). Each file sees its own package's top-level names
(`names["+"]`, swevis.index.resolve); an import binds the package's name (its alias, else the
path's last part) to the import path, so `util.Clamp()` is looked up in that package. A method
is a member of its receiver's type when the type is declared in the same file (else a method
without a parent, found by name), an interface's method a member of the interface; a
package-level `var` of a composite literal (a map, a slice, a struct) is a `class`, of a func
literal a function; a struct's or interface's embedded types are its bases.
Calls on a method's receiver, a typed parameter or variable (`var c Circle`, `c := &Circle{}`)
are looked up on that type; other receivers by name only. Interfaces are satisfied implicitly
in Go: no edge says which types implement one.
"""

from __future__ import annotations

import re

import tree_sitter as ts
import tree_sitter_go as tsg

from swevis.index.records import EdgeRec, FileExtract, Language, SymbolRec
from swevis.index.treesitter_util import CallEdges, Compiled, Enclosing, compile_grammar, compiled_once, doc_comment
from swevis.index.treesitter_util import own_texts, parse, test_references, text

# every part of the extraction in one query: one walk of the tree (matches told apart by capture names)
_PATTERNS = """
(function_declaration name: (identifier) @name) @def
(method_declaration name: (field_identifier) @name) @def
(type_spec name: (type_identifier) @name) @def
(type_alias name: (type_identifier) @name) @def
(method_elem name: (field_identifier) @name) @def
(source_file (var_declaration (var_spec name: (identifier) @name
  value: (expression_list . [(composite_literal) (func_literal)])) @def))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name
  value: (expression_list . [(composite_literal) (func_literal)])) @def)))
(package_clause) @package
(import_spec) @import
(call_expression function: (identifier) @callee)
(call_expression function: (selector_expression field: (field_identifier) @callee))
(parameter_declaration name: (identifier) @var type: (_) @type)
(var_spec name: (identifier) @var type: (_) @type)
(short_var_declaration left: (expression_list . (identifier) @var) right: (expression_list . (_) @value))
(field_declaration name: (field_identifier) @field type: (_) @type)
"""
MAX_SIGNATURE = 300


@compiled_once("Go")
def _grammar() -> Compiled:
    """Compiled when the first Go file is parsed (treesitter_util.compile_grammar says why)."""
    return compile_grammar(ts.Language(tsg.language()), {"all": _PATTERNS})


KEYWORDS = frozenset("""break case chan const continue default defer else fallthrough for func go goto if import
interface map package range return select struct switch type var nil true false iota""".split())
BUILTINS = frozenset("""append cap clear close complex copy delete imag len make max min new panic print println
real recover bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint
uint8 uint16 uint32 uint64 uintptr any comparable""".split())
_VERSION = re.compile(r"^v\d+$")


def _type_name(node: ts.Node | None) -> str:
    """The (qualified) type a type node names: `*pkg.T[U]` -> pkg.T, or ""."""
    while node is not None and node.type in ("pointer_type", "generic_type", "parenthesized_type"):
        node = node.child_by_field_name("type") or (node.named_children[0] if node.named_child_count else None)
    if node is None or node.type not in ("type_identifier", "qualified_type"):
        return ""
    return "".join(text(node).split())


def _value_type(node: ts.Node | None) -> str:
    """The type of a value whose type is written in it: `T{}`, `&T{}`, `new(T)`."""
    if node is not None and node.type == "unary_expression" and text(node.child_by_field_name("operator")) == "&":
        node = node.child_by_field_name("operand")
    if node is not None and node.type == "composite_literal":
        return _type_name(node.child_by_field_name("type"))
    if node is not None and node.type == "call_expression" and text(node.child_by_field_name("function")) == "new":
        args = node.child_by_field_name("arguments")
        return _type_name(args.named_children[0]) if args is not None and args.named_child_count else ""
    return ""


def _signature(node: ts.Node, data: bytes) -> str:
    """`func (c *Circle) Area() float64`, `type Circle struct`: the declaration up to its body."""
    if node.type == "var_spec":  # `var x = map[string]int{`: up to the literal's body
        value = node.child_by_field_name("value").named_children[0]
        body = value.child_by_field_name("body")
        end = body.start_byte + 1 if body is not None else value.end_byte
        return "var " + " ".join(data[node.start_byte : end].decode("utf-8", "replace").split())[:MAX_SIGNATURE]
    if node.type in ("type_spec", "type_alias"):
        kind = node.child_by_field_name("type")
        head = data[node.start_byte : kind.start_byte].decode("utf-8", "replace") if kind is not None else text(node)
        body = kind.type.removesuffix("_type") if kind is not None and kind.type in ("struct_type", "interface_type") \
            else text(kind)
        sig = f"type {head}{body}"
    else:
        body = node.child_by_field_name("body")
        end = body.start_byte if body is not None else node.end_byte
        sig = data[node.start_byte : end].decode("utf-8", "replace")
    return " ".join(sig.split())[:MAX_SIGNATURE]


def _scan(root: ts.Node) -> dict[str, list]:
    """The query's matches by part, each in source order."""
    parts: dict[str, list] = {"def": [], "package": [], "import": [], "callee": [], "var": [], "field": []}
    for _, caps in ts.QueryCursor(_grammar().query).matches(root):
        if "def" in caps:
            parts["def"].append((caps["def"][0], text(caps["name"][0])))
        elif "var" in caps:
            te = _type_name(caps["type"][0]) if "type" in caps else _value_type(caps["value"][0])
            parts["var"].append((caps["var"][0], te))
        elif "field" in caps:
            parts["field"].append((caps["field"][0], _type_name(caps["type"][0])))
        else:
            key = next(iter(caps))
            parts[key].append((caps[key][0], ""))
    for found in parts.values():
        found.sort(key=lambda m: (m[0].start_byte, -m[0].end_byte))
    return parts


def _receiver_type(node: ts.Node) -> tuple[str, str]:
    """(receiver variable, its type's name) of a method declaration."""
    params = node.child_by_field_name("receiver")
    decl = params.named_children[0] if params is not None and params.named_child_count else None
    if decl is None:
        return "", ""
    return text(decl.child_by_field_name("name")), _type_name(decl.child_by_field_name("type"))


def _definitions(defs: list[tuple[ts.Node, str]], data: bytes, fx: FileExtract) -> tuple[Enclosing, dict]:
    """Functions, methods and types into fx.symbols in source order (a method's parent is its
    receiver's type when this file declares it), with the types' embedded types as bases;
    returns the byte ranges and, per method, (receiver variable, type)."""
    types = {name: i for i, (node, name) in enumerate(defs) if node.type in ("type_spec", "type_alias")}
    nesting = Enclosing()
    receivers: dict[int, tuple[str, str]] = {}
    for i, (node, name) in enumerate(defs):
        outer = node.parent if node.type != "method_declaration" and node.parent is not None \
            and node.parent.type == "type_declaration" and node.parent.named_child_count == 1 else node
        container = nesting.outer[nesting.add(node.start_byte, node.end_byte)]
        kind, qualname, parent = "function", name, None
        if node.type == "method_elem" and container is not None:  # an interface's method
            kind, qualname, parent = "method", f"{fx.symbols[container].qualname}.{name}", container
        elif node.type == "var_spec":  # a package-level table (map, slice, struct) or func value
            value = node.child_by_field_name("value").named_children[0]
            kind = "function" if value.type == "func_literal" else "class"
        elif node.type == "method_declaration":
            receivers[i] = _receiver_type(node)
            type_name = receivers[i][1].rsplit(".", 1)[-1]
            kind, qualname, parent = "method", f"{type_name}.{name}", types.get(type_name)
        elif node.type in ("type_spec", "type_alias"):
            kind = "class"
        fx.symbols.append(SymbolRec(
            name=name, qualname=qualname, kind=kind,
            start_line=outer.start_point[0] + 1, end_line=node.end_point[0] + 1,
            signature=_signature(node, data), doc=doc_comment(outer), parent=parent,
        ))
        if kind == "class":
            _embedded(node, i, fx)
    return nesting, receivers


def _embedded(node: ts.Node, index: int, fx: FileExtract) -> None:
    """`inherits` edges of a struct's embedded fields and an interface's embedded interfaces."""
    body = node.child_by_field_name("type")
    if body is None or body.type not in ("struct_type", "interface_type"):
        return
    if body.type == "struct_type":
        fields = next((c for c in body.named_children if c.type == "field_declaration_list"), None)
        embedded = [f.child_by_field_name("type") for f in (fields.named_children if fields else ())
                    if f.type == "field_declaration" and f.child_by_field_name("name") is None]
    else:
        embedded = [c.named_children[0] for c in body.named_children if c.type == "type_elem" and c.named_child_count]
    for t in embedded:
        name = _type_name(t)
        if name:
            fx.edges.append(EdgeRec("inherits", name, index, t.start_point[0] + 1))


def package_name(import_path: str) -> str:
    """The name an import binds by default: the path's last part (`gopkg.in/yaml.v3` -> yaml,
    `example.com/x/v2` -> x)."""
    parts = import_path.split("/")
    last = parts[-2] if len(parts) > 1 and _VERSION.match(parts[-1]) else parts[-1]
    return re.sub(r"\.v\d+$", "", last).removeprefix("go-").replace("-", "_")


def _imports(imports: list, module: str, fx: FileExtract) -> None:
    """Import records, the names they bind, their `imports` edges; the own package is seen whole."""
    packages = [module] if module else []
    for node, _ in imports:
        path = text(node.child_by_field_name("path")).strip('"`')
        alias = text(node.child_by_field_name("name"))
        line = node.start_point[0] + 1
        fx.imports.append({"module": path, "names": [], "line": line})
        fx.edges.append(EdgeRec("imports", path, None, line))
        if alias == ".":
            packages.append(path)
        elif alias != "_":
            fx.names.setdefault(alias or package_name(path), path)
    if packages:
        fx.names["+"] = " ".join(dict.fromkeys(packages))


def _types(parts: dict, fx: FileExtract, nesting: Enclosing, receivers: dict) -> dict:
    """Declared types of variables per function ((function, name) -> "N:T" or ""), with each
    method's receiver; struct fields with a type go to fx.attrs."""
    local: dict[tuple[int | None, str], str] = {}
    for i, (var, type_name) in receivers.items():
        if var and type_name:
            local[(i, var)] = f"N:{type_name}"
    for node, type_name in parts["var"]:
        local.setdefault((nesting.at(node.start_byte), text(node)), f"N:{type_name}" if type_name else "")
    for node, type_name in parts["field"]:
        owner = nesting.at(node.start_byte)
        if owner is not None and type_name and type_name not in BUILTINS and fx.symbols[owner].kind == "class":
            fx.attrs.append((owner, text(node), f"N:{type_name}"))
    return local


def _receiver(operand: ts.Node | None, src: int | None, local: dict, receivers: dict, fx: FileExtract) -> str:
    """EdgeRec.recv of a call `operand.f()` from inside definition `src`."""
    if operand is None:
        return "?"
    if operand.type == "selector_expression":  # recv.field.f(): the field's type
        inner = operand.child_by_field_name("operand")
        if src in receivers and inner is not None and text(inner) == receivers[src][0]:
            return f"A:{text(operand.child_by_field_name('field'))}" if fx.symbols[src].parent is not None else "?"
        return "?"
    if operand.type != "identifier":
        return "?"
    name = text(operand)
    te = local.get((src, name))
    if te is not None:
        return te or "?"
    return f"N:{name}" if name in fx.names else "?"


def _call_edges(callees: list, fx: FileExtract, nesting: Enclosing, local: dict, receivers: dict) -> None:
    """`calls` edges with their receivers, deduplicated per caller."""
    edges = CallEdges(fx)
    for node, _ in callees:
        src = nesting.at(node.start_byte)
        name = text(node)
        recv = ""
        if node.type == "field_identifier":
            recv = _receiver(node.parent.child_by_field_name("operand"), src, local, receivers, fx)
        elif name in BUILTINS:
            continue
        edges.add(name, src, node, recv)


def extract(path: str, data: bytes, module: str, options: dict | None = None) -> FileExtract:
    """Definitions, imports, embedded types, calls and (in tests) references of one file."""
    options = options or {}
    root, fx = parse(_grammar(), data, "go")
    parts = _scan(root)
    nesting, receivers = _definitions(parts["def"], data, fx)
    _imports(parts["import"], module, fx)
    local = _types(parts, fx, nesting, receivers)
    _call_edges(parts["callee"], fx, nesting, local, receivers)
    if options.get("is_test"):
        test_references(data, fx, KEYWORDS)
    own_texts(data, fx)
    if parts["package"]:
        fx.module_doc = doc_comment(parts["package"][0][0])
    return fx


_MODULE_LINE = re.compile(r"^\s*module\s+\"?([^\s\"]+)", re.M)


def _go_module(folder: str, read, found: dict[str, tuple[str, str] | None]) -> tuple[str, str] | None:
    """(folder of the nearest go.mod at or above `folder`, its module path), or None."""
    if folder in found:
        return found[folder]
    manifest = read(f"{folder}/go.mod" if folder else "go.mod")
    m = _MODULE_LINE.search(manifest) if manifest else None
    if m:
        out = (folder, m.group(1))
    else:
        out = _go_module(folder.rsplit("/", 1)[0] if "/" in folder else "", read, found) if folder else None
    found[folder] = out
    return out


def module_names(paths: list[str], root_name: str = "", read=None) -> dict[str, str]:
    """The import path of each Go file's package: its go.mod's module path and the folder below
    it; a vendored package's path below vendor/; without a go.mod, its folder ("." at the top)."""
    found: dict[str, tuple[str, str] | None] = {}
    out: dict[str, str] = {}
    for p in paths:
        folder = p.rsplit("/", 1)[0] if "/" in p else ""
        if folder == "vendor" or folder.startswith("vendor/") or "/vendor/" in f"/{folder}/":
            out[p] = folder.split("vendor/", 1)[1] if "vendor/" in folder else "."
            continue
        mod = _go_module(folder, read, found) if read is not None else None
        if mod is None:
            out[p] = folder or "."
        else:
            below = folder[len(mod[0]) :].lstrip("/")
            out[p] = f"{mod[1]}/{below}" if below else mod[1]
    return out


def test_arguments(test_files: list[str]) -> list[str]:
    """`go test` takes packages: the folder of each test file, `./a/b` (`.` at the top)."""
    folders = dict.fromkeys("./" + f.rsplit("/", 1)[0] if "/" in f else "." for f in test_files)
    return sorted(folders)


# a goroutine trace's frame: the function's line, then its file's: `main.(*T).run(...)` and
# `\t/home/u/app/main.go:12 +0x1d` (a func's last dotted part is its name)
_FRAME = re.compile(r"^(?P<func>[\w./*()\-]*\w)\([^\n]*\)\n\s+(?P<path>[^\s:]+\.go):(?P<line>\d+)", re.M)

def is_private(name: str, _signature: str) -> bool:
    """Unexported: its name starts with a lower-case letter (or `_`)."""
    return name[:1].islower() or name.startswith("_")


GO = Language(
    name="go",
    private=is_private,
    root_package=True,  # a module's root package is its top folder
    extensions=(".go",),
    lexer="go",
    extract=extract,
    module_names=module_names,
    module_files=("go.mod",),
    test_dirs=("testdata",),
    test_only_dirs=("testdata",),
    test_files=("*_test.go",),
    test_function=re.compile(r"\bfunc\s+(?:Test|Benchmark|Fuzz|Example)\w*\s*[(\[]"),  # what go test runs
    trace_frames=(_FRAME,),
    trace_innermost_first=True,
    definition=r"(?:func\s+(?:\([^)]*\)\s*)?|type\s+)([A-Za-z_]\w*)",
    git_diff_driver="golang",
    line_comments=("//",),
    block_comments=((r"/\*", "*/"),),
    keywords=KEYWORDS,
    common_names=BUILTINS | {"fmt", "Println", "Printf", "Sprintf", "Errorf"},
    common_file_names=("main.go", "doc.go"),
    test_runner=("go", "test"),
    test_arguments=test_arguments,
)
