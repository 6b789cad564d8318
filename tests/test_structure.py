"""The package's house rules, checked on its source (AST and text only, nothing imported):
short functions, settings defaults only in the schema, no private names across modules, no
import cycles, atomic writes only through swevis.fsutil, and no tracker numbers.

Each check names its offenders. ALLOWED_* sets name the offenders that remain on purpose (or
until they are fixed), so a new one fails the test; remove an entry when its offender goes.
src/swevis/data/ is left out: it holds the sample repositories, which are data, not code.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PACKAGE = SRC / "swevis"
SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if (PACKAGE / "data") not in p.parents)
MAX_FUNCTION_LINES = 80
DEFAULTS_NAMES = re.compile(r"^(\w+_DEFAULTS|DEFAULTS|DEFAULT_SETTINGS)$")
TRACKER_NUMBER = re.compile(r"\bissue\s+(#|8\b)", re.IGNORECASE)

# offenders that remain, "<path under src/swevis>:<name>"; empty when none does
ALLOWED_LONG_FUNCTIONS: set[str] = set()
ALLOWED_DEFAULTS_DICTS: set[str] = set()
ALLOWED_PRIVATE_IMPORTS: set[str] = set()
ALLOWED_CYCLES: set[frozenset[str]] = set()


@lru_cache(maxsize=None)
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


def _where(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in SOURCES}


def long_functions(sources: list[Path] = SOURCES, base: Path = PACKAGE) -> set[str]:
    return {
        f"{path.relative_to(base).as_posix()}:{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for path in sources
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    }


def defaults_dicts() -> set[str]:
    return {
        f"{_where(path)}:{target.id}"
        for path in SOURCES
        for node in _tree(path).body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name) and DEFAULTS_NAMES.match(target.id)
    }


def private_imports() -> set[str]:
    return {
        f"{_where(path)}:{node.module}.{alias.name}"
        for path in SOURCES
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "swevis"
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.endswith("__")
    }


def import_graph() -> dict[str, set[str]]:
    """swevis module -> the swevis modules its imports name, at the top or inside a function
    (a deferred import is still a dependency; `from pkg import mod` names pkg.mod when that is
    a module, else pkg)."""
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        targets: set[str] = set()
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in MODULES else node.module
                            for a in node.names}
        graph[name] = {t for t in targets if t in MODULES and t != name}
    return graph


def _room(module: str) -> str:
    """The package a module lives in (swevis.agents.runner -> swevis.agents); a top-level
    module (swevis.config) is its own room, the package file `swevis` too."""
    parts = module.split(".")
    return ".".join(parts[:2])


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph folded onto packages: an arrow between two rooms wherever any of their
    modules import each other."""
    rooms: dict[str, set[str]] = {}
    for module, targets in graph.items():
        rooms.setdefault(_room(module), set()).update(_room(t) for t in targets)
    return {room: targets - {room} for room, targets in rooms.items()}


