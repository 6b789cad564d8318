import os
import time
from pathlib import Path

import pytest

from swevis.errors import InfrastructureError, RemoteUnreachable, RepoError
from swevis.tasks.repos import checkout, checkout_instance, ensure_mirror, has_commit

from helpers import git


def test_mirror_from_a_remote_and_checkout_at_base(tmp_path: Path, toy_task):
    row, remote = toy_task["row"], toy_task["repo_dir"]
    manifest = ensure_mirror(
        row["repo"], tmp_path / "cache", commits=[row["base_commit"]], remote_url=f"file://{remote}"
    )
    mirror = Path(manifest["mirror"])
    assert mirror.name == "toyorg__toy.git" and (mirror / "HEAD").exists()
    assert has_commit(mirror, row["base_commit"])
    co = checkout_instance(row, mirror, tmp_path / "checkouts")
    assert git(Path(co["path"]), "rev-parse", "HEAD") == row["base_commit"]
    assert (Path(co["path"]) / "toy" / "calc.py").exists()
    # reused when already right, replaced when dirty
    (Path(co["path"]) / "toy" / "calc.py").write_text("broken")
    checkout(mirror, row["base_commit"], co["path"])
    assert "def mean" in (Path(co["path"]) / "toy" / "calc.py").read_text()


def test_mirror_fetches_missing_commits(tmp_path: Path, toy_task):
    row, remote = toy_task["row"], toy_task["repo_dir"]
    url = f"file://{remote}"
    ensure_mirror(row["repo"], tmp_path / "cache", commits=[row["base_commit"]], remote_url=url)
    (remote / "NEWS").write_text("x")
    git(remote, "add", "NEWS")
    git(remote, "commit", "-q", "-m", "news")
    new = git(remote, "rev-parse", "HEAD")
    manifest = ensure_mirror(row["repo"], tmp_path / "cache", commits=[new], remote_url=url)
    assert has_commit(Path(manifest["mirror"]), new)


def test_checkouts_fetch_a_commit_sampled_after_the_mirror_one_at_a_time(tmp_path: Path, toy_task):
    """A commit the mirror lacks is fetched by the checkout that needs it; two jobs asking at
    once both get it (the second waits for the first's update instead of failing on git's
    ref locks), and a commit the remote lacks is a one-line error."""
    from concurrent.futures import ThreadPoolExecutor

    from swevis.tasks.repos import fetch_commits

    row, remote = toy_task["row"], toy_task["repo_dir"]
    mirror = Path(ensure_mirror(row["repo"], tmp_path / "cache", commits=[row["base_commit"]], remote_url=f"file://{remote}")["mirror"])
    (remote / "NEWS").write_text("x")
    git(remote, "add", "NEWS")
    git(remote, "commit", "-q", "-m", "news")
    new = git(remote, "rev-parse", "HEAD")
    assert not has_commit(mirror, new)
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: fetch_commits(mirror, [new]), range(4)))
    assert has_commit(mirror, new)
    co = checkout_instance({**row, "base_commit": new}, mirror, tmp_path / "checkouts")
    assert (Path(co["path"]) / "NEWS").read_text() == "x"
    with pytest.raises(RepoError, match="lacks commit"):
        fetch_commits(mirror, ["f" * 40])


def test_missing_commit_is_a_clear_error(tmp_path: Path, toy_task):
    row, remote = toy_task["row"], toy_task["repo_dir"]
    with pytest.raises(RepoError, match="lacks commit"):
        ensure_mirror(row["repo"], tmp_path / "cache", commits=["f" * 40], remote_url=f"file://{remote}")


def test_unreachable_remote_fails_fast_and_cleans_up(tmp_path: Path):
    start = time.monotonic()
    with pytest.raises(RemoteUnreachable, match="cannot mirror nobody/nothing"):
        # port 9 (discard) on loopback: nothing listens, the connection is refused at once
        ensure_mirror("nobody/nothing", tmp_path / "cache", remote_url="http://127.0.0.1:9/{repo}.git")
    assert time.monotonic() - start < 20
    assert not list((tmp_path / "cache").glob("*"))


@pytest.mark.slow
def test_clone_timeout_is_enforced(tmp_path: Path):
    import socket
    import threading

    # A server that accepts the connection and never answers: git must give up by itself.
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    conns = []
    threading.Thread(target=lambda: conns.append(server.accept()), daemon=True).start()
    start = time.monotonic()
    try:
        with pytest.raises(RemoteUnreachable, match="did not finish within 3 s|cannot mirror"):
            ensure_mirror(
                "slow/repo", tmp_path / "cache", remote_url=f"http://127.0.0.1:{port}/{{repo}}.git",
                clone_timeout_s=3, stall_timeout_s=2,
            )
    finally:
        server.close()
    assert time.monotonic() - start < 15


def test_a_remote_without_the_repository_is_a_user_error_not_infrastructure(tmp_path: Path):
    with pytest.raises(RepoError, match="cannot mirror nobody/nothing") as caught:
        ensure_mirror("nobody/nothing", tmp_path / "cache", remote_url=f"file://{tmp_path}/missing/{{repo}}.git")
    assert not isinstance(caught.value, InfrastructureError)


def test_a_clone_past_its_wall_clock_limit_is_infrastructure(tmp_path: Path, monkeypatch):
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexec sleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    start = time.monotonic()
    with pytest.raises(InfrastructureError, match="cannot mirror some/repo .*did not finish within 1 s"):
        ensure_mirror("some/repo", tmp_path / "cache", remote_url="https://example.invalid/{repo}.git", clone_timeout_s=1)
    assert time.monotonic() - start < 10


@pytest.mark.parametrize(
    ("remote", "code", "says"),
    [("http://127.0.0.1:9/{repo}.git", 1, "swevis: infrastructure failure: cannot mirror toyorg/toy"),
     ("file:///nonexistent-swevis/{repo}.git", 2, "swevis: error: cannot mirror toyorg/toy")],
    ids=["unreachable", "no-such-repository"],
)
def test_swevis_tasks_checkout_tells_an_unreachable_remote_from_a_missing_repository(tmp_path, toy_task, capsys, remote, code, says):
    import json

    from swevis.cli import main

    (tmp_path / "tasks.jsonl").write_text(json.dumps(toy_task["row"]) + "\n")
    (tmp_path / "config.yaml").write_text(
        f"tasks: {{source: file, path: {tmp_path / 'tasks.jsonl'}, remote_url: '{remote}',"
        f" repo_cache: {tmp_path / 'cache'}, checkout_root: {tmp_path / 'co'}}}\n"
    )
    assert main(["tasks", "checkout", "--config", str(tmp_path / "config.yaml")]) == code
    err = capsys.readouterr().err
    assert err.startswith(says) and "Traceback" not in err
