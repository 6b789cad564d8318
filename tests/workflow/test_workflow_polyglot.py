"""examples/polyglot.yaml end to end: the agent matrix (mini; LET and Prometheus under text
and r3) on the bundled Java and JavaScript instances it names, played back, graded by the
local harness with the repositories' own tests (javac/java, node --test); Prometheus's
retrieval walks the Java and JavaScript knowledge graph. Where the JDK or Node.js is missing
the test skips with the reason (.ci/run installs both and requires it)."""

import json
import os
import re
import shlex
import shutil
import subprocess
import warnings
from pathlib import Path

import polars as pl
import pytest
import yaml

from helpers import PROJECT_ROOT, engine_unavailable, run_snakemake

EXAMPLE = PROJECT_ROOT / "examples" / "polyglot.yaml"
TOOLS = ("javac", "java", "node")
# The JVM's short-run settings: the client compiler only and one GC thread. verso's tests,
# compiled and run (bash run-tests.sh), took 1.2 CPU s instead of 2.4; the agents, the
# validation and the grading run them about thirty times. javac also gets one compiler thread
# (0.05 CPU s less a compile; `java` gains nothing). Results are the JDK's either way.
JVM_FLAGS = {"java": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
             "javac": "-J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC -J-XX:CICompilerCount=1"}
# what each Prometheus trajectory's retrieval stage calls: a sub-query, graph tools, remember
RETRIEVAL_TOOLS = {"subquery", "find_nodes", "callers", "tests_for", "find_text", "remember"}
# a definition the graph shows, under the file it is in ("== src/query.js\nnode 12: function
# decodeComponent ...", or a caller's "  12-32 node 13: function parseQuery")
GRAPH_NODE = r"== \S+{ext}\n\s*(?:\d+-\d+ )?node \d+: (?:class|method|function) "
SOURCE_EXTENSION = {"verso": ".java", "routelet": ".js"}
# the runner of each repository's own test command, which its regression tests run with
OWN_RUNNER = {"verso": "bash run-tests.sh", "routelet": "node --test"}


def javac_class_archive(folder: Path) -> Path | None:
    """A dynamic class-data-sharing archive of the classes javac loads, dumped once by compiling
    a tiny class: each javac then maps them instead of loading them (a compile of verso's sources
    took 0.78 CPU s instead of 0.99; javac runs about 25 times). Built before the run, never by the
    concurrent jobs, and used only once a JVM has mapped it (-Xshare:on fails on an archive it
    cannot map; a truncated one crashes the JVM that maps it). None, with a warning, otherwise:
    javac then runs without one."""
    cds = folder / "cds"
    cds.mkdir()
    (cds / "Tiny.java").write_text("import java.util.List;\n\nclass Tiny {\n"
                                   "    public static void main(String[] args) {\n"
                                   "        List.of(args).forEach(arg -> System.out.println(arg));\n    }\n}\n")
    archive = cds / "javac.jsa"
    javac = [shutil.which("javac"), *JVM_FLAGS["javac"].split()]
    steps = ([*javac, f"-J-XX:ArchiveClassesAtExit={archive}", "-d", ".", "Tiny.java"],
             [*javac, f"-J-XX:SharedArchiveFile={archive}", "-J-Xshare:on", "-version"])
    for step in steps:
        proc = subprocess.run(step, cwd=cds, capture_output=True, text=True)
        if proc.returncode != 0:
            warnings.warn(f"javac runs without a class-data archive: {shlex.join(step[1:])} exited {proc.returncode}: "
                          f"{(proc.stdout + proc.stderr)[-500:]}")
            return None
    return archive


def short_run_jvm(folder: Path) -> str:
    """A folder of `java` and `javac` that run the JDK's own with JVM_FLAGS, javac with its class
    archive (it goes on PATH after the interpreter's folder, as the local harness and the agents'
    commands see it). Results are the JDK's either way: a JVM that cannot map the archive runs
    without it (-Xshare:auto)."""
    archive = javac_class_archive(folder)
    sharing = {"javac": f" -J-XX:SharedArchiveFile={archive}" if archive else ""}
    for tool, flags in JVM_FLAGS.items():
        flags += sharing.get(tool, "")
        script = folder / tool
        script.write_text(f'#!/bin/sh\nexec {shutil.which(tool)} {flags} "$@"\n')
        script.chmod(0o755)
    return str(folder)


