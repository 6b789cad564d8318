"""The package's house rules, checked on its source (AST and text only, nothing imported):
short functions, settings defaults only in the schema, no private names across modules, no
import cycles, atomic writes only through swevis.fsutil, and no tracker numbers; inside
swevis.agents, folders that import one way, agents that do not import each other, and class
chains no deeper than two of the package's own classes.

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
# "<module>: <class> (<levels>)" and "<module> -> <module>"
ALLOWED_DEEP_CLASSES: set[str] = set()
ALLOWED_AGENT_IMPORTS: set[str] = set()
# "<path under src/swevis>:<tool name>": a tool name written outside its record. The shell
# reader knows what view_code prints (numbered like nl -ba); it sits below the tools' layer.
ALLOWED_TOOL_NAME_REPEATS: set[str] = {"agents/observation/shell.py:view_code"}
MAX_CLASS_LEVELS = 2

# swevis.agents, bottom up: a folder (or a module at its top) imports only what comes before it
AGENTS = "swevis.agents"
AGENTS_LAYERS = (
    ("registry", "tool_registry", "settings", "prompts"),  # light: the Snakefile imports the registry
    ("observation",),
    ("tools",),
    ("mechanisms",),
    ("run",),
    ("builtin",),  # the agents: the registry imports them by name, nothing else does
)


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
    """The package a module lives in (swevis.agents.run.runner -> swevis.agents); a top-level
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


def _agents_room(module: str) -> str | None:
    """The folder (or top-level module) of swevis.agents a module lives in; None outside it."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["swevis", "agents"] and len(parts) > 2 else None


def agents_layer_violations(graph: dict[str, set[str]]) -> set[str]:
    """Imports inside swevis.agents that point up (or sideways out of a layer's own folder)."""
    layer = {room: i for i, rooms in enumerate(AGENTS_LAYERS) for room in rooms}
    found = set()
    for module, targets in graph.items():
        room = _agents_room(module)
        for target in targets:
            other = _agents_room(target)
            if room is None or other is None or other == room:
                continue
            if room not in layer or other not in layer or layer[other] >= layer[room]:
                found.add(f"{module} -> {target}")
    return found


def _agent_of(module: str) -> str | None:
    """The built-in agent a module of swevis.agents.builtin belongs to (let_variants: let)."""
    parts = module.split(".")
    return parts[3].split("_")[0] if parts[:3] == ["swevis", "agents", "builtin"] and len(parts) > 3 else None


def agent_cross_imports(graph: dict[str, set[str]]) -> set[str]:
    """Imports from one agent's module into another agent's: an agent composes tools and
    mechanisms, never another agent."""
    return {f"{module} -> {target}" for module, targets in graph.items() for target in targets
            if _agent_of(module) and _agent_of(target) and _agent_of(module) != _agent_of(target)}


def package_classes() -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(module, class) -> the (module, class) of each of its bases that swevis defines,
    resolved through the module's own classes and its `from swevis... import` names."""
    defined = {(name, node.name) for name, path in MODULES.items() for node in ast.walk(_tree(path))
               if isinstance(node, ast.ClassDef)}
    bases: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for name, path in MODULES.items():
        imported = {alias.asname or alias.name: (node.module, alias.name) for node in ast.walk(_tree(path))
                    if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("swevis")
                    for alias in node.names}
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ClassDef):
                found = []
                for base in node.bases:
                    if isinstance(base, ast.Name):
                        ref = (name, base.id) if (name, base.id) in defined else imported.get(base.id)
                        if ref in defined:
                            found.append(ref)
                bases[(name, node.name)] = found
    return bases


def class_levels(bases: dict[tuple[str, str], list[tuple[str, str]]]) -> dict[tuple[str, str], int]:
    """How many levels of the package's own classes a class inherits (0: none; B(A): 1)."""
    levels: dict[tuple[str, str], int] = {}

    def level(cls: tuple[str, str]) -> int:
        if cls not in levels:
            levels[cls] = max((1 + level(b) for b in bases.get(cls, [])), default=0)
        return levels[cls]

    for cls in bases:
        level(cls)
    return levels


