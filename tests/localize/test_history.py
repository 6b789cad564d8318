"""swevis.localize.history: the repository-history prior of D_loc's re-ranker."""

from __future__ import annotations

import math
import shutil

import pytest

from swevis.index import build_index, open_index
from swevis.localize import by_kind, localize_issue
from swevis.localize.history import history_features, parse_log, read_history, repo_history
from swevis.localize.rerank import history_depth
from helpers import git

LOG = """\x00aaaa
diff --git a/pkg/mod.py b/pkg/mod.py
index 1..2 100644
--- a/pkg/mod.py
+++ b/pkg/mod.py
@@ -10 +10 @@ def parse(self, text):
-        return text
+        return text.strip()
@@ -20,0 +21,2 @@ class Reader:
+    def close(self):
+        pass
\x00bbbb
diff --git a/pkg/other.py b/pkg/other.py
--- a/pkg/other.py
+++ b/pkg/other.py
@@ -3 +3 @@
-X = 1
+X = 2
"""

SOURCE = '''def load_config(path):
    """Read the settings file."""
    return open(path).read()


def save_config(path, text):
    """Write the settings file."""
    open(path, "w").write(text)
'''


def test_parse_log_attributes_hunks_to_the_header_and_changed_definitions():
    h = parse_log(LOG)
    assert h.hashes == ["aaaa", "bbbb"]
    files, syms = h.counts(2)
    assert files == {"pkg/mod.py": 1, "pkg/other.py": 1}
    # the header names the enclosing def; a def line the hunk adds counts as changed too
    assert syms == {("pkg/mod.py", "parse"): 1, ("pkg/mod.py", "Reader"): 1, ("pkg/mod.py", "close"): 1}
    assert h.counts(1)[0] == {"pkg/mod.py": 1}  # newest first: depth 1 is the first commit only
    f = history_features(h, 2, "pkg/mod.py", "Parser.parse")
    assert f == {"hist_file": pytest.approx(math.log(2) / math.log(3)), "hist_sym": pytest.approx(math.log(2) / math.log(3))}
    assert history_features(h, 2, "pkg/mod.py", "Parser.load") == {"hist_file": f["hist_file"], "hist_sym": 0.0}


def _churned_repo(path, edits: int):
    """A repository whose save_config was edited `edits` times after load_config and it were written."""
    path.mkdir()
    git(path, "init", "-q")
    (path / "settings.py").write_text(SOURCE)
    git(path, "add", ".")
    git(path, "commit", "-qm", "add settings")
    for i in range(edits):
        (path / "settings.py").write_text(SOURCE.replace('open(path, "w")', f'open(path, "w", buffering={i})'))
        git(path, "commit", "-qam", f"edit {i}")
    return path


def test_read_history_counts_only_commits_up_to_the_given_one(tmp_path):
    repo = _churned_repo(tmp_path / "r", 3)
    head = read_history(["-C", str(repo)])
    assert len(head.commits) == 4
    # the commit that added both definitions changed both
    assert head.counts(10)[1] == {("settings.py", "save_config"): 4, ("settings.py", "load_config"): 1}
    first = git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    before = read_history(["-C", str(repo)], first)  # a later fix never leaks into its base's history
    assert len(before.commits) == 1 and before.counts(10)[1][("settings.py", "save_config")] == 1
    assert read_history(["-C", str(tmp_path)], "HEAD").commits == []  # not a repository: no prior
    assert repo_history(tmp_path, 10).commits == [] and len(repo_history(repo, 2).commits) == 2
    assert repo_history(repo, 2) is repo_history(repo, 2)  # read once per checkout, HEAD and depth
    (repo / "settings.py").write_text(SOURCE + "\n")
    git(repo, "commit", "-qam", "one more")
    assert repo_history(repo, 10).counts(10)[0]["settings.py"] == 5  # a new HEAD is read afresh


def test_dloc_reads_the_checkouts_history_when_the_model_counts_it(tmp_path):
    repo = _churned_repo(tmp_path / "r", 3)
    db = tmp_path / "idx.sqlite"
    build_index(repo, db)
    model = {"features": ["heuristic", "hist_sym"], "weights": [1.0, 50.0], "bias": 0.0, "history_depth": 100}
    assert history_depth(model) == 100 and history_depth({**model, "features": ["heuristic"]}) == 0
    issue = "The settings file is written and read wrongly: load_config and save_config disagree"
    with open_index(db) as index:
        top = by_kind(localize_issue(index, issue, model=model, repo_dir=repo), "symbol")[0]
        assert top.qualified_name == "save_config"  # the churned one
        plain = tmp_path / "plain"
        shutil.copytree(repo, plain, ignore=shutil.ignore_patterns(".git"))
        top = by_kind(localize_issue(index, issue, model=model, repo_dir=plain), "symbol")[0]
        assert top.qualified_name == "load_config"  # no history: the heuristic's order (ties: first line)
