"""Read run folders into rows: one per instance x condition x repeat.

A run folder is `results/runs/<model>/<agent>-<scope>/<condition>/<instance>/` with
traj.json and patch.diff (repeats > 0 live in `<instance>/repeat-k/`), and its eval.json is
in the grading job's folder `<condition>/harness/evals/<instance>[/repeat-k]/`; every path is
built and read back by swevis.paths (ResultsLayout, eval_path). A missing or corrupt traj.json / eval.json is an
`AnalysisInputError` that names every offending file.

`condition_summary` condenses one condition into summary.json: counts, accuracy, tokens
(prompt tokens also as cached and uncached), cache-aware spend and the per-run rows (scalars plus the action-class sequence and the
estimated/server usage pairs), so tables and figures read summaries, not trajectories.
With an environment validation report (swevis.harness.validate), runs of instances whose
environment failed validation are kept (they cost money) but marked `valid: false` and
left out of accuracy: n counts the valid runs, n_invalid and invalid_instances name the rest.

A run of an agent that records its retrieved context (`records_retrieval`: it commits a plan
or names evidence phases) also gets the precision and recall of that context (its evidence:
the windows viewed in its evidence phases plus the committed snippets) against the gold patch
at the file, symbol and line level (swevis.localize.retrieval), as retrieval_<level>_<metric>
columns; the symbol level needs the index of the instance's repo@commit (`indexes`).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from swevis.errors import SwevisError
from swevis.fsutil import write_json_atomic
from swevis.harness.records import read_validation
from swevis.index.store import RepoIndex, open_index
from swevis.paths import HARNESS_DIRNAME, PROBES_DIRNAME, ResultsLayout, eval_path, repo_slug, run_path
from swevis.agents.registry import find_kind
from swevis.agents.run.trajectory import TRAJ_FORMAT
from swevis.localize import coverage_bucket, evidence_coverage
from swevis.localize.retrieval import METRICS as RETRIEVAL_METRICS, retrieval_scores

ACTION_CLASSES = ("read", "search", "edit", "test", "other")
PHASES = ("main", "preloc", "locator", "editor")
SUMMARY_FORMAT = "swevis-condition-summary-1"
SKIP_DIRS = {HARNESS_DIRNAME, PROBES_DIRNAME}  # the grading job's folder; the probe runs (not the study's)
RETRIEVAL_COLUMNS = tuple(f"retrieval_{m}" for m in RETRIEVAL_METRICS)


class AnalysisInputError(SwevisError):
    """Bad analysis input; `problems` lists every offending file with the reason."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        head = f"{len(self.problems)} bad analysis input(s):\n  " if len(self.problems) > 1 else ""
        super().__init__(head + "\n  ".join(self.problems))


def _read_json(path: Path, problems: list[str]) -> Any | None:
    if not path.exists():
        problems.append(f"{path}: missing")
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        problems.append(f"{path}: corrupt JSON ({exc})")
        return None
    if not isinstance(data, dict):
        problems.append(f"{path}: expected a JSON object, got {type(data).__name__}")
        return None
    return data


def _require(obj: Any, keys: Iterable[str], path: Path, problems: list[str]) -> bool:
    if not isinstance(obj, dict):
        problems.append(f"{path}: expected a JSON object")
        return False
    missing = [k for k in keys if k not in obj]
    if missing:
        problems.append(f"{path}: missing key(s) {', '.join(missing)}")
        return False
    return True


def instance_rows(instances: Iterable[Mapping[str, Any]] | str | Path | None) -> dict[str, dict[str, Any]]:
    """instances.jsonl path, or rows, or ids -> {instance_id: row}. Of a file, the study's
    sample only: the probe sets' rows (tagged ``probe_set``) are run and reported apart."""
    if instances is None:
        return {}
    if isinstance(instances, Mapping):
        return {k: dict(v) if isinstance(v, Mapping) else {"instance_id": k} for k, v in instances.items()}
    if isinstance(instances, (str, Path)):
        path = Path(instances)
        out = {}
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise AnalysisInputError([f"{path}:{lineno}: corrupt JSON ({exc})"]) from None
            if not row.get("probe_set"):
                out[row["instance_id"]] = row
        return out
    out = {}
    for item in instances:
        if isinstance(item, str):
            out[item] = {"instance_id": item}
        else:
            out[item["instance_id"]] = dict(item)
    return out


