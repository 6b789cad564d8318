"""JavaScript: the extractor on tree-sitter-javascript (definitions, ES and CommonJS imports,
bases, calls, references) and the conventions of JavaScript code (`JAVASCRIPT`, registered in
swevis.index.languages). TypeScript (swevis.index.typescript_lang) runs the same extractor on
its own grammar with its own patterns added.

Imports are written in the resolver's vocabulary (swevis.index.resolve): a module is its path
without the extension, "/" read as "." (`lib/core/Axios.js` is `lib.core.Axios`) and a folder's
index file is the folder (`lib/index.js` is `lib`), so a relative import names its file
whatever extension it has or omits. A bare specifier goes through the nearest tsconfig.json or
jsconfig.json (`compilerOptions.paths`, `baseUrl`); one it does not map is a package from
outside the repository. A module's default export is its name `default`: the exported
definition, else the module itself (what `require` returns of a CommonJS module), so
`import X from` and `const X = require()` both bind `X` to `<module>.default`.

A function that gets methods through its prototype (`Axios.prototype.request = function`) is
a class, the methods its own. So is a name bound to a call given an object literal with
functions, the class factories of Leaflet, Backbone and Vue (`const Foo = Base.extend({ bar()
{...}, baz: function () {...} })`): its functions are the methods Foo.bar and Foo.baz, and an
`X.extend(...)` call makes X its base. The functions of an object given to `A.include(...)` or
assigned to `A.prototype` are A's methods (`A.f`). Every definition is a symbol in its
container: a named function expression wherever it is (`cond && function f() {...}`,
`wrap(function f() {...})`), a default export's anonymous function (`default`), a name bound
to a function on a branch of `?:`, `&&` or `||` (`exports.load = esm ? async f => ... : ...`),
a function-valued member of any object (`return { before: function () {...} }`), an object
literal with functions (anywhere) or any object or array (at the top level: a table), whose
members are `object.member`. At the top level, a name bound to a call of an object literal
is a table too (`const EVENTS = Object.freeze({...})`, mocha's `defineConstants({...})`), and
so is an assigned one (`X.y = [...]`; `module.exports = {...}` is the table `exports`, its
functions `exports.f`, which the module's namespace maps `f` to: `require(m).f` finds them).
A value exported by name is a definition as that table's member is (`exports.max = 8192`,
`module.exports.max`; not a name or a `require` passed on), a `class` as a Rust const is; so is
a top-level name bound to a value that holds a function and no other definition (`var
inlineSvg = !!svg && (function () {...})()`, a callback given to a call: `var events =
keys(c).filter(function (k) {...})`), a `function`. A JSDoc type (`/** @typedef {Object}
Options */`, `@callback`) is a `class` of a JavaScript file. A definition's span starts at the
comments right above it, and at a header comment blank lines above it that names it by its tag
(Leaflet's `/* @class Map ... */`). Symbol kinds are the index's three: classes, interfaces,
enums, type aliases and namespaces are `class` (their signature says which); a method of a
class or an interface is a `method`.
"""

from __future__ import annotations

import json
import posixpath
import re

import tree_sitter as ts
import tree_sitter_javascript as tsjs

from swevis.index.records import EdgeRec, FileExtract, Language, SymbolRec
from swevis.index.treesitter_util import CallEdges, Compiled, Enclosing, class_of, compile_grammar, compiled_once
from swevis.index.treesitter_util import dotted, matches_by_part, member_receiver, own_texts, parse, test_references
from swevis.index.treesitter_util import text as _text

__all__ = ["JAVASCRIPT", "grammar_parts", "extract_with", "module_names", "module_of_path", "node_frame",
           "KEYWORDS", "RECORD_KEYWORDS", "COMMON_NAMES", "JS_EXTENSIONS", "TS_EXTENSIONS"]

JS_EXTENSIONS = (".js", ".mjs", ".cjs", ".jsx")
TS_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".d.ts", ".d.mts", ".d.cts")
# what an import specifier may end with: dropped to name the module (`./a.js` is `./a`)
_SPEC_EXTENSIONS = tuple(sorted(JS_EXTENSIONS + TS_EXTENSIONS, key=len, reverse=True))
MAX_SIGNATURE = 300

# patterns both grammars share; `name` of a definition, `def` its node
_DEFS = """
(function_declaration name: (identifier) @name) @def
(generator_function_declaration name: (identifier) @name) @def
(class_declaration name: (_) @name) @def
(method_definition name: (_) @name) @def
(variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function) (class)]) @def
(assignment_expression left: (member_expression property: (property_identifier) @name)
  right: [(arrow_function) (function_expression) (generator_function) (class)]) @def
(assignment_expression left: (identifier) @name
  right: [(arrow_function) (function_expression) (generator_function) (class)]) @def
(variable_declarator name: (identifier) @name value: (call_expression)) @def
(assignment_expression left: (member_expression object: (identifier) @_cjs property: (property_identifier) @name)
  right: (_) (#eq? @_cjs "exports")) @def
(assignment_expression left: (member_expression object: (member_expression object: (identifier) @_cjs_module
  property: (property_identifier) @_cjs) property: (property_identifier) @name)
  right: (_) (#eq? @_cjs_module "module") (#eq? @_cjs "exports")) @def
(function_expression name: (identifier) @name) @def
(generator_function name: (identifier) @name) @def
(export_statement value: [(function_expression !name) (generator_function !name) (arrow_function)] @def)
(variable_declarator name: (identifier) @name value: [(object) (array)]) @def
(pair key: [(property_identifier) (string) (number)] @name
  value: [(object) (arrow_function) (function_expression) (generator_function)]) @def
(variable_declarator name: (identifier) @name value: [(ternary_expression) (binary_expression)]) @def
(assignment_expression left: (member_expression property: (property_identifier) @name)
  right: [(ternary_expression) (binary_expression) (object) (array)]) @def
(assignment_expression left: (identifier) @name right: [(ternary_expression) (binary_expression) (object) (array)]) @def
"""
_IMPORTS = """
(import_statement) @imp
(export_statement) @exp
(call_expression function: (identifier) @req arguments: (arguments . (string) @src)) @reqcall
(call_expression function: (import) arguments: (arguments . (string) @src)) @dynimport
(assignment_expression left: (member_expression) @target right: (_) @rhs) @exports
"""
_CALLS = """
(call_expression function: (identifier) @callee)
(call_expression function: (member_expression property: [(property_identifier) (private_property_identifier)] @callee))
(call_expression function: (super) @callee)
(new_expression constructor: (identifier) @callee)
(new_expression constructor: (member_expression property: (property_identifier) @callee))
"""
_BINDINGS = """
(variable_declarator name: (identifier) @var value: (new_expression constructor: (_) @ctor))
(assignment_expression left: (member_expression object: (this) property: (property_identifier) @attr)
  right: (new_expression constructor: (_) @ctor))
"""
_JS_ONLY = """
(field_definition property: (property_identifier) @name value: [(arrow_function) (function_expression)]) @def
((comment) @def (#match? @def "^/[*][*]") (#match? @def "@(typedef|callback)[ \t]"))
"""
# a JSDoc type of JavaScript code: `@typedef {Object} Name`, `@typedef Name`, `@callback Name`
_JSDOC_TYPE = re.compile(r"@(?:typedef|callback)[ \t]+(?:\{[^\n]*\}[ \t]*)?([A-Za-z_$][\w$.]*)")
# the tag of a header comment that names what it documents (`@class Map`, `@namespace Util`)
_CLASS_TAG = re.compile(r"@(?:class|namespace)[ \t]+([A-Za-z_$][\w$.]*)")

