"""Window finding on the hand-labelled set (tests/fixtures/windows_labelled): recall and
precision of swevis.agents.output_windows.identify_windows, overall and per trajectory
format, and the windows it misses or invents.

    .venv/bin/python benchmarks/bench_windows.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "counterfactual"))

from test_window_labels import ROWS, expected, found  # noqa: E402  (the test's own scoring)

STYLES = {"mini": "mini-swe-agent", "swe": "SWE-agent", "oh": "OpenHands"}


def _row(name: str, rows: list[dict]) -> str:
    labelled = sum(len(expected(r)) for r in rows)
    got = sum(len(found(r)) for r in rows)
    right = sum(len(expected(r) & found(r)) for r in rows)
    recall = right / labelled if labelled else float("nan")
    precision = right / got if got else float("nan")
    return f"| {name} | {len(rows)} | {labelled} | {got} | {right} | {recall:.3f} | {precision:.3f} |"


def main() -> None:
    print("| format | observations | windows labelled | windows found | found and labelled | recall | precision |")
    print("|---|---|---|---|---|---|---|")
    for style, name in STYLES.items():
        print(_row(name, [r for r in ROWS if r["style"] == style]))
    print(_row("all", ROWS))
    for r in ROWS:
        missed, invented = expected(r) - found(r), found(r) - expected(r)
        if missed or invented:
            print(f"- `{r['command'][:90]}`: missed {sorted(missed)}, invented {sorted(invented)} ({r['reason']})")


if __name__ == "__main__":
    main()
