"""Updating an index between two versions of one repository gives exactly a cold build's rows."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import INDEX_TABLES, git, index_rows

from swevis.index import build_index

FIXTURE = Path(__file__).parents[1] / "fixtures" / "index" / "minirepo"


def _second_version(repo: Path) -> None:
    """Edits that move resolution in files that did not change: a new definition of a name
    called elsewhere, a re-export through a package __init__, a changed base class, a removed
    and an added file, an edited doc."""
    util = repo / "shapes" / "util.py"
    util.write_text(util.read_text() + "\n\ndef brand_new_helper():\n    return clamp(1, 0, 2)\n\n\ndef area():\n    return 0\n")
    init = repo / "shapes" / "__init__.py"
    init.write_text(init.read_text() + "\nfrom shapes.util import brand_new_helper\n")
    (repo / "tests" / "test_core.py").unlink()
    (repo / "shapes" / "extra.py").write_text(
        "from shapes import brand_new_helper\nfrom shapes.core import Circle\n\n\n"
        "class Ring(Circle):\n    def area(self):\n        return brand_new_helper() + super().area()\n"
    )
    guide = repo / "docs" / "guide.md"
    guide.write_text("# Moved\n\nA new first paragraph about rings.\n\n" + guide.read_text())


@pytest.fixture()
def two_commits(tmp_path):
    repo = tmp_path / "minirepo"
    shutil.copytree(FIXTURE, repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "v1")
    _second_version(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "v2")
    return repo


def test_update_between_two_commits_equals_a_cold_build(two_commits, tmp_path):
    repo = two_commits
    db = tmp_path / "idx.sqlite"
    git(repo, "checkout", "-q", "HEAD~1")
    build_index(repo, db)
    git(repo, "checkout", "-q", "-")
    upd = build_index(repo, db)
    cold = build_index(repo, tmp_path / "cold.sqlite", force=True)
    assert upd.mode == "incremental" and cold.mode == "cold"
    assert upd.files_parsed == 4 and upd.files_removed == 1 and upd.files_parsed < cold.files_parsed
    got, want = index_rows(db), index_rows(tmp_path / "cold.sqlite")
    for table in INDEX_TABLES:
        assert got[table] == want[table], table


def test_update_from_another_versions_index_leaves_it_alone(two_commits, tmp_path):
    """`base`: the index of another version seeds a new database; the base is not modified."""
    repo = two_commits
    v1 = tmp_path / "v1.sqlite"
    git(repo, "checkout", "-q", "HEAD~1")
    build_index(repo, v1)
    before = v1.read_bytes()
    git(repo, "checkout", "-q", "-")
    upd = build_index(repo, tmp_path / "v2.sqlite", base=v1)
    cold = build_index(repo, tmp_path / "cold.sqlite", force=True)
    assert v1.read_bytes() == before
    assert upd.mode == "incremental" and upd.files_unchanged == cold.files_parsed - 4
    got, want = index_rows(tmp_path / "v2.sqlite"), index_rows(tmp_path / "cold.sqlite")
    for table in INDEX_TABLES:
        assert got[table] == want[table], table


def test_the_bm25_model_is_the_same_bytes_under_any_hash_seed(tmp_path):
    """bm25s numbers its vocabulary in a set's order, which follows the string hash seed: two
    processes stored different bytes for the same corpus (so no update could equal a build)."""
    script = "import sys; from swevis.index import build_index; build_index(sys.argv[1], sys.argv[2])"
    blobs = []
    for seed in ("1", "2"):
        db = tmp_path / f"seed{seed}.sqlite"
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
        subprocess.run([sys.executable, "-c", script, str(FIXTURE), str(db)], check=True, env=env, capture_output=True)
        blobs.append(index_rows(db)["bm25_model"])
    assert blobs[0] == blobs[1]


def test_an_index_in_a_folder_named_with_sqlite_uri_characters_updates_in_place(two_commits, tmp_path):
    """`?` and `#` in a folder name: the index is reused (noop, then incremental), opened read-only
    by the store, and no stray file appears where an unquoted `file:` URI would have pointed."""
    from swevis.index import open_index

    repo = two_commits
    folder = tmp_path / "odd?name #1"
    db = folder / "idx.sqlite"
    git(repo, "checkout", "-q", "HEAD~1")
    assert build_index(repo, db).mode == "cold"
    assert build_index(repo, db).mode == "noop"
    git(repo, "checkout", "-q", "-")
    assert build_index(repo, db).mode == "incremental"
    assert open_index(db).con.execute("SELECT COUNT(*) FROM files").fetchone()[0] > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["minirepo", "odd?name #1"]


def _edit(repo: Path, path: str, old: str, new: str) -> None:
    text = (repo / path).read_text()
    assert old in text, (path, old)
    (repo / path).write_text(text.replace(old, new, 1))


def _add(repo: Path, path: str, text: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)


def _javascript_v2(repo: Path) -> None:
    """A renamed method an unchanged caller (Ledger.describe's this.total()) loses, a new
    subclass unchanged callers of Ledger.add now dispatch to, a new module of module-level
    definitions (a JSDoc type, a function bound by `?:`, tables) it calls, a removed test."""
    _edit(repo, "lib/book.js", "  total() {", "  sum() {")
    _add(repo, "lib/audit.js", "const Ledger = require('./ledger');\nconst { check } = require('./rules');\n\n"
         "class AuditedLedger extends Ledger {\n  add(entry) {\n    check(entry);\n    return super.add(entry);\n"
         "  }\n}\n\nmodule.exports = AuditedLedger;\n")
    _add(repo, "lib/rules.js", "/**\n * @typedef {Object} Rule\n */\n\nconst LIMITS = Object.freeze({ max: 10 });\n\n"
         "const strict = process.env.STRICT\n  ? (entry) => entry.amount <= LIMITS.max\n  : () => true;\n\n"
         "module.exports = {\n  check(entry) {\n    return strict(entry);\n  },\n};\n")
    (repo / "test" / "ledger.test.js").unlink()


def _typescript_v2(repo: Path) -> None:
    """A new subclass BaseShape.describe's this.area() dispatches to, a changed helper, a removed test."""
    _add(repo, "src/shapes/square.ts", "import { BaseShape } from '@shapes/shape';\n\nexport class Square extends BaseShape {\n"
         "  constructor(private side: number) {\n    super();\n  }\n\n  area(): number {\n    return this.side ** 2;\n  }\n\n"
         "  name(): string {\n    return 'square';\n  }\n}\n")
    _edit(repo, "src/util/index.ts", "export function clamp(", "export function clampValue(")
    (repo / "src" / "__tests__" / "circle.test.ts").unlink()


def _rust_v2(repo: Path) -> None:
    """A new module with a trait impl Shape::describe now dispatches to, a renamed helper, a removed test."""
    _edit(repo, "src/shapes/mod.rs", "pub mod square;\n", "pub mod square;\npub mod triangle;\n")
    _add(repo, "src/shapes/triangle.rs", "use super::Shape;\n\npub struct Triangle {\n    base: f64,\n    height: f64,\n}\n\n"
         "impl Shape for Triangle {\n    fn area(&self) -> f64 {\n        self.base * self.height / 2.0\n    }\n}\n")
    _edit(repo, "src/util.rs", "pub fn clamp(", "pub fn clamp_value(")
    (repo / "tests" / "areas.rs").unlink()


@pytest.mark.parametrize("fixture, second_version", [
    ("jsrepo", _javascript_v2), ("tsrepo", _typescript_v2), ("rustrepo", _rust_v2)])
def test_update_equals_a_cold_build_for_each_language(tmp_path, fixture, second_version):
    repo = tmp_path / fixture
    shutil.copytree(FIXTURE.parent / fixture, repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "v1")
    db = tmp_path / "idx.sqlite"
    build_index(repo, db)
    second_version(repo)
    upd = build_index(repo, db)
    cold = build_index(repo, tmp_path / "cold.sqlite", force=True)
    assert upd.mode == "incremental" and upd.files_removed == 1 and 0 < upd.files_parsed < cold.files_parsed
    assert upd.call_targets == cold.call_targets
    got, want = index_rows(db), index_rows(tmp_path / "cold.sqlite")
    for table in INDEX_TABLES:
        assert got[table] == want[table], table
