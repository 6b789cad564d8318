"""Java: the extractor on tree-sitter-java (classes, interfaces, enums, records, methods and
constructors; the package and its imports; extends and implements; calls) and the conventions
of Java code (`JAVA`, registered in swevis.index.languages). An anonymous class is a class
named by what it implements (`Outer.run.new Runnable`), a field holding a lambda a method.

A Java file's module is its package and its class, `com.example.shapes.Circle` (its folder
below a source root such as `src/main/java`). Its imports map onto the resolver's vocabulary
(swevis.index.resolve): `import a.b.C` binds `C` to the class `C` of the module `a.b.C`,
`import static a.b.C.m` binds `m` to its member, and the file's own package and each wildcard
import are packages whose classes it sees (`names["+"]`). An unqualified call `f()` is a call
on `this` (or of a statically imported method); `x.f()` is looked up on x's declared type when
x is a local variable, a parameter or a field, on the class `X` for `X.f()`, else by name only.
"""

from __future__ import annotations

import re

import tree_sitter as ts
import tree_sitter_java as tsj

from swevis.index.records import EdgeRec, FileExtract, Language, SymbolRec
from swevis.index.treesitter_util import CallEdges, Compiled, Enclosing, class_of, compile_grammar, compiled_once
from swevis.index.treesitter_util import doc_comment, named_definitions, own_texts, parse, test_references, text

_CLASS_TYPES = frozenset({"class_declaration", "interface_declaration", "enum_declaration", "record_declaration",
                          "annotation_type_declaration"})
# every part of the extraction in one query: one walk of the tree (matches told apart by capture names)
_PATTERNS = named_definitions("identifier", "class_declaration", "interface_declaration", "enum_declaration",
                              "record_declaration", "annotation_type_declaration", "method_declaration",
                              "constructor_declaration", "compact_constructor_declaration") + """
(object_creation_expression type: (_) @name (class_body)) @def
(field_declaration declarator: (variable_declarator name: (identifier) @name value: (lambda_expression))) @def
(package_declaration) @package
(import_declaration) @import
(method_invocation name: (identifier) @callee)
(object_creation_expression type: (_) @new)
(local_variable_declaration type: (_) @type declarator: (variable_declarator name: (identifier) @var))
(formal_parameter type: (_) @type name: (identifier) @var)
(enhanced_for_statement type: (_) @type name: (identifier) @var)
(field_declaration type: (_) @type declarator: (variable_declarator name: (identifier) @field))
"""
MAX_SIGNATURE = 300


@compiled_once("Java")
def _grammar() -> Compiled:
    """Compiled when the first Java file is parsed (treesitter_util.compile_grammar says why)."""
    return compile_grammar(ts.Language(tsj.language()), {"all": _PATTERNS})


KEYWORDS = frozenset("""abstract assert boolean break byte case catch char class const continue default do double
else enum extends final finally float for goto if implements import instanceof int interface long native new
package private protected public return short static strictfp super switch synchronized this throw throws
transient try void volatile while var record yield sealed permits non-sealed true false null""".split())


def _type_name(node: ts.Node | None) -> str:
    """The dotted class name a type node names (`List<T>` -> List, `a.B[]` -> a.B), or ""."""
    while node is not None and node.type in ("generic_type", "array_type", "annotated_type"):
        node = next((c for c in node.named_children if c.type not in ("type_arguments", "dimensions", "annotation",
                                                                       "marker_annotation")), None)
    if node is None or node.type not in ("type_identifier", "scoped_type_identifier"):
        return ""
    name = text(node)
    return "" if name == "var" else "".join(name.split())


def _signature(node: ts.Node, data: bytes) -> str:
    """The declaration up to its body, without annotations: `public int area(int scale)`."""
    body = node.child_by_field_name("body")
    if node.type == "object_creation_expression":  # `new Comparator<String>()`
        body = next((c for c in node.named_children if c.type == "class_body"), None)
    elif node.type == "field_declaration":  # a lambda field, up to its value: `Function<A, B> f`
        body = node.child_by_field_name("declarator").child_by_field_name("value")
    end = body.start_byte if body is not None else node.end_byte
    parts: list[str] = []
    start = node.start_byte
    first = node.children[0] if node.child_count else None
    if first is not None and first.type == "modifiers":
        parts += [text(c) for c in first.children if c.type not in ("annotation", "marker_annotation")]
        start = first.end_byte
    parts.append(data[start:end].decode("utf-8", "replace"))
    return " ".join(" ".join(parts).split()).rstrip(";= ")[:MAX_SIGNATURE]


