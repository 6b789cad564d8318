"""Shared fixtures. Tests never reach the network: datasets and hubs are forced offline."""

from __future__ import annotations

import copy
import os
import textwrap
from collections.abc import Iterator
from pathlib import Path

# Offline before any module that reads these at its import is imported, and before
# tests/snakemake_fork.py (imported below) takes the environment the job zygote starts in.
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest  # noqa: E402
from cpu_durations import (  # noqa: E402, F401  the --cpu-durations option's hooks
    pytest_addoption,
    pytest_runtest_logreport,
    pytest_runtest_logstart,
    pytest_runtest_makereport,
    pytest_terminal_summary,
)
from helpers import engine_unavailable, git  # noqa: E402
from hypothesis import settings  # noqa: E402
from scripted_server import ScriptedServer  # noqa: E402

from swevis.index import build_index  # noqa: E402
from swevis.tasks.bundled import bundled_set_names, load_bundled_set  # noqa: E402
from swevis.tasks.repos import checkout_instance, ensure_mirror  # noqa: E402

# No per-example deadline: on a loaded machine (two xdist workers on two shared cores) one
# example can take over hypothesis's default 200 ms, and a timing failure is not a finding.
settings.register_profile("swevis", deadline=None)
settings.load_profile("swevis")


@pytest.fixture(scope="session", autouse=True)
def session_user_cache(tmp_path_factory) -> Iterator[Path]:
    """The session's own user cache folder: SWEVIS_CACHE_DIR, which swevis.fsutil.user_cache_dir
    reads and every command a test starts inherits. The Qwen3 tokenizer's fast-load file and
    `swevis index`'s default databases go there, never into the user's ~/.cache/swevis. The
    pytest-xdist workers of one run share it (their temporary folders' parent), so the
    fast-load file is built once a run, not once a worker (about 3 CPU s each)."""
    root = tmp_path_factory.getbasetemp()
    folder = (root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root) / "user-cache"
    folder.mkdir(exist_ok=True)
    before = os.environ.get("SWEVIS_CACHE_DIR")
    os.environ["SWEVIS_CACHE_DIR"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("SWEVIS_CACHE_DIR", None)
    else:
        os.environ["SWEVIS_CACHE_DIR"] = before


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's hook, which reads the groups
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (`make test`: -n 2 --dist loadgroup) the engine tests share one
    worker, in turn: they use one Docker daemon and one SLURM node, and some check that
    nothing of theirs is left on the engine, which another test's containers would spoil.
    They go first, so their waiting on the engines overlaps the other worker's tests; the
    other slow tests next, so that the many short ones fill both workers at the end instead of
    one long test running alone while the other worker idles."""
    def on_an_engine(item) -> bool:
        return bool(item.get_closest_marker("docker") or item.get_closest_marker("slurm"))

    for item in items:
        if on_an_engine(item):
            item.add_marker(pytest.mark.xdist_group("engines"))
    items.sort(key=lambda item: (not on_an_engine(item), item.get_closest_marker("slow") is None))


def pytest_collection_finish(session):
    """Stop a `--dist loadgroup` run in which pytest-xdist lost the groups: it marks a grouped
    test by a suffix to its node id, which pytest 9.2's node ids drop without a word
    (pytest-xdist issue 1386), and the engine tests would then run on both workers at once.
    The worker's error reaches the terminal as xdist's INTERNALERROR naming a test without its
    group; the run fails either way."""
    if not getattr(session.config.option, "loadgroup", False):
        return
    lost = [item.nodeid for item in session.items if item.get_closest_marker("xdist_group") and "@" not in item.nodeid]
    if lost:
        raise pytest.UsageError(f"pytest-xdist did not group {len(lost)} tests (first: {lost[0]}); see pyproject.toml's pytest pin")


def pytest_sessionfinish(session):
    """Stop the forkserver that tests/snakemake_fork.py starts and wait for it: it reaps the
    Snakemake runs it forked, so their CPU counts in this process's children's time, and so in
    `time make test` and make measurements' CPU seconds. Left to exit on its own, it is an
    orphan nobody waits for, and the runs' CPU (most of the suite's) is counted nowhere."""
    from multiprocessing import forkserver

    import snakemake_fork

    forkserver._forkserver._stop()  # CPython's own stop (3.11 to 3.13); a no-op where none started
    snakemake_fork.stop_zygote()


@pytest.fixture
def toy_task(tmp_path: Path) -> dict:
    """A tiny git repository with one bug, its gold patch and test patch, as a SWE-bench row.

    Returns {"row": ..., "repo_dir": Path (non-bare repo usable as a mirror)}.
    """
    repo = tmp_path / "toy"
    (repo / "toy").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "toy" / "__init__.py").write_text("")
    (repo / "toy" / "calc.py").write_text(
        textwrap.dedent(
            '''\
            def mean(values):
                """Arithmetic mean of a non-empty sequence."""
                return sum(values) / (len(values) + 1)


            def total(values):
                return sum(values)
            '''
        )
    )
    (repo / "tests" / "test_calc.py").write_text(
        "from toy.calc import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n"
    )
    (repo / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    calc = repo / "toy" / "calc.py"
    calc.write_text(calc.read_text().replace("(len(values) + 1)", "len(values)"))
    patch = git(repo, "diff") + "\n"
    git(repo, "checkout", "-q", "--", ".")
    test_file = repo / "tests" / "test_calc.py"
    test_file.write_text(
        test_file.read_text().replace("from toy.calc import total", "from toy.calc import mean, total")
        + "\n\ndef test_mean():\n    assert mean([2, 4]) == 3\n"
    )
    test_patch = git(repo, "diff") + "\n"
    git(repo, "checkout", "-q", "--", ".")
    row = {
        "instance_id": "toyorg__toy-1",
        "repo": "toyorg/toy",
        "base_commit": base,
        "problem_statement": "mean() is wrong: mean([2, 4]) returns 2.0 instead of 3.",
        "hints_text": "",
        "created_at": "2025-01-01T00:00:00Z",
        "patch": patch,
        "test_patch": test_patch,
        "FAIL_TO_PASS": ["tests/test_calc.py::test_mean"],
        "PASS_TO_PASS": ["tests/test_calc.py::test_total"],
        "version": "0.1",
        "environment_setup_commit": base,
        "test_cmd": "python -m pytest -rA -p no:cacheprovider tests/test_calc.py",
        "log_parser": "pytest",
    }
    return {"row": row, "repo_dir": repo}


@pytest.fixture(scope="session")
def bundled_rows() -> dict[str, dict]:
    """Every bundled Python instance by id (the study's sample and the probe sets), loaded (and
    its commits verified) once a session. The polyglot set's Java and JavaScript rows are left
    out: the sample's Docker images hold Python only (tests/tasks/test_polyglot_sample.py and
    test_bundled_sample.py cover those rows)."""
    return {
        row["instance_id"]: row
        for name in bundled_set_names() for row in load_bundled_set(name)
        if row.get("language", "python") == "python"
    }


@pytest.fixture(scope="session")
def bundled_mirror(bundled_rows, tmp_path_factory):
    """bundled_mirror(iid) -> (row, mirror): a bare mirror is only read by checkouts, so one a session serves all.

    ``cache_dir`` builds a mirror of its own there, for a test that scans every file under its tmp_path.
    """
    shared = tmp_path_factory.mktemp("mirrors")

    def get(iid: str, cache_dir: Path | None = None) -> tuple[dict, str]:
        row = copy.deepcopy(bundled_rows[iid])
        return row, ensure_mirror(row["repo"], cache_dir or shared, commits=[row["base_commit"]])["mirror"]

    return get


@pytest.fixture(scope="module")
def instance(bundled_mirror):
    """(row, mirror) of swevis-samples__ledgerkit-117, the bundled instance the run tests use."""
    return bundled_mirror("swevis-samples__ledgerkit-117")


@pytest.fixture(scope="session")
def bundled_checkout(bundled_mirror):
    """bundled_checkout(iid, root, index=False) -> {row, mirror, manifest, pristine, db, root}: a checkout under root.

    ``index=True`` also indexes it into root/index.sqlite (``index_options`` as the config's index section).
    """

    def get(iid: str, root: Path, *, index: bool = False, index_options: dict | None = None) -> dict:
        row, mirror = bundled_mirror(iid)
        manifest = checkout_instance(row, mirror, root / "checkouts")
        db = root / "index.sqlite"
        if index:
            build_index(manifest["path"], db, options=index_options)
        return {"row": row, "mirror": mirror, "manifest": manifest, "pristine": manifest["path"], "db": str(db), "root": root}

    return get


@pytest.fixture
def scripted_server():
    """scripted_server(*script, **options) -> a started ScriptedServer on 127.0.0.1, stopped after the test."""
    servers: list[ScriptedServer] = []

    def start(*args, **kwargs) -> ScriptedServer:
        servers.append(ScriptedServer(*args, **kwargs).start())
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def docker_client():
    """A Docker client whose engine answers; the test skips with the reason where none does,
    and fails under SWEVIS_REQUIRE_ENGINES=1 (CI), where a skip must not look like a pass."""
    docker = pytest.importorskip("docker")
    try:
        client = docker.from_env()
        client.ping()
    except Exception as exc:  # docker.errors.DockerException and transport errors
        engine_unavailable(f"no Docker engine answers ({exc.__class__.__name__}); start dockerd to run the engine tests")
    return client


@pytest.fixture(scope="session")
def sample_images(bundled_rows, bundled_mirror, tmp_path_factory, docker_client):
    """The bundled sample's Docker images (swevis.sandbox.images), built or kept once a session:
    {"settings": harness section (namespace swevis), "mirrors": {repo: mirror}, "client", "report"}.

    Skips with the reason where no Docker engine answers, unless SWEVIS_REQUIRE_ENGINES=1
    (CI sets it), where a missing engine fails: a skipped engine test must not look like a pass."""
    from swevis.config import filled_section, schema_defaults
    from swevis.harness.docker import instance_image_name
    from swevis.sandbox.images import ImageBuildError, build_images

    client = docker_client
    settings = filled_section("harness", {"kind": "docker", "namespace": "swevis", "cache_dir": None})
    mirrors = {}
    for iid in bundled_rows:
        row, mirror = bundled_mirror(iid)
        mirrors[row["repo"]] = mirror
    images = {**schema_defaults("images"), "work_dir": str(tmp_path_factory.mktemp("images"))}
    rows = list(bundled_rows.values())
    try:
        report = build_images(rows, mirrors, lambda row: instance_image_name(row, settings), images, client=client)
    except ImageBuildError as exc:
        engine_unavailable(f"the sample's images cannot be built here: {exc}")
    return {"settings": settings, "mirrors": mirrors, "client": client, "report": report}
