"""No .env file reaches a swevis process (swevis/__init__.py): importing mini-swe-agent loads
~/.config/mini-swe-agent/.env and swebench's harness loads the first .env it finds (from the
working directory under `python -c`, else from its install folder upwards), and either would
put variables into the environment a run reads: an API key, or MSWEA_DOCKER_EXECUTABLE, the
program mini-swe-agent's Docker environment (swevis's agent containers) runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # two fresh interpreters importing mini-swe-agent and swebench

PROBE = """
import json, os
{imports}
from minisweagent.environments.docker import DockerEnvironmentConfig
print(json.dumps({{"home": os.environ.get("SWEVIS_DOTENV_HOME"), "cwd": os.environ.get("SWEVIS_DOTENV_CWD"),
                  "docker": DockerEnvironmentConfig(image="x").executable}}))
"""


def _seen(tmp_path, imports: str) -> dict:
    """What a fresh interpreter that runs `imports` sees, with a .env in its HOME's
    mini-swe-agent folder and one in its working directory."""
    home, work = tmp_path / "home", tmp_path / "work"
    (home / ".config" / "mini-swe-agent").mkdir(parents=True, exist_ok=True)
    (home / ".config" / "mini-swe-agent" / ".env").write_text(
        "SWEVIS_DOTENV_HOME=read\nMSWEA_DOCKER_EXECUTABLE=/bin/false\n")
    work.mkdir(exist_ok=True)
    (work / ".env").write_text("SWEVIS_DOTENV_CWD=read\n")
    unset = {"XDG_CONFIG_HOME", "MSWEA_GLOBAL_CONFIG_DIR", "PYTHON_DOTENV_DISABLED", "MSWEA_DOCKER_EXECUTABLE"}
    env = {k: v for k, v in os.environ.items() if k not in unset} | {"HOME": str(home), "MSWEA_SILENT_STARTUP": "1"}
    proc = subprocess.run([sys.executable, "-c", PROBE.format(imports=imports)], cwd=work, env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def test_no_env_file_reaches_an_agent_or_evaluation_process(tmp_path):
    seen = _seen(tmp_path, "import swevis.agents.run.runner, swevis.harness.local, swevis.sandbox.specs")
    assert seen == {"home": None, "cwd": None, "docker": "docker"}


def test_without_swevis_first_both_env_files_are_read(tmp_path):
    """The probe above can fail: the same imports without swevis read both files."""
    seen = _seen(tmp_path, "import minisweagent, swebench.harness.utils")
    assert seen == {"home": "read", "cwd": "read", "docker": "/bin/false"}
