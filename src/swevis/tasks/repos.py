"""Repository mirrors (one bare mirror per repo, in a cache folder) and per-instance checkouts.

Remote clones run with no terminal prompts, a stall limit (git's http.lowSpeedLimit/Time),
an SSH connect timeout and a hard wall-clock limit, so an unreachable remote fails with a
clear error within seconds instead of hanging a workflow job.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from swevis.errors import RemoteUnreachable, RepoError
from swevis.paths import portable, repo_slug
from swevis.tasks import bundled

log = logging.getLogger(__name__)

# git's messages (and libcurl's, ssh's) for a remote it could not reach or that stopped
# answering. A remote that answers "not found" or refuses the credentials is the user's to fix.
NETWORK_FAILURE = re.compile(
    r"could not resolve|failed to connect|connection (refused|reset|timed out|closed)|timed out|"
    r"operation too slow|network is unreachable|no route to host|early eof|rpc failed|"
    r"unexpected disconnect|the remote end hung up|ssl|gnutls|temporary failure",
    re.I,
)


def _git_env(stall_timeout_s: int) -> dict[str, str]:
    return {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "true",
        "GIT_SSH_COMMAND": f"ssh -o BatchMode=yes -o ConnectTimeout={min(stall_timeout_s, 30)}",
        "GIT_HTTP_LOW_SPEED_LIMIT": "1000",
        "GIT_HTTP_LOW_SPEED_TIME": str(stall_timeout_s),
    }


def run_git(args: list[str], cwd: Path | None = None, timeout: float = 600, stall_timeout_s: int = 60) -> str:
    """Run git; a failure becomes a RepoError that quotes git's own message, a timeout or a
    network failure a RemoteUnreachable (an InfrastructureError: the next run retries it)."""
    try:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, env=_git_env(stall_timeout_s), capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise RemoteUnreachable(f"git {' '.join(args[:2])} did not finish within {timeout:.0f} s") from None
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-4:])
        error = RemoteUnreachable if NETWORK_FAILURE.search(tail) else RepoError
        raise error(f"git {' '.join(args[:3])} failed: {tail}")
    return proc.stdout.strip()


def has_commit(git_dir: Path, sha: str) -> bool:
    proc = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "-e", f"{sha}^{{commit}}"], capture_output=True
    )
    return proc.returncode == 0


MANIFEST_PATHS = ("mirror", "path")  # the keys of mirror and checkout manifests that name a folder


def portable_manifest(manifest: dict[str, Any]) -> dict[str, Any]:
    """`manifest` as written to results/: its folders as swevis.paths.portable records them."""
    return {k: portable(v) if k in MANIFEST_PATHS else v for k, v in manifest.items()}


def read_manifest(path: str | Path) -> dict[str, Any]:
    """A mirror or checkout manifest with its folders absolute (relative ones are the working directory's)."""
    with open(path) as fh:
        manifest = json.load(fh)
    for key in MANIFEST_PATHS:
        if key in manifest:
            manifest[key] = str(Path(manifest[key]).resolve())
    return manifest


def mirrors_by_repo(manifest_paths: list[str]) -> dict[str, str]:
    """{repo: mirror path} from the mirror manifests mirror_repo wrote (the harnesses' input)."""
    mirrors = {}
    for path in manifest_paths:
        manifest = read_manifest(path)
        mirrors[manifest["repo"]] = manifest["mirror"]
    return mirrors


def mirror_path(repo: str, cache_dir: str | Path) -> Path:
    return Path(cache_dir).resolve() / f"{repo_slug(repo)}.git"


def ensure_mirror(
    repo: str,
    cache_dir: str | Path,
    *,
    commits: list[str] = (),
    remote_url: str = "https://github.com/{repo}.git",
    clone_timeout_s: int = 3600,
    stall_timeout_s: int = 60,
) -> dict[str, Any]:
    """Make sure the bare mirror of `repo` exists and holds `commits`; returns its manifest."""
    mirror = mirror_path(repo, cache_dir)
    if bundled.is_bundled(repo):
        # the package's own folder, named without this host's install location
        url = "swevis/" + bundled.repo_tree(repo).relative_to(bundled.SAMPLE_DIR.parents[1]).as_posix()
        if not mirror.exists() or not all(has_commit(mirror, c) for c in commits):
            log.info("building bundled mirror %s from %s", mirror, url)
            bundled.build_bundled_mirror(repo, mirror)
    else:
        url = remote_url.format(repo=repo)
        timeout_args = dict(timeout=clone_timeout_s, stall_timeout_s=stall_timeout_s)
        if not mirror.exists():
            log.info("cloning %s into %s", url, mirror)
            partial = mirror.with_name(mirror.name + ".partial")
            shutil.rmtree(partial, ignore_errors=True)
            mirror.parent.mkdir(parents=True, exist_ok=True)
            try:
                run_git(["clone", "--mirror", "--quiet", url, str(partial)], **timeout_args)
            except RepoError as exc:
                shutil.rmtree(partial, ignore_errors=True)
                raise type(exc)(f"cannot mirror {repo} from {url}: {exc}") from None
            partial.rename(mirror)
        else:
            fetch_commits(mirror, commits, **timeout_args)
    missing = [c for c in commits if not has_commit(mirror, c)]
    if missing:
        raise RepoError(f"mirror {mirror} of {repo} lacks commit(s) {', '.join(missing)}")
    return {"repo": repo, "url": url, "mirror": str(mirror), "commits": sorted(set(commits))}


def fetch_commits(mirror: str | Path, commits: list[str], *, timeout: float = 3600, stall_timeout_s: int = 60) -> None:
    """Update an existing mirror from its remote when it lacks one of `commits` (a commit
    sampled after the mirror was made: each checkout job asks for its own), one update at a
    time per mirror. The lock is a file lock (fcntl) because git's own ref locks make a
    second concurrent `remote update` fail instead of waiting."""
    mirror = Path(mirror)
    if all(has_commit(mirror, c) for c in commits):
        return
    with open(mirror.with_name(mirror.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if all(has_commit(mirror, c) for c in commits):  # another job fetched them meanwhile
            return
        url = run_git(["--git-dir", str(mirror), "config", "--get", "remote.origin.url"])
        log.info("fetching %s into %s", url, mirror)
        try:
            run_git(["--git-dir", str(mirror), "remote", "update", "--prune"], timeout=timeout, stall_timeout_s=stall_timeout_s)
        except RepoError as exc:
            raise type(exc)(f"cannot update the mirror {mirror} from {url}: {exc}") from None
    missing = [c for c in commits if not has_commit(mirror, c)]
    if missing:
        raise RepoError(f"mirror {mirror} lacks commit(s) {', '.join(missing)} after an update from its remote")


def checkout(mirror: str | Path, base_commit: str, dest: str | Path) -> Path:
    """A working tree of `mirror` at `base_commit` in `dest` (reused if already there and clean).

    Uses `git clone --shared`, so a checkout costs only its working files.
    """
    mirror, dest = Path(mirror), Path(dest)
    if dest.exists():
        try:
            head = run_git(["rev-parse", "HEAD"], cwd=dest)
            dirty = run_git(["status", "--porcelain", "--untracked-files=no"], cwd=dest)
            if head == base_commit and not dirty:
                return dest
        except RepoError:
            pass
        log.info("replacing stale checkout %s", dest)
        shutil.rmtree(dest)
    partial = dest.with_name(dest.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        run_git(["clone", "--quiet", "--shared", "--no-checkout", str(mirror), str(partial)])
        # git writes the mirror's objects as an absolute path; relative, the cache folder moves whole
        alternates = partial / ".git" / "objects" / "info" / "alternates"
        borrowed = Path(alternates.read_text().strip()).resolve()
        alternates.write_text(os.path.relpath(borrowed, dest.resolve() / ".git" / "objects") + "\n")
        run_git(["-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", base_commit], cwd=partial)
    except RepoError:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    partial.rename(dest)
    return dest


def checkout_instance(row: dict[str, Any], mirror: str | Path, checkout_root: str | Path) -> dict[str, Any]:
    """The pristine checkout of one instance; returns its manifest."""
    dest = Path(checkout_root).resolve() / row["instance_id"]
    checkout(mirror, row["base_commit"], dest)
    return {
        "instance_id": row["instance_id"],
        "repo": row["repo"],
        "base_commit": row["base_commit"],
        "path": str(dest),
        "mirror": str(Path(mirror).resolve()),
    }
