"""Where commands run and in what image: the local and Docker environments the agents use
(environments), the instance images and their names (images, specs), `swevis images` (cli).
Agents and harness both import it; it imports neither.

This package file imports nothing, so the Snakefile can ask resolved_environment without
loading mini-swe-agent or the docker SDK.
"""

from __future__ import annotations


def resolved_environment(kind: str, live_model: bool) -> str:
    """Where a run's commands go (agents.environment): `auto` is docker for a live model, whose
    commands must not reach this host unasked, and local for the playback backend, which
    plays back known commands and must run without any engine. Decided by the config alone (no
    probe of the engine), so a rerun, its journal and its provenance name the same one."""
    if kind == "auto":
        return "docker" if live_model else "local"
    return kind
