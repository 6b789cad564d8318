"""What swebench needs to make a test spec, offline: specs for the bundled repositories, and
the files it would fetch from GitHub served from our mirrors.

swebench 4 builds every instance's test spec (also when the images are prebuilt) with its
environment script, and for many repositories that script reads requirements.txt or
environment.yml from raw.githubusercontent.com at the instance's environment_setup_commit
(pallets/flask, for one): a cluster with prebuilt images and no network could not grade.
Those files are in the repository's history, which the workflow mirrors before any
grading, so `offline_spec_files` swaps only swebench's transport (its `requests` name) for a
reader of the mirror; swebench's own logic (which paths, `-r` includes, replacements) is
unchanged. A request for a repository without a mirror is an InfrastructureError, never a
silent trip to the network.
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlparse

from swebench.harness.constants import MAP_REPO_TO_EXT, MAP_REPO_VERSION_TO_SPECS
from swebench.harness.log_parsers import MAP_REPO_TO_PARSER
from swebench.harness.log_parsers.python import parse_log_pytest
from swebench.harness.test_spec import python as swebench_python

from swevis.errors import InfrastructureError
from swevis.tasks.bundled import is_bundled

log = logging.getLogger(__name__)

# The bundled repositories' spec, as swebench's MAP_REPO_VERSION_TO_SPECS holds one per
# repository and version: their whole suite (the instances' FAIL_TO_PASS/PASS_TO_PASS span
# more files than their test_patch touches; pytest drops the files swebench appends again).
BUNDLED_SPEC = {"python": "3.11", "test_cmd": "python -m pytest -rA -p no:cacheprovider tests"}


def register_bundled_specs(rows: list[dict[str, Any]]) -> None:
    """Teach this process's swebench the bundled repositories of `rows` (spec, parser, language)."""
    for row in rows:
        if is_bundled(row["repo"]):
            MAP_REPO_VERSION_TO_SPECS.setdefault(row["repo"], {})[row["version"]] = dict(BUNDLED_SPEC)
            MAP_REPO_TO_PARSER[row["repo"]] = parse_log_pytest
            MAP_REPO_TO_EXT[row["repo"]] = "py"


@dataclass
class _Response:
    """The part of requests.Response swebench's spec code reads."""

    status_code: int
    text: str


class MirrorFiles:
    """A stand-in for the `requests` module in swebench's spec code: GET of a raw GitHub URL
    (`<raw>/<owner>/<name>/<commit>/<path>`) answered from the repository's mirror."""

    def __init__(self, mirrors: dict[str, str]):
        self.mirrors = mirrors
        self.served: list[str] = []

    def get(self, url: str, headers: Any = None, **_: Any) -> _Response:
        parts = urlparse(url).path.strip("/").split("/", 3)
        if len(parts) < 4:
            raise InfrastructureError(f"swebench asked for {url}, which is no repository file")
        repo, commit, path = "/".join(parts[:2]), parts[2], parts[3]
        mirror = self.mirrors.get(repo)
        if mirror is None:
            raise InfrastructureError(f"swebench needs {path} of {repo}, which has no mirror here (offline grading)")
        proc = subprocess.run(
            ["git", "--git-dir", str(mirror), "show", f"{commit}:{path}"], capture_output=True, text=True
        )
        if proc.returncode != 0:  # swebench tries several paths and takes the one that exists
            return _Response(404, "")
        self.served.append(f"{repo}@{commit[:12]}:{path}")
        return _Response(200, proc.stdout)


@contextlib.contextmanager
def offline_spec_files(mirrors: dict[str, str | Path]) -> Iterator[MirrorFiles]:
    """While open, swebench's test-spec code reads repository files from `mirrors`."""
    files = MirrorFiles({repo: str(path) for repo, path in mirrors.items()})
    original = swebench_python.requests
    swebench_python.requests = files
    try:
        yield files
    finally:
        swebench_python.requests = original
        if files.served:
            log.info("spec files read from mirrors: %s", ", ".join(files.served))
