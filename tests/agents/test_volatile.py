"""Volatile command output (test timings, pytest's tmp counters, sympy's seeds) is made stable
before the model sees it, under every condition alike, and code windows stay as the file is;
so a rerun of a finished live trajectory that ran pytest makes no model request."""

from __future__ import annotations

import shutil
import subprocess
from datetime import datetime, timezone

import pytest

from swevis.sandbox.environments import LocalWorkspace
from swevis.agents.observation.observe import ObservationConfig, ObservationPipeline
from swevis.agents.run.runner import RunSpec, run_instance
from swevis.agents.observation.volatile import normalize
from swevis.tasks.bundled import load_bundled_instances
from swevis.tasks.repos import ensure_mirror
from scripted_server import ScriptedServer, conversation

IID = "swevis-samples__ledgerkit-117"

CASES = [
    ("54 passed in 0.26s", "54 passed in <time>"),
    ("1 failed, 53 passed, 2 warnings in 75.00s (0:01:15)", "1 failed, 53 passed, 2 warnings in <time>"),
    ("no tests ran in 0.01s", "no tests ran in <time>"),
    ("3 passed, 1 xfailed, 2 subtests passed in 1.20s", "3 passed, 1 xfailed, 2 subtests passed in <time>"),
    ("0.26s call     tests/test_x.py::test_y", "<time> call     tests/test_x.py::test_y"),
    # the time column stays right-aligned to the width pytest drew it at
    ("tests/test_csv.py .......   4.527ms", "tests/test_csv.py .......    <time>"),
    ("tests/test_x.py::test_a PASSED   1m 5s", "tests/test_x.py::test_a PASSED  <time>"),
    ("tests/test_x.py::test_a PASSED 1.000ms", "tests/test_x.py::test_a PASSED  <time>"),
    ("E   FileNotFoundError: /tmp/pytest-of-root/pytest-17/test_x0/a.txt",
     "E   FileNotFoundError: /tmp/pytest-of-root/pytest-<n>/test_x0/a.txt"),
    ("Ran 3 tests in 0.004s", "Ran 3 tests in <time>"),
    ("Ran 1 test in 0.000s", "Ran 1 test in <time>"),
    ("random seed:        47293611", "random seed:        <seed>"),
    ("hash randomization: on (PYTHONHASHSEED=3417594035)", "hash randomization: on (PYTHONHASHSEED=<seed>)"),
    ("E   assert <Money object at 0x7f3a2c1b5d90> == <Money object at 0x7f3a2c1b5e10>",
     "E   assert <Money object at <addr1>> == <Money object at <addr2>>"),
    ("<function f at 0x7F00AA001234> is <function f at 0x7f00aa001234>", "<function f at <addr1>> is <function f at <addr1>>"),
    # ls -l dates: when the checkout or the image was made
    ("-rw-r--r--  1 root root  1234 Dec  1 10:05 money.py", "-rw-r--r--  1 root root  1234 <date> money.py"),
    ("drwxr-xr-x. 12 1000 1000 4.0K Jan 12  2024 src", "drwxr-xr-x. 12 1000 1000 4.0K <date> src"),
    ("lrwxrwxrwx 1 root root 16 2026-12-01 10:06 link -> x", "lrwxrwxrwx 1 root root 16 <date> link -> x"),
    ("crw-rw-rw- 1 root root 1, 3 Dec  1 10:05 null", "crw-rw-rw- 1 root root 1, 3 <date> null"),
    # not a test runner's timing, or not a timing at all: left alone
    ("total 48", "total 48"),
    ("ledgerkit/money.py:3: Dec  1 10:05 is a date", "ledgerkit/money.py:3: Dec  1 10:05 is a date"),
    ("processed 1000 rows in 2.35s", "processed 1000 rows in 2.35s"),
    ("real\t0m0.123s", "real\t0m0.123s"),
    ("mov rax, 0x7f3a2c1b5d90", "mov rax, 0x7f3a2c1b5d90"),
    ("x = 0.26  # 54 passed", "x = 0.26  # 54 passed"),
    ("ledgerkit/money.py:12:    return 5s", "ledgerkit/money.py:12:    return 5s"),
    ("tests/test_x.py::test_a PASSED                    [ 50%]", "tests/test_x.py::test_a PASSED                    [ 50%]"),
]


@pytest.mark.parametrize("raw, stable", CASES)
def test_normalize(raw, stable):
    assert normalize(raw) == stable
    assert normalize(raw + "\nnext line\n") == stable + "\nnext line\n"


