"""Windows of one recorded observation share pages when that costs less than a page each."""

import json
from pathlib import Path

from swevis.agents.observation.observe import SEPARATOR, ObservationConfig, ObservationPipeline, Window, shared_window
from swevis.counterfactual.replay import observe_recorded_windows
from swevis.agents.observation.output_windows import identify_windows
from swevis.render import prepare_lines
from swevis.render.raster import visible_rows

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "windows_labelled" / "observations.jsonl"
ROWS = [json.loads(line) for line in FIXTURE.read_text().splitlines()]


def pipeline(condition="r3", draw=False):
    return ObservationPipeline(ObservationConfig(condition=condition, draw_pages=draw), read_file=lambda p: None,
                               observation_template="{{ output.output }}")


def test_grep_groups_share_one_page_and_cost_less_than_a_page_each():
    row = next(r for r in ROWS if 'grep -n -C 3 "raise LedgerError"' in r["command"])
    windows = identify_windows(row["command"], row["observation"])
    assert len(windows) == 4
    p = pipeline()
    content, pages, costs = observe_recorded_windows(p, row["observation"], windows)
    each, _, _ = p._in_place_each(row["observation"], windows)  # a page each
    assert pages == 1 and sum(part["type"] == "image_url" for part in content) == 1
    assert p._prompt_tokens(content) < p._prompt_tokens(each) < p._prompt_tokens(row["observation"])
    assert [c["text_tokens"] for c in costs] == [p._text_tokens(row["observation"][w.span[0]:w.span[1]]) for w in windows]
    text = "".join(part["text"] for part in content if part["type"] == "text")
    assert "raise LedgerError" not in text and text.count("--") == 3  # the code is on the page, grep's separators stay


def test_shared_pages_number_each_window_and_mark_the_gap():
    a = Window("pkg/a.py", 10, 11, "x = 1\ny = 2\n", True)
    b = Window("pkg/b.py", 40, 40, "z = 3\n", True)
    window, numbers = shared_window([a, b])
    assert numbers == [10, 11, None, 40]
    result = pipeline(draw=True)._render_parts(window, numbers)
    assert not isinstance(result, str)
    from swevis.render import render_window

    res = render_window(window.path, window.start, window.text, 1.0, "qwen3", "qwen3.5", numbers=numbers)
    rows = visible_rows(prepare_lines(window.text), window.start, res.plan, 0, 0)
    assert [r.split() for r in rows] == [["10", "x", "=", "1"], ["11", "y", "=", "2"], [SEPARATOR, "pkg/b.py"],
                                         ["40", "z", "=", "3"]]


REPO = Path(__file__).resolve().parents[1] / "fixtures" / "windows_repo"


def live(condition, files=None):
    files = files or {}
    read = lambda path: files.get(path, (REPO / path).read_text() if (REPO / path).is_file() else None)  # noqa: E731
    return ObservationPipeline(ObservationConfig(condition=condition), read_file=read,
                               observation_template="<returncode>{{ output.returncode }}</returncode>\n"
                                                    "<output>\n{{ output.output }}</output>")  # keys past output


def grep_output():
    row = next(r for r in ROWS if 'grep -rn -A 4 "def balance"' in r["command"])
    return row["command"], row["observation"].split("<output>\n", 1)[1].rsplit("</output>", 1)[0]


def test_the_live_pipeline_renders_the_windows_an_output_shows():
    command, output = grep_output()
    content, record = live("r3").observe(command, {"returncode": 0, "output": output})
    assert record["kind"] == "image" and record["pages"] == 1
    assert [(w["path"], w["start"], w["end"]) for w in record["windows"]] == [("ledgerly/parse.py", 48, 52),
                                                                              ("ledgerly/report.py", 12, 16)]
    text, record = live("text").observe(command, {"returncode": 0, "output": output})
    assert text == f"<returncode>0</returncode>\n<output>\n{output}</output>" and record["kind"] == "text"


def test_a_window_the_file_does_not_have_stays_text():
    command, output = grep_output()
    edited = (REPO / "ledgerly/report.py").read_text().replace("def balance(", "def totals(")
    content, record = live("r3", {"ledgerly/report.py": edited}).observe(command, {"returncode": 0, "output": output})
    assert [w["path"] for w in record.get("windows") or []] in (["ledgerly/parse.py"], [])  # report.py's lines differ