# the language's reserved words (the extractor skips them), and what its record lists as no
# identifier: issue hints drop these words for every repository (the noise of all registered
# languages is one set), so words other languages' code names things by (delete, default,
# function, Symbol, Number, Set, Date) are left out of the record's lists
KEYWORDS = frozenset(
    "break case catch class const continue debugger default delete do else export extends finally for function if "
    "import in instanceof new return super switch this throw try typeof var void while with yield let static async "
    "await of null true false undefined get set".split()
)
RECORD_KEYWORDS = frozenset("const debugger instanceof typeof undefined var this".split())
COMMON_NAMES = frozenset(
    "console require globalThis setTimeout setInterval clearTimeout clearInterval parseInt parseFloat isNaN "
    "encodeURIComponent decodeURIComponent".split()
)
# globals a plain call of names no definition (test frameworks' and the runtime's)
_GLOBALS = COMMON_NAMES | frozenset(
    "Object Array String Number Boolean Symbol BigInt Promise Map Set WeakMap WeakSet Date RegExp Error TypeError "
    "RangeError Function Proxy Reflect Buffer describe it test expect beforeEach afterEach beforeAll afterAll jest "
    "fetch".split()
)
_TEST_WORDS = KEYWORDS | {"describe", "it", "expect", "test", "assert", "require", "module", "exports", "const"}


def grammar_parts(extra_defs: str, extra_bindings: str = "") -> dict[str, str]:
    """The extractor's patterns by part on a grammar with its own patterns of definitions and of
    bindings added (`extra_*`), for treesitter_util.compile_grammar."""
    return {"defs": _DEFS + extra_defs, "imports": _IMPORTS, "calls": _CALLS, "bindings": _BINDINGS + extra_bindings}


def _one_line(text: str) -> str:
    return " ".join(text.split())[:MAX_SIGNATURE]


# ---------------------------------------------------------------- module names and specifiers
def module_of_path(path: str) -> str:
    """The module a file (or an import's target path, extension dropped or not) stands for:
    its path without the extension, "/" as "." and dots inside a name as "_"; an index file is
    its folder (the top folder's index is `index`)."""
    base = path
    for ext in _SPEC_EXTENSIONS:
        if base.lower().endswith(ext):
            base = base[: -len(ext)]
            break
    parts = [p for p in base.split("/") if p and p != "."]
    if len(parts) > 1 and parts[-1] == "index":
        parts.pop()
    return ".".join(p.replace(".", "_") for p in parts)


def module_names(paths: list[str], root_name: str = "") -> dict[str, str]:
    """Module name per file: its path without the extension (see `module_of_path`)."""
    return {p: module_of_path(p) for p in paths}


def _strip_json(text: str) -> str:
    """tsconfig's JSON with comments and trailing commas -> JSON."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if text.find("\n", i) >= 0 else n
        elif text.startswith("/*", i):
            i = text.find("*/", i) + 2 if text.find("*/", i) >= 0 else n
        else:
            out.append(c)
            i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


class _Aliases:
    """One tsconfig.json/jsconfig.json's `compilerOptions.paths` and `baseUrl`, as paths from
    the repository's root."""

    def __init__(self, folder: str, options: dict):
        base = options.get("baseUrl")
        self.base = posixpath.normpath(posixpath.join(folder, base)) if isinstance(base, str) else None
        root = self.base if self.base is not None else folder
        self.paths: list[tuple[str, str]] = []
        for pattern, targets in (options.get("paths") or {}).items():
            if isinstance(targets, list) and targets and isinstance(targets[0], str):
                self.paths.append((pattern, posixpath.normpath(posixpath.join(root, targets[0]))))
        self.paths.sort(key=lambda p: -len(p[0].split("*")[0]))  # the longest prefix wins, as in tsc

    def target(self, spec: str) -> str | None:
        for pattern, target in self.paths:
            head, star, tail = pattern.partition("*")
            if not star and spec == pattern:
                return target
            if star and spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(head) + len(tail):
                return target.replace("*", spec[len(head) : len(spec) - len(tail)], 1)
        if self.base is not None:
            return posixpath.normpath(posixpath.join(self.base, spec))
        return None


# the last build's project files (held, so that the cache is never another dict's) -> folder -> aliases
_CONFIGS: list = [None, {}]


