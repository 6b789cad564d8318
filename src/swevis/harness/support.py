"""Whether a harness can grade a row, asked before any checkout or Docker work.

The docker backend is swebench's harness: it builds an instance's environment and test
command from its per-repository specs (`MAP_REPO_VERSION_TO_SPECS`, in swebench 4 for
SWE-bench's Python repositories and SWE-bench Multilingual's) and reads the log with the
repository's parser (`MAP_REPO_TO_PARSER`). A row of another repository or version (a
SWE-PolyBench row, a version swebench does not list) cannot be graded there. The local
backend runs the row's own `test_cmd` (else the spec's) and its `log_parser` (else the
repository's). Either way, a row the harness cannot grade is refused up front, one line
naming the instance, the repository and what is missing.
"""

from __future__ import annotations

from typing import Any

from swevis.errors import SwevisError


class UngradableError(SwevisError):
    """A row the configured harness cannot grade (not a verdict on any patch)."""


def _swebench_maps() -> tuple[dict[str, dict[str, Any]], dict[str, Any], str]:
    # Lazy: swebench's harness takes ~2 s to import.
    import swebench
    from swebench.harness.constants import MAP_REPO_VERSION_TO_SPECS
    from swebench.harness.log_parsers import MAP_REPO_TO_PARSER

    return MAP_REPO_VERSION_TO_SPECS, MAP_REPO_TO_PARSER, swebench.__version__


def grading_gap(row: dict[str, Any], kind: str) -> str | None:
    """What the harness `kind` (docker | local) lacks to grade `row`, or None."""
    specs, parsers, version = _swebench_maps()
    repo, repo_version = row["repo"], row.get("version", "")
    spec = specs.get(repo, {}).get(repo_version)
    if kind == "docker":
        if repo not in specs:
            return f"swebench {version} has no specs for the repository (MAP_REPO_VERSION_TO_SPECS)"
        if spec is None:
            known = ", ".join(sorted(specs[repo])[:8])
            return f"swebench {version} has no spec for version {repo_version!r} (it knows {known})"
        if repo not in parsers:
            return f"swebench {version} has no log parser for the repository (MAP_REPO_TO_PARSER)"
        return None
    if not row.get("test_cmd") and spec is None:
        return f"no test_cmd in the row and swebench {version} has no spec for version {repo_version!r}"
    if not row.get("log_parser") and repo not in parsers:
        return f"no log_parser in the row and swebench {version} has no log parser for the repository"
    return None


# rows check_gradable passed without importing swebench, whose bundled repositories are
# registered with it when a patch is first graded (register_deferred_specs)
_DEFERRED: list[dict[str, Any]] = []


def check_gradable(rows: list[dict[str, Any]], kind: str) -> None:
    """Refuse the first row the harness `kind` cannot grade, naming it and what is missing.

    The bundled repositories are registered with swebench first (swevis.sandbox.specs), as
    the docker backend does before it grades them. Rows the local harness grades with their
    own test_cmd and log_parser need no swebench map to pass: their registration waits until
    a patch is graded (importing swebench costs ~2 s, and a condition whose every patch is in
    the evaluation cache grades none)."""
    if kind == "local" and all(row.get("test_cmd") and row.get("log_parser") for row in rows):
        _DEFERRED.extend(rows)
        return
    from swevis.sandbox.specs import register_bundled_specs  # imports swebench (~2 s)

    register_bundled_specs(rows)
    for row in rows:
        gap = grading_gap(row, kind)
        if gap is not None:
            hint = "" if kind == "local" else "; harness.kind local grades a row that gives test_cmd and log_parser"
            raise UngradableError(f"instance {row['instance_id']} ({row['repo']}): the {kind} harness cannot grade it: {gap}{hint}")


def register_deferred_specs() -> None:
    """Register the rows check_gradable deferred with swebench (the local runner calls this
    before it reads swebench's maps to grade a patch)."""
    if _DEFERRED:
        from swevis.sandbox.specs import register_bundled_specs  # imports swebench (~2 s)

        register_bundled_specs(_DEFERRED)
        _DEFERRED.clear()
