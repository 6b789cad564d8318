"""Grade every run of one condition: the one entry point, with the backend (harness.kind) as a
parameter. docker is the official SWE-bench harness in the instance images (swevis.harness.docker),
local the same grading on a throwaway checkout here (swevis.harness.local); both write the
same records (swevis.harness.records) into the condition's harness/ folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from swevis.harness.local import evaluate_condition_local
from swevis.harness.support import check_gradable
from swevis.paths import ConditionKey


def evaluate_condition(
    condition_dir: str | Path,
    rows: list[dict[str, Any]],
    key: ConditionKey,
    *,
    settings: dict[str, Any],
    mirrors: dict[str, str],
    repeats: int = 1,
    client_factory: Callable[[], Any] | None = None,
) -> dict[str, Any]:
    """The harness summary of one condition graded by `settings["kind"]` (the validated
    harness section); `mirrors` maps repo -> bare mirror. A row the backend cannot grade is
    refused before any checkout or container (swevis.harness.support)."""
    check_gradable(rows, settings["kind"])
    if settings["kind"] == "docker":
        # imported here: the Docker SDK is a slow import that a local grading job never uses
        from swevis.harness.docker import evaluate_condition_docker

        return evaluate_condition_docker(
            condition_dir, rows, model=key.model, agent=key.agent, scope=key.scope, condition=key.condition,
            settings=settings, client_factory=client_factory, repeats=repeats, mirrors=mirrors,
        )
    return evaluate_condition_local(condition_dir, rows, mirrors, settings=settings, repeats=repeats)