def _scan(root: ts.Node) -> dict[str, list]:
    """The query's matches by part, each in source order."""
    parts: dict[str, list] = {"defs": [], "package": [], "import": [], "callee": [], "new": [], "var": [],
                              "field": []}
    for _, caps in ts.QueryCursor(_grammar().query).matches(root):
        if "def" in caps:
            parts["defs"].append((caps["def"][0], text(caps["name"][0])))
        elif "var" in caps or "field" in caps:
            key = "var" if "var" in caps else "field"
            parts[key].append((caps[key][0], _type_name(caps["type"][0])))
        else:
            key = next(iter(caps))
            parts[key].append(caps[key][0])
    for key, found in parts.items():
        found.sort(key=lambda m: (m[0].start_byte, -m[0].end_byte) if isinstance(m, tuple)
                   else (m.start_byte, -m.end_byte))
    return parts


def _definitions(defs: list[tuple[ts.Node, str]], data: bytes, fx: FileExtract) -> Enclosing:
    """Classes and their members into fx.symbols, nested by byte range, with the `inherits`
    edges of each class (extends and implements alike)."""
    nesting = Enclosing()
    for node, name in defs:
        parent = nesting.add(node.start_byte, node.end_byte)
        parent = nesting.outer[parent]
        is_class = node.type in _CLASS_TYPES or node.type == "object_creation_expression"
        if node.type == "object_creation_expression":  # an anonymous class, by what it implements
            name = "new " + (_type_name(node.child_by_field_name("type")) or name).rsplit(".", 1)[-1]
        fx.symbols.append(SymbolRec(
            name=name,
            qualname=f"{fx.symbols[parent].qualname}.{name}" if parent is not None else name,
            kind="class" if is_class else "method",
            start_line=node.start_point[0] + 1,
            end_line=node.end_point[0] + 1,
            signature=_signature(node, data),
            doc=doc_comment(node),
            parent=parent,
        ))
        if is_class:
            _base_edges(node, len(fx.symbols) - 1, fx)
    return nesting


def _base_edges(node: ts.Node, index: int, fx: FileExtract) -> None:
    if node.type == "object_creation_expression" and (name := _type_name(node.child_by_field_name("type"))):
        fx.edges.append(EdgeRec("inherits", name, index, node.start_point[0] + 1))  # new Runnable() {...}
    for child in node.named_children:
        if child.type in ("superclass", "super_interfaces", "extends_interfaces"):
            lists = [c for c in child.named_children if c.type == "type_list"] or [child]
            for base in (b for lst in lists for b in lst.named_children):
                name = _type_name(base)
                if name:
                    fx.edges.append(EdgeRec("inherits", name, index, base.start_point[0] + 1))


def _class_target(dotted: str) -> str:
    """An imported name `a.b.C.D` -> where the resolver finds it: the top-level class `C` is the
    module `a.b.C` (its first capitalized part, by Java's naming), so `a.b.C.C.D`."""
    parts = dotted.split(".")
    top = next((i for i, p in enumerate(parts) if p[:1].isupper()), len(parts) - 1)
    return ".".join(parts[: top + 1] + parts[top:])


def _imports(package: list[ts.Node], imports: list[ts.Node], module: str, fx: FileExtract) -> None:
    """The package and import records, the names they bind and their `imports` edges."""
    own = module.rsplit(".", 1)[0] if "." in module else ""
    for node in package:
        name = next((text(c) for c in node.named_children if c.type in ("scoped_identifier", "identifier")), "")
        fx.imports.append({"module": name, "names": [], "line": node.start_point[0] + 1, "package": True})
        own = own or name
    packages = [own] if own else []
    for node in imports:
        target = next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)
        if target is None:
            continue
        dotted = "".join(text(target).split())
        wildcard = any(c.type == "asterisk" for c in node.named_children)
        static = any(c.type == "static" for c in node.children)
        line = node.start_point[0] + 1
        fx.imports.append({"module": dotted, "names": ["*"] if wildcard else [], "line": line, "static": static})
        fx.edges.append(EdgeRec("imports", dotted, None, line))
        if wildcard and not static:
            packages.append(dotted)
        elif wildcard:
            fx.names["*"] = (fx.names.get("*", "") + " " + dotted).strip()
        else:
            fx.names.setdefault(dotted.rsplit(".", 1)[-1], _class_target(dotted))
    if packages:
        fx.names["+"] = " ".join(dict.fromkeys(packages))


