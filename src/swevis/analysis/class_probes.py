"""results/table_probes.csv: the runs of the probe sets (agents.matrix `probe_sets`), one row a
model, agent, condition and probe instance.

A probe set is a few bundled instances that only the matrix entries naming it run (the bundled
`classes`: a refactoring, a documentation and a question issue, which the study's bugs leave
out), so that an agent's issue classification meets every class. The table says what the issue
is (the row's `issue_class`), what the agent made of it (the class it routed the issue as, the
route, its candidate patches and how it picked one, from traj.json) and whether its patch
resolved the instance (the probe runs' grading job, <condition>/probes/harness/). No study
table reads these runs: they live below the condition folder, in <condition>/probes/.

A question answered with no patch (Prometheus's route `answer`) is counted like every run: it is
graded on the patch it submitted, so with none it is unresolved; `answered` says it answered and
`patch_lines` (of its patch.diff, 0 for none) that it left no patch. The study tables count such
a run the same way (a study instance is no question, so an answer is a failed repair).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

import polars as pl

from swevis.analysis.load import AnalysisInputError
from swevis.harness.records import read_validation
from swevis.paths import ConditionKey, ResultsLayout, eval_path
from swevis.table_csv import write_table_csv

COLUMNS = {
    "model": pl.String, "agent": pl.String, "scope": pl.String, "condition": pl.String,
    "probe_set": pl.String, "instance_id": pl.String, "issue_class": pl.String,
    "routed_as": pl.String, "class_answer": pl.String, "route": pl.String, "candidates": pl.Int64,
    "vote_method": pl.String, "answered": pl.Boolean, "patch_lines": pl.Int64, "resolved": pl.Boolean, "valid": pl.Boolean, "exit_status": pl.String,
    "backend": pl.String,
}


def _read(path: Path, problems: list[str], *, text: bool = False) -> Any:
    try:
        return path.read_text() if text else json.loads(path.read_text())
    except FileNotFoundError:
        problems.append(f"{path}: missing")
    except json.JSONDecodeError as exc:
        problems.append(f"{path}: corrupt JSON ({exc.msg})")
    return None


def probe_row(traj: dict[str, Any], patch: str, record: dict[str, Any], row: dict[str, Any], key: ConditionKey,
              valid: bool | None) -> dict[str, Any]:
    """One probe run as a row. An agent that classifies nothing leaves the class columns empty,
    and one without an unverified path its candidates and vote; `answered` is true when the run
    ended with an answer to a question (traj.json `answer`), false otherwise."""
    classification = traj.get("classification") or {}
    candidates = traj.get("candidates")
    return {
        "model": key.model, "agent": key.agent, "scope": key.scope, "condition": key.condition,
        "probe_set": row.get("probe_set"), "instance_id": row["instance_id"], "issue_class": row.get("issue_class"),
        "routed_as": classification.get("class"), "class_answer": classification.get("answer"),
        "route": traj.get("route"), "candidates": None if candidates is None else len(candidates),
        "vote_method": (traj.get("vote") or {}).get("method"),
        "answered": bool((traj.get("answer") or {}).get("text")), "patch_lines": len(patch.splitlines()),
        "resolved": bool(record.get("resolved")),
        "valid": valid, "exit_status": traj.get("exit_status"), "backend": traj.get("backend"),
    }


def probes_table(results_dir: str | Path, cells: Iterable[tuple[str, str, str, str, list[str]]],
                 rows: Iterable[dict[str, Any]], validation: dict[str, Any] | None = None) -> pl.DataFrame:
    """The table over `cells` ((model, agent, scope, condition, probe sets) of every condition
    that runs a probe set) and the probe rows of instances.jsonl; `validation` (the environment
    validation report) fills `valid`. Every missing or corrupt file is named, all at once."""
    layout = ResultsLayout(str(results_dir))
    by_set: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if row.get("probe_set"):
            by_set.setdefault(row["probe_set"], []).append(row)
    invalid = set((validation or {}).get("invalid") or {})
    covered = set((validation or {}).get("instances") or {})
    problems: list[str] = []
    out = []
    for *cell, sets in cells:
        key = ConditionKey(*cell)
        for row in (r for name in sets for r in by_set.get(name, [])):
            run = key.run(row["instance_id"])
            traj = _read(Path(layout.probe_run_file(run, "traj.json")), problems)
            patch = _read(Path(layout.probe_run_file(run, "patch.diff")), problems, text=True)
            record = _read(eval_path(layout.probe_dir(key), row["instance_id"]), problems)
            if traj is None or patch is None or record is None:
                continue
            valid = None if validation is None else (row["instance_id"] in covered and row["instance_id"] not in invalid)
            out.append(probe_row(traj, patch, record, row, key, valid))
    if problems:
        raise AnalysisInputError(problems)
    return pl.DataFrame(out, schema=COLUMNS)


def build_probes_table(results_dir: str | Path, cells: Iterable[tuple[str, str, str, str, list[str]]],
                       instances: str | Path, validation: str | Path | None, out: str | Path) -> pl.DataFrame:
    """The rule's entry: read instances.jsonl and the validation report, write the CSV."""
    rows = [json.loads(line) for line in Path(instances).read_text().splitlines() if line.strip()]
    report = read_validation(validation) if validation else None
    table = probes_table(results_dir, cells, rows, report)
    write_table_csv(table, out)
    return table
