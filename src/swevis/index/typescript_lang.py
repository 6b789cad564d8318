"""TypeScript: JavaScript's extractor (swevis.index.javascript_lang) on tree-sitter-typescript's
two grammars (TSX for .tsx), with TypeScript's own definitions (interfaces, type aliases,
enums, namespaces, abstract classes, method and function signatures) and its type annotations
as bindings, and the conventions of TypeScript code (`TYPESCRIPT`, registered in
swevis.index.languages). Declaration files (.d.ts) are its stubs.
"""

from __future__ import annotations

import re

import tree_sitter as ts
import tree_sitter_typescript as tsts

from swevis.index.javascript_lang import is_private as js_private
from swevis.index.javascript_lang import (
    COMMON_NAMES,
    RECORD_KEYWORDS,
    TS_EXTENSIONS,
    extract_with,
    grammar_parts,
    module_names,
    node_frame,
)
from swevis.index.records import FileExtract, Language
from swevis.index.treesitter_util import Compiled, compile_grammar, compiled_once

__all__ = ["TYPESCRIPT", "extract"]

_TS_DEFS = """
(abstract_class_declaration name: (type_identifier) @name) @def
(interface_declaration name: (type_identifier) @name) @def
(type_alias_declaration name: (type_identifier) @name) @def
(enum_declaration name: (identifier) @name) @def
(internal_module name: (identifier) @name) @def
(method_signature name: (_) @name) @def
(abstract_method_signature name: (_) @name) @def
(function_signature name: (identifier) @name) @def
(public_field_definition name: (property_identifier) @name value: [(arrow_function) (function_expression)]) @def
(variable_declarator name: (identifier) @name value: [(as_expression (object)) (as_expression (array))
  (satisfies_expression (object)) (satisfies_expression (array))]) @def
"""
_TS_BINDINGS = """
(variable_declarator name: (identifier) @var type: (type_annotation) @type)
(required_parameter pattern: (identifier) @var type: (type_annotation) @type)
(optional_parameter pattern: (identifier) @var type: (type_annotation) @type)
(public_field_definition name: (property_identifier) @attr type: (type_annotation) @type)
"""


@compiled_once("TypeScript")
def _grammar(tsx: bool) -> Compiled:
    """TSX's grammar or TypeScript's, compiled when the first such file is parsed, not at import
    (~0.25 s for the two): every agent job imports the index and most parse no TypeScript."""
    language = tsts.language_tsx() if tsx else tsts.language_typescript()
    return compile_grammar(ts.Language(language), grammar_parts(_TS_DEFS, _TS_BINDINGS))


# as JavaScript's: only words no other language's code names things by (see javascript_lang)
_KEYWORDS = RECORD_KEYWORDS | frozenset("keyof readonly satisfies".split())


def extract(path: str, data: bytes, module: str, options: dict | None = None) -> FileExtract:
    """As JavaScript's, on the TSX grammar for .tsx files and the TypeScript one otherwise."""
    return extract_with(_grammar(path.lower().endswith(".tsx")), "typescript", path, data, module, options)


def is_private(name: str, signature: str) -> bool:
    """JavaScript's conventions, or declared `private` (a modifier before the parameters)."""
    return js_private(name, signature) or re.search(r"\bprivate\b", signature.split("(", 1)[0]) is not None


TYPESCRIPT = Language(
    name="typescript",
    private=is_private,
    extensions=TS_EXTENSIONS,
    lexer="typescript",  # .mts, .cts and their .d. forms too, which Pygments does not know by name
    extension_lexers=((".tsx", "tsx"),),
    extract=extract,
    module_names=module_names,
    stub_extensions=(".d.ts", ".d.mts", ".d.cts"),
    test_dirs=("__tests__", "__mocks__", "test", "tests", "spec"),
    test_only_dirs=("__tests__", "__mocks__", "test", "tests"),
    test_files=("*.test.*", "*.spec.*", "*_test.*", "*_spec.*", "*.test-d.ts"),
    trace_frames=node_frame(tuple(e for e in TS_EXTENSIONS if not e.startswith(".d."))),
    frame_placeholders=frozenset({"<anonymous>", "Object.<anonymous>"}),
    trace_innermost_first=True,  # Node prints the throwing frame first
    definition=(r"(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?"
                r"(?:function\*?\s*|class\s+|interface\s+|type\s+|enum\s+|namespace\s+|"
                r"(?:const|let|var)\s+(?=[\w$]+\s*(?::[^=]+)?=\s*(?:async\s*)?(?:function|\(|[\w$]+\s*=>)))"
                r"([A-Za-z_$][\w$]*)"),
    line_comments=("//",),
    block_comments=((r"/\*", "*/"),),
    keywords=_KEYWORDS,
    common_names=COMMON_NAMES,
    package_files=("index.ts", "index.tsx", "index.d.ts"),
    common_file_names=("index.ts", "index.tsx", "index.d.ts", "vite.config.ts", "jest.config.ts",
                       "vitest.config.ts"),
    # jest (with ts-jest), as for JavaScript
    test_runner=("npx", "jest", "--ci"),
    project_files=("tsconfig.json", "jsconfig.json"),
)
