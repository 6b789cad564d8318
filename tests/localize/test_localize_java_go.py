"""D_loc on Java and Go repositories: an issue that names a behaviour, or carries the language's
stack trace, localizes the right file and definition among the first five."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from swevis.index import build_index, open_index
from swevis.localize import by_kind, localize_issue
from swevis.localize.history import read_history
from helpers import git

FIXTURES = Path(__file__).parents[1] / "fixtures" / "index"

SCALED = ("Scaled drawings show areas that are too large: the zoom factor is applied twice when a circle is "
          "drawn at a larger zoom level.")
JAVA_TRACE = ("Creating a circle from a negative measurement crashes:\n\n"
              'Exception in thread "main" java.lang.IllegalArgumentException: low > high\n'
              "\tat com.example.util.Geometry.clamp(Geometry.java:10)\n"
              "\tat com.example.shapes.Circle.<init>(Circle.java:13)\n"
              "\tat com.example.app.Report.render(Report.java:20)\n")
GO_TRACE = ("Creating a circle from a negative measurement crashes:\n\n"
            "panic: low > high\n\ngoroutine 1 [running]:\n"
            "example.com/geo/internal/mathutil.Clamp(0xc000012345, 0x0, 0x408f400000000000)\n"
            "\t/home/dev/geo/internal/mathutil/mathutil.go:6 +0x1d\n"
            "example.com/geo/shapes.NewCircle(...)\n"
            "\t/home/dev/geo/shapes/circle.go:18\n"
            "main.render({0xc000010000, 0x2, 0x2})\n"
            "\t/home/dev/geo/cmd/report/main.go:14 +0x45\n")


def _localize(tmp_path: Path, fixture: str, issue: str):
    repo = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, repo)
    build_index(repo, tmp_path / "idx.sqlite")
    with open_index(tmp_path / "idx.sqlite") as idx:
        cands = localize_issue(idx, issue, top_k=5, repo_dir=repo)
    return [c.path for c in by_kind(cands, "file")], [c.qualified_name for c in by_kind(cands, "symbol")]


@pytest.mark.parametrize(("fixture", "path", "symbol"), [
    ("javarepo", "src/main/java/com/example/util/Geometry.java", "Geometry.scaleFactor"),
    ("gorepo", "internal/mathutil/mathutil.go", "ScaleFactor"),
], ids=["java", "go"])
def test_an_issue_naming_a_behaviour_finds_its_file_and_definition(tmp_path, fixture, path, symbol):
    files, symbols = _localize(tmp_path, fixture, SCALED)
    assert path in files[:5] and symbol in symbols[:5]


@pytest.mark.parametrize(("fixture", "issue", "path", "symbol"), [
    ("javarepo", JAVA_TRACE, "src/main/java/com/example/util/Geometry.java", "Geometry.clamp"),
    ("gorepo", GO_TRACE, "internal/mathutil/mathutil.go", "Clamp"),
], ids=["java", "go"])
def test_a_stack_trace_finds_the_definition_it_crashed_in(tmp_path, fixture, issue, path, symbol):
    files, symbols = _localize(tmp_path, fixture, issue)
    assert symbols[0] == symbol and path in files[:2]  # the trace's other files compete for the file


@pytest.mark.parametrize(("fixture", "path", "old", "new", "name"), [
    ("javarepo", "src/main/java/com/example/util/Geometry.java", "return zoom * zoom;", "return zoom * zoom * 1;",
     "scaleFactor"),
    ("gorepo", "shapes/circle.go", "return c.Area() * mathutil.ScaleFactor(zoom)",
     "return mathutil.ScaleFactor(zoom) * c.Area()", "ScaledArea"),
], ids=["java", "go"])
def test_the_history_names_the_definition_a_commit_changed(tmp_path, fixture, path, old, new, name):
    """git's hunk headers for the language (diff=java, diff=golang) and its definition regex."""
    repo = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "v1")
    (repo / path).write_text((repo / path).read_text().replace(old, new))
    git(repo, "commit", "-q", "-am", "v2")
    history = read_history(["-C", str(repo)], depth=1)
    assert history.commits[0] == (frozenset({path}), frozenset({(path, name)}))
