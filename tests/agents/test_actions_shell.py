"""The classifier reads commands as the shell does: one test per cause of the disagreements
measured on real agent actions (heredocs, newlines, file names as test words, read | grep)."""

import shlex

import pytest

from swevis.agents.observation.actions import classify_action, classify_actions, scripts_written


@pytest.mark.parametrize(
    "command, cls",
    [
        # writing a script whose name or body says "test" is an edit; its body is data
        ("cat <<'EOF' > reproduce_issue.py\nimport pytest\ndef test_x():\n    assert 1\nEOF", "edit"),
        ("cat <<'EOF' > test_regex.py\nimport re\nprint(re.match('a', 'a'))\nEOF", "edit"),
        ("cat <<'EOF' >> tests/x/test_fields.py\n\n    def test_more(self):\n        pass\nEOF", "edit"),
        # a body line that looks like a command is not run
        ("cat <<'EOF' > notes.txt\npytest -q\nrm -rf /\nEOF", "edit"),
        ("cat <<EOF > conf.py\nproject = 'x'\nEOF\nsphinx-build -b html . _build", "edit"),
        # a Python heredoc is judged by its whole body, not its first line
        ("python3 <<EOF\nfrom enum import IntEnum\nprint(repr(IntEnum))\nEOF", "test"),
        ("python - <<'PY'\nimport re\nsrc = open('pkg/mod.py').read()\nopen('pkg/mod.py', 'w').write(src)\nPY", "edit"),
        ("ed src/pkg/main.py <<EOF\n516a\n    print(x)\n.\nw\nq\nEOF", "edit"),
        ("cat <<'EOF'\nsrc/pkg/a.py\nEOF", "other"),  # prints its heredoc: reads no file
    ],
)
def test_heredoc_bodies_are_data(command, cls):
    assert classify_action(command) == cls


@pytest.mark.parametrize(
    "command, cls",
    [
        ("git checkout pkg/a.py\npytest -q tests/test_a.py", "edit"),
        ("cat pkg/a.py\nsed -i 's/a/b/' pkg/a.py", "edit"),  # the second line is a command too
        ("# look at the helper again\nsed -n '71,130p' pkg/domains.py", "read"),
        ("cd reproduction\nsphinx-build -b text . _build/text", "test"),
        ("grep -n def_a pkg/a.py\ngrep -n def_b pkg/a.py", "search"),
        ("sed -i '3350,3351d' pkg/numbers.py && \\\nsed -i '3223,3224d' pkg/numbers.py", "edit"),
        ("export PYTHONPATH=.\ncd tests\npython3 runtests.py queries", "test"),
        ("which latex || echo 'latex not found'", "search"),
        ("python manage.py runserver > out.txt 2>&1 &\nPID=$!\nsleep 5\nkill $PID", "test"),
    ],
)
def test_commands_split_on_newlines_and_chains(command, cls):
    assert classify_action(command) == cls


@pytest.mark.parametrize(
    "command, cls",
    [
        ("cat tests/x/test_fields.py", "read"),
        ("nl -ba tests/aggregation/tests.py | sed -n '10,30p'", "read"),
        ("head -n 50 tests/test_ext_autodoc.py", "read"),
        ("rm reproduce.py", "edit"),
        ("rm reproduce_issue.py test_fix.py", "edit"),
        ("touch tests/schema/tests.py", "edit"),
        ("grep -n test_serialize tests/migrations/test_writer.py", "search"),
        ("find . -name '*test_tokens.py*'", "search"),
        ("ls xarray/tests/test_computation.py", "search"),
        ("python reproduce_issue.py", "test"),
        ("./tests/runtests.py auth_tests", "test"),
        ("bin/test sympy/core/tests/test_symbol.py", "test"),
        ("bash verify_docinfo.sh", "test"),
        ("tox --version", "other"),
    ],
)
def test_file_names_are_never_test_words(command, cls):
    assert classify_action(command) == cls


