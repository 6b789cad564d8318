"""Docker images for the bundled sample, built without any image registry.

SWE-bench's own images come from Docker Hub (prebuilt) or from swebench's builders, which
start FROM ubuntu and download conda: neither works where no registry is reachable. The
bundled repositories need only Python, pytest and git, all in Debian's archive, so:

1. base:     a minimal Debian root filesystem made by `debootstrap` (images.suite, images.mirror,
             images.packages) and turned into an image by `docker import`;
2. env:      on top, the layout swebench's eval script expects: `/opt/miniconda3/bin/activate`
             and a `testbed` environment (a venv with the system's site packages; conda is not in
             Debian's archive, so `conda activate NAME` is a shell function that activates the
             venv), activated for login shells and BASH_ENV through /root/.bashrc;
3. instance: the repository's checkout at base_commit (with its git history) in /testbed, tagged
             with the name swebench's run_evaluation looks up for the configured namespace and
             tag (so the harness grades in it without pulling) and that the agents' sandbox runs.

Each image carries a label with the hash of everything that decides its content (the recipe,
the parent image's id, the commit); an image whose label matches is kept, so a rebuild with
nothing changed costs a few inspections.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from swevis.errors import InfrastructureError, SwevisError
from swevis.tasks.bundled import is_bundled
from swevis.tasks.repos import checkout

log = logging.getLogger(__name__)

CONTENT_LABEL = "org.swevis.content"
RECIPE_VERSION = 1  # part of every content hash: bump when a recipe below changes

# conda is not in Debian's archive: `conda activate NAME` activates the venv NAME instead.
CONDA_SHIM = """\
# swevis image: swebench's eval script runs `source /opt/miniconda3/bin/activate; conda activate testbed`.
conda() {
  if [ "$1" = activate ]; then . "/opt/miniconda3/envs/$2/bin/activate"; else echo "conda $1: not in this image" >&2; return 1; fi
}
"""

ENV_DOCKERFILE = """\
FROM {base}
COPY activate /opt/miniconda3/bin/activate
RUN python3 -m venv --system-site-packages /opt/miniconda3/envs/testbed \\
 && echo 'source /opt/miniconda3/bin/activate && conda activate testbed' >> /root/.bashrc \\
 && git config --system --add safe.directory /testbed
ENV PATH=/opt/miniconda3/envs/testbed/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# swebench's container runs `tail -f /dev/null` as PID 1, which ignores SIGTERM: `docker stop`
# waited its full 15 s grace for every evaluation. Nothing in the container has state to save.
STOPSIGNAL SIGKILL
"""

INSTANCE_DOCKERFILE = """\
FROM {env}
COPY testbed /testbed
WORKDIR /testbed
"""


class ImageBuildError(InfrastructureError):
    """An image could not be built (no engine, debootstrap or docker failed)."""


def _content_hash(*parts: Any) -> str:
    return hashlib.sha256(json.dumps([RECIPE_VERSION, *parts], sort_keys=True).encode()).hexdigest()


def _current(client: Any, name: str, content: str) -> Any | None:
    """The image `name` if it exists and was built from `content`."""
    import docker  # here, not at the top: agent jobs import this module only for image names

    try:
        image = client.images.get(name)
    except docker.errors.ImageNotFound:
        return None
    return image if (image.labels or {}).get(CONTENT_LABEL) == content else None


def _docker_error(exc: Exception) -> str:
    """Docker's own words, one line."""
    text = getattr(exc, "explanation", None) or getattr(exc, "msg", None) or str(exc)
    return " ".join(str(text).split())[:400]


def build_base(client: Any, settings: dict[str, Any], work_dir: Path) -> tuple[Any, bool]:
    """The debootstrapped base image: (image, built now)."""
    import docker
    content = _content_hash("base", settings["suite"], settings["mirror"], sorted(settings["packages"]))
    name = f"swevis-base:{content[:12]}"
    image = _current(client, name, content)
    if image is not None:
        return image, False
    if shutil.which("debootstrap") is None:
        raise ImageBuildError("debootstrap is not installed (Debian: apt-get install debootstrap)")
    if os.geteuid() != 0:
        raise ImageBuildError("debootstrap needs root to build the base image")
    work_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=work_dir, prefix="rootfs-") as rootfs:
        log.info("debootstrap %s into %s (a few minutes)", settings["suite"], rootfs)
        cmd = ["debootstrap", "--variant=minbase", "--include=" + ",".join(settings["packages"]),
               settings["suite"], rootfs, settings["mirror"]]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            last = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or ["no output"]
            raise ImageBuildError(f"debootstrap {settings['suite']} failed: {last[0]}")
        for cache in ("var/cache/apt/archives", "var/lib/apt/lists"):
            shutil.rmtree(Path(rootfs) / cache, ignore_errors=True)
        tar = Path(rootfs + ".tar")
        try:
            subprocess.run(["tar", "-C", rootfs, "-cf", str(tar), "."], check=True, capture_output=True)
            repository, tag = name.split(":")
            client.api.import_image(
                src=str(tar), repository=repository, tag=tag, changes=[f"LABEL {CONTENT_LABEL}={content}", 'CMD ["bash"]']
            )
        except docker.errors.APIError as exc:
            raise ImageBuildError(f"docker import of {name} failed: {_docker_error(exc)}") from None
        finally:
            tar.unlink(missing_ok=True)
    return client.images.get(name), True