def records_retrieval(agent: str) -> bool:
    """Whether an agent's runs record a retrieved context: it commits a plan or names the
    phases whose viewed windows are its localization evidence (the registry's AgentKind)."""
    kind = find_kind(agent)
    return kind is not None and (kind.commits_plan or kind.evidence_phases is not None)


def _evidence_windows(traj: dict[str, Any]) -> list[tuple]:
    """The run's localization evidence: the windows viewed in its evidence phases, the context
    units it stored there (Prometheus's `remember`) and the committed snippets."""
    ev = traj.get("evidence") or {}
    return ([tuple(w) for w in (ev.get("viewed_windows") or [])] + remembered_spans(traj)
            + [tuple(w) for w in (ev.get("committed_snippets") or [])])


def remembered_spans(traj: dict[str, Any]) -> list[tuple]:
    """(path, start, end) of every span a `remember` of the agent's evidence phases stored:
    the context units its context engine retrieved (a remember that failed stored none)."""
    from swevis.agents.mechanisms.context_engine import REMEMBER, parse_spans
    from minisweagent.exceptions import FormatError

    from swevis.agents.tools.environment import parse_heredoc

    kind = find_kind(traj.get("agent", ""))
    phases = (kind.evidence_phases if kind is not None else None) or ()
    out: list[tuple] = []
    for step in traj.get("steps") or []:
        if step.get("tool") != REMEMBER.name or step.get("phase") not in phases or step.get("format_error"):
            continue
        if (step.get("observation") or {}).get("returncode", 0) not in (0, None):
            continue
        try:
            out += parse_spans(parse_heredoc(step.get("action") or "", REMEMBER.name))
        except FormatError:
            continue
    return out


def _retrieval(traj: dict[str, Any], gold_patch: str | None,
               index_for: Callable[[], RepoIndex | None] | None) -> dict[str, float | None]:
    """retrieval_<level>_<metric> of an agent that records its retrieved context (all None
    for the others, and without a gold patch); `index_for()` gives the instance's index."""
    if not gold_patch or not records_retrieval(traj.get("agent", "")):
        return dict.fromkeys(RETRIEVAL_COLUMNS)
    index = index_for() if index_for is not None else None
    scores = retrieval_scores(_evidence_windows(traj), gold_patch, index=index)
    return {f"retrieval_{m}": scores[m] for m in RETRIEVAL_METRICS}


class IndexShelf:
    """The index databases a condition's summary was given, opened once per repo@commit when
    a run needs one (the symbol level of its retrieval), closed together."""

    def __init__(self, dbs: Iterable[str | Path] | None):
        self.given = dbs is not None
        self.by_name = {Path(d).name: str(d) for d in (dbs or [])}
        self.opened: dict[str, RepoIndex] = {}

    def for_row(self, row: Mapping[str, Any], problems: list[str]) -> RepoIndex | None:
        """The index of an instance row's repo@base_commit; None (a problem named) when none was given for it."""
        if not self.given:
            return None
        try:
            name = Path(ResultsLayout(".").index_db(repo_slug(row["repo"]), row["base_commit"])).name
        except (KeyError, ValueError) as exc:
            problems.append(f"instance {row.get('instance_id')}: no repo@base_commit to find its index by ({exc})")
            return None
        if name not in self.by_name:
            problems.append(f"instance {row.get('instance_id')}: no index database {name} among the inputs")
            return None
        if name not in self.opened:
            self.opened[name] = open_index(self.by_name[name])
        return self.opened[name]

    def close(self) -> None:
        for index in self.opened.values():
            index.close()
        self.opened.clear()


def _coverage(traj: dict[str, Any], gold_patch: str | None, high: float, mid: float) -> tuple[float | None, str | None]:
    """Evidence coverage of an agent that commits a plan (LET's locator: its viewed windows
    plus the committed snippets); None for the others."""
    kind = find_kind(traj.get("agent", ""))
    if kind is None or not kind.commits_plan:
        return None, None
    windows = _evidence_windows(traj)
    if not gold_patch:
        return None, None
    value = evidence_coverage(windows, gold_patch)
    if value != value:  # NaN: the gold patch has no hunk
        return None, coverage_bucket(value, high, mid)
    return float(value), coverage_bucket(value, high, mid)