def test_durations_section_is_elided_whatever_the_load():
    """Which tests pass --durations' threshold, and in which order, depends on the load."""
    idle = ("....  [100%]\n============================= slowest 3 durations ==============================\n\n"
            "(3 durations < 0.005s hidden.  Use -vv to show these durations.)\n4 passed in 0.05s\n")
    busy = ("....  [100%]\n============================= slowest 3 durations ==============================\n"
            "0.02s call     tests/test_money.py::test_round\n0.01s setup    tests/test_money.py::test_format\n\n"
            "(1 durations < 0.005s hidden.  Use -vv to show these durations.)\n4 passed in 0.31s\n")
    assert normalize(idle) == normalize(busy) == (
        "....  [100%]\n============================= slowest 3 durations ==============================\n"
        "(durations elided: they vary from run to run)\n4 passed in <time>\n")


def test_centred_summary_lines_are_the_same_whatever_the_time():
    """pytest centres the summary in '=': the fill depends on the time's digits."""
    def sep(title, width=80):
        n = (width - len(title) - 2) // 2
        line = f"{'=' * n} {title} {'=' * n}"
        return line + "=" if len(line) < width else line

    lines = {normalize(sep(f"12 passed in {t}s")) for t in ("0.06", "10.06", "100.06")}
    assert lines == {sep("12 passed in <time>")} and len(lines.pop()) == 80
    sympy = normalize("================== tests finished: 5 passed, in 0.49 seconds ===================")
    assert sympy == "===================== tests finished: 5 passed, in <time> ======================"


def test_observations_are_normalized_alike_in_every_condition_but_code_windows_are_not():
    source = "def summary():\n    return '54 passed in 0.26s'\n"

    def observe(condition, command, output):
        pipeline = ObservationPipeline(ObservationConfig(condition=condition), lambda path: source, "{{ output.output }}")
        content, _ = pipeline.observe(command, {"output": output, "returncode": 0, "exception_info": ""})
        return content

    run = "....\n54 passed in 0.26s\n"
    assert observe("text", "python -m pytest -q", run) == observe("r3", "python -m pytest -q", run) == "....\n54 passed in <time>\n"
    assert observe("text", "cat ledgerkit/report.py", source) == source  # a code window shows the file as it is


TURNS = [
    "THOUGHT: look around.\n\n```mswea_bash_command\nls -la && ls -la --time-style=full-iso ledgerkit\n```",
    "THOUGHT: run the tests.\n\n```mswea_bash_command\npython -m pytest -q tests/test_money.py\n```",
    "THOUGHT: slowest.\n\n```mswea_bash_command\npython -m pytest tests/test_money.py --durations=3\n```",
    "THOUGHT: per file.\n\n```mswea_bash_command\npython -m pytest -o console_output_style=times tests\n```",
    "THOUGHT: objects.\n\n```mswea_bash_command\npython -c 'o = object(); print(o, o, object())'\n```",
    "THOUGHT: done.\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",
]


@pytest.mark.slow
def test_rerun_of_a_deleted_live_run_that_ran_pytest_makes_no_request(tmp_path, monkeypatch, bundled_mirror):
    row, mirror = bundled_mirror(IID)
    monkeypatch.setenv("SWEVIS_VOLATILE_KEY", "sk-test")

    with ScriptedServer(responder=conversation(TURNS)) as server:
        profile = {"backend": "openai", "base_url": server.base_url, "model_id": "m", "api_key_env": "SWEVIS_VOLATILE_KEY",
                   "tokenizer": "qwen3", "image_family": "qwen3.5", "max_retries": 0}
        out = tmp_path / "results" / IID

        def run():
            return run_instance(RunSpec(
                "live", profile, "mini", "normal", "text", row, mirror, str(out),
                agents_cfg={"environment": "local", "allow_live_on_host": True}, cache_dir=str(tmp_path / "cache"),
                journal_path=str(tmp_path / "journal.jsonl"), workspace=str(tmp_path / "ws"),
            ))

        first = run()
        assert first["exit_status"] == "submitted" and len(server.chat_requests) == len(TURNS)
        shown = "\n".join(str(m["content"]) for m in first["messages"] if m["role"] == "user")
        assert "12 passed in <time>" in shown and "tests/test_money.py ............" in shown  # pytest really ran
        assert "<object object at <addr1>> <object object at <addr1>> <object object at <addr2>>" in shown
        shutil.rmtree(out)
        again = run()
        assert len(server.chat_requests) == len(TURNS)  # the rerun paid for nothing
    assert again["exit_status"] == "submitted"
    assert [m["content"] for m in again["messages"]] == [m["content"] for m in first["messages"]]
    assert all(m["extra"]["cached"] for m in again["messages"] if m["role"] == "assistant")