def _config_options(project: dict, path: str, seen: int = 0) -> dict:
    """A config's compilerOptions, over those of the config it `extends` (a relative one)."""
    try:
        cfg = json.loads(_strip_json(project[path].decode("utf-8", "replace")))
    except (ValueError, KeyError):
        return {}
    if not isinstance(cfg, dict):
        return {}
    own = cfg.get("compilerOptions") if isinstance(cfg.get("compilerOptions"), dict) else {}
    parent = cfg.get("extends")
    if isinstance(parent, str) and parent.startswith(".") and seen < 5:
        folder = posixpath.dirname(path)
        ppath = posixpath.normpath(posixpath.join(folder, parent))
        ppath = ppath if ppath.endswith(".json") else ppath + ".json"
        inherited = dict(_config_options(project, ppath, seen + 1))
        pfolder = posixpath.dirname(ppath)
        if "baseUrl" in inherited:  # relative to the config that sets it
            inherited["baseUrl"] = posixpath.relpath(posixpath.join(pfolder, inherited["baseUrl"]), folder or ".")
        return {**inherited, **own}
    return own


def _aliases(project: dict, path: str) -> _Aliases | None:
    """The aliases of the nearest tsconfig.json or jsconfig.json above `path`."""
    if not project:
        return None
    if _CONFIGS[0] is not project:  # one build's files at a time
        _CONFIGS[:] = [project, {}]
        by_folder = _CONFIGS[1]
        for cfg in project:
            name = cfg.rsplit("/", 1)[-1]
            folder = cfg.rsplit("/", 1)[0] if "/" in cfg else ""
            if name in ("tsconfig.json", "jsconfig.json") and (folder not in by_folder or name == "tsconfig.json"):
                by_folder[folder] = _Aliases(folder, _config_options(project, cfg))
    by_folder = _CONFIGS[1]
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    while True:
        if folder in by_folder:
            return by_folder[folder]
        if not folder:
            return None
        folder = folder.rsplit("/", 1)[0] if "/" in folder else ""


def _spec_module(spec: str, path: str, aliases: _Aliases | None) -> str:
    """The module an import specifier names from file `path`: a repository module, or the
    specifier itself for a package from outside (no module of the repository is named so)."""
    if spec.startswith("."):
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))
        if target.startswith(".."):
            return spec
        return module_of_path(target) or "index"
    if aliases is not None:
        target = aliases.target(spec)
        if target is not None and not target.startswith(".."):
            return module_of_path(target) or "index"
    return spec


# ---------------------------------------------------------------- definitions
def _outer(node: ts.Node) -> ts.Node:
    """The statement a definition is written as (export, const, assignment statement; that of
    `var f = (exports.f = function () {...})` too)."""
    if node.type == "assignment_expression":
        up = node.parent
        while up is not None and up.type in ("parenthesized_expression", "assignment_expression"):
            up = up.parent
        if up is not None and up.type in ("expression_statement", "variable_declarator"):
            node = up
    if node.type == "variable_declarator" and node.parent is not None:
        node = node.parent
    if node.parent is not None and node.parent.type == "export_statement":
        node = node.parent
    return node


def _first_line(outer: ts.Node, name: str = "") -> int:
    """A definition's first line (0-based): that of the comments right above it, if any (its
    JSDoc, Leaflet's `// @method` lines), as a Rust item's doc comments are its own; and of a
    comment blank lines above it that names it by its tag (Leaflet's `@class Map` header)."""
    first, prev = outer, outer.prev_named_sibling
    while prev is not None and prev.type == "comment" and (
            prev.end_point[0] >= first.start_point[0] - 1 or _tagged(prev, name)):
        first, prev = prev, prev.prev_named_sibling
    return first.start_point[0]


def _tagged(comment: ts.Node, name: str) -> bool:
    """Whether a comment's `@class` or `@namespace` tag names the definition `name`."""
    tag = _CLASS_TAG.search(_text(comment)) if name else None
    return tag is not None and tag.group(1).split(".")[-1] == name


def _jsdoc(outer: ts.Node) -> str:
    """The first line of the JSDoc right above a definition (of a JSDoc type: its own)."""
    prev = outer if outer.type == "comment" else outer.prev_named_sibling
    if prev is None or prev.type != "comment" or prev.end_point[0] < outer.start_point[0] - 1:
        return ""
    raw = _text(prev)
    if not raw.startswith("/**"):
        return ""
    for line in raw[3:-2].splitlines():
        line = line.strip().lstrip("*").strip()
        if line and not line.startswith("@"):
            return line[:200]
    return ""


def _signature(node: ts.Node, data: bytes, held: ts.Node | None = None) -> str:
    """The definition's head as written, up to its body (a whole one-line declaration; up to
    the body of `held`, the function a value holds: `var x = list.filter(function (y)`)."""
    if node.type == "comment":  # a JSDoc type: its tag (`@typedef {Object} Options`)
        return _one_line(_JSDOC_TYPE.search(_text(node)).group(0))
    if _table(node) is not None:  # a table's head and its bracket (`const terms = {`)
        return _one_line(data[_outer(node).start_byte : _table(node).start_byte + 1].decode("utf-8", "replace"))
    if node.type == "variable_declarator":
        value = node.child_by_field_name("value")
        decl = node.parent
        keyword = decl.children[0].type if decl is not None and decl.child_count else "const"
        end = _body_start(held if held is not None else value, data)
        head = data[node.start_byte : end].decode("utf-8", "replace")
        return _one_line(f"{keyword} {head}".rstrip(" {"))
    if node.type in ("assignment_expression", "pair"):
        value = _value(node)
        return _one_line(data[node.start_byte : _body_start(value, data)].decode("utf-8", "replace").rstrip(" {"))
    end = _body_start(node, data)
    return _one_line(data[node.start_byte : end].decode("utf-8", "replace").rstrip(" {;"))


def _body_start(node: ts.Node | None, data: bytes) -> int:
    if node is None:
        return 0
    if node.type == "call_expression":  # a class factory's head ends before its arguments
        args = node.child_by_field_name("arguments")
        return args.start_byte if args is not None else node.end_byte
    if node.type in _ALTERNATIVES:  # `cond ? async (file) => {...} : ...`: up to its first function's body
        first = _first_function(node)
        return _body_start(first, data) if first is not None else node.end_byte
    body = node.child_by_field_name("body")
    if body is None or (body.type not in ("statement_block", "class_body", "interface_body", "enum_body",
                                          "object_type") and node.type != "arrow_function"):
        return node.end_byte
    return body.start_byte  # an arrow function's expression body too: its head ends at `=>`