class _Types:
    """Declared types of local variables and parameters per method, and of fields per class."""

    def __init__(self, fx: FileExtract, nesting: Enclosing):
        self.fx = fx
        self.nesting = nesting
        self.local: dict[tuple[int | None, str], str] = {}
        self.fields: dict[tuple[int, str], str] = {}

    def method_of(self, i: int | None) -> int | None:
        while i is not None and self.fx.symbols[i].kind == "class":
            i = self.fx.symbols[i].parent
        return i

    def bind(self, variables: list, fields: list, news: list[ts.Node]) -> None:
        new_type = {n.parent.start_byte: _type_name(n) for n in news if n.parent is not None}
        for node, type_name in variables:
            if not type_name:  # `var x = new C()`: the created class
                value = node.parent.child_by_field_name("value") if node.parent is not None else None
                type_name = new_type.get(value.start_byte, "") if value is not None else ""
            key = (self.method_of(self.nesting.at(node.start_byte)), text(node))
            self.local.setdefault(key, f"N:{type_name}" if type_name else "")
        for node, type_name in fields:
            cls = class_of(self.fx.symbols, self.nesting.at(node.start_byte))
            if cls is not None:
                self.fields.setdefault((cls, text(node)), f"N:{type_name}" if type_name else "")
                if type_name:
                    self.fx.attrs.append((cls, text(node), f"N:{type_name}"))

    def receiver(self, obj: ts.Node | None, src: int | None) -> str:
        """EdgeRec.recv of a call on `obj` from inside definition `src`."""
        if obj is None or obj.type == "this":
            return "self"
        if obj.type == "super":
            return "super"
        if obj.type == "field_access" and text(obj.child_by_field_name("object")) == "this":
            return f"A:{text(obj.child_by_field_name('field'))}"
        if obj.type != "identifier":
            return "?"
        name = text(obj)
        te = self.local.get((self.method_of(src), name))
        if te is not None:
            return te or "?"
        cls = class_of(self.fx.symbols, src)
        while cls is not None:
            if (cls, name) in self.fields:
                return f"A:{name}"
            cls = class_of(self.fx.symbols, self.fx.symbols[cls].parent)
        return f"N:{name}" if name[:1].isupper() else "?"


def _call_edges(parts: dict[str, list], fx: FileExtract, nesting: Enclosing, types: _Types) -> None:
    """`calls` edges (method calls and `new C()`), deduplicated per caller, in source order."""
    calls = [(n.start_byte, n, False) for n in parts["callee"]] + [(n.start_byte, n, True) for n in parts["new"]]
    edges = CallEdges(fx)
    for byte, node, is_new in sorted(calls, key=lambda c: c[0]):
        src = nesting.at(byte)
        if is_new:
            name, recv = _type_name(node).rsplit(".", 1)[-1], ""
        else:
            name = text(node)
            obj = node.parent.child_by_field_name("object") if node.parent is not None else None
            recv = "" if obj is None and name in fx.names else types.receiver(obj, src)
        if name:
            edges.add(name, src, node, recv)


def extract(path: str, data: bytes, module: str, options: dict | None = None) -> FileExtract:
    """Definitions, package and imports, bases, calls and (in tests) references of one file."""
    options = options or {}
    root, fx = parse(_grammar(), data, "java")
    parts = _scan(root)
    nesting = _definitions(parts["defs"], data, fx)
    _imports(parts["package"], parts["import"], module, fx)
    types = _Types(fx, nesting)
    types.bind(parts["var"], parts["field"], parts["new"])
    _call_edges(parts, fx, nesting, types)
    if options.get("is_test"):
        test_references(data, fx, KEYWORDS)
    own_texts(data, fx)
    if parts["package"]:
        fx.module_doc = doc_comment(parts["package"][0])
    return fx


