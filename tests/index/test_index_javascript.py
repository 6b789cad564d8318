"""JavaScript in the index (swevis.index.javascript_lang): definitions, CommonJS and ES imports
resolved to files, calls and inheritance across files, test references, the registry's answers."""

from __future__ import annotations

from pathlib import Path

from helpers import call_targets

from swevis.index import build_index, languages, open_index
from swevis.index.javascript_lang import extract, module_of_path
from swevis.localize import extract_hints

FIXTURE = Path(__file__).parents[1] / "fixtures" / "index" / "jsrepo"


def test_definitions_with_spans_signatures_and_docs(index):
    idx, _ = index
    ledger = idx.file("lib/ledger.js")
    assert (ledger.language, ledger.module, ledger.is_test) == ("javascript", "lib.ledger", False)
    got = [(s.qualname, s.kind, s.start_line, s.end_line, s.signature) for s in idx.symbols_in_file("lib/ledger.js")]
    assert got == [
        ("Ledger", "class", 5, 22, "class Ledger extends Book"),  # from its JSDoc
        ("Ledger.constructor", "method", 9, 12, "constructor(limit)"),
        ("Ledger.add", "method", 14, 16, "add(entry)"),
        ("Ledger.describe", "method", 18, 21, "describe()"),
    ]
    (describe,) = idx.symbols_by_qualname("Ledger.describe")
    assert describe.doc == "The balance as the report prints it."
    (fmt,) = idx.symbols_by_qualname("formatAmount")
    assert fmt.doc.startswith("Group the digits of an amount by thousands")
    (group,) = idx.symbols_by_qualname("groupDigits")  # an arrow function bound to a const
    assert group.kind == "function" and group.signature == "const groupDigits = (digits) =>"
    assert idx.enclosing_symbol("lib/ledger.js", 15).qualname == "Ledger.add"
    assert idx.file("lib/util/index.js").module == "lib.util" and idx.file("lib/index.js").module == "lib"


def test_imports_resolve_to_files_through_require_index_folders_and_omitted_extensions(index):
    idx, _ = index
    ledger = idx.file("lib/ledger.js")
    assert set(idx.imports_of(ledger.id)) == {"lib/book.js", "lib/format.js", "lib/util/index.js"}
    assert set(idx.imports_of(idx.file("src/report.mjs").id)) == {"lib/ledger.js", "lib/format.js"}
    assert "test/ledger.test.js" in idx.imported_by(ledger.id)


def test_calls_and_inheritance_across_files(index):
    idx, _ = index
    (ledger,) = idx.symbols_by_qualname("Ledger")
    assert [s.qualname for rel, s in idx.neighbours(ledger.id, ("base",))] == ["Book"]
    assert call_targets(idx, "lib/ledger.js") >= {
        ("Ledger.constructor", "lib/book.js", "Book.constructor", "self"),  # super()
        ("Ledger.add", "lib/book.js", "Book.add", "self"),  # super.add()
        ("Ledger.add", "lib/util/index.js", "clamp", "module"),  # util.clamp(), util = require('./util')
        ("Ledger.describe", "lib/format.js", "formatAmount", "direct"),  # const { formatAmount } = require()
        ("Ledger.describe", "lib/book.js", "Book.total", "self"),  # this.total(), inherited
    }
    assert call_targets(idx, "src/report.mjs") >= {
        ("renderReport", "lib/ledger.js", "Ledger", "init"),  # new Ledger(), the default import
        ("renderReport", "lib/ledger.js", "Ledger.describe", "typed"),  # on `const ledger = new Ledger()`
        ("renderReport", "lib/format.js", "formatAmount", "direct"),  # imported as fmt
    }
    # jest's globals are no calls: `describe(...)` in the test is not Ledger.describe
    assert not any(callee == "Ledger.describe" for _, _, callee, _ in call_targets(idx, "test/ledger.test.js"))


def test_a_test_file_references_what_it_tests(index):
    idx, _ = index
    (total,) = idx.symbols_by_qualname("Book.total")
    assert [t["path"] for t in idx.tests_for(total)] == ["test/ledger.test.js"]
    assert idx.file("test/ledger.test.js").is_test