_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "generator_function"})
_ALTERNATIVES = frozenset({"ternary_expression", "binary_expression", "parenthesized_expression"})
_WRAPPERS = ("as_expression", "satisfies_expression", "parenthesized_expression")
_CLASSLIKE = frozenset({"class_declaration", "abstract_class_declaration", "class", "interface_declaration",
                        "enum_declaration", "type_alias_declaration", "internal_module", "module"})
_METHODS = frozenset({"method_definition", "method_signature", "abstract_method_signature", "field_definition",
                      "public_field_definition", "pair"})


def _kind_of(node: ts.Node, parent_kind: str | None) -> str:
    if node.type in _CLASSLIKE or node.type == "comment" or _table(node) is not None:  # an object: a namespace
        return "class"
    if node.type in ("variable_declarator", "assignment_expression") and _first_function(_value(node)) is None \
            and _value(node).type != "class":  # a value (`exports.max = 8192`): a class, as a Rust const is
        return "class"
    if node.type == "variable_declarator" and (v := node.child_by_field_name("value")) is not None \
            and v.type in ("class", "call_expression"):  # a class factory's call, or a table's (`Object.freeze({})`)
        return "class"
    if node.type in _METHODS and parent_kind == "class":
        return "method"
    return "function"


def _object_arguments(call: ts.Node | None) -> list[ts.Node]:
    args = call.child_by_field_name("arguments") if call is not None and call.type == "call_expression" else None
    return [a for a in args.named_children if a.type == "object"] if args is not None else []


def _class_factory(node: ts.Node) -> bool:
    """`const Foo = Base.extend({ bar() {...} })`: a declarator whose value is a call given an
    object literal with at least one function (not `const app = create({ port: 80 })`)."""
    return any(_has_functions(obj) for obj in _object_arguments(node.child_by_field_name("value")))


def _value(node: ts.Node) -> ts.Node | None:
    """What a declarator, a pair or an assignment binds."""
    return node.child_by_field_name("right" if node.type == "assignment_expression" else "value")


def _first_function(value: ts.Node | None) -> ts.Node | None:
    """The first function a value may be: itself, or a branch of `c ? f : g`, `a || f`, `a && f`, `(f)`."""
    if value is None or value.type in _FUNCTION_VALUES:
        return value
    if value.type == "ternary_expression":
        branches = [value.child_by_field_name("consequence"), value.child_by_field_name("alternative")]
    elif value.type == "binary_expression" and value.child_by_field_name("operator").type in ("&&", "||", "??"):
        branches = [value.child_by_field_name("left"), value.child_by_field_name("right")]
    elif value.type == "parenthesized_expression":
        branches = value.named_children[:1]
    else:
        return None
    return next((f for f in map(_first_function, branches) if f is not None), None)


def _nested_function(value: ts.Node | None) -> ts.Node | None:
    """The first function expression inside a value that is none (a callback given to a call, an IIFE)."""
    stack = [value] if value is not None else []
    while stack:
        node = stack.pop()
        if node.type in _FUNCTION_VALUES:
            return node
        stack.extend(reversed(node.named_children))
    return None


def _exported_value(node: ts.Node) -> bool:
    """`exports.max = 8192` (or `module.exports.max`) at the top level: a member of the module's
    exports as `module.exports = { max: 8192 }` makes one; not a name or what `require` gives
    passed on, a chain (`exports.a = exports.b = void 0`, compilers' declarations) nor `void 0`."""
    if node.type != "assignment_expression" or not _top_level(node):
        return False
    if (_dotted(node.child_by_field_name("left")) or "").split(".")[:-1] not in (["exports"], ["module", "exports"]):
        return False
    value = _value(node)
    if value.type in ("identifier", "member_expression", "assignment_expression", "undefined") \
            or (value.type == "unary_expression" and _text(value).startswith("void")):
        return False
    root = value
    while root.type in ("call_expression", "member_expression"):  # require('debug')('x'), require.resolve(...)
        root = root.child_by_field_name("function" if root.type == "call_expression" else "object")
    return _text(root) != "require"


def _held_function(node: ts.Node) -> ts.Node | None:
    """The function a top-level name's value holds when the value is no function, table or
    class factory (`var events = keys(c).filter(function (k) {...})`, `!!svg && (function ()
    {...})()`); None for any other node."""
    if node.type != "variable_declarator" or not _top_level(node):
        return None
    value = _value(node)
    if value is None or _first_function(value) is not None or _table(node) is not None \
            or value.type not in ("call_expression", *_ALTERNATIVES) or _object_arguments(value):
        return None
    return _nested_function(value)


def _binder(node: ts.Node) -> ts.Node | None:
    """What binds a function expression: its parent, past the `?:`, `&&`, `||` and parentheses it is a branch of."""
    up = node.parent
    while up is not None and up.type in _ALTERNATIVES:
        up = up.parent
    return up


def _assigned_owner(node: ts.Node) -> tuple[str, str]:
    """`A.prototype.m = function` -> ("A", "A.m"); `exports.m = ...` -> ("", "m"); `a.b.m` -> ("a.b", "a.b.m")."""
    left = node.child_by_field_name("left")
    parts = _dotted(left)
    if parts is None:
        return "", _text(left.child_by_field_name("property")) if left is not None else ""
    names = [p for p in parts.split(".") if p != "prototype"]
    if names[:2] == ["module", "exports"]:
        names = names[2:]
    elif names[:1] in (["exports"], ["this"]):  # this.f = function: a function of the scope it is in
        names = names[1:]
    return ".".join(names[:-1]), ".".join(names)


def _key(node: ts.Node) -> tuple[int, int, str]:
    return node.start_byte, node.end_byte, node.type


def _table(node: ts.Node) -> ts.Node | None:
    """The object or array literal a declarator, a pair or an assignment binds (through `as
    const` and `satisfies`), or None."""
    value = _value(node) if node.type in ("variable_declarator", "pair", "assignment_expression") else None
    while value is not None and value.type in _WRAPPERS:
        value = value.named_children[0] if value.named_child_count else None
    return value if value is not None and value.type in ("object", "array") else None


def _has_functions(table: ts.Node) -> bool:
    """An object literal with a method or a function-valued member (a visitor, a namespace)."""
    return table.type == "object" and any(
        m.type == "method_definition" or (m.type == "pair" and (v := m.child_by_field_name("value")) is not None
                                          and v.type in _FUNCTION_VALUES) for m in table.named_children)


