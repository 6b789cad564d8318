"""The README's "run the study on your endpoint" path through Snakemake: the example config
(examples/my-endpoint.yaml: its own OpenAI-compatible profile, one bundled task, a one-cell
matrix) against the scripted server on 127.0.0.1, given with --configfile. Only the user's
model may reach the tables; the embedded default's playback profiles must not."""

import re
import shutil
from pathlib import Path

import polars as pl
import pytest

from scripted_server import ScriptedServer, conversation

from helpers import PROJECT_ROOT, run_snakemake

EXAMPLE = PROJECT_ROOT / "examples" / "my-endpoint.yaml"
TURNS = [
    "THOUGHT: look.\n\n```mswea_bash_command\nls\n```",
    "THOUGHT: done.\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",
]


@pytest.mark.slow
def test_users_endpoint_config_alone_makes_table1(tmp_path: Path):
    with ScriptedServer(responder=conversation(TURNS)) as server:
        text = EXAMPLE.read_text()
        assert "base_url: http://localhost:8000/v1" in text
        (tmp_path / "my.yaml").write_text(text.replace("http://localhost:8000/v1", server.base_url))
        # as in a checkout of the project: the embedded default sits in the working directory
        shutil.copy(PROJECT_ROOT / "config.yaml", tmp_path / "config.yaml")
        # and a Table 2 of an earlier two-model study, which must not survive as current
        (tmp_path / "results").mkdir()
        (tmp_path / "results" / "table2.csv").write_text("model,backend\nkimi-k2.5,playback\n")
        proc = run_snakemake(
            tmp_path, "--configfile", str(tmp_path / "my.yaml"), "--", "results/table1.csv", env={"MY_ENDPOINT_KEY": "sk-test"}
        )
        assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
        assert len(server.chat_requests) == len(TURNS)
    table = pl.read_csv(tmp_path / "results" / "table1.csv")
    assert table["model"].to_list() == ["my-endpoint"]
    assert table["backend"].to_list() == ["openai"]
    assert table.select("agent", "scope").row(0) == ("mini", "normal")
    assert not (tmp_path / "results" / "table2.csv").exists()
    assert sorted(p.name for p in (tmp_path / "results" / "runs").iterdir()) == ["my-endpoint"]
    jobs = re.findall(r"Finished jobid: \d+ \(Rule: (\w+)\)", proc.stdout + proc.stderr)
    assert jobs.count("run_condition") == 1 and "prelocalize" not in jobs
