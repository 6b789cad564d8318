"""Git for the development set: bare clones of the repositories, files at a commit, and work
trees moved along history.

Every repository is a bare clone at MIRRORS/<owner>+<name>/repo (the layout a `git clone
--bare` into that folder makes). A clone may lack its largest blobs (a snapshot that leaves
out data files); reading and laying out trees skip them instead of failing.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from pathlib import Path

from swevis.errors import SwevisError

log = logging.getLogger(__name__)


def git(git_dir: Path, *args: str) -> str:
    """stdout of `git --git-dir GIT_DIR ARGS`, or a one-line error naming the command."""
    out = subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True)
    if out.returncode != 0:
        raise SwevisError(f"git {' '.join(args[:3])} in {git_dir}: {out.stderr.decode(errors='replace').strip()}")
    return out.stdout.decode("utf-8", errors="replace")


def clone_path(mirrors: Path, folder: str) -> Path:
    """The bare clone of a repository whose mirror folder is `folder` (`<owner>+<name>`)."""
    return mirrors / folder / "repo"


def fetch_clone(remote: str, folder: str, mirrors: Path) -> Path:
    """Bring the bare clone of `folder` (`<owner>+<name>`, from REMOTE/<owner>/<name>.git) up
    to date: cloned when missing, its branches and tags fetched when present."""
    url = f"{remote.rstrip('/')}/{folder.replace('+', '/', 1)}.git"
    dest = clone_path(mirrors, folder)
    if dest.is_dir():
        git(dest, "fetch", "--quiet", "--prune", url, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*")
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name("repo.part")
    shutil.rmtree(part, ignore_errors=True)
    out = subprocess.run(["git", "clone", "--quiet", "--bare", url, str(part)], capture_output=True)
    if out.returncode != 0:
        shutil.rmtree(part, ignore_errors=True)
        raise SwevisError(f"git clone {url}: {out.stderr.decode(errors='replace').strip()[:300]}")
    part.rename(dest)  # a clone that stopped half-way is never taken for a whole one
    return dest


def blobs(git_dir: Path, commit: str, paths: list[str]) -> dict[str, list[str]]:
    """The lines of `paths` at `commit`, read from the clone in one `git cat-file --batch`
    (a path the commit or the clone lacks: no lines)."""
    req = "".join(f"{commit}:{p}\n" for p in paths).encode()
    out = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "--batch"], input=req, capture_output=True).stdout
    res, pos = {}, 0
    for p in paths:
        nl = out.index(b"\n", pos)
        header = out[pos:nl].split()
        pos = nl + 1
        if header[-1] == b"missing":
            res[p] = []
            continue
        size = int(header[2])
        res[p] = out[pos:pos + size].decode("utf-8", "replace").splitlines()
        pos += size + 1
    return res


def export_tree(git_dir: Path, commit: str, dest: Path) -> None:
    """The regular files of the tree at `commit` into `dest`, without a work tree or .git (a
    folder already holding files is left as it is). A blob the clone lacks is skipped, where
    `git archive` would fail on it."""
    if dest.is_dir() and any(dest.iterdir()):
        return
    ls = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", commit], capture_output=True)
    if ls.returncode != 0:
        raise SwevisError(f"{git_dir}: cannot list {commit}: {ls.stderr.decode(errors='replace').strip()}")
    entries = []
    for entry in ls.stdout.split(b"\0"):
        if entry:
            info, path = entry.split(b"\t", 1)
            mode, kind, sha = info.split()
            if kind == b"blob" and mode in (b"100644", b"100755"):
                entries.append((sha.decode(), path.decode(errors="replace")))
    cat = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
                         input="".join(f"{sha}\n" for sha, _ in entries).encode(), capture_output=True)
    out, pos = cat.stdout, 0
    for _sha, path in entries:
        nl = out.index(b"\n", pos)
        header = out[pos:nl].split()
        pos = nl + 1
        if header[-1] == b"missing":
            continue
        size = int(header[2])
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(out[pos:pos + size])
        pos += size + 1


def move_work_tree(git_dir: Path, work: Path, commit: str) -> None:
    """Make `work` the tree of `commit`: git writes only the files that differ from the last
    commit it laid there and removes those gone (its own index file beside the tree)."""
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_INDEX_FILE": str(work) + ".gitindex"}
    cmd = ["git", "--git-dir", str(git_dir), "--work-tree", str(work), "read-tree", "-u", "--reset", commit]
    out = subprocess.run(cmd, capture_output=True, env=env)
    if out.returncode != 0 and b"unable to read sha1 file" in out.stderr:
        lay_out_without_missing_blobs(git_dir, work, commit, env)
    elif out.returncode != 0:
        raise SwevisError(f"{git_dir}: cannot lay out {commit}: {out.stderr.decode(errors='replace').strip()[:300]}")


def lay_out_without_missing_blobs(git_dir: Path, work: Path, commit: str, env: dict) -> None:
    """Lay out `commit` afresh without the files whose blobs the clone lacks (a snapshot may
    leave out its largest files, data files in practice), so the rest is indexed as it is."""
    listing = git(git_dir, "ls-tree", "-r", "-z", commit).split("\0")
    tree = {e.split("\t", 1)[0].split()[2]: e.split("\t", 1)[1] for e in listing if e and " blob " in e}
    check = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "--batch-check"], capture_output=True,
                           input="\n".join(tree).encode(), check=True).stdout.decode().splitlines()
    missing = [tree[line.split()[0]] for line in check if line.endswith(" missing")]
    shutil.rmtree(work)
    work.mkdir()
    base = ["git", "--git-dir", str(git_dir), "--work-tree", str(work)]
    subprocess.run([*base, "read-tree", "--reset", commit], env=env, check=True, capture_output=True)
    subprocess.run([*base, "update-index", "--force-remove", "-z", "--stdin"], env=env, check=True,
                   input="\0".join(missing).encode(), capture_output=True)
    subprocess.run([*base, "checkout-index", "-a", "-f"], env=env, check=True, capture_output=True)
    log.warning("%s: laid out without %d files the clone lacks: %s", commit[:10], len(missing), ", ".join(missing[:3]))