def _export_list(table: ts.Node) -> bool:
    """An object of names only (`{ a, b: c, ...rest }`): a list of what a module exports, no table."""
    return all(m.type in ("shorthand_property_identifier", "spread_element", "comment") or (
        m.type == "pair" and _value(m).type in ("identifier", "member_expression")) for m in table.named_children)


def _top_level(declarator: ts.Node) -> bool:
    statement = _outer(declarator)
    return statement.parent is not None and statement.parent.type == "program"


def _grandparent(node: ts.Node) -> ts.Node | None:
    """What holds the node's parent (a pair's object's holder, an argument list's call's)."""
    up = node.parent
    return up.parent if up is not None else None


def _object_owner(member: ts.Node) -> str:
    """Whose member `m` of an object literal is: `A` of `A.include({ m() {...} })` (an object
    given to a call of a method of `A`: Leaflet's `Layer.include`) and of `A.prototype = {...}`
    or `A = {...}` inside a block; "" of `module.exports = {...}` there (the module's) and of
    other objects (at the top level, an assigned object is a table: its members are its own)."""
    holder = _grandparent(member) if member.parent is not None and member.parent.type == "object" else None
    if holder is not None and holder.type == "assignment_expression":
        owner = _dotted(holder.child_by_field_name("left")) or ""
        names = [n for n in owner.split(".") if n != "prototype"]
        return "" if names[:1] in (["module"], ["exports"], ["this"]) else ".".join(names)
    args = holder
    call = args.parent if args is not None and args.type == "arguments" else None
    callee = call.child_by_field_name("function") if call is not None and call.type == "call_expression" else None
    if callee is None or callee.type != "member_expression":
        return ""
    owner = _dotted(callee.child_by_field_name("object"))
    return owner if owner and owner != "this" and not owner.startswith("this.") else ""


def _kept(node: ts.Node, kept: set) -> bool:
    """Whether a matched node is a definition: a declarator of an object or array literal at the
    top level (a constant table, also given to a call: `Object.freeze({...})`) or of an object
    with functions anywhere; a top-level assignment of a table (`module.exports = {...}`,
    `X.y = [...]`, not `A.prototype = {...}`, whose functions are A's methods); a name bound to
    a function on a branch of `?:`, `&&` or `||`; a named JSDoc type; a function-valued member of any object, and
    any member of an object that is itself a definition (`v.Scope`; a class factory's
    argument); a named function expression not already bound by its declarator, assignment or
    member."""
    if node.type == "comment":  # a JSDoc type that names itself
        return _JSDOC_TYPE.search(_text(node)) is not None
    value = _value(node) if node.type in ("variable_declarator", "assignment_expression", "pair") else None
    if node.type == "assignment_expression" and value.type not in _FUNCTION_VALUES | _ALTERNATIVES | {
            "class", "object", "array"}:  # matched as `exports.x = <value>` alone
        return _exported_value(node)
    if node.type in ("variable_declarator", "assignment_expression") and value.type in _ALTERNATIVES:
        return _first_function(value) is not None or _exported_value(node) or _held_function(node) is not None
    if node.type == "variable_declarator" and (table := _table(node)) is not None:
        return _top_level(node) or _has_functions(table)
    if node.type == "variable_declarator" and value.type == "call_expression":
        return _class_factory(node) or (_top_level(node) and bool(_object_arguments(value))) \
            or _held_function(node) is not None
    if node.type == "assignment_expression" and (table := _table(node)) is not None:
        target = _dotted(node.child_by_field_name("left")) or ""
        if target == "module.exports" and _export_list(table):  # `module.exports = { a, b }`, as `export { a, b }`
            return False
        return _top_level(node) and target.split(".")[-1] != "prototype"
    if node.type == "pair":
        if value.type in _FUNCTION_VALUES:  # a function-valued member is a definition wherever its object is
            return True
        holder = _grandparent(node)
        while holder is not None and holder.type in _WRAPPERS:
            holder = holder.parent
        if holder is not None and holder.type == "arguments":  # Base.extend({...}): the factory's declarator
            holder = _grandparent(holder)
        return holder is not None and _key(holder) in kept
    if node.type in ("function_expression", "generator_function") and node.child_by_field_name("name") is not None:
        binder = _binder(node)
        return binder is None or _key(binder) not in kept
    return True


def _def_name(node: ts.Node, caps: dict) -> str:
    """A definition's name: its `name` capture; a JSDoc type's tag's; a default export's
    anonymous function is `default`."""
    if node.type == "comment":
        tag = _JSDOC_TYPE.search(_text(node))
        return tag.group(1) if tag is not None else ""  # `@typedef {{a: 1}}` names nothing: no symbol
    return _text(caps["name"][0]).strip("'\"`") if "name" in caps else "default"