def import_cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: set[frozenset[str]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.add(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_no_function_over_80_lines():
    assert sorted(f for f in long_functions() if f.split(" ")[0] not in ALLOWED_LONG_FUNCTIONS) == []


def test_no_defaults_dict_restates_the_schema():
    assert sorted(defaults_dicts() - ALLOWED_DEFAULTS_DICTS) == []


def test_no_private_name_is_imported_across_modules():
    assert sorted(private_imports() - ALLOWED_PRIVATE_IMPORTS) == []


def test_no_import_cycle_between_swevis_modules():
    cycles = import_cycles(import_graph()) - ALLOWED_CYCLES
    assert sorted(sorted(c) for c in cycles) == []


def test_no_import_cycle_between_swevis_packages():
    """Dependencies point one way between stages too, counting imports inside functions."""
    assert sorted(sorted(c) for c in import_cycles(package_graph(import_graph()))) == []


DESIGN = ROOT / "docs" / "DESIGN.md"


def may_import_table() -> dict[str, set[str]]:
    """docs/DESIGN.md's may-import table: swevis.<package> -> the swevis packages it may import
    ("every package but cli" allows all the others)."""
    text = DESIGN.read_text()
    rows = text[text.index("<!-- may-import table"):text.index("<!-- end may-import table")].splitlines()
    table: dict[str, set[str]] = {}
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows if row.startswith("| `")]
    everything = {f"swevis.{n.strip('` ')}" for names, _, _ in cells for n in names.split(",")}
    for names, _owns, allowed in cells:
        targets = ({p for p in everything | {"swevis"} if p != "swevis.cli"} if allowed.startswith("every package but cli")
                   else {("swevis" if a == "swevis" else f"swevis.{a}") for a in allowed.split(", ") if a})
        for name in names.split(","):
            table[f"swevis.{name.strip('` ')}"] = targets
    return table


def test_every_package_imports_only_what_the_design_allows():
    table, graph = may_import_table(), package_graph(import_graph())
    assert sorted(set(graph) - set(table) - {"swevis"}) == []  # every package has its row
    outside = sorted(f"{room} -> {target}" for room, targets in graph.items() if room != "swevis"
                     for target in targets - table[room] - {room})
    assert outside == []


def test_atomic_writes_go_through_fsutil():
    renames = [
        f"{_where(path)}:{node.lineno}"
        for path in SOURCES
        if path != PACKAGE / "fsutil.py"
        for node in ast.walk(_tree(path))
        if (isinstance(node, ast.Attribute) and node.attr == "replace"
            and isinstance(node.value, ast.Name) and node.value.id == "os")
        or (isinstance(node, ast.ImportFrom) and node.module == "os" and any(a.name == "replace" for a in node.names))
    ]
    assert renames == []


def test_no_tracker_numbers_in_code_rules_schema_or_config():
    sample = PACKAGE / "data" / "sample"  # task data: an issue text may cite an issue number
    package_files = sorted(
        p for p in SRC.rglob("*") if p.is_file() and p.suffix != ".pyc" and sample not in p.parents
    )
    texts = [*package_files, *sorted((ROOT / "rules").glob("*.smk")), ROOT / "Snakefile",
             ROOT / "config.yaml"]
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in texts
        if path.is_file()
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), start=1)
        if TRACKER_NUMBER.search(line)
    ]
    assert found == []


# --- developer tooling (benchmarks/, its swevis_dev package) stays out of the software -----

BENCHMARKS = ROOT / "benchmarks"
DEV_SOURCES = sorted(p for p in BENCHMARKS.rglob("*.py") if "fixtures" not in p.relative_to(BENCHMARKS).parts)
DEV_PACKAGE = "swevis_dev"


def imported_names(path: Path) -> set[str]:
    """The modules a Python file imports, at the top or inside a function, by their full name
    (`from a import b` names a; relative imports are left out)."""
    names: set[str] = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def dev_importers(python: list[Path], workflow: list[Path]) -> list[str]:
    """The package's, the scripts' and the workflow's files that import the dev tooling."""
    found = [p for p in python if any(n.split(".")[0] == DEV_PACKAGE for n in imported_names(p))]
    found += [p for p in workflow if DEV_PACKAGE in p.read_text()]
    return sorted(p.relative_to(ROOT).as_posix() if p.is_relative_to(ROOT) else p.name for p in found)


def benchmark_loaders(tests: list[Path], scripts: set[str]) -> list[str]:
    """Test files that import a script of benchmarks/ by its name or load one from its path."""
    loaders = {"spec_from_file_location", "run_path", "SourceFileLoader"}
    found = []
    for path in tests:
        calls = {node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                 for node in ast.walk(_tree(path)) if isinstance(node, ast.Call)}
        if any(n.split(".")[0] in scripts for n in imported_names(path)) or (
                calls & loaders and "benchmarks" in path.read_text()):
            found.append(path.name)
    return sorted(found)


