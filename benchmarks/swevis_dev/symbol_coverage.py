"""Symbol coverage of the index per language: how much of what fixes change it names.

For every fix (a file before and after), two shares per language:
- lines: of the changed code lines (removed lines in the file before, added lines in the file
  after), the share inside some symbol the index's extractor gives that version of the file;
- definitions: of the innermost definitions the changed lines are in, found on the syntax tree
  by a reference list of definition nodes per language that is independent of the extractor
  (every named function, method, class, type, impl, object literal bound to a name, table), the
  share the index names: a symbol that ends on the definition's last line and starts at or
  before its first.
With `--outside N`, the changed lines outside every symbol are also counted by the top-level
statement they are in (a comment, an import, `const x = require(...)`), the N commonest a
language: what is left when every definition is a symbol.

Fixes come from mined cases (a devset CSV: repo, base_commit, fix_commit, mirror, language;
the fix's non-test files of the case's language, read from the bare mirrors `swevis devset
fetch` makes) or from a folder of `NAME.before.EXT` / `NAME.after.EXT` pairs:

    .venv/bin/python benchmarks/bench_symbol_coverage.py --pairs tests/fixtures/index/coverage
    .venv/bin/python benchmarks/bench_symbol_coverage.py --cases devset/mined_polyglot.csv devset/mined.csv \
        --mirrors MIRRORS

(benchmarks/bench_symbol_coverage.py runs this module's `main`.)

Nothing here reaches the network.
"""

from __future__ import annotations

import argparse
import csv
import difflib
import subprocess
from collections import defaultdict
from pathlib import Path

import tree_sitter as ts

from swevis.index import languages

_FUNCS = {"function_declaration", "generator_function_declaration", "method_definition", "function_definition",
          "function_item", "method_declaration", "constructor_declaration", "compact_constructor_declaration",
          "function_signature_item", "method_signature", "abstract_method_signature", "function_signature",
          "method_elem", "macro_definition"}
_TYPES = {"class_declaration", "abstract_class_declaration", "class_definition", "interface_declaration",
          "enum_declaration", "record_declaration", "annotation_type_declaration", "type_alias_declaration",
          "internal_module", "struct_item", "enum_item", "union_item", "trait_item", "type_item", "impl_item",
          "mod_item", "const_item", "static_item", "type_spec", "type_alias"}
_VALUES = {"arrow_function", "function_expression", "generator_function", "function", "class", "object",
           "lambda_expression", "composite_literal", "func_literal", "array"}


def _is_definition(node: ts.Node) -> bool:
    """A definition of the reference list: a declaration of a function, method or type; a
    named function expression; an anonymous class; a function, object or table bound to a name
    (a declarator, an object member, a field, a package-level var)."""
    t, parent = node.type, node.parent
    if t in _FUNCS or t in _TYPES:
        return t != "mod_item" or node.child_by_field_name("body") is not None
    if t in ("function_expression", "generator_function") and node.child_by_field_name("name") is not None:
        return True
    if t == "object_creation_expression":
        return any(c.type == "class_body" for c in node.named_children)
    if t == "call_expression" and parent is not None and parent.type == "variable_declarator":
        args = node.child_by_field_name("arguments")  # a top-level table or class made by a call of an
        return _top_level(parent) and any(a.type == "object" for a in args.named_children)  # object literal
    while parent is not None and parent.type in ("as_expression", "satisfies_expression", "parenthesized_expression"):
        parent = parent.parent  # `{...} as const`
    if t not in _VALUES or parent is None:
        return False
    if t in ("object", "array"):  # a table: top-level, or an object of functions, or a member of one
        return _table(node, parent)
    if parent.type in ("variable_declarator", "pair", "field_definition", "public_field_definition"):
        return True
    if parent.type == "assignment_expression" and parent.child_by_field_name("right") == node:
        left = parent.child_by_field_name("left")  # named: `f = `, `A.prototype.f = `, not `a[k] = `
        return left is not None and left.type in ("identifier", "member_expression")
    if parent.type == "expression_list" and parent.parent is not None and parent.parent.type == "var_spec":
        return _top_level(parent.parent)
    return False