def test_a_syntax_error_is_partial_and_the_rest_of_the_file_is_indexed(index):
    idx, stats = index
    assert stats.status_counts == {"ok": 8, "partial": 1}
    assert idx.file("lib/broken.js").status == "partial"
    assert [s.qualname for s in idx.symbols_in_file("lib/broken.js")] == ["half", "double"]
    assert stats.skipped_by_extension == {".json": 1}  # package.json: no indexed language


def test_es_exports_and_commonjs_bindings_in_the_resolvers_vocabulary():
    fx = extract("src/a.js", b"import D, { x as y } from './b';\nimport * as ns from '../c/index.js';\n"
                 b"export { z } from './z';\nexport * from 'pkg';\nconst { p, q: r } = require('./d');\n"
                 b"export default function main() {}\nconst lazy = import('./lazy');\n", "src.a", {"project": {}})
    assert fx.names == {"D": "src.b.default", "y": "src.b.x", "ns": "c", "z": "src.z.z", "*": "pkg",
                        "p": "src.d.p", "r": "src.d.q", "default": "src.a.main"}
    assert fx.imports[-1] == {"module": "src.lazy", "names": [], "line": 7}  # a dynamic import
    assert module_of_path("lib/foo.test.js") == "lib.foo_test" and module_of_path("index.js") == "index"


LEAFLET_STYLE = b"""const Foo = Base.extend({
  options: { zoom: 1 },

  bar() {
    return this.baz(1);
  },

  baz: function (x) {
    return x + 1;
  },

  qux: (y) => y * 2,
});

export var Layer = L.Evented.extend({
  onAdd: function (map) {
    this._map = map;
  },
}, { statics: true });

const app = createApp({ port: 8080, name: "ledger" });
const plain = { helper() { return 1; } };
"""


def test_methods_of_an_object_literal_given_to_a_call_are_the_bound_names_methods():
    """Leaflet's, Backbone's and Vue's class factories: `const Foo = Base.extend({...})`."""
    fx = extract("src/layer.js", LEAFLET_STYLE, "src.layer", {})
    got = [(s.qualname, s.kind, s.start_line, s.end_line, s.signature) for s in fx.symbols]
    assert got == [
        ("Foo", "class", 1, 13, "const Foo = Base.extend"),
        ("Foo.options", "class", 2, 2, "options: {"),  # a nested object: a namespace of Foo
        ("Foo.bar", "method", 4, 6, "bar()"),
        ("Foo.baz", "method", 8, 10, "baz: function (x)"),
        ("Foo.qux", "method", 12, 12, "qux: (y) =>"),
        ("Layer", "class", 15, 19, "var Layer = L.Evented.extend"),  # the second object has no function
        ("Layer.onAdd", "method", 16, 18, "onAdd: function (map)"),
        ("app", "class", 21, 21, "const app = createApp"),  # a top-level table given to a call
        ("plain", "class", 22, 22, "const plain = {"),  # an object literal with functions: their container
        ("plain.helper", "method", 22, 22, "helper()"),
    ]
    assert [(e.dst_name, fx.symbols[e.src_symbol].qualname) for e in fx.edges if e.kind == "inherits"] == [
        ("Base", "Foo"), ("L.Evented", "Layer")]


def test_a_class_factorys_methods_are_indexed_and_called(tmp_path):
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "layer.js").write_bytes(LEAFLET_STYLE)
    build_index(repo, tmp_path / "idx.sqlite")
    with open_index(tmp_path / "idx.sqlite") as idx:
        assert {"Foo.bar", "Foo.baz", "Foo.qux", "Layer.onAdd"} <= {s.qualname for s in idx.symbols_in_file("src/layer.js")}
        assert ("Foo.bar", "src/layer.js", "Foo.baz") in {t[:3] for t in call_targets(idx, "src/layer.js")}


def test_the_registry_answers_for_javascript():
    js = languages.language_for("lib/a.mjs")
    assert js.name == "javascript" and languages.language_for("A.JSX") is js
    for path in ("__tests__/a.js", "test/a.js", "lib/a.test.js", "lib/a.spec.cjs", "spec/a.js"):
        assert languages.is_test_path(path), path
    assert not languages.is_test_path("lib/test_utils.js") and not languages.is_test_path("lib/contest.js")
    assert languages.is_test_module("lib/__tests__/a.js") and not languages.is_test_module("spec/a.js")
    assert languages.module_names(["lib/a.js", "lib/b/index.cjs"]) == {"lib/a.js": "lib.a", "lib/b/index.cjs": "lib.b"}
    runs = languages.test_commands(["test/ledger.test.js", "lib/a.spec.js"])
    assert [(lang.name, cmd) for lang, cmd in runs] == [
        ("javascript", "npx jest --ci test/ledger.test.js lib/a.spec.js")]
    assert runs[0][0].test_passed(0) and not runs[0][0].test_passed(1)


