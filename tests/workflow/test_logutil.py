"""Script adapters log a user error as one line and exit 2 (no traceback in the rule's log)."""

from pathlib import Path

import pytest

from swevis.config import ConfigError
from swevis.logutil import script_logging


def test_a_user_error_in_a_script_is_one_line_and_exit_2(tmp_path: Path):
    log = tmp_path / "rule.log"
    with pytest.raises(SystemExit) as stop:
        with script_logging(log):
            raise ConfigError("config key 'agents/environment': no such environment\n  (second line)")
    assert stop.value.code == 2
    lines = log.read_text().strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in log.read_text()
    assert lines[0].endswith("error: config key 'agents/environment': no such environment (second line)")
