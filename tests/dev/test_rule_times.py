"""swevis_dev.rule_times (benchmarks/bench_rules.py): per-rule CPU and wall seconds from
one run's benchmark files."""

import json
import os
from datetime import datetime

from swevis_dev import rule_times

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _job(results, rel, wall, cpu, ended):
    path = results / "logs" / "benchmarks" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{wall}\t0:00:00\t100.0\t200.0\t90.0\t95.0\t0.1\t0.2\t50.0\t{cpu}\n")
    os.utime(path, (ended, ended))


def test_rules_are_summed_sorted_by_cpu_and_the_span_is_measured(tmp_path, capsys):
    results = tmp_path / "results"
    _job(results, "single_read_ocr/qwen3.5.tsv", 120.0, 110.0, 1_000_300)
    _job(results, "single_read_ocr/kimi-k2.5.tsv", 100.0, 95.5, 1_000_280)
    _job(results, "run_agent/q/plb-normal-text/a.tsv", 4.0, 3.0, 1_000_010)
    _job(results, "tables.tsv", 2.0, "NA", 1_000_400)  # Snakemake's NA: a job too short to sample
    rows = rule_times.per_rule(rule_times.read_jobs(results))
    assert [r["rule"] for r in rows] == ["single_read_ocr", "run_agent", "tables"]
    assert rows[0] == {"rule": "single_read_ocr", "jobs": 2, "wall_s": 220.0, "wall_max_s": 120.0, "cpu_s": 205.5}
    assert rows[2]["cpu_s"] == 0.0
    # first start: the run_agent job, ended 1_000_010 after 4 s; last end: tables at 1_000_400
    assert rule_times.run_span(rule_times.read_jobs(results)) == 1_000_400 - 1_000_006
    assert rule_times.main([str(results), "--json", str(tmp_path / "out.json")]) == 0
    out = capsys.readouterr().out
    assert "| single_read_ocr | " in out and "|    2 |   206 |" in out and "run span" in out
    assert out.index("single_read_ocr") < out.index("run_agent") < out.index("| total")
    assert json.loads((tmp_path / "out.json").read_text())["run_span_s"] == 394
    since = datetime.fromtimestamp(1_000_200).isoformat()  # local time, as --since reads it
    assert rule_times.main([str(results), "--since", since]) == 0
    assert "run_agent" not in capsys.readouterr().out  # ended before --since: another run's


def test_a_folder_without_benchmarks_is_a_one_line_error(tmp_path, capsys):
    assert rule_times.main([str(tmp_path)]) == 2
    assert "no benchmark files" in capsys.readouterr().err
    (tmp_path / "logs" / "benchmarks").mkdir(parents=True)
    assert rule_times.main([str(tmp_path), "--since", "yesterday"]) == 2