def test_node_stack_traces_are_frames():
    trace = ("TypeError: entry is not a number\n"
             "    at Ledger.add (/srv/app/node_modules/tally/lib/ledger.js:15:12)\n"
             "    at renderReport (file:///srv/app/src/report.mjs:6:36)\n"
             "    at new Promise (<anonymous>)\n"
             "    at /srv/app/lib/index.js:4:1\n")
    frames = extract_hints(trace).frames
    assert [(f.path, f.line, f.func) for f in frames] == [
        ("/srv/app/node_modules/tally/lib/ledger.js", 15, "Ledger.add"),
        ("///srv/app/src/report.mjs", 6, "renderReport"),  # a file:// URL's path, as resolve_path reads it
        ("/srv/app/lib/index.js", 4, None),
    ]


EXPRESSIONS = b"""export default isXHR && function httpAdapter(config) {
  function onDone() { return 1; }
  return onDone();
};
wrap(function wrapped() {
  const inner = () => 2;
});
const visitor = {
  Identifier(path) { return path; },
  Scope: {
    enter(path) {},
    exit: function () {},
  },
  count: 3,
};
const terms = { a: 'x', 'b-c': 'y' };
function build() {
  const local = { a: 1 };
}
const g = function named() {};
"""


def test_function_expressions_object_literals_and_tables_are_symbols_in_their_container():
    """A function bound by `&&` or passed to a call is a symbol and the container of what it
    holds; an object literal's members are `object.member`; a top-level table is a symbol, a
    data object inside a function is not."""
    fx = extract("lib/adapter.js", EXPRESSIONS, "lib.adapter", {})
    got = [(s.qualname, s.kind, s.start_line, s.end_line, s.signature) for s in fx.symbols]
    assert got == [
        ("httpAdapter", "function", 1, 4, "function httpAdapter(config)"),
        ("httpAdapter.onDone", "function", 2, 2, "function onDone()"),
        ("wrapped", "function", 5, 7, "function wrapped()"),
        ("wrapped.inner", "function", 6, 6, "const inner = () =>"),
        ("visitor", "class", 8, 15, "const visitor = {"),
        ("visitor.Identifier", "method", 9, 9, "Identifier(path)"),
        ("visitor.Scope", "class", 10, 13, "Scope: {"),
        ("visitor.Scope.enter", "method", 11, 11, "enter(path)"),
        ("visitor.Scope.exit", "method", 12, 12, "exit: function ()"),
        ("terms", "class", 16, 16, "const terms = {"),
        ("build", "function", 17, 19, "function build()"),
        ("g", "function", 20, 20, "const g = function named()"),  # one symbol: the declarator's
    ]
    default = extract("lib/a.js", b"export default () => {\n  return 1;\n};\n", "lib.a", {})
    assert [(s.qualname, s.start_line, s.end_line) for s in default.symbols] == [("default", 1, 3)]


MEMBERS = b"""export function Bounds(a, b) {}
Bounds.prototype = {
  extend: function (point) { return this; },
};
// @method bindPopup(content): this
// Binds a popup to the layer.
Layer.include({
  bindPopup(content) { return this; },
  openPopup: function () {},
});
if (hasSelect) {
  disableTextSelection = function () {
    return 1;
  };
}
"""


def test_objects_of_functions_given_to_a_member_or_a_call_are_their_owners_methods():
    """`A.prototype = {...}` and `A.include({...})` add methods to A; a function assigned to a
    plain name is a symbol; the comments right above a definition are in its span."""
    fx = extract("src/Bounds.js", MEMBERS, "src.Bounds", {})
    assert [(s.qualname, s.kind, s.start_line, s.end_line, s.parent) for s in fx.symbols] == [
        ("Bounds", "class", 1, 1, None),
        ("Bounds.extend", "method", 3, 3, 0),
        ("Layer.bindPopup", "method", 8, 8, None),  # Layer is defined in another file
        ("Layer.openPopup", "method", 9, 9, None),
        ("disableTextSelection", "function", 12, 14, None),
    ]
    fn = extract("a.js", b"// Binds a popup.\n// To the layer.\nfunction bind() {}\n", "a", {})
    assert [(s.qualname, s.start_line, s.end_line) for s in fn.symbols] == [("bind", 1, 3)]