def deep_agent_classes() -> set[str]:
    return {f"{module}: {cls} ({n})" for (module, cls), n in class_levels(package_classes()).items()
            if module.startswith(AGENTS + ".") and n > MAX_CLASS_LEVELS}


def _is_all(node: ast.AST) -> bool:
    return isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)


def declared_tools() -> dict[str, str]:
    """tool name -> where its record is declared: every `Tool("name", ...)` call."""
    return {node.args[0].value: _where(path) for path in SOURCES for node in ast.walk(_tree(path))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Tool"
            and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)}


def _tool_names_outside_records(tree: ast.Module, where: str, tools: dict[str, str]) -> set[str]:
    """The string constants of one module that are a tool's name, outside a `Tool(...)`
    record (and outside `__all__`, whose names are functions, not tools)."""
    skip = {id(c) for node in ast.walk(tree)
            if _is_all(node) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Tool")
            for c in ast.walk(node)}
    return {f"{where}:{node.value}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in tools and id(node) not in skip}


def tool_name_repeats(tools: dict[str, str]) -> set[str]:
    return set().union(*(_tool_names_outside_records(_tree(path), _where(path), tools) for path in SOURCES))


def test_each_tool_name_is_written_once_in_its_record():
    tools = declared_tools()
    assert len(tools) >= 20 and tools["view_code"] == "agents/tools/index.py"
    assert sorted(tool_name_repeats(tools) - ALLOWED_TOOL_NAME_REPEATS) == []


def test_agents_folders_import_one_way():
    assert sorted(agents_layer_violations(import_graph())) == []
    folders = {p.name for p in (PACKAGE / "agents").iterdir() if p.is_dir() and p.name != "__pycache__"}
    modules = {p.stem for p in (PACKAGE / "agents").glob("*.py") if p.stem != "__init__"}
    assert folders | modules == {room for rooms in AGENTS_LAYERS for room in rooms}  # every room has its layer
    for folder in folders:  # each folder says what it holds, in one line
        doc = ast.get_docstring(_tree(PACKAGE / "agents" / folder / "__init__.py")) or ""
        assert doc and "\n" not in doc, folder


def test_no_agent_imports_another_agents_module():
    assert sorted(agent_cross_imports(import_graph()) - ALLOWED_AGENT_IMPORTS) == []


def test_no_agents_class_inherits_more_than_two_levels_of_the_packages_classes():
    assert sorted(deep_agent_classes() - ALLOWED_DEEP_CLASSES) == []


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
    upward = {"swevis.agents.tools.a": {"swevis.agents.run.b", "swevis.agents.observation.c", "swevis.agents.tools.d"}}
    assert agents_layer_violations(upward) == {"swevis.agents.tools.a -> swevis.agents.run.b"}
    crossed = {"swevis.agents.builtin.let": {"swevis.agents.builtin.let_variants", "swevis.agents.builtin.plb_x"}}
    assert agent_cross_imports(crossed) == {"swevis.agents.builtin.let -> swevis.agents.builtin.plb_x"}
    chain = {("m", "D"): [("m", "C"), ("m", "X")], ("m", "C"): [("m", "B")], ("m", "B"): [("m", "A")], ("m", "A"): [],
             ("m", "X"): []}
    assert class_levels(chain) == {("m", "A"): 0, ("m", "B"): 1, ("m", "C"): 2, ("m", "D"): 3, ("m", "X"): 0}
    planted = ast.parse('A = Tool("probe", "read", "probe", f)\nB = {"probe": 1}\n__all__ = ["probe"]\n')
    assert _tool_names_outside_records(planted, "x.py", {"probe": "x.py"}) == {"x.py:probe"}
    bases = package_classes()  # resolved through an import: ResumingRecorder(StepRecorder)
    assert bases[("swevis.agents.run.resume", "ResumingRecorder")] == [("swevis.agents.run.trajectory", "StepRecorder")]
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