def check_prometheus_walks_the_graph(traj: dict, instance: str) -> None:
    """A Prometheus trajectory on a polyglot instance: its retrieval stage asks a sub-query (a
    miss), calls the graph tools and is shown definitions of the repository's language, then
    remembers; the generation's sub-query in other words is a semantic memory hit; verified."""
    where = (traj["condition"], instance)
    retrieve_tools = {s["tool"] for s in traj["steps"] if s["phase"] == "retrieve"}
    assert RETRIEVAL_TOOLS <= retrieve_tools, (*where, retrieve_tools)
    observed = "\n".join(m["content"] for m in traj["messages"]
                         if m["phase"] == "retrieve" and m["role"] == "user" and isinstance(m["content"], str))
    ext = SOURCE_EXTENSION[instance.split("__")[1].split("-")[0]]
    assert re.search(GRAPH_NODE.format(ext=re.escape(ext)), observed), where
    asked = [(s["phase"], s["observation"]["memory"]["kind"]) for s in traj["steps"] if s["tool"] == "subquery"]
    assert asked == [("retrieve", "miss"), ("generate", "semantic")], where
    assert traj["route"] == "verified", where


def check_prometheus_regression_ran(traj: dict, instance: str) -> None:
    """A verified Prometheus trajectory's regression tests ran with the repository's own runner,
    and passed: verso's run-tests.sh, given the test classes, prints a PASS line for each test
    the record names (a test id `src/test/java/verso/VersionTest.java::VersionTest::m` is
    `verso.VersionTest.m`)."""
    where = (traj["condition"], instance)
    reg = traj["vote"]["verifications"][-1]["regression"]
    repo = instance.split("__")[1].split("-")[0]
    assert (reg["command"] or "").startswith(OWN_RUNNER[repo] + " "), (*where, reg)
    ran = reg["tests"] if repo == "verso" else reg["tests"] + reg["files"]
    assert reg["returncode"] == 0 and reg["passed"] is True and ran, (*where, reg)
    for test_id in reg["tests"] if repo == "verso" else []:
        path, *_, method = test_id.split("::")
        test_class = path.removeprefix("src/test/java/").removesuffix(".java").replace("/", ".")
        assert f"PASS {test_class}.{method}\n" in reg["output"], (*where, test_id, reg["output"])


@pytest.mark.slow
def test_polyglot_example_resolves_every_instance_by_language(tmp_path: Path, tmp_path_factory):
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        engine_unavailable(f"{', '.join(missing)} not on PATH: the polyglot set's tests need a JDK and Node.js "
                           "(Debian: apt-get install default-jdk-headless nodejs)")
    study = yaml.safe_load(EXAMPLE.read_text())
    study["results_dir"] = "results"
    (tmp_path / "polyglot.yaml").write_text(yaml.safe_dump(study))
    shutil.copy(PROJECT_ROOT / "config.yaml", tmp_path / "config.yaml")  # present, as in a checkout; not read
    path = f"{short_run_jvm(tmp_path_factory.mktemp('jvm'))}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
    proc = run_snakemake(tmp_path, "--configfile", str(tmp_path / "polyglot.yaml"), "--",
                         "results/table1.csv", "results/localization.csv", env={"PATH": path})
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    table = pl.read_csv(tmp_path / "results" / "table1.csv")
    assert table.select("agent", "scope").rows() == [("let", "normal"), ("prometheus", "normal")]
    for row in table.select("acc_mini", "acc_text", "acc_r3", "n_min", "n_invalid").rows():
        assert row == (100.0, 100.0, 100.0, 2, 0)
    for condition in ("text", "r3"):
        for instance in study["tasks"]["instance_ids"]:
            run = tmp_path / "results" / "runs" / "qwen3.5" / "prometheus-normal" / condition / instance
            traj = json.loads((run / "traj.json").read_text())
            check_prometheus_walks_the_graph(traj, instance)
            check_prometheus_regression_ran(traj, instance)
    localization = pl.read_csv(tmp_path / "results" / "localization.csv")
    study_rows = localization.filter(pl.col("sample") == "study")
    assert set(study_rows["language"]) == {"all", "java", "javascript"}
    assert study_rows.filter((pl.col("language") != "all") & (pl.col("k") == 1) & (pl.col("level") == "file"))[
        "n_instances"].to_list() == [1, 1]