MODULE_LEVEL = b"""/**
 * Options of a run.
 * @typedef {Object} RunOptions
 * @property {string} spec - the files
 */

/** @callback Done */

/** The type of a value. */
var canonicalType = (exports.canonicalType = function canonicalType(value) {
  return 1;
});

exports.requireOrImport = hasEsm
  ? async file => {
      return import(file);
    }
  : async file => require(file);

const fetchImage = skip ? null : function (s) { return s; };
const ready = a && b;
var constants = utils.defineConstants({
  EVENT_FILE_POST_REQUIRE: 'post-require',
  nested: { A: 1 },
});

module.exports = {
  rules: { 'no-console': 'off' },
  run(file) { return file; },
  stop: function () {
    return { before: function (name) { return name; } };
  },
  clamp,
  alias: other,
};
Foo.prototype = { a: 1 };
L.Util.options = [1, 2];
exports.maxDiffSize = 8192;
/** @typedef {{ a: number }} */
"""


def test_module_level_definitions_are_symbols_and_plain_statements_are_not():
    """JSDoc types, a function bound on a branch of `?:` or `&&`, a table made by a call or
    assigned at the top level (`module.exports = {...}`: the table `exports`), a function-valued
    member of any object, a value exported by name (`exports.maxDiffSize = 8192`); not a value
    (`a && b`), `A.prototype = {...}` nor a JSDoc type without a name."""
    fx = extract("lib/run.js", MODULE_LEVEL, "lib.run", {"project": {}})
    assert [(s.qualname, s.kind, s.start_line, s.end_line, s.signature) for s in fx.symbols] == [
        ("RunOptions", "class", 1, 5, "@typedef {Object} RunOptions"),
        ("Done", "class", 7, 7, "@callback Done"),
        ("canonicalType", "function", 9, 12, "exports.canonicalType = function canonicalType(value)"),
        ("requireOrImport", "function", 14, 18, "exports.requireOrImport = hasEsm ? async file =>"),
        ("fetchImage", "function", 20, 20, "const fetchImage = skip ? null : function (s)"),
        ("constants", "class", 22, 25, "var constants = utils.defineConstants"),
        ("constants.nested", "class", 24, 24, "nested: {"),
        ("exports", "class", 27, 35, "module.exports = {"),
        ("exports.rules", "class", 28, 28, "rules: {"),
        ("exports.run", "method", 29, 29, "run(file)"),
        ("exports.stop", "method", 30, 32, "stop: function ()"),
        ("exports.stop.before", "function", 31, 31, "before: function (name)"),  # in a returned object
        ("L.Util.options", "class", 37, 37, "L.Util.options = ["),
        ("maxDiffSize", "class", 38, 38, "exports.maxDiffSize = 8192"),  # as `module.exports = { maxDiffSize }`
    ]
    assert [(s.name, s.doc) for s in fx.symbols[:3]] == [
        ("RunOptions", "Options of a run."), ("Done", ""), ("canonicalType", "The type of a value.")]
    # a list of exported names is no table (as `export { a, b }`)
    assert extract("lib/index.js", b"module.exports = { a, b: c.d, ...e };\n", "lib", {}).symbols == []
    # the members of `module.exports = {...}` are the module's names, found in the table
    assert {k: v for k, v in fx.names.items() if k in ("run", "stop", "rules", "alias", "clamp", "default")} == {
        "run": "lib.run.exports.run", "stop": "lib.run.exports.stop", "rules": "lib.run.exports.rules",
        "alias": "lib.run.other", "default": "lib.run"}


