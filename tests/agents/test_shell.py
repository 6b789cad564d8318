"""The shell-command parser the action classifier and window finding share: statements,
pipelines, words and redirections as bash reads them, and what a read command prints."""

import pytest

from swevis.agents.observation.shell import (
    Read,
    Redirect,
    command_words,
    folder_after,
    pipeline_read,
    plain_statements,
    repository_path,
    statements,
)


def shape(command):
    """Each statement as (the words of each stage, its heredoc bodies, the operator that ended it)."""
    return [([s.words for s in st.stages], st.bodies, st.ended_by) for st in statements(command)]


@pytest.mark.parametrize(
    "command, expected",
    [
        ("cat a.py", [([["cat", "a.py"]], [], "")]),
        # statements end on newlines, ;, &, && and ||
        ("a; b && c || d & e\nf", [([["a"]], [], ";"), ([["b"]], [], "&&"), ([["c"]], [], "||"), ([["d"]], [], "&"),
                                   ([["e"]], [], "\n"), ([["f"]], [], "")]),
        # pipes, |& too, split a statement into stages
        ("cat a.py | grep -n x |& head", [([["cat", "a.py"], ["grep", "-n", "x"], ["head"]], [], "")]),
        # quotes keep operators and spaces inside one word, and are removed from it
        ("echo 'a; b' \"c && d\" e\\ f", [([["echo", "a; b", "c && d", "e f"]], [], "")]),
        ("grep -n 'x|y' a.py", [([["grep", "-n", "x|y", "a.py"]], [], "")]),
        ('python -c "print(\\"hi\\")"', [([["python", "-c", 'print("hi")']], [], "")]),
        ("echo 'it''s'", [([["echo", "its"]], [], "")]),
        # $(...) and backquotes stay one word, whatever they hold
        ("echo $(cd x; ls) | wc -l", [([["echo", "$(cd x; ls)"], ["wc", "-l"]], [], "")]),
        ("echo `date; id`", [([["echo", "`date; id`"]], [], "")]),
        # a line continuation joins two lines; a comment runs to the end of its line
        ("sed -i 's/a/b/' x.py && \\\nsed -i 's/c/d/' x.py", [([["sed", "-i", "s/a/b/", "x.py"]], [], "&&"),
                                                          ([["sed", "-i", "s/c/d/", "x.py"]], [], "")]),
        ("# look again\nsed -n '1,5p' a.py  # the top", [([["sed", "-n", "1,5p", "a.py"]], [], "")]),
        ("grep -n a#b x.py", [([["grep", "-n", "a#b", "x.py"]], [], "")]),  # mid-word: no comment
    ],
)
def test_statements_pipelines_and_words(command, expected):
    assert shape(command) == expected


@pytest.mark.parametrize(
    "command, expected",
    [
        # a heredoc's body is data of the statement that opened it, never commands
        ("cat <<'EOF' > x.py\nimport os\nrm -rf /\nEOF\npytest -q",
         [([["cat"]], ["import os\nrm -rf /\n"], "\n"), ([["pytest", "-q"]], [], "")]),
        ('python3 - <<"PY"\nprint(1)\nPY', [([["python3", "-"]], ["print(1)\n"], "\n")]),
        ("cat <<-EOF >f\n\tx\n\tEOF", [([["cat"]], ["\tx\n"], "\n")]),
        # two heredocs on one line: their bodies follow in order
        ("cat <<A; cat <<B\na\nA\nb\nB", [([["cat"]], ["a\n"], ";"), ([["cat"]], ["b\n"], "\n")]),
        # a heredoc without its end line runs to the end of the command, as bash reads it
        ("cat <<EOF\nno end", [([["cat"]], ["no end"], "\n")]),
        # a here-string is no heredoc
        ("grep x <<< 'a x'", [([["grep", "x"]], [], "")]),
    ],
)
def test_heredoc_bodies(command, expected):
    assert shape(command) == expected


