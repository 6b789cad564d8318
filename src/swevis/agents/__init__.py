"""The three agents (mini, PLB, LET) and what they share: the model adapter for mini-swe-agent's
loop, the observation pipeline (text or rendered code), tools, environments, trajectories.

Import the modules themselves (swevis.agents.runner.run_instance, ...): this package file only
quiets mini-swe-agent, so the Snakefile's light helpers (agents.settings) do not load the
agents, mini-swe-agent and polars (0.8 s at every Snakemake start, every cluster job too).
"""

import os

os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")  # before mini-swe-agent's first import: no banner
