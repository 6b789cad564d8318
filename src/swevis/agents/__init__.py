"""The agents and what they share, one folder a concern: `builtin` (mini, PLB, LET,
Prometheus), `tools`, `mechanisms` (memory, reproduction, verification, candidates,
regression), `observation` (what an agent is shown) and `run` (one trajectory, start to
traj.json); the registry, the settings and the prompt templates sit at the top.

Import the modules themselves (swevis.agents.run.runner.run_instance, ...): this package file only
quiets mini-swe-agent, so the Snakefile's light helpers (agents.settings) do not load the
agents, mini-swe-agent and polars (0.8 s at every Snakemake start, every cluster job too).
"""

import os

os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")  # before mini-swe-agent's first import: no banner