def _definitions(matches: list[dict], data: bytes, fx: FileExtract) -> Enclosing:
    """Classes, functions and methods into fx.symbols, nested by byte position, with the
    `inherits` edges of each class; methods given through a prototype join their function."""
    # a factory call with two object arguments matches twice: one definition a node; a default
    # export's anonymous function is named `default`
    found = {_key(n): (n, _def_name(n, caps)) for caps in matches for n in caps["def"][:1]}
    kept: set = set()
    defs = []
    for node, name in sorted(found.values(), key=lambda d: (d[0].start_byte, -d[0].end_byte)):
        if _kept(node, kept):
            kept.add(_key(node))
            defs.append((node, name))
    # a value holding functions (`memo(() => ...)`: a function) is a symbol only for code no
    # other definition holds: a module pattern's or a compiled class's IIFE (`var A = function
    # () { function A() {} ... }()`) and `forwardRef(function Button() {...})` keep theirs top-level
    held = {_key(n): f for n, _ in defs if (f := _held_function(n)) is not None}
    defs = [(n, name) for i, (n, name) in enumerate(defs)
            if not (_key(n) in held and i + 1 < len(defs) and defs[i + 1][0].start_byte < n.end_byte)]
    nesting = Enclosing()
    top: dict[str, int] = {}
    for node, name in defs:
        parent = nesting.outer[nesting.add(node.start_byte, node.end_byte)]
        qual = f"{fx.symbols[parent].qualname}.{name}" if parent is not None else name
        held_function = held.get(_key(node))
        parent_kind = fx.symbols[parent].kind if parent is not None else None
        kind = "function" if held_function is not None else _kind_of(node, parent_kind)
        if node.type == "assignment_expression":
            owner, dotted = _assigned_owner(node)
            member_kind = "class" if kind == "class" else "method"  # A.prototype.m = function; A.options = {}
            if owner in top and parent is None:  # A.prototype.m = function: a method of A
                parent = top[owner]
                fx.symbols[parent].kind = "class"
                kind, qual = member_kind, f"{fx.symbols[parent].qualname}.{name}"
            elif dotted:
                qual = dotted if parent is None else f"{fx.symbols[parent].qualname}.{dotted}"
                kind = member_kind if owner and parent is None else kind
        elif node.type in ("pair", "method_definition") and parent is None and (owner := _object_owner(node)):
            parent = top.get(owner)  # Layer.include({ bindPopup() {...} }): a method of Layer
            if parent is not None:
                fx.symbols[parent].kind = "class"
            kind, qual = "method", f"{owner}.{name}"
        outer = _outer(node)
        fx.symbols.append(SymbolRec(name=name, qualname=qual, kind=kind, start_line=_first_line(outer, name) + 1,
                                    end_line=node.end_point[0] + 1, signature=_signature(node, data, held_function),
                                    doc=_jsdoc(outer), parent=parent))
        if parent is None and node.type != "assignment_expression":
            top.setdefault(name, len(fx.symbols) - 1)
        if kind == "class":
            _base_edges(node, fx)
    return nesting


def _dotted(node: ts.Node | None) -> str | None:
    """`a.b.c` of an identifier/member chain, else None."""
    return dotted(node, "member_expression", "property", ("identifier", "this", "type_identifier"))


def _type_name(node: ts.Node | None) -> str:
    """The dotted name of a type or class expression (`Base<T>` -> Base, `ns.Base` -> ns.Base)."""
    for _ in range(4):
        if node is None:
            return ""
        if node.type in ("identifier", "type_identifier", "member_expression"):
            return _dotted(node) or ""
        if node.type == "nested_type_identifier":
            return _text(node).replace(" ", "")
        if node.type in ("generic_type", "type_annotation", "parenthesized_expression"):
            node = node.named_children[0] if node.named_child_count else None
            continue
        return ""
    return ""


def _base_edges(node: ts.Node, fx: FileExtract) -> None:
    """`inherits` edges of the class just appended: extends and implements."""
    if node.type == "variable_declarator":
        node = node.child_by_field_name("value") or node
    bases: list[ts.Node] = []
    callee = node.child_by_field_name("function") if node.type == "call_expression" else None
    if callee is not None and callee.type == "member_expression":
        if _text(callee.child_by_field_name("property")) == "extend":
            bases.append(callee.child_by_field_name("object"))  # Base.extend({...})
    for child in node.named_children:
        if child.type == "class_heritage":
            for part in child.named_children:
                if part.type in ("extends_clause", "implements_clause"):
                    bases.extend(part.named_children)
                else:  # JavaScript: class_heritage holds the expression itself
                    bases.append(part)
        elif child.type == "extends_type_clause":
            bases.extend(child.named_children)
    for base in bases:
        name = _type_name(base)
        if name:
            fx.edges.append(EdgeRec("inherits", name, len(fx.symbols) - 1, base.start_point[0] + 1))


# ---------------------------------------------------------------- imports and exports
def _string(node: ts.Node | None) -> str:
    return _text(node)[1:-1] if node is not None and node.type == "string" else ""


