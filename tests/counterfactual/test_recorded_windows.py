"""Code windows found in recorded observations from the command and its output alone."""

import pytest

from swevis.agents.observation.output_windows import identify_windows

CODE = [f"line {n}" for n in range(1, 31)]  # a 30-line file whose line n reads "line n"


def plain(a, b):
    return "".join(f"{CODE[n - 1]}\n" for n in range(a, b + 1))


def nl(a, b):
    return "".join(f"{n:6d}\t{CODE[n - 1]}\n" for n in range(a, b + 1))


def grep(groups, base=0, inner=None):
    """grep -n -C output: match lines with ':' (the first of each group here), context '-'."""
    out = []
    for a, b in groups:
        rows = []
        for n in range(a, b + 1):
            text = f"{n:6d}\t{CODE[n - 1]}" if inner else CODE[n - 1]
            rows.append(f"{n - base}{':' if n == a else '-'}{text}\n")
        out.append("".join(rows))
    return "--\n".join(out)


def mini(output):
    return f"<returncode>0</returncode>\n<output>\n{output}</output>"


CASES = [
    ("sed -n '5,9p' pkg/a.py", plain(5, 9), [("pkg/a.py", 5, 9, False)]),
    ("cd /testbed && sed -n '5,9p' pkg/a.py", mini(plain(5, 9)), [("pkg/a.py", 5, 9, False)]),
    ("sed -n 25,40p /testbed/pkg/a.py", plain(25, 30), [("pkg/a.py", 25, 30, False)]),  # clamped by the file's end
    ("nl -ba pkg/a.py | sed -n '10,14p'", nl(10, 14), [("pkg/a.py", 10, 14, True)]),
    ("cat -n pkg/a.py | sed -n '3,4p'", mini(nl(3, 4)), [("pkg/a.py", 3, 4, True)]),
    ("nl -ba pkg/a.py", nl(1, 30), [("pkg/a.py", 1, 30, True)]),
    ("cat pkg/a.py", plain(1, 30), [("pkg/a.py", 1, 30, False)]),
    ("head -n 12 pkg/a.py", plain(1, 12), [("pkg/a.py", 1, 12, False)]),
    ("head -5 pkg/a.py", plain(1, 5), [("pkg/a.py", 1, 5, False)]),
    ("tail -n +20 pkg/a.py", plain(20, 30), [("pkg/a.py", 20, 30, False)]),
    ("awk 'NR>=7 && NR<=11' pkg/a.py", plain(7, 11), [("pkg/a.py", 7, 11, False)]),
    ("awk 'NR==7,NR==11' pkg/a.py", plain(7, 11), [("pkg/a.py", 7, 11, False)]),
    ("awk 'NR>=7 && NR<=9 {print NR\": \"$0}' pkg/a.py", "".join(f"{n}: {CODE[n - 1]}\n" for n in range(7, 10)),
     [("pkg/a.py", 7, 9, True)]),
    ("grep -n -C 2 'line 12' pkg/a.py", grep([(10, 14)]), [("pkg/a.py", 10, 14, True)]),
    ("grep -n -A 1 -B 1 'x' pkg/a.py", grep([(3, 5), (20, 22)]), [("pkg/a.py", 3, 5, True), ("pkg/a.py", 20, 22, True)]),
    ("grep -nB 2 -A2 'line 12' pkg/a.py", grep([(10, 14)]), [("pkg/a.py", 10, 14, True)]),
    ("cat pkg/a.py | grep -n -C2 'line 12'", grep([(10, 14)]), [("pkg/a.py", 10, 14, True)]),
    ("sed -n '10,30p' pkg/a.py | grep -n -A 2 'line 15'", grep([(15, 17)], base=9), [("pkg/a.py", 15, 17, True)]),
    ("nl -ba pkg/a.py | grep -n -B 1 'line 8'", grep([(7, 8)], base=0, inner=True), [("pkg/a.py", 7, 8, True)]),
    ("str_replace_editor view /testbed/pkg/a.py --view_range 4 8",
     "Here's the result of running `cat -n` on /testbed/pkg/a.py:\n" + nl(4, 8), [("pkg/a.py", 4, 8, True)]),
    ("str_replace_editor view pkg/a.py", "Here's the result of running `cat -n` on pkg/a.py:\n" + nl(1, 30),
     [("pkg/a.py", 1, 30, True)]),
    ("open pkg/a.py 15", "[File: /testbed/pkg/a.py (30 lines total)]\n(9 more lines above)\n"
     + "".join(f"{n}:{CODE[n - 1]}\n" for n in range(10, 21)) + "(10 more lines below)\n", [("pkg/a.py", 10, 20, True)]),
    ("scroll_down", "[File: /repo/pkg/a.py (30 lines total)]\r\n(20 more lines above)\r\n"
     + "".join(f"{n}:{CODE[n - 1]}\r\n" for n in range(21, 31)), [("/repo/pkg/a.py", 21, 30, True)]),
    ("cd /repo && sed -n '5,6p' a.py 2>/dev/null", plain(5, 6) + "\n[The command completed with exit code 0.]",
     [("/repo/a.py", 5, 6, False)]),
]

NOT_WINDOWS = [
    ("grep -n 'line 12' pkg/a.py", "12:line 12\n"),  # a search hit, not a window
    ("grep -rn -C 2 'x' pkg", "pkg/a.py-10-line 10\n"),  # several files
    ("sed -n '5,9p' pkg/a.py > out.txt", ""),  # writes, shows nothing
    ("sed -n '5,9p' pkg/a.py && sed -n '1,2p' pkg/b.py", plain(5, 9)),  # two reads
    ("tail -n 5 pkg/a.py", plain(26, 30)),  # the last 5 lines: where they start needs the file
    ("nl -ba pkg/a.py | sed -n '10,14p'", plain(10, 14)),  # output without the numbers nl writes
    ("nl -ba pkg/a.py | sed -n '10,14p'", nl(11, 15)),  # numbers that do not fit the command
    ("str_replace_editor view pkg", "Here's the files and directories up to 2 levels deep in pkg:\npkg/a.py\n"),
    ("python -m pytest -q", "3 passed in 0.1s\n"),
    ("sed -i 's/a/b/' pkg/a.py", ""),
    ("cat <<'EOF' > x.py\nprint(1)\nEOF", ""),
    ("sed -n '5,9p' pkg/a.py", "<returncode>0</returncode>\n<warning>too long</warning>\n<output_head>\nline 5\n</output_head>"),
]


@pytest.mark.parametrize("command,observation,expected", CASES, ids=[c[0][:40] for c in CASES])
def test_windows_are_identified_with_file_and_line_range(command, observation, expected):
    windows = identify_windows(command, observation)
    assert [(w.path, w.start, w.end, w.numbered) for w in windows] == expected
    for w in windows:  # the code as the file has it, without the numbers the output carried
        assert w.text == plain(w.start, w.end)
        assert observation[w.span[0] : w.span[1]].count("\n") == w.end - w.start + 1


@pytest.mark.parametrize("command,observation", NOT_WINDOWS, ids=[c[0][:40] for c in NOT_WINDOWS])
def test_other_commands_and_mismatched_outputs_are_no_windows(command, observation):
    assert identify_windows(command, observation) == []


def test_a_failed_command_shows_no_window():
    assert identify_windows("sed -n '5,9p' pkg/a.py", plain(5, 9), returncode=1) == []


def test_tail_takes_its_start_from_the_file_length_when_known():
    windows = identify_windows("tail -n 5 pkg/a.py", plain(26, 30), file_lines=lambda path: 30)
    assert [(w.start, w.end) for w in windows] == [(26, 30)]
