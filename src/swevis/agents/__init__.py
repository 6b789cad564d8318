"""The three agents (mini, PLB, LET) and what they share: the model adapter for mini-swe-agent's
loop, the observation pipeline (text or rendered code), tools, environments, trajectories."""

import os

os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")  # before mini-swe-agent's first import: no banner


from swevis.agents.actions import ACTION_CLASSES, CodeRead, classify_action, detect_code_read  # noqa: E402
from swevis.agents.runner import RunSpec, prelocalize, run_instance  # noqa: E402

__all__ = ["ACTION_CLASSES", "CodeRead", "RunSpec", "classify_action", "detect_code_read", "prelocalize", "run_instance"]