def _context(dockerfile: str, files: Path | None = None, arcname: str = "", **texts: str) -> io.BytesIO:
    """A build context as an in-memory tar: the Dockerfile, small text files and, optionally, a folder."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, text in {"Dockerfile": dockerfile, **texts}.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            tar.addfile(info, io.BytesIO(data))
        if files is not None:
            tar.add(str(files), arcname=arcname)
    buf.seek(0)
    return buf


def _build(client: Any, name: str, content: str, context: io.BytesIO) -> Any:
    import docker

    try:
        image, _ = client.images.build(
            fileobj=context, custom_context=True, tag=name, labels={CONTENT_LABEL: content}, rm=True, forcerm=True,
            network_mode="none",
        )
    except (docker.errors.BuildError, docker.errors.APIError) as exc:
        raise ImageBuildError(f"docker build of {name} failed: {_docker_error(exc)}") from None
    return image


def build_env(client: Any, base: Any) -> tuple[Any, bool]:
    """The testbed environment image on top of `base`: (image, built now)."""
    content = _content_hash("env", base.id, ENV_DOCKERFILE, CONDA_SHIM)
    name = f"swevis-env:{content[:12]}"
    image = _current(client, name, content)
    if image is not None:
        return image, False
    return _build(client, name, content, _context(ENV_DOCKERFILE.format(base=base.id), activate=CONDA_SHIM)), True


def build_instance(client: Any, env: Any, row: dict[str, Any], mirror: str, name: str, work_dir: Path) -> tuple[Any, bool]:
    """The image of one instance: the checkout at base_commit in /testbed, tagged `name`."""
    content = _content_hash("instance", env.id, row["repo"], row["base_commit"], INSTANCE_DOCKERFILE)
    image = _current(client, name, content)
    if image is not None:
        return image, False
    work_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=work_dir, prefix="instance-") as tmp:
        repo = checkout(mirror, row["base_commit"], Path(tmp) / "testbed")
        # a --shared clone borrows the mirror's objects: the image needs its own copy
        subprocess.run(["git", "repack", "-a", "-d", "-q"], cwd=repo, check=True)
        (repo / ".git" / "objects" / "info" / "alternates").unlink(missing_ok=True)
        context = _context(INSTANCE_DOCKERFILE.format(env=env.id), repo, "testbed")
    return _build(client, name, content, context), True


def build_images(
    rows: list[dict[str, Any]],
    mirrors: dict[str, str],
    image_name: Callable[[dict[str, Any]], str],
    settings: dict[str, Any],
    client: Any = None,
) -> list[dict[str, Any]]:
    """Build (or keep) the base, env and instance images of `rows`; one report row per image.

    `image_name(row)` is the instance image's name as the harness looks it up; `settings` is
    the config's validated `images` section."""
    foreign = sorted({r["repo"] for r in rows if not is_bundled(r["repo"])})
    if foreign:
        raise SwevisError(
            f"swevis builds images only for the bundled sample; {foreign[0]} uses SWE-bench's prebuilt images "
            "(harness.namespace: swebench) or swebench's own builders (harness.namespace: null)"
        )
    import docker

    try:
        client = client or docker.from_env()
        client.ping()
    except Exception as exc:  # docker.errors.DockerException and transport errors
        raise ImageBuildError(f"no Docker engine reachable: {_docker_error(exc)}") from None
    work_dir = Path(settings["work_dir"]).resolve()
    report = []

    def step(what: str, name: str, build: Callable[[], tuple[Any, bool]]) -> Any:
        start = time.monotonic()
        image, built = build()
        report.append({"image": what, "name": (image.tags or [name])[0], "id": image.id, "built": built,
                       "seconds": round(time.monotonic() - start, 1)})
        log.info("%s %s (%s)", "built" if built else "kept", name, image.id[:19])
        return image

    base = step("base", "swevis-base", lambda: build_base(client, settings, work_dir))
    env = step("env", "swevis-env", lambda: build_env(client, base))
    for row in rows:
        name = image_name(row)
        step(row["instance_id"], name, lambda row=row, name=name: build_instance(
            client, env, row, mirrors[row["repo"]], name, work_dir))
    return report


# ---------------------------------------------------------------- image names


def docker_environment_id(settings: dict[str, Any]) -> str:
    """The images of a run as configured: namespace and tags (what a report names; an
    evaluation is keyed by the image itself, instance_environment_ids)."""
    return f"docker:{settings['namespace']}:instance-{settings['instance_image_tag']}:env-{settings['env_image_tag']}"


def instance_image_name(row: dict[str, Any], settings: dict[str, Any], mirrors: dict[str, str] | None = None) -> str:
    """The instance image swebench grades `row` in, named as its run_evaluation names it
    (its test spec, made offline: files it would fetch come from `mirrors`)."""
    from swebench.harness.test_spec.test_spec import make_test_spec

    from swevis.sandbox.specs import offline_spec_files, register_bundled_specs  # imports swebench (~2 s)

    register_bundled_specs([row])
    try:
        with offline_spec_files(mirrors or {}):
            spec = make_test_spec(
                row, namespace=settings["namespace"], instance_image_tag=settings["instance_image_tag"],
                env_image_tag=settings["env_image_tag"],
            )
    except KeyError:
        raise SwevisError(
            f"{row['instance_id']}: swebench has no image spec for {row['repo']} version {row.get('version')}"
        ) from None
    return spec.instance_image_key
