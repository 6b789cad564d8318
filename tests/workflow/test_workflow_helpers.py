import inspect
from pathlib import Path

import pytest
from snakemake.common import get_function_params

from swevis.config import section, validate_config
from swevis.paths import ResultsLayout
from swevis.workflow import SampleIndex, agent_param_sets, missing_inputs_token, signature_once


def test_token_changes_once_per_deletion(tmp_path: Path):
    ledger, out, a, b = (tmp_path / n for n in ("ledger.json", "table.csv", "a.json", "b.json"))
    inputs = [str(a), str(b)]
    # nothing built yet: no outputs, nothing to trigger
    assert missing_inputs_token(ledger, [str(out)], inputs) == 0
    a.write_text("{}"), b.write_text("{}"), out.write_text("t")
    assert missing_inputs_token(ledger, [str(out)], inputs) == 0
    a.unlink()
    first = missing_inputs_token(ledger, [str(out)], inputs)
    assert first == 1
    # the same state (a dry run, then the real run) keeps the same token
    assert missing_inputs_token(ledger, [str(out)], inputs) == 1
    # after the rebuild: inputs back, outputs newer -> unchanged, so nothing reruns
    a.write_text("{}"), out.write_text("t2")
    assert missing_inputs_token(ledger, [str(out)], inputs) == 1
    # a later deletion is a new event
    import os
    os.utime(out, (10**9, 2 * 10**9))
    b.unlink()
    assert missing_inputs_token(ledger, [str(out)], inputs) == 2


def test_corrupt_ledger_starts_over(tmp_path: Path):
    ledger = tmp_path / "ledger.json"
    ledger.write_text("{oops")
    assert missing_inputs_token(ledger, [], []) == 0


def test_a_dry_run_sees_the_token_the_real_run_records_and_writes_nothing(tmp_path: Path):
    ledger, out, a = (tmp_path / n for n in ("ledger.json", "table.csv", "a.json"))
    out.write_text("t")
    assert missing_inputs_token(ledger, [str(out)], [str(a)], record=False) == 1
    assert not ledger.exists()  # undoing the change previewed leaves nothing to rerun
    assert missing_inputs_token(ledger, [str(out)], [str(a)]) == 1
    assert missing_inputs_token(ledger, [str(out)], [str(a)], record=False) == 1


def test_inputs_are_listed_only_behind_an_existing_output(tmp_path: Path):
    ledger, out, a = (tmp_path / n for n in ("ledger.json", "runs.json", "a.json"))
    listed = []

    def inputs():
        listed.append(True)
        yield str(a)

    # nothing built: the run files are never listed (a fresh study's DAG has thousands)
    assert missing_inputs_token(ledger, [str(out)], inputs()) == 0
    assert listed == []
    out.write_text("{}")
    assert missing_inputs_token(ledger, [str(out)], inputs()) == 1
    assert listed == [True]


def _row(iid: str, repo: str, sha: str) -> dict:
    return {"instance_id": iid, "repo": repo, "base_commit": sha}


def test_sample_index_derives_each_instance_path_once():
    layout = ResultsLayout("results")
    rows = [_row("a__x-1", "a/x", "1" * 40), _row("a__x-2", "a/x", "1" * 40), _row("b__y-3", "b/y", "2" * 40)]
    sample = SampleIndex(rows, layout, "results/instances.jsonl")
    assert list(sample.rows) == ["a__x-1", "a__x-2", "b__y-3"]
    assert sample.mirror["a__x-2"] == layout.mirror_manifest("a__x")
    assert sample.index["b__y-3"] == layout.index_db("b__y", "2" * 40)
    assert sample.mirrors == sorted({layout.mirror_manifest("a__x"), layout.mirror_manifest("b__y")})
    assert sample.index_dbs == sorted({layout.index_db("a__x", "1" * 40), layout.index_db("b__y", "2" * 40)})
    # an index is built from the checkout of the first instance at its repo@commit
    assert sample.index_checkout[("a__x", "1" * 40)] == layout.checkout_manifest("a__x-1")
    # ... by id, not by file order; and what the per-instance and per-repo rules take as params
    assert SampleIndex(rows[::-1], layout, "x").index_checkout == sample.index_checkout
    assert sample.base["b__y-3"] == "b/y@" + "2" * 40
    assert len({sample.digest[i] for i in sample.rows}) == 3
    assert SampleIndex([{**rows[0], "problem_statement": "other"}], layout, "x").digest["a__x-1"] != sample.digest["a__x-1"]
    # a fix to what only grading reads reruns no agent
    regraded = {**rows[0], "FAIL_TO_PASS": ["t::x"], "test_patch": "diff", "patch": "gold"}
    assert SampleIndex([regraded], layout, "x").digest["a__x-1"] == sample.digest["a__x-1"]
    with pytest.raises(ValueError, match="instance c__z-9 is not in results/instances.jsonl"):
        sample.row("c__z-9")


def test_agent_param_sets_are_the_narrow_agents_params():
    config = validate_config({"agents": {"variants": {"let-mem": {"memory": True}},
                                         "prometheus": {"ablations": {"prometheus-nomem": {"memory": False}}}}})
    plain, variants = agent_param_sets(config)
    agents = section(config, "agents")
    # agents.pages: only the runs of a page family, its own keys (rules/common.smk agents_params)
    left_out = ("matrix", "repeats", "jobs", "variants", "memory", "ablation", "modules", "prometheus", "pages")
    assert plain == {k: v for k, v in agents.items() if k not in left_out}
    assert list(plain) == sorted(plain)  # key order never reruns anything
    prometheus = {k: v for k, v in agents["prometheus"].items() if k != "ablations"}
    assert variants == {
        "let-mem": {**plain, "variant": agents["variants"]["let-mem"], "memory": agents["memory"]},
        # an agent's own keys are its runs' params only; the ablations named inside them are not
        # (naming one reruns no Prometheus run)
        "prometheus": {**plain, "prometheus": prometheus, "memory": agents["memory"]},
        # an ablation runs with Prometheus's keys, its overrides over them
        "prometheus-nomem": {**plain, "prometheus": {**prometheus, "memory": False}, "memory": agents["memory"]},
    }
    assert variants["let-mem"]["variant"]["memory"] is True
    # each is computed once per DAG build: a job's later edit must not leak into the config
    plain["step_limit"] = -1
    variants["prometheus-nomem"]["prometheus"]["candidates"] = -1
    assert config["agents"]["step_limit"] != -1 and config["agents"]["prometheus"]["candidates"] != -1


def test_signature_once_spares_snakemake_the_inspection(monkeypatch):
    def run_index(wc):
        return wc

    decorated = signature_once(run_index)
    assert decorated is run_index
    monkeypatch.setattr(inspect, "signature", lambda f: pytest.fail("signature inspected again"))
    assert list(get_function_params(run_index)) == ["wc"]