class _Imports:
    """Import records and the file's namespace (fx.names), in the resolver's vocabulary."""

    def __init__(self, fx: FileExtract, path: str, module: str, project: dict):
        self.fx = fx
        self.path = path
        self.module = module
        self.aliases = _aliases(project, path)

    def target(self, spec: str) -> str:
        return _spec_module(spec, self.path, self.aliases)

    def bind(self, local: str, dotted: str) -> None:
        if local and dotted:
            self.fx.names.setdefault(local, dotted)

    def star(self, mod: str) -> None:
        self.fx.names["*"] = (self.fx.names.get("*", "") + " " + mod).strip()

    def record(self, mod: str, names: list[str], node: ts.Node) -> None:
        self.fx.imports.append({"module": mod, "names": names, "line": node.start_point[0] + 1})

    def import_statement(self, node: ts.Node) -> None:
        source = node.child_by_field_name("source")
        clause = next((c for c in node.named_children if c.type in ("import_clause", "import_require_clause")), None)
        if clause is not None and clause.type == "import_require_clause":
            source = clause.child_by_field_name("source")
        if source is None:
            return
        mod = self.target(_string(source))
        names: list[str] = []
        for part in clause.named_children if clause is not None else ():
            if part.type == "identifier":  # the default import (or `import x = require()`)
                self.bind(_text(part), f"{mod}.default")
                names.append("default")
            elif part.type == "namespace_import":
                ident = next((c for c in part.named_children if c.type == "identifier"), None)
                self.bind(_text(ident), mod)
            elif part.type == "named_imports":
                for spec in part.named_children:
                    if spec.type == "import_specifier":
                        name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                        self.bind(_text(alias or name), f"{mod}.{_text(name)}")
                        names.append(_text(name))
        self.record(mod, names, node)

    def export_statement(self, node: ts.Node) -> None:
        source = node.child_by_field_name("source")
        mod = self.target(_string(source)) if source is not None else self.module
        names: list[str] = []
        star = source is not None
        for part in node.named_children:
            if part.type == "export_clause":
                star = False
                for spec in part.named_children:
                    name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                    if alias is not None or source is not None:
                        self.bind(_text(alias or name), f"{mod}.{_text(name)}")
                    names.append(_text(name))
            elif part.type == "namespace_export":
                star = False
                ident = next((c for c in part.named_children if c.type in ("identifier", "string")), None)
                self.bind(_text(ident), mod)
        if source is None and any(c.type == "default" for c in node.children):
            declared = node.child_by_field_name("declaration")
            value = node.child_by_field_name("value")
            name = declared.child_by_field_name("name") if declared is not None else value
            if name is not None and name.type in ("identifier", "type_identifier"):
                self.bind("default", f"{self.module}.{_text(name)}")
        if source is not None:
            if star:
                self.star(mod)
                names = ["*"]
            self.record(mod, names, node)

    def require(self, call: ts.Node, spec: str) -> None:
        mod = self.target(spec)
        holder, member = call.parent, ""
        if holder is not None and holder.type == "member_expression":
            member = _text(holder.child_by_field_name("property"))
            holder = holder.parent
        names: list[str] = [member] if member else []
        target = f"{mod}.{member}" if member else f"{mod}.default"
        if holder is not None and holder.type == "variable_declarator":
            pattern = holder.child_by_field_name("name")
            if pattern is not None and pattern.type == "identifier":
                self.bind(_text(pattern), target)
            elif pattern is not None and pattern.type == "object_pattern" and not member:
                for prop in pattern.named_children:
                    if prop.type == "shorthand_property_identifier_pattern":
                        self.bind(_text(prop), f"{mod}.{_text(prop)}")
                        names.append(_text(prop))
                    elif prop.type == "pair_pattern":
                        key, value = prop.child_by_field_name("key"), prop.child_by_field_name("value")
                        self.bind(_text(value), f"{mod}.{_text(key)}")
                        names.append(_text(key))
        elif holder is not None and holder.type == "assignment_expression":
            self.exports(holder.child_by_field_name("left"), target)
        self.record(mod, names, call)

    def exports(self, target: ts.Node | None, value: str) -> None:
        """`module.exports = x`, `exports.a = x`: the module's default or `a` is `value`."""
        dotted = _dotted(target)
        if dotted == "module.exports":
            self.bind("default", value)
        elif dotted is not None and dotted.startswith(("exports.", "module.exports.")) and dotted.count(".") <= 2:
            local = dotted.rsplit(".", 1)[1]
            if value != f"{self.module}.{local}":
                self.bind(local, value)

    def assignment(self, node: ts.Node) -> None:
        right = node.child_by_field_name("right")
        if right is not None and right.type == "identifier":
            self.exports(node.child_by_field_name("left"), f"{self.module}.{_text(right)}")
        elif right is not None and right.type == "object":
            if _dotted(node.child_by_field_name("left")) == "module.exports":
                self.exported_object(right, _top_level(node))

    def exported_object(self, table: ts.Node, is_symbol: bool) -> None:
        """`module.exports = { a: b, f() {...}, g: () => {...} }`: the module's `a` is its `b`;
        its `f` and `g` are the members of the table `exports` the index makes of a top-level one."""
        for member in table.named_children:
            key = member.child_by_field_name("key" if member.type == "pair" else "name")
            value = member.child_by_field_name("value") if member.type == "pair" else member
            if key is None or value is None:
                continue
            name = _text(key).strip("'\"`")
            if value.type == "identifier" and name != _text(value):
                self.bind(name, f"{self.module}.{_text(value)}")
            elif is_symbol and value.type in _FUNCTION_VALUES | {"object", "method_definition"}:
                self.bind(name, f"{self.module}.exports.{name}")


def _imports(matches: list[dict], fx: FileExtract, path: str, module: str, project: dict) -> None:
    imports = _Imports(fx, path, module, project)
    for caps in matches:
        if "imp" in caps:
            imports.import_statement(caps["imp"][0])
        elif "exp" in caps:
            imports.export_statement(caps["exp"][0])
        elif "reqcall" in caps:
            if _text(caps["req"][0]) == "require":
                imports.require(caps["reqcall"][0], _string(caps["src"][0]))
        elif "dynimport" in caps:  # import('./x'): the module, nothing bound
            imports.record(imports.target(_string(caps["src"][0])), [], caps["dynimport"][0])
        elif "exports" in caps:
            imports.assignment(caps["exports"][0])
    if module and "default" not in fx.names and not any(s.name == "default" and s.parent is None for s in fx.symbols):
        fx.names["default"] = module  # what `require` gives of a module without a default: the module
    for imp in fx.imports:
        if imp["names"] and imp["names"] != ["*"]:
            for n in imp["names"]:
                fx.edges.append(EdgeRec("imports", f"{imp['module']}.{n}", None, imp["line"]))
        else:
            fx.edges.append(EdgeRec("imports", imp["module"], None, imp["line"]))


# ---------------------------------------------------------------- calls
class _Bindings:
    """Type expressions of names per scope (a definition's index, None = the module), from
    `new C()` and type annotations; a lookup climbs to the enclosing scopes."""

    def __init__(self, symbols: list[SymbolRec]):
        self.symbols = symbols
        self.local: dict[tuple[int | None, str], str] = {}

    def bind(self, scope: int | None, name: str, te: str) -> None:
        self.local.setdefault((scope, name), te)

    def lookup(self, scope: int | None, name: str) -> str | None:
        symbols = self.symbols
        while True:
            te = self.local.get((scope, name))
            if te is not None or scope is None:
                return te
            scope = symbols[scope].parent


def _bindings(matches: list[dict], fx: FileExtract, nesting: Enclosing) -> _Bindings:
    bindings = _Bindings(fx.symbols)
    for caps in matches:
        type_node = caps["ctor"][0] if "ctor" in caps else caps["type"][0]
        name = _type_name(type_node)
        if not name:
            continue
        te = f"N:{name}"
        if "attr" in caps:
            attr = caps["attr"][0]
            cls = class_of(fx.symbols, nesting.at(attr.start_byte))
            if cls is not None:
                fx.attrs.append((cls, _text(attr), te))
        else:
            var = caps["var"][0]
            bindings.bind(nesting.at(var.start_byte), _text(var), te)
    return bindings