def test_the_package_scripts_and_workflow_never_import_the_dev_tooling():
    python = [*SOURCES, *sorted((ROOT / "scripts").glob("*.py"))]
    workflow = [ROOT / "Snakefile", *sorted((ROOT / "rules").glob("*.smk"))]
    assert dev_importers(python, workflow) == []


def test_no_test_loads_a_benchmark_script():
    """Tests import the tested logic from swevis_dev; a script of benchmarks/ is only run."""
    scripts = {p.stem for p in BENCHMARKS.glob("*.py")}
    assert scripts and DEV_PACKAGE not in scripts
    tests = sorted(p for p in (ROOT / "tests").rglob("*.py") if "fixtures" not in p.relative_to(ROOT / "tests").parts)
    assert benchmark_loaders(tests, scripts) == []


def test_no_dev_function_over_80_lines():
    assert DEV_SOURCES and sorted(long_functions(DEV_SOURCES, BENCHMARKS)) == []


def test_the_checks_find_what_they_look_for(tmp_path):
    """Each check flags a planted offender (a check that can find nothing would pass forever)."""
    cyclic = {"swevis.a": {"swevis.b"}, "swevis.b": {"swevis.c"}, "swevis.c": {"swevis.a"}, "swevis.d": {"swevis.a"}}
    assert import_cycles(cyclic) == {frozenset({"swevis.a", "swevis.b", "swevis.c"})}
    assert import_cycles({"swevis.a": {"swevis.b"}, "swevis.b": set()}) == set()
    assert TRACKER_NUMBER.search("LET variants (issue 8): memory") and TRACKER_NUMBER.search("see Issue #12")
    assert not TRACKER_NUMBER.search("the issue text; 8 instances")
    assert DEFAULTS_NAMES.match("LOCALIZE_DEFAULTS") and DEFAULTS_NAMES.match("DEFAULT_SETTINGS")
    assert not DEFAULTS_NAMES.match("DEFAULT_CONFIG")
    graph = import_graph()
    assert "swevis.index.store" in graph["swevis.index.build"]  # from swevis.index import store
    assert "swevis.fsutil" in graph["swevis.table_csv"]
    # a deferred import counts: harness.docker imports sandbox.specs inside a function
    assert "swevis.sandbox.specs" in graph["swevis.harness.docker"]
    table = may_import_table()
    assert table["swevis.localize"] == {"swevis.arguments", "swevis.config", "swevis.errors", "swevis.fsutil", "swevis.index",
                                        "swevis.tasks"}
    assert table["swevis.logutil"] == table["swevis.arguments"] and "swevis.harness" in table["swevis.analysis"]
    deferred = {"swevis.x.a": {"swevis.y.b"}, "swevis.y.b": {"swevis.x.c"}, "swevis.x.c": set()}
    assert import_cycles(package_graph(deferred)) == {frozenset({"swevis.x", "swevis.y"})}
    (tmp_path / "uses_dev.py").write_text("def f():\n    from swevis_dev.rule_times import main\n")
    (tmp_path / "clean.py").write_text("from swevis.analysis import tables\n")
    (tmp_path / "Snakefile").write_text("from swevis_dev import measurements\n")
    assert dev_importers([tmp_path / "uses_dev.py", tmp_path / "clean.py"], [tmp_path / "Snakefile"]) == [
        "Snakefile", "uses_dev.py"]
    (tmp_path / "test_a.py").write_text("import bench_render\n")
    (tmp_path / "test_b.py").write_text("import importlib.util\nP = 'benchmarks/x.py'\n"
                                        "importlib.util.spec_from_file_location('x', P)\n")
    (tmp_path / "test_c.py").write_text("from swevis_dev import legibility\n")
    tests = [tmp_path / f"test_{c}.py" for c in "abc"]
    assert benchmark_loaders(tests, {"bench_render"}) == ["test_a.py", "test_b.py"]
    (tmp_path / "long.py").write_text("def f():\n" + "    x = 1\n" * 80)
    assert long_functions([tmp_path / "long.py"], tmp_path) == {"long.py:f (81 lines)"}