def _source_root(parts: list[str]) -> int:
    """Where the package folders of a Java file's path start: after the last `src/<set>/java`
    (Maven and Gradle: src/main/java, src/test/java), else after the last `src`, else 0."""
    for i in range(len(parts) - 2, 1, -1):
        if parts[i] == "java" and parts[i - 2] == "src":
            return i + 1
    return max((i + 1 for i, p in enumerate(parts[:-1]) if p == "src"), default=0)


def module_names(paths: list[str], root_name: str = "") -> dict[str, str]:
    """Module per Java file: its package (the folders below its source root) and its class,
    `src/main/java/com/x/Circle.java` -> com.x.Circle."""
    out: dict[str, str] = {}
    for p in paths:
        parts = p.split("/")
        stem = parts[-1].rsplit(".", 1)[0]
        out[p] = ".".join([*parts[_source_root(parts) : -1], stem])
    return out


def test_arguments(test_files: list[str]) -> list[str]:
    """Maven's `-Dtest=` with the test classes of `test_files` (their file names)."""
    classes = dict.fromkeys(f.rsplit("/", 1)[-1].rsplit(".", 1)[0] for f in test_files)
    return [f"-Dtest={','.join(classes)}"]


# a stack trace's frame: `at com.x.Circle.area(Circle.java:12)`; the path is the file's name
# only (D_loc finds the one file of that name), the func its class and method
_FRAME = re.compile(r"\bat\s+(?:[\w$]+[./])*?(?:(?P<func>[\w$]+\.[\w$]+)|[\w$]+\.<(?:init|clinit)>)"
                    r"\((?P<path>[\w$-]+\.java):(?P<line>\d+)\)")

def is_private(_name: str, signature: str) -> bool:
    """Declared `private` (a modifier before the parameters)."""
    return re.search(r"\bprivate\b", signature.split("(", 1)[0]) is not None


JAVA = Language(
    name="java",
    private=is_private,
    extensions=(".java",),
    lexer="java",
    extract=extract,
    module_names=module_names,
    test_dirs=("test", "tests"),  # src/test/java
    test_only_dirs=("test", "tests"),
    # Test*.java by Surefire's default includes, but not Tester.java or Testing.java
    test_files=("*Test.java", "*Tests.java", "Test[A-Z0-9_]*.java", "*IT.java"),
    # JUnit 4/5 and TestNG annotations (@Test, @ParameterizedTest, @RepeatedTest, @org.junit.Test), or
    # JUnit 3's `public void testX()`
    test_function=re.compile(r"@(?:[\w.]+\.)?\w*Test\b|\bvoid\s+test\w*\s*\("),
    trace_frames=(_FRAME,),
    trace_innermost_first=True,
    # a type's keyword and name, or a method's modifiers and type before its name and `(`
    definition=r"(?:(?:class|interface|enum|record)\s+|(?!(?:return|new|throw|else|case|assert|yield)\b)"
               r"(?:[\w$.<>\[\]?,]+\s+)+(?=[A-Za-z_$][\w$]*\s*\())([A-Za-z_$][\w$]*)",
    git_diff_driver="java",
    line_comments=("//",),
    block_comments=((r"/\*", "*/"),),
    keywords=KEYWORDS,
    common_names=frozenset({"String", "Object", "Integer", "Long", "Double", "Float", "Boolean", "Character",
                            "Byte", "Short", "System", "Math", "List", "Map", "Set", "ArrayList", "HashMap",
                            "HashSet", "Arrays", "Collections", "Optional", "Override", "Deprecated", "println",
                            "toString", "equals", "hashCode"}),
    package_files=("package-info.java",),
    common_file_names=("package-info.java", "module-info.java"),
    # Maven by default: the lone build tool of most Java repositories' CI; a file that names no
    # test class leaves the others to run (failIfNoSpecifiedTests=false, a multi-module build)
    test_runner=("mvn", "-q", "test", "-Dsurefire.failIfNoSpecifiedTests=false"),
    test_arguments=test_arguments,
)