@pytest.mark.parametrize(
    "command, cls",
    [
        ("cat django/forms/boundfield.py | grep -A 5 'class BoundWidget'", "search"),
        ("sed -n '1186,1310p' django/forms/models.py | grep invalid_choice", "search"),
        ("nl -ba xarray/core/dataset.py | grep -C 5 'def quantile'", "search"),
        ("nl -ba pkg/a.py | sed -n '100,160p'", "read"),  # a window of a read stays a read
        ("head -n 152 pkg/array.py | tail -n 10", "read"),
        ("grep -r verbose pylint | grep -- -v", "search"),
        ("pytest tests -q | grep FAILED", "test"),  # a test run filtered is still a test run
        ("echo \"print('hello')\" | cat > fix.py", "edit"),  # a pipeline that writes a file
        ("git diff -- pkg/a.py > patch.txt", "other"),  # the submission capture
        ("> pkg/empty.py", "edit"),  # a redirection alone empties the file
        ("ls -la pkg > /dev/null 2>&1", "search"),  # output discarded: writes no file
        ("bash <<'EOF'\npytest -q\nEOF", "test"),  # bash runs its heredoc
    ],
)
def test_pipes_are_handled_deliberately(command, cls):
    assert classify_action(command) == cls


@pytest.mark.parametrize(
    "command, cls",
    [
        # the file viewer/editor of SWE-agent and OpenHands: a view reads, a folder's view lists
        ("str_replace_editor view /testbed/src/pkg/core.py --view_range 10 40", "read"),
        ("str_replace_editor view /workspace/repo", "search"),
        ("str_replace_editor view /testbed/", "search"),
        ("str_replace_editor str_replace /testbed/a.py --old_str 'x = 1' --new_str 'x = 2'", "edit"),
        ("str_replace_editor create /testbed/reproduce.py --file_text 'print(1)'", "edit"),
        ("str_replace_editor insert /testbed/a.py --insert_line 3 --new_str 'y = 0'", "edit"),
        ("str_replace_editor undo_edit /testbed/a.py", "edit"),
        ("edit_file /workspace/a.py --start 1 --end -1 --content 'x'", "edit"),
        # SWE-agent's windowed tools
        ("open src/pkg/core.py 120", "read"),
        ("goto 300", "read"),
        ("scroll_down", "read"),
        ("find_file core.py src", "search"),
        ("search_dir 'def parse' src", "search"),
        ("search_file Money", "search"),
        ("edit 12:14\n    return x\nend_of_edit", "edit"),
        ("create reproduce.py", "edit"),
        ("./create", "test"),  # a program of the repository, not the tool
    ],
)
def test_agent_file_tools_have_their_class(command, cls):
    assert classify_action(command) == cls


@pytest.mark.parametrize(
    "command, cls",
    [
        # a compound's keywords run the command after them; `for x in ...` and `done` run none
        ('for sql in "a;" "b;;"; do echo "$sql" | sqlfluff lint -; done', "test"),
        ("for f in a.py b.py; do sed -n '1,5p' $f; done", "read"),
        ("if grep -q foo setup.py; then echo yes; fi", "search"),
        ("while true; do pytest -x; done", "test"),
        # build tools and the projects' entry points run the code under study
        ("cd build && cmake -B . -S ..", "test"),
        ('echo "select 1;;" | sqlfluff lint - 2>&1 | head -5', "test"),
        # the viewer on a file without a suffix reads it
        ("str_replace_editor view /workspace/repo/Makefile --view_range 1 50", "read"),
        ("str_replace_editor view /workspace/repo/Makefile", "read"),
        ("str_replace_editor view /workspace/repo/src", "search"),
    ],
)
def test_compounds_build_tools_and_suffixless_files(command, cls):
    assert classify_action(command) == cls


def test_running_a_script_an_earlier_action_wrote_is_classed_by_what_it_does():
    """`python fix.py` alone is a test; after `cat > fix.py <<EOF` whose body rewrites a
    repository file it is the edit it makes (6 of 122 edits of the labelled reference)."""
    fix = "cat > fix.py << 'EOF'\nsrc = open('pkg/core.py').read()\nopen('pkg/core.py', 'w').write(src.replace('a', 'b'))\nEOF"
    probe = "cat <<'EOF' > probe.py\nfrom pkg import core\nprint(core.f())\nEOF"
    commands = [fix, probe, "cd /testbed && python fix.py", "python3 probe.py 2>&1 | tail -5", "python other.py"]
    assert [classify_action(c) for c in commands] == ["edit", "edit", "test", "test", "test"]
    assert classify_actions(commands) == ["edit", "edit", "edit", "test", "test"]
    assert scripts_written(fix) == {"fix.py": "src = open('pkg/core.py').read()\nopen('pkg/core.py', 'w').write(src.replace('a', 'b'))\n"}
    created = "str_replace_editor create /testbed/fix2.py --file_text " + shlex.quote("open('setup.py', 'w').write('')\n")
    assert classify_actions([created, "python /testbed/fix2.py"]) == ["edit", "edit"]
    assert scripts_written("tee notes.txt <<EOF\nhello\nEOF") == {"notes.txt": "hello\n"}