@pytest.mark.parametrize(
    "stage, words, redirects, written",
    [
        ("sed -n 1,5p a.py 2>/dev/null", ["sed", "-n", "1,5p", "a.py"], [Redirect(">", "2", "/dev/null")], []),
        ("pytest 2>&1", ["pytest"], [Redirect(">&", "2", "1")], []),
        ("echo x > out.txt", ["echo", "x"], [Redirect(">", "", "out.txt")], ["out.txt"]),
        ("echo x>>out.txt", ["echo", "x"], [Redirect(">>", "", "out.txt")], ["out.txt"]),
        ("ls &> all.log", ["ls"], [Redirect("&>", "", "all.log")], ["all.log"]),
        ("find / 2> errors.txt", ["find", "/"], [Redirect(">", "2", "errors.txt")], []),  # stderr, not the output
        ("echo '>' '2>x'", ["echo", ">", "2>x"], [], []),  # quoted: words
        ("head -n 2 > top.txt", ["head", "-n", "2"], [Redirect(">", "", "top.txt")], ["top.txt"]),  # 2 is an argument
        ("cat < in.txt", ["cat"], [Redirect("<", "", "in.txt")], []),
        ("cat > 'a b.py'", ["cat"], [Redirect(">", "", "a b.py")], ["a b.py"]),
    ],
)
def test_redirections_are_taken_out_of_the_words(stage, words, redirects, written):
    (statement,) = statements(stage)
    (simple,) = statement.stages
    assert (simple.words, simple.redirects, simple.files_written()) == (words, redirects, written)
    assert simple.text == stage


@pytest.mark.parametrize(
    "words, expected",
    [
        (["FOO=1", "timeout", "-s", "KILL", "30", "env", "python", "x.py"], ["python", "x.py"]),
        (["do", "sed", "-n", "1,5p", "f"], ["sed", "-n", "1,5p", "f"]),
        (["time", "nohup", "pytest"], ["pytest"]),
        (["cat", "a.py"], ["cat", "a.py"]),
    ],
)
def test_command_words_drop_assignments_wrappers_and_keywords(words, expected):
    assert command_words(words) == expected


def read(command):
    (stages,) = plain_statements(command)
    return pipeline_read(stages)


@pytest.mark.parametrize(
    "command, expected",
    [
        # sed -n ranges
        ("sed -n '10,40p' pkg/a.py", Read("pkg/a.py", 10, None, end=40)),
        ("sed -n 10,40p pkg/a.py", Read("pkg/a.py", 10, None, end=40)),
        ("sed -n '10, 40 p' pkg/a.py", Read("pkg/a.py", 10, None, end=40)),
        ("sed -n '7p' pkg/a.py", Read("pkg/a.py", 7, None, end=7)),
        ("sed -n '50,$p' pkg/a.py", Read("pkg/a.py", 50, None)),
        # cat, nl
        ("cat pkg/a.py", Read("pkg/a.py", 1, None)),
        ("cat -n pkg/a.py", Read("pkg/a.py", 1, "nl")),
        ("nl -ba pkg/a.py", Read("pkg/a.py", 1, "nl")),
        ("nl pkg/a.py", Read("pkg/a.py", 1, "nlbt")),  # blank lines unnumbered
        # head, tail
        ("head -n 25 pkg/a.py", Read("pkg/a.py", 1, None, end=25)),
        ("head -25 pkg/a.py", Read("pkg/a.py", 1, None, end=25)),
        ("head --lines=25 pkg/a.py", Read("pkg/a.py", 1, None, end=25)),
        ("head pkg/a.py", Read("pkg/a.py", 1, None, end=10)),
        ("tail -n 15 pkg/a.py", Read("pkg/a.py", None, None, last_n=15)),
        ("tail -n +30 pkg/a.py", Read("pkg/a.py", 30, None)),
        # awk NR ranges, printing NR or not
        ("awk 'NR>=7 && NR<=11' pkg/a.py", Read("pkg/a.py", 7, None, end=11)),
        ("awk 'NR>6 && NR<12' pkg/a.py", Read("pkg/a.py", 7, None, end=11)),
        ("awk 'NR==7,NR==11 {print NR\": \"$0}' pkg/a.py", Read("pkg/a.py", 7, "awk", end=11)),
        # the LET agent's view_code, numbered like nl -ba
        ("view_code pkg/a.py 12 48", Read("pkg/a.py", 12, "nl", end=48)),
        ("view_code pkg/a.py", Read("pkg/a.py", 1, "nl")),
        # git show REV:F prints the file as committed
        ("git show HEAD~1:pkg/a.py", Read("pkg/a.py", 1, None, revision="HEAD~1")),
        # a wrapper before the reader, stderr discarded
        ("timeout 5 sed -n '1,9p' pkg/a.py 2>/dev/null", Read("pkg/a.py", 1, None, end=9)),
    ],
)
def test_readers(command, expected):
    assert read(command) == expected