def _receiver(obj: ts.Node | None, scope: int | None, bindings: _Bindings) -> str:
    """Receiver descriptor of `obj.method()` (see EdgeRec.recv)."""
    if obj is None:
        return "?"
    if obj.type == "this":
        return "self"
    if obj.type == "super":
        return "super"
    if obj.type == "identifier":
        name = _text(obj)
        te = bindings.lookup(scope, name)
        return te if te is not None else f"N:{name}"
    if obj.type == "member_expression":
        return member_receiver(_dotted(obj), "this", bindings.lookup, scope)
    if obj.type == "new_expression":
        name = _type_name(obj.child_by_field_name("constructor"))
        return f"N:{name}" if name else "?"
    if obj.type == "parenthesized_expression" and obj.named_child_count:
        return _receiver(obj.named_children[0], scope, bindings)
    if obj.type == "call_expression":
        d = _dotted(obj.child_by_field_name("function"))
        return f"R:{'self' + d[4:] if d.startswith('this.') else d}" if d and d != "this" else "?"
    return "?"


def _call_edges(callees: list[ts.Node], fx: FileExtract, nesting: Enclosing, bindings: _Bindings) -> None:
    """`calls` edges with their receivers, one per caller, receiver and name. A plain call of a
    global the file does not define or import (require, describe, expect, setTimeout) is none."""
    edges = CallEdges(fx)
    own = set(fx.names) | {s.name for s in fx.symbols if s.parent is None}
    for node in sorted(callees, key=lambda n: n.start_byte):
        src = nesting.at(node.start_byte)
        parent = node.parent
        if node.type == "super":
            name, recv = "constructor", "super"
        else:
            name = _text(node)
            recv = ""
            if parent is not None and parent.type == "member_expression":
                recv = _receiver(parent.child_by_field_name("object"), src, bindings)
            elif name in _GLOBALS and name not in own:
                continue
        edges.add(name, src, node, recv)


# ---------------------------------------------------------------- texts
def _module_doc(root: ts.Node) -> str:
    first = root.named_children[0] if root.named_child_count else None
    if first is None or first.type != "comment":
        return ""
    for line in _text(first).splitlines():
        line = line.strip().lstrip("/*!").strip()
        if line and not line.startswith("@"):
            return line[:200]
    return ""


def extract_with(grammar: Compiled, language: str, path: str, data: bytes, module: str,
                 options: dict | None) -> FileExtract:
    """Definitions, imports, bases, typed bindings, calls and (in tests) references of one file
    of `language` (javascript, typescript) on its grammar (compiled from `grammar_parts`)."""
    options = options or {}
    root, fx = parse(grammar, data, language)
    parts = matches_by_part(grammar, root)
    nesting = _definitions(parts["defs"], data, fx)
    imports = sorted(parts["imports"], key=lambda c: min(n.start_byte for ns in c.values() for n in ns))
    _imports(imports, fx, path, module, options.get("project") or {})
    bindings = _bindings(parts["bindings"], fx, nesting)
    _call_edges([caps["callee"][0] for caps in parts["calls"]], fx, nesting, bindings)
    if options.get("is_test"):
        test_references(data, fx, _TEST_WORDS)
    own_texts(data, fx)
    fx.module_doc = _module_doc(root)
    return fx


@compiled_once("JavaScript")
def _grammar() -> Compiled:
    """Compiled when the first JavaScript file is parsed (treesitter_util.compile_grammar says why)."""
    return compile_grammar(ts.Language(tsjs.language()), grammar_parts(_JS_ONLY))


def extract(path: str, data: bytes, module: str, options: dict | None = None) -> FileExtract:
    return extract_with(_grammar(), "javascript", path, data, module, options)


def node_frame(extensions: tuple[str, ...]) -> tuple[re.Pattern, re.Pattern]:
    """Node's stack-trace frames of files with these extensions: `at f (path:L:C)` and `at path:L:C`
    (`f` as Node prints it: `Axios.request`, `new Foo`, `async f`; a `file:///a/b.mjs` URL's path
    as `///a/b.mjs`, which a file:line hint reads in it too, so the two are one frame)."""
    exts = "|".join(re.escape(e[1:]) for e in sorted(extensions, key=len, reverse=True))
    path = rf"(?:file:)?(?P<path>[^\s():]+\.(?:{exts})):(?P<line>\d+)(?::\d+)?"
    named = re.compile(rf"\bat (?:async )?(?:new )?(?P<func>[\w$.<>\[\]]+)(?: \[as [\w$]+\])? \({path}\)")
    bare = re.compile(rf"\bat (?:async )?{path}(?=\s|$)", re.M)
    return named, bare


def is_private(name: str, _signature: str) -> bool:
    """A `#private` member, or `_helper` by convention (not a `__dunder__`)."""
    return name.startswith("#") or (name.startswith("_") and not name.startswith("__"))


JAVASCRIPT = Language(
    name="javascript",
    private=is_private,
    extensions=JS_EXTENSIONS,
    lexer="javascript",
    extension_lexers=((".jsx", "jsx"),),
    extract=extract,
    module_names=module_names,
    test_dirs=("__tests__", "__mocks__", "test", "tests", "spec"),
    test_only_dirs=("__tests__", "__mocks__", "test", "tests"),
    test_files=("*.test.*", "*.spec.*", "*_test.*", "*_spec.*"),
    trace_frames=node_frame(JS_EXTENSIONS),
    frame_placeholders=frozenset({"<anonymous>", "Object.<anonymous>"}),
    trace_innermost_first=True,  # Node prints the throwing frame first
    definition=(r"(?:export\s+(?:default\s+)?)?(?:async\s+)?(?:function\*?\s*|class\s+|"
                r"(?:const|let|var)\s+(?=[\w$]+\s*=\s*(?:async\s*)?(?:function|\(|[\w$]+\s*=>)))([A-Za-z_$][\w$]*)"),
    line_comments=("//",),
    block_comments=((r"/\*", "*/"),),
    keywords=RECORD_KEYWORDS,
    common_names=COMMON_NAMES,
    package_files=("index.js", "index.mjs", "index.cjs", "index.jsx"),
    common_file_names=("index.js", "index.mjs", "index.cjs", "jest.config.js", "webpack.config.js",
                       "rollup.config.js", "babel.config.js", "vite.config.js", "eslint.config.js"),
    # jest, the most common runner: `npx jest <files>` runs exactly those (mocha's is `npx mocha <files>`)
    test_runner=("npx", "jest", "--ci"),
    project_files=("tsconfig.json", "jsconfig.json"),
)