def _table(node: ts.Node, parent: ts.Node) -> bool:
    """A table: bound to a name at the top level (by an assignment too: `module.exports =
    {...}`, not `A.prototype = {...}` nor a list of exported names), or an object of functions,
    or an object member of one."""
    if parent.type == "assignment_expression" and parent.child_by_field_name("right") == node:
        left = parent.child_by_field_name("left")
        names_only = all(m.type in ("shorthand_property_identifier", "spread_element", "comment") or (
            m.type == "pair" and m.child_by_field_name("value").type in ("identifier", "member_expression"))
            for m in node.named_children)  # `module.exports = { a, b }` lists exports, as `export { a, b }`
        return left.type in ("identifier", "member_expression") and not left.text.endswith(b".prototype") \
            and _top_level(parent) and not (left.text == b"module.exports" and names_only)
    if parent.type == "variable_declarator":
        return _top_level(parent) or (node.type == "object" and any(
            m.type == "method_definition" or (m.type == "pair" and m.child_by_field_name("value") is not None
                                              and m.child_by_field_name("value").type in _VALUES - {"object", "array"})
            for m in node.named_children))
    if parent.type == "pair" and node.type == "object" and parent.parent is not None:
        return _is_definition(parent.parent)
    return False


def _top_level(node: ts.Node) -> bool:
    depth, up = 0, node.parent
    while up is not None and up.type not in ("program", "source_file", "module"):
        depth += up.type not in ("lexical_declaration", "variable_declaration", "export_statement",
                                 "var_declaration", "var_spec_list", "expression_statement")
        up = up.parent
    return depth == 0


def _innermost(root: ts.Node, line: int, text: str) -> ts.Node | None:
    """The innermost reference definition holding the code of `line` (0-based; `text` its text)."""
    code = text.encode()
    start = len(code) - len(code.lstrip())
    node = root.named_descendant_for_point_range((line, start), (line, max(len(code.rstrip()) - 1, start)))
    while node is not None and node.start_point[0] == line and node.parent is not None \
            and node.parent.start_point[0] <= line and node.type not in _VALUES and not _is_definition(node):
        node = node.parent
    while node is not None and not _is_definition(node):
        node = node.parent
    return node


_BINDERS = {"export_statement", "lexical_declaration", "variable_declaration", "expression_statement",
            "variable_declarator", "assignment_expression", "assignment", "let_declaration", "var_declaration",
            "var_spec", "const_declaration", "const_spec", "short_var_declaration"}


def _outside_kind(root: ts.Node, line: int, text: str) -> str:
    """What a line outside every symbol is in: its top-level statement, with what a declaration,
    an export or an expression statement holds (`lexical_declaration: call of require`)."""
    code = text.encode()
    start = len(code) - len(code.lstrip())
    node = root.named_descendant_for_point_range((line, start), (line, max(len(code.rstrip()) - 1, start)))
    while node.parent is not None and node.parent.parent is not None:
        node = node.parent
    held = node
    while held.type in _BINDERS:  # export -> declaration -> declarator -> value; statement -> assignment -> right
        inner = next((held.child_by_field_name(f) for f in ("declaration", "value", "right")
                      if held.child_by_field_name(f) is not None), None)
        if inner is None and held.named_child_count:
            inner = held.named_children[0]
        if inner is None:
            break
        held = inner
    if held is node:
        return node.type
    callee = held.child_by_field_name("function") if held.type in ("call_expression", "call") else None
    what = f"call of {callee.text.decode()}" if callee is not None and callee.type == "identifier" else held.type
    return f"{node.type}: {what}"


def _grammar_root(path: str, data: bytes) -> ts.Node:
    language = languages.language_for(path)
    parser = ts.Parser(_LANGUAGES[language.name](path))
    return parser.parse(data).root_node


def _ts_language(module: str, attr: str = "language"):
    def load(_path: str) -> ts.Language:
        return ts.Language(getattr(__import__(module), attr)())
    return load


def _typescript(path: str) -> ts.Language:
    import tree_sitter_typescript as tsts
    return ts.Language(tsts.language_tsx() if path.endswith(".tsx") else tsts.language_typescript())


_LANGUAGES = {"python": _ts_language("tree_sitter_python"), "java": _ts_language("tree_sitter_java"),
              "go": _ts_language("tree_sitter_go"), "rust": _ts_language("tree_sitter_rust"),
              "javascript": _ts_language("tree_sitter_javascript"), "typescript": _typescript}


