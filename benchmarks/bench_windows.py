"""Window finding on the hand-labelled set (tests/fixtures/windows_labelled): recall and
precision of swevis.agents.observation.output_windows.identify_windows, overall and per trajectory
format and per language of the windows (the language registry's, by file name), and the
windows it misses or invents. A window counts as found when path, first and
last line agree; a diff hunk when path and its new side's first line agree (the scoring of
tests/counterfactual/test_window_labels.py).

    .venv/bin/python benchmarks/bench_windows.py
"""

from __future__ import annotations

import json
from pathlib import Path

from swevis.agents.observation.output_windows import identify_windows
from swevis.index.languages import language_for

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "windows_labelled" / "observations.jsonl"
STYLES = {"mini": "mini-swe-agent", "swe": "SWE-agent", "oh": "OpenHands"}


def expected(row: dict) -> set[str]:
    return set() if row["expected"] == "-" else set(row["expected"].split(";"))


def found(row: dict) -> set[str]:
    windows = identify_windows(row["command"], row["observation"], returncode=row["returncode"])
    return {f"{w.path}@{w.start}:diff" if w.kind == "diff" else f"{w.path}:{w.start}-{w.end}" for w in windows}


def language(row: dict) -> str:
    """The language of the row's labelled windows (else of those found), "none" without any."""
    paths = sorted(expected(row) or found(row))
    if not paths:
        return "none"
    lang = language_for(paths[0].split("@")[0].rsplit(":", 1)[0].removesuffix(".big"))
    return lang.name if lang else "unregistered"


def _row(name: str, rows: list[dict]) -> str:
    labelled = sum(len(expected(r)) for r in rows)
    got = sum(len(found(r)) for r in rows)
    right = sum(len(expected(r) & found(r)) for r in rows)
    recall = right / labelled if labelled else float("nan")
    precision = right / got if got else float("nan")
    return f"| {name} | {len(rows)} | {labelled} | {got} | {right} | {recall:.3f} | {precision:.3f} |"


def main() -> None:
    rows = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    print("| format | observations | windows labelled | windows found | found and labelled | recall | precision |")
    print("|---|---|---|---|---|---|---|")
    for style, name in STYLES.items():
        print(_row(name, [r for r in rows if r["style"] == style]))
    print(_row("all", rows))
    for name in sorted({language(r) for r in rows} - {"none"}):
        print(_row(f"language: {name}", [r for r in rows if language(r) == name]))
    for r in rows:
        missed, invented = expected(r) - found(r), found(r) - expected(r)
        if missed or invented:
            print(f"- `{r['command'][:90]}`: missed {sorted(missed)}, invented {sorted(invented)} ({r['reason']})")


if __name__ == "__main__":
    main()