@pytest.mark.parametrize(
    "command, expected",
    [
        ("nl -ba pkg/a.py | sed -n '100,160p'", Read("pkg/a.py", 100, "nl", end=160)),
        ("cat -n pkg/a.py | head -n 40", Read("pkg/a.py", 1, "nl", end=40)),
        ("sed -n '10,40p' pkg/a.py | sed -n '2,3p'", Read("pkg/a.py", 11, None, end=12)),  # a range of a range
        ("sed -n '10,40p' pkg/a.py | head -n 100", Read("pkg/a.py", 10, None, end=40)),  # cut by the first
        ("head -n 152 pkg/a.py | tail -n 10", Read("pkg/a.py", None, None, last_n=10, end=152)),
        ("nl -ba pkg/a.py | tail -n +95", Read("pkg/a.py", 95, "nl")),
        ("sed -n '20,30p' pkg/a.py | cat -n", Read("pkg/a.py", 20, "nlrel", end=30)),  # numbered from 1
        ("cat pkg/a.py | nl -ba", Read("pkg/a.py", 1, "nl")),
        ("cat pkg/a.py | grep -n -C 2 x", Read("pkg/a.py", 1, None, grep="n")),
        ("nl -ba pkg/a.py | grep -A 3 x", Read("pkg/a.py", 1, "nl", grep="plain")),
        ("grep -n -C 3 'def f' pkg/a.py", Read("pkg/a.py", 1, None, grep="n")),
        ("grep -rn -C 3 'def f' pkg", Read("", 1, None, grep="files")),
        ("git diff | head -50", Read("", None, None, special="diff")),
        ("str_replace_editor view /testbed/pkg/a.py --view_range 1 9", Read("", None, None, special="editor")),
    ],
)
def test_filters_and_outputs_that_name_their_lines(command, expected):
    assert read(command) == expected


@pytest.mark.parametrize(
    "command",
    [
        "cat a.py b.py",  # several files
        "cat -A a.py",  # not the code as the file has it
        "sed -n '/def f/,/return/p' a.py",  # the start is not in the command
        "sed -i 's/a/b/' a.py",
        "head -n x a.py",
        "grep -n def a.py",  # search hits without context
        "grep -l -C 2 def a.py",
        "cat a.py | grep def",
        "cat a.py | wc -l",
        "tail -n 5 a.py | head -2",  # where the last lines start needs the file
        "view_code a.py ten 20",
        "python -m pytest",
    ],
)
def test_commands_that_print_no_window(command):
    assert read(command) is None


@pytest.mark.parametrize(
    "command",
    [
        "cat a.py > copy.py",  # the output goes into a file
        "cat a.py >/dev/null",  # ... or nowhere
        "cat <<'EOF' > x.py\nprint(1)\nEOF",
        "cat $(ls *.py)",
        "cat `ls`",
        "cat a.py || cat b.py",
        "sed -n '1,5p' a.py &",
        "cat a.py | > out.txt",
    ],
)
def test_plain_statements_refuse_commands_whose_output_is_not_what_they_read(command):
    assert plain_statements(command) is None


def test_plain_statements():
    assert plain_statements("cd /testbed && sed -n '1,5p' a.py 2>&1\necho --- ; cat b.py 2>/dev/null") == [
        [["cd", "/testbed"]], [["sed", "-n", "1,5p", "a.py"]], [["echo", "---"]], [["cat", "b.py"]]]
    # SWE-agent's edit takes the lines after it as its text, not as commands
    assert plain_statements("edit 62:62\n    x = f(a) && b; c $(d)\nend_of_edit") == [[["edit", "62:62"]]]


def test_folders_and_repository_paths():
    assert folder_after(["cd", "/testbed"], None) == "/testbed"
    assert folder_after(["cd", "pkg"], "/testbed") == "/testbed/pkg"
    assert folder_after(["cd", "/repo"], "/testbed") == "/repo"
    assert folder_after(["cd"], None) is None and folder_after(["ls", "x"], None) is None
    assert repository_path("a.py", "/testbed/pkg") == "pkg/a.py"
    assert repository_path("/testbed/pkg/a.py", None) == "pkg/a.py"
    assert repository_path("a.py", "/workspace/repo") == "/workspace/repo/a.py"
    assert repository_path("./src/main.go", None) == "src/main.go"  # grep -rn X --include=*.go .
    assert repository_path("./pkg/a.rs", ".") == "pkg/a.rs"
    assert repository_path("a.py", None) == "a.py"