def test_the_members_of_module_exports_are_called_through_require(tmp_path):
    repo = tmp_path / "repo"
    (repo / "lib").mkdir(parents=True)
    (repo / "lib" / "tools.js").write_text(
        "function clamp(x) { return x; }\n"
        "module.exports = {\n  clamp,\n  run(file) { return clamp(file); },\n  stop: () => 1,\n};\n")
    (repo / "lib" / "main.js").write_text(
        "const tools = require('./tools');\nconst { stop } = require('./tools');\n\n"
        "function main() {\n  tools.run(1);\n  tools.clamp(2);\n  return stop();\n}\n")
    build_index(repo, tmp_path / "idx.sqlite")
    with open_index(tmp_path / "idx.sqlite") as idx:
        assert {t[:3] for t in call_targets(idx, "lib/main.js")} == {
            ("main", "lib/tools.js", "exports.run"), ("main", "lib/tools.js", "clamp"),
            ("main", "lib/tools.js", "exports.stop")}
        assert ("exports.run", "lib/tools.js", "clamp") in {t[:3] for t in call_targets(idx, "lib/tools.js")}


VALUES = b"""import {Evented} from './Events.js';

/*
 * @class PosAnimation
 * Used internally for panning.
 */

export class PosAnimation extends Evented {
\trun() {}
}

// whether the browser draws SVG inline
var inlineSvg = !!svg && (function () {
\treturn document.createElement('div');
})();

/** Events no longer fired. */
var deprecatedEvents = Object.keys(constants)
  .filter(function (name) {
    return name.startsWith('EVENT_SUITE_ADD');
  })
  .reduce(function (acc, name) { return acc; }, createMap());

exports.strip = strip;
exports.sub = require('./sub');
module.exports.limit = 10;
const app = express();
var mac = navigator.platform.indexOf('Mac') === 0;
function local() { const seen = list.map(function (x) { return x; }); }
"""


def test_values_computed_by_functions_exported_values_and_tagged_headers_are_symbols():
    """A top-level name bound to a value that holds a function (a callback given to a call, an
    IIFE) is a symbol with the function's code in it, and so is a value exported by name; a
    header comment blank lines above a class that names it by `@class` is in its span. A value
    computed without a function (`mac`, `app`), a name or a `require` passed on, and a local
    value are not symbols; a header naming another class stays outside."""
    fx = extract("src/dom/PosAnimation.js", VALUES, "src.dom.PosAnimation", {})
    assert [(s.qualname, s.kind, s.start_line, s.end_line, s.signature) for s in fx.symbols] == [
        ("PosAnimation", "class", 3, 10, "class PosAnimation extends Evented"),
        ("PosAnimation.run", "method", 9, 9, "run()"),
        ("inlineSvg", "function", 12, 15, "var inlineSvg = !!svg && (function ()"),
        ("deprecatedEvents", "function", 17, 22, "var deprecatedEvents = Object.keys(constants) .filter(function (name)"),
        ("limit", "class", 26, 26, "module.exports.limit = 10"),
        ("local", "function", 29, 29, "function local()"),
    ]
    # the tag must name the definition: a header of another class leaves the span as it was
    other = VALUES.replace(b"@class PosAnimation", b"@class Marker")
    assert extract("a.js", other, "a", {}).symbols[0].start_line == 8


COMPILED = b"""var Animal = /*#__PURE__*/function () {
  function Animal() {}
  Animal.prototype.move = function () {};
  return Animal;
}();
var Lib = (function () { function a() {} return {a: a}; })();
export const Button = React.forwardRef(function Button(props, ref) { return 1; });
export const Memo = memo(() => 1);
exports.run = exports.stop = void 0;
exports.default = void 0;
exports.isWin = process.platform === 'win32';
exports.dbg = require('debug')('x');
exports.path = require.resolve('x');
"""


def test_a_value_holding_definitions_leaves_them_where_they_were_and_declarations_are_no_values():
    """An IIFE that holds definitions (a compiled class, a module pattern) and a wrapper given a
    named function are no symbols of their own: what they hold stays top-level (`Animal.move` a
    method); an anonymous wrapped function is a `function`; compilers' `exports.a = exports.b =
    void 0` declarations and what `require` gives are no exported values, a computed one is."""
    fx = extract("lib/compiled.js", COMPILED, "lib.compiled", {})
    assert [(s.qualname, s.kind, s.start_line) for s in fx.symbols] == [
        ("Animal", "class", 2), ("Animal.move", "method", 3), ("a", "function", 6),
        ("Button", "function", 7), ("Memo", "function", 8), ("isWin", "class", 11)]
