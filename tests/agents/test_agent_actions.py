import pytest

from swevis.agents.observation.actions import CodeRead, classify_action, detect_code_read


@pytest.mark.parametrize(
    "command, cls",
    [
        ("cat ledgerkit/money.py", "read"),
        ("sed -n '40,90p' ledgerkit/money.py", "read"),
        ("nl -ba stratconf/merge.py | sed -n '1,60p'", "read"),
        ("head -n 30 tabulon/table.py", "read"),
        ("view_code tabulon/table.py 10 40", "read"),
        ("grep -rn 'def round' ledgerkit/", "search"),
        ("find . -name '*.py' | head", "search"),
        ("ls -la", "search"),
        ("git grep -n group_thousands", "search"),
        ("localize_issue 'thousands separator'", "search"),
        ("cat ledgerkit/money.py | grep -n round", "search"),  # a read filtered by grep searches
        ("sed -i 's/ROUND_HALF_UP/ROUND_HALF_EVEN/' ledgerkit/money.py", "edit"),
        ("cat > fix.py <<'EOF'\nprint(1)\nEOF", "edit"),
        ("python - <<'EOF'\nfrom pathlib import Path\np = Path('a.py')\np.write_text(p.read_text().replace('a', 'b'))\nEOF", "edit"),
        ("echo 'x = 1' >> pkg/mod.py", "edit"),
        # a reproduction that writes its input files in a temporary folder is a test run ...
        ("python - <<'PY'\nimport os, tempfile\nd = tempfile.mkdtemp()\nopen(os.path.join(d, 'a.ini'), 'w').write('[x]')\n"
         "from stratconf import load\nprint(load(os.path.join(d, 'a.ini')))\nPY", "test"),
        # ... but a script that also names a repository file it writes is an edit
        ("python - <<'PY'\nimport tempfile\nfrom pathlib import Path\np = Path('pkg/mod.py')\np.write_text('x = 1')\nPY", "edit"),
        ("python - <<'PY'\nimport tempfile\nopen('/testbed/src/pkg/core.py', 'w').write('x = 1')\nPY", "edit"),
        ("python - <<'PY'\nimport tempfile\nfrom pathlib import Path\nPath('setup.py').write_text('')\nPY", "edit"),
        ("python - <<'PY'\nimport tempfile\nopen('/tmp/case/mod.py', 'w').write('x = 1')\nPY", "test"),
        ("git apply fix.diff", "edit"),
        ("python -m pytest tests/test_money.py -q", "test"),
        ("pytest -x tests", "test"),
        ("python reproduce_issue.py", "test"),
        ("python -c 'import ledgerkit; print(ledgerkit.__version__)'", "test"),
        ("cd /testbed && python -m pytest -q", "test"),
        ("sed -i 's/a/b/' x.py && python -m pytest -q", "edit"),
        ("git diff", "other"),
        ("git status && git diff", "other"),
        ("submit", "other"),
        ("commit_plan <<'PLAN'\n{}\nPLAN", "other"),
        ("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt", "other"),
        ("", "other"),
        (None, "other"),
    ],
)
def test_classify_action(command, cls):
    assert classify_action(command) == cls


@pytest.mark.parametrize(
    "command, read",
    [  # the forms of each reader: tests/agents/test_shell.py
        ("cat pkg/a.py", CodeRead("pkg/a.py", 1, None)),
        ("cat -n pkg/a.py", CodeRead("pkg/a.py", 1, None, True)),
        ("sed -n '10,40p' pkg/a.py", CodeRead("pkg/a.py", 10, 40)),
        ("head -n 25 pkg/a.py", CodeRead("pkg/a.py", 1, 25)),
        ("tail -n 15 pkg/a.py", CodeRead("pkg/a.py", -15, None)),  # the last 15 lines
        ("tail -n +30 pkg/a.py", CodeRead("pkg/a.py", 30, None)),
        ("nl -ba pkg/a.py", CodeRead("pkg/a.py", 1, None, True)),
        ("nl -ba pkg/a.py | sed -n '100,160p'", CodeRead("pkg/a.py", 100, 160, True)),
        ("cat -n pkg/a.py | sed -n '5,9p'", CodeRead("pkg/a.py", 5, 9, True)),
        ("cat -n pkg/a.py | head -n 40", CodeRead("pkg/a.py", 1, 40, True)),
        ("nl -ba pkg/a.py | tail -n 5", CodeRead("pkg/a.py", -5, None, True)),
        ("awk 'NR>=7 && NR<=11' pkg/a.py", CodeRead("pkg/a.py", 7, 11)),
        ("cd /testbed && sed -n '1,20p' pkg/a.py", CodeRead("pkg/a.py", 1, 20)),
        ("sed -n '1,20p' pkg/a.py 2>/dev/null", CodeRead("pkg/a.py", 1, 20)),
        ("view_code pkg/a.py 12 48", CodeRead("pkg/a.py", 12, 48, True)),
        ("view_code pkg/a.py", CodeRead("pkg/a.py", 1, None, True)),
    ],
)
def test_detect_code_read(command, read):
    assert detect_code_read(command) == read


@pytest.mark.parametrize(
    "command",
    [
        "cat a.py b.py",
        "cat pkg/a.py | grep def",
        "grep -n -C 3 def pkg/a.py",  # its window is in the output (output_windows)
        "git show HEAD~1:pkg/a.py",  # the file as committed, not the working tree's
        "git diff",
        "head -n 152 pkg/a.py | tail -n 10",  # where the last ten start needs the file
        "cat pkg/a.py > copy.py",
        "cat > pkg/a.py <<'EOF'\nx\nEOF",
        "python -m pytest",
        "cat pkg/a.py && cat pkg/b.py",
        "ls pkg && cat pkg/a.py",
    ],
)
def test_non_code_reads(command):
    assert detect_code_read(command) is None
