"""benchmarks/ranking_probes.py (swevis_dev.ranking_probes_cli): a bad argument or input is one
line on stderr and exit 2, before any case is read. That the probes run on what `swevis devset
measure` stored is tests/localize/test_devset_measure.py's (it builds a development set)."""

from __future__ import annotations

from pathlib import Path

import pytest

from swevis_dev.ranking_probes_cli import main

ROOT = Path(__file__).resolve().parents[2]
CONFIG = str(ROOT / "config.yaml")


@pytest.fixture
def paths(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "file.txt").write_text("a plain file\n")
    (tmp_path / "bad.yaml").write_text("tasks: [\n")
    return {"folder": str(tmp_path), "file": str(tmp_path / "file.txt"), "missing": str(tmp_path / "missing"),
            "bad_yaml": str(tmp_path / "bad.yaml")}


@pytest.mark.parametrize("argv, fragment", [
    (["--config", "{bad_yaml}"], "not valid YAML"),
    (["--config", CONFIG, "--out", "{missing}"], "work folder"),
    (["--config", CONFIG, "--out", "{folder}", "--mirrors", "{file}"], "is not a folder"),
    (["--probes", "magic"], "invalid choice: 'magic'"),
    (["--dense-every", "0"], "must be a positive integer"),
])
def test_a_bad_input_is_one_line_and_exit_2(argv, fragment, paths, capsys):
    assert main([a.format(**paths) for a in argv]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and fragment in err and "Traceback" not in err, err
    assert out == ""


def test_help_exits_0(capsys):
    assert main(["--help"]) == 0 and "--probes" in capsys.readouterr().out