def _side(path: str, data: bytes, lines: list[int], counts: dict) -> None:
    """Count one version's changed lines (0-based) against its symbols and definitions."""
    language = languages.language_for(path)
    symbols = [(s.start_line, s.end_line) for s in language.extract(path, data, "", {}).symbols]
    root = _grammar_root(path, data)
    text = data.decode("utf-8", "replace").splitlines()
    seen = set()
    for line in lines:
        if line >= len(text) or not text[line].strip():
            continue
        counts["lines"] += 1
        inside = any(a <= line + 1 <= b for a, b in symbols)
        counts["lines_in"] += inside
        if not inside:
            counts[f"outside: {_outside_kind(root, line, text[line])}"] += 1
        node = _innermost(root, line, text[line])
        if node is None or (node.start_byte, node.end_byte) in seen:
            continue
        seen.add((node.start_byte, node.end_byte))
        first, last = node.start_point[0] + 1, node.end_point[0] + 1
        counts["defs"] += 1
        counts["defs_named"] += any(b == last and a <= first for a, b in symbols)


def measure_fix(path: str, before: bytes, after: bytes, counts: dict) -> None:
    """Add one file's fix to `counts`: removed lines on the file before, added on the file after."""
    old, new = before.decode("utf-8", "replace").splitlines(), after.decode("utf-8", "replace").splitlines()
    removed, added = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += range(i1, i2)
            added += range(j1, j2)
    if removed and before:
        _side(path, before, removed, counts)
    if added and after:
        _side(path, after, added, counts)


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout


def case_fixes(row: dict, mirrors: Path):
    """(path, before, after) of a mined case's changed source files of its language."""
    repo = mirrors / row["mirror"] / "repo"
    want = row.get("language") or "python"
    names = _git(repo, "diff", "--name-only", "--no-renames", row["base_commit"], row["fix_commit"]).decode().split()
    for path in names:
        language = languages.language_for(path)
        if language is None or language.name != want or languages.is_test_path(path) or languages.is_stub(path):
            continue
        yield path, _show(repo, row["base_commit"], path), _show(repo, row["fix_commit"], path)


def _show(repo: Path, commit: str, path: str) -> bytes:
    try:
        return _git(repo, "show", f"{commit}:{path}")
    except subprocess.CalledProcessError:  # added or deleted by the fix
        return b""


def pair_fixes(folder: Path):
    """(path, before, after) of each NAME.before.EXT / NAME.after.EXT pair of a folder."""
    for before in sorted(folder.glob("*.before.*")):
        after = before.with_name(before.name.replace(".before.", ".after."))
        yield before.name.replace(".before.", "."), before.read_bytes(), after.read_bytes()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=Path, help="folder of NAME.before.EXT / NAME.after.EXT files")
    ap.add_argument("--cases", type=Path, nargs="+", default=[], help="devset CSVs of mined cases")
    ap.add_argument("--mirrors", type=Path, help="folder of <owner>+<name>/repo mirrors (swevis devset fetch's)")
    ap.add_argument("--language", help="only the cases of this language (a devset CSV's language column)")
    ap.add_argument("--outside", type=int, default=0, metavar="N",
                    help="also list, per language, the N most common statements the lines outside every symbol are in")
    args = ap.parse_args(argv)
    counts: dict[str, dict] = defaultdict(lambda: defaultdict(int))
    fixes = []
    if args.pairs:
        fixes += list(pair_fixes(args.pairs))
    for table in args.cases:
        with table.open() as f:
            for row in csv.DictReader(f):
                if args.language in (None, row.get("language") or "python"):
                    fixes += list(case_fixes(row, args.mirrors))
    for path, before, after in fixes:
        c = counts[languages.language_for(path).name]
        c["files"] += 1
        measure_fix(path, before, after, c)
    print("| language | fixed files | changed lines | in a symbol | innermost definitions | named by the index |")
    print("|---|--:|--:|--:|--:|--:|")
    for name in sorted(counts):
        c = counts[name]
        print(f"| {name} | {c['files']} | {c['lines']} | {100 * c['lines_in'] / max(c['lines'], 1):.1f}% "
              f"| {c['defs']} | {100 * c['defs_named'] / max(c['defs'], 1):.1f}% |")
    if args.outside and any(k.startswith("outside: ") for c in counts.values() for k in c):
        print("\n| language | changed lines outside every symbol: the top-level statement they are in | lines |")
        print("|---|---|--:|")
        for name in sorted(counts):
            kinds = sorted(((n, k[len("outside: "):]) for k, n in counts[name].items() if k.startswith("outside: ")),
                           key=lambda kn: (-kn[0], kn[1]))
            for n, kind in kinds[: args.outside]:
                print(f"| {name} | {kind} | {n} |")
    return 0