def _cost(value: Any, path: Path, problems: list[str]) -> float | None:
    """A run's recorded cost (traj.json totals.cost, from the profile's prices), or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != value:
        problems.append(f"{path}: 'totals.cost' must be a non-negative number, got {value!r}")
        return None
    return float(value)


def spend_stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Money and tokens of a set of runs (every run, valid or not: all of them were paid).

    Spend is cache-aware (traj.json's totals.cost: the prompt tokens the endpoint served from
    its prefix cache at the profile's cached-input price, swevis.models.spend), beside the
    prompt tokens split into cached and uncached. It is None when no run recorded a price:
    traj.json records cost 0 when the model profile has no prices, and 0 is not "free"."""
    costs = [r.get("cost") for r in rows]
    priced = any(c for c in costs)
    total = round(sum(c or 0.0 for c in costs), 6) if priced else None
    prompt = sum(r.get("prompt_tokens") or 0 for r in rows)
    cached = sum(r.get("cached_prompt_tokens") or 0 for r in rows)
    return {
        "spend_cache_aware_total": total,
        "spend_cache_aware_mean": round(total / len(rows), 6) if priced and rows else None,
        "prompt_tokens_total": prompt,
        "cached_prompt_tokens_total": cached,
        "uncached_prompt_tokens_total": prompt - cached,
        "completion_tokens_total": sum(r.get("completion_tokens") or 0 for r in rows),
        "calls_total": sum(r.get("calls") or 0 for r in rows),
    }


def _is_count(value: Any) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)


def _traj_shape_problem(traj: dict[str, Any]) -> str | None:
    """What is wrong with a trajectory's structure (types the analysis relies on), or None."""
    for key in ("agent", "scope", "condition", "exit_status"):
        if not isinstance(traj.get(key), str):
            return f"'{key}' must be a string"
    for key in ("prompt_tokens", "cached_prompt_tokens", "completion_tokens", "calls", "format_errors", "image_pages"):
        if not _is_count(traj["totals"].get(key)):
            return f"'totals.{key}' must be a non-negative integer"
    if not isinstance(traj.get("repeat", 0) or 0, int):
        return "'repeat' must be an integer"
    steps = traj.get("steps")
    if not isinstance(steps, list) or not all(isinstance(st, dict) for st in steps):
        return "'steps' must be a list of objects"
    for i, st in enumerate(steps):
        if st.get("action_class") is not None and not isinstance(st.get("action_class"), str):
            return f"steps[{i}].action_class must be a string"
        usage = st.get("usage", {})
        if not isinstance(usage, dict) or not all(
            _is_count(usage.get(k)) for k in ("prompt_tokens", "estimated_prompt_tokens", "server_prompt_tokens")
        ):
            return f"steps[{i}].usage must hold non-negative token counts"
        if not isinstance(st.get("observation", {}), dict):
            return f"steps[{i}].observation must be an object"
    phases = traj.get("phases", {})
    if not isinstance(phases, dict) or not all(
        isinstance(p, dict) and _is_count(p.get("prompt_tokens")) and _is_count(p.get("completion_tokens"))
        for p in phases.values()
    ):
        return "'phases' must map phase names to token counts"
    evidence = traj.get("evidence", {})
    if evidence is not None and not isinstance(evidence, dict):
        return "'evidence' must be an object"
    for key in ("viewed_windows", "committed_snippets"):
        windows = (evidence or {}).get(key, [])
        if not isinstance(windows, list) or not all(
            isinstance(w, list) and len(w) == 3 and isinstance(w[0], str) and all(isinstance(x, int) for x in w[1:])
            for w in windows
        ):
            return f"'evidence.{key}' must be a list of [path, start, end]"
    return None


def run_row(
    traj_path: str | Path,
    eval_file: str | Path,
    gold_patch: str | None = None,
    *,
    coverage_high: float,
    coverage_mid: float,
    problems: list[str] | None = None,
    index_for: Callable[[], RepoIndex | None] | None = None,
) -> dict[str, Any] | None:
    """One run (its traj.json and eval.json) as a flat row; problems are appended by name
    (or raised when `problems` is None). `index_for()`: the instance's repo@commit index,
    asked for only by a run whose retrieval is measured (its symbol level; None: left empty)."""
    own = problems is None
    problems = [] if own else problems
    traj_path = Path(traj_path)
    pair = _read_run(traj_path, Path(eval_file), problems)
    if pair is None:
        if own:
            raise AnalysisInputError(problems)
        return None
    traj, ev = pair

    n_before = len(problems)
    shape = _traj_shape_problem(traj)
    if shape:
        problems.append(f"{traj_path}: malformed trajectory: {shape}")
        if own:
            raise AnalysisInputError(problems)
        return None
    cov, bucket = _coverage(traj, gold_patch, coverage_high, coverage_mid)
    cost = _cost(traj["totals"].get("cost"), traj_path, problems)
    if len(problems) > n_before:
        if own:
            raise AnalysisInputError(problems)
        return None
    return {**_flat_row(traj, ev, traj_path, cov, bucket, cost), **_retrieval(traj, gold_patch, index_for)}


