"""The Docker harness against a real Docker engine: swebench's run_evaluation grades the
bundled sample in the images `swevis images build` makes (no registry, no network)."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path

import pytest
from helpers import git

from swevis.errors import InfrastructureError
from swevis.harness.docker import evaluate_condition_docker
from swevis.sandbox.specs import offline_spec_files
from swevis.harness.validate import validate_docker
from swevis.paths import ConditionKey, eval_path

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def _engine_counts(client, run_id: str) -> int:
    """Containers of this run still on the engine (swebench names them sweb.eval.<id>.<run_id>)."""
    return len([c for c in client.containers.list(all=True) if c.name.endswith("." + run_id)])


def _volumes_left(client, since: int, run_ids: tuple[str, ...]) -> list[str]:
    """Volumes that containers of these runs mounted and that still exist, from the engine's
    events (other users of a shared engine make and drop volumes of their own meanwhile)."""
    until = int(time.time()) + 1
    ours = {e["Actor"]["ID"] for e in client.events(since=since, until=until, decode=True,
                                                      filters={"type": "container", "event": "create"})
            if e["Actor"]["Attributes"].get("name", "").endswith(run_ids)}
    mounted = {e["Actor"]["ID"] for e in client.events(since=since, until=until, decode=True,
                                                         filters={"type": "volume", "event": "mount"})
               if e["Actor"]["Attributes"].get("container") in ours}
    assert ours, "no container of these runs was seen: the events filter is wrong"
    return sorted(mounted & {v.name for v in client.volumes.list()})


def _grade(tmp_path: Path, rows: list[dict], patches: dict[str, str], images: dict, **overrides) -> dict:
    cdir = tmp_path / "cond"
    for row in rows:
        (cdir / row["instance_id"]).mkdir(parents=True, exist_ok=True)
        (cdir / row["instance_id"] / "patch.diff").write_text(patches[row["instance_id"]])
    settings = {**images["settings"], **overrides}
    return evaluate_condition_docker(cdir, rows, model="m", agent="mini", scope="normal", condition="text",
                              settings=settings, mirrors=images["mirrors"])


def _eval(tmp_path: Path, iid: str) -> dict:
    return json.loads(eval_path(tmp_path / "cond", iid).read_text())


@pytest.fixture
def no_network(monkeypatch):
    """IP connections refused in this process (the Docker engine is a Unix socket)."""
    real_connect = socket.socket.connect

    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise OSError(f"network disabled by the test: connect to {address}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)


def test_images_build_is_cached(sample_images, bundled_rows):
    """A second build keeps every image: the content labels match, nothing is rebuilt."""
    from swevis.config import schema_defaults
    from swevis.harness.docker import instance_image_name
    from swevis.sandbox.images import build_images

    settings = sample_images["settings"]
    report = build_images(list(bundled_rows.values()), sample_images["mirrors"],
                          lambda row: instance_image_name(row, settings), schema_defaults("images"),
                          client=sample_images["client"])
    assert [line["built"] for line in report] == [False] * (2 + len(bundled_rows))
    assert {line["id"] for line in report} == {line["id"] for line in sample_images["report"]}


def test_every_gold_resolves_and_every_empty_does_not(sample_images, bundled_rows, tmp_path, no_network):
    """Environment validation of every bundled instance (the study's and the probes') with the official harness, offline."""
    client = sample_images["client"]
    since = int(time.time()) - 1
    report = validate_docker(list(bundled_rows.values()), sample_images["settings"], tmp_path,
                             client_factory=lambda: client, mirrors=sample_images["mirrors"])
    assert report["n"] == len(bundled_rows) == 12 and report["n_valid"] == 12, report["invalid"]
    for iid, verdict in report["instances"].items():
        assert verdict["gold"]["resolved"] is True, iid
        assert verdict["empty"]["resolved"] is False, iid
        assert verdict["empty"]["patch_applied"] is True, iid  # the tests ran and failed
    run_ids = tuple("." + ConditionKey("validation", name, "env", "check").run_id for name in ("gold", "empty"))
    assert [_engine_counts(client, r[1:]) for r in run_ids] == [0, 0]
    assert _volumes_left(client, since, run_ids) == []


def test_the_volume_check_sees_a_volume_left_behind(sample_images):
    """The leftover check above can fail: a container of a run that mounted an anonymous
    volume and was removed without it leaves the volume, and the check names it."""
    client, image = sample_images["client"], sample_images["report"][-1]["name"]
    since = int(time.time()) - 1
    container = client.containers.create(image, "true", name="swevis-test.leftover-check", volumes=["/data"])
    try:
        container.start()
        container.wait()
    finally:
        container.remove(v=False)
    left = _volumes_left(client, since, (".leftover-check",))
    try:
        assert len(left) == 1
    finally:
        for name in left:
            client.volumes.get(name).remove()


def test_broken_patch_is_an_apply_failure(sample_images, bundled_rows, tmp_path):
    row = bundled_rows["swevis-samples__tabulon-305"]
    broken = (
        "diff --git a/tabulon/table.py b/tabulon/table.py\n--- a/tabulon/table.py\n+++ b/tabulon/table.py\n"
        "@@ -1,1 +1,1 @@\n-this line is not in the file\n+nor is this one\n"
    )
    summary = _grade(tmp_path, [row], {row["instance_id"]: broken}, sample_images)
    record = _eval(tmp_path, row["instance_id"])
    assert summary["resolved"] == 0 and summary["infra_failures"] == []
    assert record["patch_applied"] is False and record["resolved"] is False
    assert record["patch_apply"].startswith("patch does not apply")
    assert _engine_counts(sample_images["client"], summary["run_id"]) == 0


HANG = """\
diff --git a/tabulon/__init__.py b/tabulon/__init__.py
--- a/tabulon/__init__.py
+++ b/tabulon/__init__.py
@@ -1,1 +1,3 @@
+import time
+time.sleep(3600)  # a patch whose import never returns
"""


def test_hung_tests_hit_the_timeout(sample_images, bundled_rows, tmp_path):
    """A test run that never ends is stopped at harness.timeout_s and is no verdict; the job
    fails naming the instance, and the container is gone."""
    row = bundled_rows["swevis-samples__tabulon-305"]
    mirror = sample_images["mirrors"][row["repo"]]
    head = subprocess.run(["git", "--git-dir", mirror, "show", f"{row['base_commit']}:tabulon/__init__.py"],
                          capture_output=True, text=True, check=True).stdout.splitlines()[0]
    with pytest.raises(InfrastructureError, match="swevis-samples__tabulon-305.*timed out"):
        _grade(tmp_path, [row], {row["instance_id"]: HANG + f" {head}\n"}, sample_images, timeout_s=4, retries=0)
    assert not eval_path(tmp_path / "cond", row["instance_id"]).exists()  # no verdict written
    assert _engine_counts(sample_images["client"], ConditionKey("m", "mini", "normal", "text").run_id) == 0


def _flask_like_mirror(tmp_path: Path) -> tuple[str, str]:
    """A bare repository with the file swebench reads for pallets/flask 2.3 (requirements/dev.txt,
    which includes another by `-r`): (mirror, commit)."""
    work = tmp_path / "flask"
    (work / "requirements").mkdir(parents=True)
    (work / "requirements" / "dev.txt").write_text("-r tests.txt\nblack==23.1\n")
    (work / "requirements" / "tests.txt").write_text("pytest==7.3.1\n")
    git(work, "init", "-q")
    git(work, "add", ".")
    git(work, "commit", "-qm", "reqs")
    commit = git(work, "rev-parse", "HEAD")
    git(tmp_path, "clone", "-q", "--bare", str(work), str(tmp_path / "flask.git"))
    return str(tmp_path / "flask.git"), commit


def test_a_test_spec_that_reads_github_is_made_offline(tmp_path, no_network):
    """swebench's test spec for pallets/flask 2.3 reads requirements/dev.txt (and its `-r`
    include) from raw GitHub; with a mirror it is made with the network disabled, and without
    one it is a clear infrastructure error, never a trip to the network."""
    from swebench.harness.test_spec.test_spec import make_test_spec

    mirror, commit = _flask_like_mirror(tmp_path)
    row = {"instance_id": "pallets__flask-1", "repo": "pallets/flask", "version": "2.3", "base_commit": commit,
           "environment_setup_commit": commit, "test_patch": "", "problem_statement": ""}
    with offline_spec_files({"pallets/flask": mirror}) as files:
        spec = make_test_spec(row, namespace="swebench")
    assert files.served == [f"pallets/flask@{commit[:12]}:requirements/dev.txt", f"pallets/flask@{commit[:12]}:requirements/tests.txt"]
    assert "pytest==7.3.1" in spec.setup_env_script and "black==23.1" in spec.setup_env_script
    other = {**row, "environment_setup_commit": "f" * 40}  # swebench caches a commit's files in-process
    with offline_spec_files({}), pytest.raises(InfrastructureError, match="pallets/flask, which has no mirror"):
        make_test_spec(other, namespace="swebench")