def test_two_checkouts_made_at_different_times_list_identically(tmp_path):
    """Every file and folder of a local checkout (and the workspace folder, `..`) carries the
    base commit's time, to the nanosecond, so `ls -la` is the same in every run."""
    row = next(r for r in load_bundled_instances() if r["instance_id"] == IID)
    mirror = ensure_mirror(row["repo"], tmp_path / "m", commits=[row["base_commit"]])["mirror"]
    listing = "ls -la --time-style=full-iso . ledgerkit tests && echo status: && git status --porcelain"
    outputs = []
    for name in ("first", "second"):
        ws = LocalWorkspace(mirror, row["base_commit"], str(tmp_path / name))
        try:
            proc = subprocess.run(listing, shell=True, cwd=ws.repo, capture_output=True, text=True, check=True)
            outputs.append(proc.stdout.replace(name, "<ws>"))
        finally:
            ws.close()
    committed = int(subprocess.run(["git", "show", "-s", "--format=%ct", row["base_commit"]], cwd=mirror,
                                   capture_output=True, text=True, check=True).stdout)
    stamp = datetime.fromtimestamp(committed, timezone.utc).astimezone().strftime("%Y-%m-%d %H:%M:%S.000000000")
    assert outputs[0] == outputs[1] and stamp in outputs[0]
    assert "money.py" in outputs[0] and outputs[0].endswith("status:\n")  # and git sees no change


# the summaries of the other indexed languages' runners, as each prints them (written here)
RUNNER_CASES = [
    ("ok  \texample.com/geo/shapes\t0.003s", "ok  \texample.com/geo/shapes\t<time>"),
    ("ok  \texample.com/geo/shapes\t(cached)", "ok  \texample.com/geo/shapes\t<time>"),  # a rerun's go test
    ("FAIL\texample.com/geo/internal\t0.015s", "FAIL\texample.com/geo/internal\t<time>"),
    ("ok  \texample.com/geo\t0.004s\tcoverage: 81.2% of statements",
     "ok  \texample.com/geo\t<time>\tcoverage: 81.2% of statements"),
    ("    --- FAIL: TestArea/zero (0.01s)", "    --- FAIL: TestArea/zero (<time>)"),
    ("test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
     "test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in <time>"),
    ("    Finished `test` profile [unoptimized + debuginfo] target(s) in 1m 02s",
     "    Finished `test` profile [unoptimized + debuginfo] target(s) in <time>"),
    ("Tests:       1 failed, 5 passed, 6 total\nSnapshots:   0 total\nTime:        1.234 s, estimated 2 s",
     "Tests:       1 failed, 5 passed, 6 total\nSnapshots:   0 total\nTime:        <time>"),
    ("PASS src/money.test.js (5.123 s)", "PASS src/money.test.js (<time>)"),
    ("  ✓ parses amounts (3 ms)", "  ✓ parses amounts (<time>)"),
    ("  5 passing (12ms)", "  5 passing (<time>)"),
    ("✔ adds (0.523ms)", "✔ adds (<time>)"),
    ("ℹ duration_ms 45.123", "ℹ duration_ms <time>"),
    ("   Start at  10:05:03\n   Duration  1.23s (transform 20ms, setup 0ms, tests 5ms)",
     "   Start at  <date>\n   Duration  <time>"),
    ("[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.045 s - in com.example.MoneyTest",
     "[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: <time> - in com.example.MoneyTest"),
    ("[INFO] Total time:  3.456 s\n[INFO] Finished at: 2026-12-06T05:10:32Z",
     "[INFO] Total time:  <time>\n[INFO] Finished at: <date>"),
    ("BUILD SUCCESSFUL in 4s", "BUILD SUCCESSFUL in <time>"),
    ("BUILD FAILED in 1m 3s", "BUILD FAILED in <time>"),
]


@pytest.mark.parametrize("raw,stable", RUNNER_CASES, ids=[c[0][:30] for c in RUNNER_CASES])
def test_the_other_languages_test_runners_lose_their_times(raw, stable):
    assert normalize(raw) == stable


@pytest.mark.parametrize("own", ["Time: 1.234 s", "Duration  1.23s", "--- PASS: nothing", "ok  done  soon",
                                 "  ✓ parses amounts", "FAIL src/money.test.ts"])
def test_a_programs_own_timings_and_lines_without_times_stay(own):
    assert normalize(own) == own