def _read_run(traj_path: Path, eval_path: Path, problems: list[str]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """traj.json and eval.json with their required keys, or None (problems named)."""
    n_before = len(problems)
    traj = _read_json(traj_path, problems)
    ev = _read_json(eval_path, problems)
    ok = True
    if traj is not None:
        ok &= _require(traj, ("instance_id", "agent", "scope", "condition", "exit_status", "steps", "totals"), traj_path, problems)
        if ok and traj.get("format", TRAJ_FORMAT) != TRAJ_FORMAT:
            problems.append(f"{traj_path}: unknown format {traj.get('format')!r} (expected {TRAJ_FORMAT})")
            ok = False
        if ok and not _require(traj["totals"], ("prompt_tokens", "completion_tokens"), traj_path, problems):
            ok = False
    if ev is not None:
        ok &= _require(ev, ("instance_id", "resolved"), eval_path, problems)
    if len(problems) > n_before or not ok or traj is None or ev is None:
        return None
    return traj, ev


def _flat_row(
    traj: dict[str, Any], ev: dict[str, Any], traj_path: Path, cov: float | None, bucket: str | None, cost: float | None
) -> dict[str, Any]:
    """The analysis row of one checked run: identity, verdict, tokens, actions, phase split."""
    phases = traj.get("phases") or {}
    steps = traj.get("steps") or []
    actions = [s.get("action_class") for s in steps if s.get("action_class")]
    usage_pairs = []
    for s in steps:
        u = s.get("usage") or {}
        if u.get("source") == "server" and u.get("server_prompt_tokens"):
            usage_pairs.append([int(u.get("estimated_prompt_tokens") or 0), int(u["server_prompt_tokens"])])
    row = {
        "model": traj.get("model"),
        "model_id": traj.get("model_id"),
        "backend": traj.get("backend"),
        "agent": traj["agent"],
        "scope": traj["scope"],
        "condition": traj["condition"],
        "instance_id": traj["instance_id"],
        "repeat": int(traj.get("repeat") or 0),
        "exit_status": traj["exit_status"],
        "resolved": bool(ev["resolved"]),
        "patch_applied": bool(ev.get("patch_applied")),
        "infra_failure": bool(ev.get("infra_failure")),
        "harness": ev.get("harness"),
        "prompt_tokens": int(traj["totals"]["prompt_tokens"]),
        "cached_prompt_tokens": int(traj["totals"].get("cached_prompt_tokens") or 0),  # none before cache-aware billing
        "completion_tokens": int(traj["totals"]["completion_tokens"]),
        "calls": int(traj["totals"].get("calls") or 0),
        "cost": cost,
        "valid": True,
        "format_errors": int(traj["totals"].get("format_errors") or 0),
        "image_pages": int(traj["totals"].get("image_pages") or 0),
        "n_steps": len(steps),
        "evidence_coverage": cov,
        "coverage_bucket": bucket,
        "actions": actions,
        "usage_pairs": usage_pairs,
        "path": str(traj_path.parent),
    }
    for ph in PHASES:
        p = phases.get(ph) or {}
        row[f"{ph}_prompt_tokens"] = int(p.get("prompt_tokens") or 0)
        row[f"{ph}_completion_tokens"] = int(p.get("completion_tokens") or 0)
    return row


def condition_traj_paths(condition_dir: str | Path) -> list[Path]:
    """Every traj.json of a condition (instance folders and repeat sub-folders)."""
    cdir = Path(condition_dir)
    out = []
    for p in sorted(cdir.rglob("traj.json")):
        rel = p.relative_to(cdir).parts
        if rel and rel[0] in SKIP_DIRS:
            continue
        out.append(p)
    return out


def load_condition(
    condition_dir: str | Path,
    instances: Iterable[Mapping[str, Any]] | str | Path | None = None,
    *,
    coverage_high: float,
    coverage_mid: float,
    indexes: Iterable[str | Path] | None = None,
) -> list[dict[str, Any]]:
    """Rows of one condition. With `instances`, each listed instance must have a run
    folder with traj.json; every problem is collected and raised together, by name.
    `indexes`: index databases (results/index/<repo>@<sha>.sqlite) holding each instance's
    repo@base_commit, for the symbol level of the retrieval columns (None: left empty)."""
    cdir = Path(condition_dir)
    rows_by_id = instance_rows(instances)
    problems: list[str] = []
    if not cdir.is_dir():
        raise AnalysisInputError([f"{cdir}: condition folder missing"])
    runs = {p: ResultsLayout.parse_run_subdir(cdir, p) for p in condition_traj_paths(cdir)}
    seen = {iid for iid, _ in runs.values()}
    for iid in rows_by_id:
        if iid not in seen:
            problems.append(f"{run_path(cdir, iid, 0, 'traj.json')}: missing")
    rows = []
    shelf = IndexShelf(indexes)
    try:
        for p, (iid, repeat) in runs.items():
            instance = rows_by_id.get(iid, {"instance_id": iid})
            row = run_row(p, eval_path(cdir, iid, repeat), instance.get("patch"), coverage_high=coverage_high,
                          coverage_mid=coverage_mid, problems=problems,
                          index_for=lambda instance=instance: shelf.for_row(instance, problems))
            if row is not None:
                rows.append(row)
    finally:
        shelf.close()
    if problems:
        raise AnalysisInputError(problems)
    return rows


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def retrieval_means(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    """Each retrieval column's mean over the runs where it is defined (every run, valid or not:
    the retrieval does not depend on the grading environment)."""
    return {c: _mean([r[c] for r in rows if r.get(c) is not None]) for c in RETRIEVAL_COLUMNS}


def mark_valid(rows: list[dict[str, Any]], validation: Mapping[str, Any] | None, source: str) -> dict[str, str]:
    """Set each row's `valid` from a validation report; returns {invalid id: reason}. An
    instance the report does not cover is an error naming it (it was never validated)."""
    if validation is None:
        return {}
    graded_by = sorted({r["harness"] for r in rows if r.get("harness")} - {validation.get("harness")})
    if graded_by:
        raise AnalysisInputError([f"{source}: validates harness {validation.get('harness')}, but runs were graded by {', '.join(graded_by)}"])
    covered = validation.get("instances") or {}
    missing = sorted({r["instance_id"] for r in rows} - set(covered))
    if missing:
        raise AnalysisInputError([f"{source}: instance {iid} was not validated" for iid in missing])
    invalid = dict(validation.get("invalid") or {})
    for r in rows:
        r["valid"] = r["instance_id"] not in invalid
    return {iid: invalid[iid] for iid in sorted({r["instance_id"] for r in rows} & set(invalid))}


def condition_summary(
    condition_dir: str | Path,
    instances: Iterable[Mapping[str, Any]] | str | Path | None = None,
    *,
    coverage_high: float,
    coverage_mid: float,
    validation: Mapping[str, Any] | str | Path | None = None,
    indexes: Iterable[str | Path] | None = None,
) -> dict[str, Any]:
    """summary.json of one condition: n, resolved and accuracy over the valid runs, the
    invalid instances, tokens and cost, infra failures, backend, the mean retrieval
    precision and recall (None for an agent that records no retrieved context) and the
    per-run rows. `validation`: the environment validation report (or its path); None
    counts every run. `indexes`: as for load_condition."""
    cdir = Path(condition_dir)
    rows = load_condition(cdir, instances, coverage_high=coverage_high, coverage_mid=coverage_mid, indexes=indexes)
    source = str(validation) if isinstance(validation, (str, Path)) else "the validation report"
    if isinstance(validation, (str, Path)):
        validation = read_validation(validation)
    invalid = mark_valid(rows, validation, source)
    scored = [r for r in rows if r["valid"]]
    if rows:
        model, agent, scope, condition = rows[0]["model"], rows[0]["agent"], rows[0]["scope"], rows[0]["condition"]
    else:
        model, agent, scope, condition = ResultsLayout.condition_key_or_none(cdir) or (None, None, None, None)
    n = len(scored)
    resolved = sum(r["resolved"] for r in scored)
    return {
        "format": SUMMARY_FORMAT,
        "condition_dir": str(cdir),
        "model": model,
        "agent": agent,
        "scope": scope,
        "condition": condition,
        "backend": sorted({r["backend"] for r in rows if r["backend"]}),
        "model_id": sorted({r["model_id"] for r in rows if r["model_id"]}),
        "n": n,
        "n_instances": len({r["instance_id"] for r in rows}),
        "repeats": sorted({r["repeat"] for r in rows}),
        "resolved": resolved,
        "accuracy": resolved / n if n else None,
        "n_runs": len(rows),
        "n_valid": len({r["instance_id"] for r in scored}),
        "n_invalid": len(invalid),
        "invalid_instances": sorted(invalid),
        "invalid_reasons": invalid,
        "validation": {k: validation.get(k) for k in ("harness", "environment")} if validation else None,
        "mean_prompt_tokens": _mean([r["prompt_tokens"] for r in rows]),
        "mean_completion_tokens": _mean([r["completion_tokens"] for r in rows]),
        "retrieval": retrieval_means(rows) if agent and records_retrieval(agent) else None,
        **spend_stats(rows),
        "infra_failures": sorted(f"{r['instance_id']}#{r['repeat']}" for r in rows if r["infra_failure"]),
        "exit_status": dict(Counter(r["exit_status"] for r in rows)),
        "rows": rows,
    }


def write_condition_summary(
    condition_dir: str | Path,
    instances: Iterable[Mapping[str, Any]] | str | Path | None,
    out_path: str | Path | None = None,
    *,
    coverage_high: float,
    coverage_mid: float,
    provenance: dict[str, Any] | None = None,
    validation: Mapping[str, Any] | str | Path | None = None,
    indexes: Iterable[str | Path] | None = None,
) -> dict[str, Any]:
    summary = condition_summary(
        condition_dir, instances, coverage_high=coverage_high, coverage_mid=coverage_mid, validation=validation,
        indexes=indexes,
    )
    if provenance:
        summary["provenance"] = provenance
    write_json_atomic(out_path or Path(condition_dir) / "summary.json", summary)
    return summary


def read_summaries(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """Condition summaries by path; a missing/corrupt one is an error naming it."""
    problems: list[str] = []
    out = []
    for p in paths:
        p = Path(p)
        data = _read_json(p, problems)
        if data is None:
            continue
        if not isinstance(data, dict) or data.get("format") != SUMMARY_FORMAT or "rows" not in data:
            problems.append(f"{p}: not a condition summary ({SUMMARY_FORMAT})")
            continue
        out.append(data)
    if problems:
        raise AnalysisInputError(problems)
    return out


def rows_frame(rows: list[dict[str, Any]]):
    """Rows -> polars DataFrame of the scalar columns (actions and usage pairs stay out)."""
    import polars as pl  # here: a condition's summary job reads and writes no DataFrame

    schema = {
        "model": pl.String,
        "model_id": pl.String,
        "backend": pl.String,
        "agent": pl.String,
        "scope": pl.String,
        "condition": pl.String,
        "instance_id": pl.String,
        "repeat": pl.Int64,
        "exit_status": pl.String,
        "resolved": pl.Boolean,
        "patch_applied": pl.Boolean,
        "infra_failure": pl.Boolean,
        "harness": pl.String,
        "prompt_tokens": pl.Int64,
        "cached_prompt_tokens": pl.Int64,
        "completion_tokens": pl.Int64,
        "calls": pl.Int64,
        "cost": pl.Float64,
        "valid": pl.Boolean,
        "format_errors": pl.Int64,
        "image_pages": pl.Int64,
        "n_steps": pl.Int64,
        "evidence_coverage": pl.Float64,
        "coverage_bucket": pl.String,
        **{c: pl.Float64 for c in RETRIEVAL_COLUMNS},
        **{f"{ph}_{kind}_tokens": pl.Int64 for ph in PHASES for kind in ("prompt", "completion")},
    }
    data = {k: [r.get(k) for r in rows] for k in schema}
    data["valid"] = [r.get("valid", True) for r in rows]  # summaries written before validation
    return pl.DataFrame(data, schema=schema)


def load_runs(
    results_dir: str | Path,
    model: str | None = None,
    instances: Iterable[Mapping[str, Any]] | str | Path | None = None,
    *,
    coverage_high: float,
    coverage_mid: float,
):
    """All condition folders of a model (or all models) as one DataFrame, one row per
    instance x condition x repeat. Problems of every folder are raised together."""
    rows_by_id = instance_rows(instances)
    problems: list[str] = []
    rows: list[dict[str, Any]] = []
    layout = ResultsLayout(str(results_dir))
    for cdir in map(layout.condition_dir, layout.condition_dirs(model)):
        try:
            rows.extend(load_condition(cdir, rows_by_id or None, coverage_high=coverage_high, coverage_mid=coverage_mid))
        except AnalysisInputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise AnalysisInputError(problems)
    return rows_frame(rows)
